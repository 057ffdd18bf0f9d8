"""pyshim.builders.trace: libpyshim_trace.so builds warning-free against the real headers, is
rebuilt only when its inputs change, exports only wrappers, and costs nothing when off:
the shim's own libcuda.so.1 holds none of its code. Also measures the per-call cost."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from pyshim.builders import trace as build_trace
from pyshim.codegen import trace as codegen
from pyshim.codegen.common import load_table
from pyshim.paths import REPO_DIR, build_dir
from pyshim.runner import launcher, tracing

OVERHEAD_C = REPO_DIR / "tests" / "trace" / "overhead.c"


@pytest.fixture(scope="module")
def library() -> Path:
    return build_trace.build_trace()


def _nm(path: Path, *flags: str) -> list[tuple[str, str]]:
    out = subprocess.run(["nm", *flags, str(path)], capture_output=True, text=True, check=True)
    rows = []
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            rows.append((parts[-2], parts[-1]))
    return rows


def test_unchanged_inputs_are_not_rebuilt(library: Path) -> None:
    before = library.stat().st_mtime_ns
    assert build_trace.build_trace() == library
    assert library.stat().st_mtime_ns == before


def test_exports_exactly_the_wrappers_and_dlsym(library: Path) -> None:
    exported = {name for kind, name in _nm(library, "-D", "--defined-only") if kind == "T"}
    symbols = set()
    for api in ("driver", "runtime"):
        doc = load_table(api)
        every = {**doc["entry_points"], **doc.get("extra_entry_points", {})}
        symbols |= {s for e in every.values() for s in e["symbols"]}
    only_12 = set(load_table("cuda12")["symbols_only_in_12"])
    assert exported == symbols | only_12 | set(codegen.RUNTIME_HOOKS) | {"dlsym"}


def test_libcuda_holds_no_tracing_code(library: Path) -> None:
    launcher.ensure_built("cpu")  # the shim's libraries, if not built yet
    libcuda = build_dir() / "lib" / "libcuda.so.1"
    # the tracer's own functions (helpers, export-table trampolines) and data, by their
    # distinctive names (file-local names such as `lock` exist in both and say nothing)
    tracer_own = {name for _kind, name in _nm(library, "--defined-only")
                  if name.startswith(("pt_", "tramp_", "pyshim_tracer_", "call_slot"))}
    assert {"pt_begin", "pt_finish", "pt_tally", "call_slot", "tramp_3_2",
            "pyshim_tracer_real_cuMemAlloc_v2"} <= tracer_own
    in_libcuda = {name for _kind, name in _nm(libcuda)}
    assert not tracer_own & in_libcuda
    assert "dlsym" not in {n for k, n in _nm(libcuda, "-D", "--defined-only")}
    # and nothing loads it unless asked
    env = launcher.program_env("cpu", None, {})
    assert "libpyshim_trace" not in env["LD_PRELOAD"]


def _overhead_binary(tmp_path: Path) -> Path:
    from pyshim.tables.fetch import include_dir

    exe = tmp_path / "overhead"
    lib = build_dir() / "lib"
    cmd = ["cc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
           f"-I{include_dir('cuda13-runtime')}", str(OVERHEAD_C), "-o", str(exe),
           f"-L{lib}", "-l:libcuda.so.1"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def _ns_per_call(stdout: str) -> dict[str, float]:
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r"^(cu\w+) ([\d.]+)$", stdout, re.M)}


def test_per_call_overhead(library: Path, tmp_path: Path) -> None:
    launcher.ensure_built("cpu")  # the shim's libraries, if not built yet
    exe = _overhead_binary(tmp_path)
    n = 20000
    base = launcher.program_env("cpu", None, dict(os.environ))
    bare = subprocess.run([str(exe), str(n)], capture_output=True, text=True, env=base,
                          timeout=120)
    assert "PASS overhead version=13000" in bare.stdout, bare.stdout + bare.stderr
    log = tmp_path / "overhead.trace"
    env = tracing.trace_environment(str(log), base)
    traced = subprocess.run([str(exe), str(n)], capture_output=True, text=True, env=env,
                            timeout=120)
    assert "PASS overhead version=13000" in traced.stdout, traced.stdout + traced.stderr
    text = log.read_text()
    # one line per call, nothing lost
    assert text.count("] cuDriverGetVersion(driverVersion=0x") == n
    assert text.count("] cuCtxGetCurrent(pctx=0x") == n
    off, on = _ns_per_call(bare.stdout), _ns_per_call(traced.stdout)
    print(f"\nper-call ns, tracing off: {off}; on (to a file): {on}")
    for name, ns in on.items():
        assert ns > off[name]  # a line per call: formatting and a write(2)
