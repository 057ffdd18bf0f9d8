"""The first run (issue 23), side by side: cold vs warm module load, the first launch of one
kernel of a huge module (cold, at the opt and fast tiers) vs warm, `pyshim precompile`
(time, kernels per second, cache size), `pyshim check` (scan vs --deep) and the lexer +
parser's lines per second on the biggest real module here.

Modules: CuPy's CUB fat binary (cupy/cuda/cub*.so in $PYSHIM_CLIENTS_VENV, default
/work/venvs/clients: 665k PTX lines, 383 kernels; left out with a note where CuPy is not
installed) and a held-out many-kernel program (gen_many.py through nvcc: 240 kernels, one
launched). ggml is not built here (an hour on 2 cores): these stand in for it. Every
measurement runs in a fresh process with its own empty kernel cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import build, gen_many
from benchmarks.context import Context
from benchmarks.items import BenchError, Item, item, median
from pyshim.kernels import lazy

PARSE_BUDGET = 200_000.0
ROOT = Path(__file__).resolve().parents[1]

# child: loads a module cold, one of its kernels cold, and both again (warm); prints times
_LOAD = r"""
import json, sys, time
from pyshim.kernels import lazy, loader
data = open(sys.argv[1], "rb").read()
kernel = int(sys.argv[2])
t0 = time.perf_counter(); m = loader.load_module(data, "cpu-wave64"); t1 = time.perf_counter()
ptx = loader.extract_ptx(data).encode()
name = m.kernels[kernel]
req = lazy.encode_request(loader._lazy_module_key(ptx, "cpu-wave64"), name) if m.lazy else data
t2 = time.perf_counter(); k = loader.load_module(req, "cpu-wave64"); t3 = time.perf_counter()
print(json.dumps({"module_s": t1 - t0, "kernel_s": t3 - t2, "cached": m.cached or k.cached,
                  "kernels": len(m.kernels), "lazy": m.lazy, "tier": k.stats.get("tier"),
                  "compile_s": k.stats.get("compile_seconds", 0.0)}))
"""

_PARSE = r"""
import json, sys, time
from pyshim.kernels import loader
from pyshim.ptx.frontend.parser import parse
text = loader.extract_ptx(open(sys.argv[1], "rb").read())
t0 = time.process_time(); m = parse(text); t1 = time.process_time()
print(json.dumps({"lines": text.count("\n") + 1, "s": t1 - t0,
                  "kernels": len(m.kernels), "entries": text.count(".entry ")}))
"""


def _env(cache: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYSHIM_CACHE"] = cache
    env["PYSHIM_SYSTEM_CACHE"] = ""
    env.update(extra)
    return env


def _child(code: str, args: list[str], env: dict[str, str], timeout: float = 1800) -> dict:
    res = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         env=env, timeout=timeout)
    if res.returncode != 0:
        raise BenchError(f"first-run child failed:\n{res.stderr.strip()[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def cub_library() -> Path | None:
    venv = Path(os.environ.get("PYSHIM_CLIENTS_VENV", "/work/venvs/clients"))
    found = sorted(venv.glob("lib/python3*/site-packages/cupy/cuda/cub.cpython-*.so"))
    return found[0] if found else None


def cub_module() -> Path | None:
    """The fat binary container of CuPy's CUB extension, extracted once into build/bench."""
    found = [p for p in [cub_library()] if p is not None]
    if not found:
        return None
    out = build.out_dir() / "cub_module.fatbin"
    if not out.exists() or out.stat().st_mtime < found[0].stat().st_mtime:
        from pyshim.kernels.precompile import _images

        images = [i for i, err in _images(found[0]) if i and not err]
        if not images:
            return None
        tmp = out.with_name(f".{out.name}.{os.getpid()}")
        tmp.write_bytes(max(images, key=len))
        os.replace(tmp, out)
    return out


def many_program(units: int) -> Path:
    src = build.out_dir() / f"firstrun_many_{units}.cu"
    text = gen_many.source(units)
    if not src.exists() or src.read_text() != text:
        src.write_text(text)
    out = build.out_dir() / f"firstrun_many_{units}"
    return build._build(out, lambda tmp: ["nvcc", "-gencode", "arch=compute_75,code=compute_75",  # noqa: SLF001
                                          "-o", str(tmp), str(src)], f"nvcc {src.name}", src)


def _load_rows(name: str, image: Path, kernel: int, ctx: Context, note: str) -> list[Item]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="pyshim-bench-fr-") as d:
        cold = _child(_LOAD, [str(image), str(kernel)], _env(f"{d}/opt", PYSHIM_JIT="opt"))
        warm = [_child(_LOAD, [str(image), str(kernel)], _env(f"{d}/opt", PYSHIM_JIT="opt"))
                for _ in range(max(1, ctx.repeats // 2))]
        fast = _child(_LOAD, [str(image), str(kernel)], _env(f"{d}/fast", PYSHIM_JIT="fast"))
    if cold["cached"] or not all(w["cached"] for w in warm):
        raise BenchError(f"{name}: the cold load claims a hit, or the warm one missed")
    warm_mod = median([w["module_s"] for w in warm])
    warm_k = median([w["kernel_s"] for w in warm])
    how = "indexed lazily" if cold["lazy"] else "eager (whole module)"
    rows.append(item(f"firstrun.{name}.module_load_cold", cold["module_s"], "s", warm_mod,
                     "warm module load (cache hit)", repeats=1,
                     note=f"{note}; {cold['kernels']} kernels, {how}"))
    rows.append(item(f"firstrun.{name}.first_kernel_cold", cold["kernel_s"], "s", warm_k,
                     "the same kernel warm", budget="<= 2 s", ok=cold["kernel_s"] <= 2.0,
                     repeats=1, note=f"PYSHIM_JIT=opt: translate + compile of one kernel at "
                                     f"its first use (compile {cold['compile_s']:.2f} s)"))
    rows.append(item(f"firstrun.{name}.first_kernel_cold_fast_tier", fast["kernel_s"], "s",
                     cold["kernel_s"], "the opt tier's cold first kernel", budget="<= 2 s",
                     ok=fast["kernel_s"] <= 2.0, repeats=1,
                     note=f"PYSHIM_JIT=fast (-O1; tiered serves this, then opt from the "
                          f"background) compile {fast['compile_s']:.2f} s"))
    return rows


def _precompile_row(name: str, path: Path, ctx: Context) -> list[Item]:
    with tempfile.TemporaryDirectory(prefix="pyshim-bench-pc-") as d:
        res = subprocess.run([sys.executable, "-m", "pyshim", "precompile", "--json",
                              "-j", str(ctx.threads), str(path)], capture_output=True,
                             text=True, env=_env(d), timeout=7200)
        if res.returncode != 0:
            raise BenchError(f"precompile {path}: {res.stderr.strip()[-2000:]}")
        s = json.loads(res.stdout)
        after = _child(_LOAD, [str(path), "0"], _env(d))
    if not after["cached"] or s["built"] != s["kernels"]:
        raise BenchError(f"precompile {path}: {s['built']} of {s['kernels']} built, or a run "
                         "after it missed the cache")
    return [
        item(f"firstrun.{name}.precompile", s["seconds"], "s", s["kernels"], "kernels",
             repeats=1, note=f"{s['kernels_per_s']:.2f} kernels/s on {ctx.threads} workers, "
                             f"cache +{s['cache_bytes_added'] / 2**20:.1f} MiB; a run "
                             f"afterwards loads from the cache"),
    ]


def _check_rows(name: str, path: Path, ctx: Context) -> list[Item]:
    times = {}
    for mode in ("scan", "deep"):
        with tempfile.TemporaryDirectory(prefix="pyshim-bench-ck-") as d:
            cmd = [sys.executable, "-m", "pyshim", "check", "--json", "--no-deps",
                   "-j", str(ctx.threads), str(path)]
            if mode == "deep":
                cmd.insert(4, "--deep")
                cmd[-1:-1] = ["--ptx-budget", "4096", "--time-budget", "3600"]
            res = subprocess.run(cmd, capture_output=True, text=True, env=_env(d),
                                 timeout=7200)
            if res.returncode not in (0, 1):
                raise BenchError(f"check {path}: {res.stderr.strip()[-2000:]}")
            doc = json.loads(res.stdout)
            times[mode] = (doc["summary"]["seconds"],
                           [(k["name"], k["translates"]) for b in doc["binaries"]
                            for k in b["kernels"]])
    if times["scan"][1] != times["deep"][1]:
        raise BenchError(f"check {path}: the scan's verdicts differ from --deep's")
    return [item(f"firstrun.{name}.check", times["scan"][0], "s", times["deep"][0],
                 "pyshim check --deep", budget="<= 60 s", ok=times["scan"][0] <= 60.0,
                 repeats=1, note=f"{len(times['scan'][1])} kernels, same verdicts")]


def run(ctx: Context) -> list[Item]:
    rows: list[Item] = []
    units = 3 if ctx.quick else 30
    many = many_program(units)
    kernels = gen_many.kernels(units)
    env = {} if kernels >= lazy.LAZY_MIN_KERNELS else {"PYSHIM_LAZY_MIN_KERNELS": "4"}
    os.environ.update(env)
    try:
        rows += _load_rows("many", many, 0, ctx, f"held-out program, {kernels} template "
                                                  "kernels, one launched")
        rows += _precompile_row("many", many, ctx)
        rows += _check_rows("many", many, ctx)
    finally:
        for k in env:
            os.environ.pop(k, None)
    cub = None if ctx.quick else cub_module()
    if cub is None:
        if not ctx.quick:
            ctx.missing["CuPy's CUB module"] = "cupy not in $PYSHIM_CLIENTS_VENV"
        return rows
    parse = [_child(_PARSE, [str(cub)], _env(tempfile.gettempdir()))
             for _ in range(max(1, ctx.repeats // 2))]
    if parse[0]["kernels"] != parse[0]["entries"]:
        raise BenchError("parse of CUB: kernels missing")
    rate = parse[0]["lines"] / median([p["s"] for p in parse])
    rows.append(item("firstrun.cub.parse_lines_per_s", rate, "lines/s", PARSE_BUDGET,
                     "budget (issue 23)", budget=">= 200000 lines/s", ok=rate >= PARSE_BUDGET,
                     repeats=len(parse), note=f"lexer + parser of CuPy's CUB module "
                                              f"({parse[0]['lines']} lines), CPU time"))
    rows += _load_rows("cub", cub, 5, ctx, "CuPy's CUB fat binary")
    lib = cub_library()
    assert lib is not None
    rows += _check_rows("cub", lib, ctx)
    return rows
