"""The real-client tier: numba-cuda, CuPy and cuda-python from PyPI, judged by a fixed subset
of their own tests under `pyshim run` on the CPU device (tests/real_clients/; the subsets and
the pass counts they must reach are in tests/real_clients/thresholds.toml).

Needs the package registries (the clients' wheels, CuPy's sdist for its tests: ~3 GB the
first time, cached under ~/.cache/pyshim/clients). `-m "not clients"` leaves it out.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from real_clients import harness
from real_clients.run import run_suite

from pyshim.paths import REPO_DIR

pytestmark = [pytest.mark.clients, pytest.mark.network, pytest.mark.slow]

# each probe needs a CUDA device; with none (this machine, CI) it fails unless pyshim runs it
PROBES = {
    "numba": "from numba import cuda; import sys; sys.exit(0 if cuda.is_available() else 3)",
    "cupy": "import cupy; assert cupy.cuda.runtime.getDeviceCount() >= 1",
    "cuda.core": "from cuda.core import Device; Device(0).set_current()",
}


def _check(suite: str) -> None:
    want = harness.thresholds()[suite]
    s = run_suite(suite, subset="ci", quiet=True, timeout=want.get("module_timeout", 600),
                  per_test_timeout=want.get("test_timeout", 120))
    top = "\n".join(f"{n:4d} {cat}\n     e.g. {ex}: {msg}"
                    for n, cat, ex, msg in s["categories"][:15])
    assert s["passed"] >= want["min_passed"], (
        f"{suite}: {s['passed']} of {s['total']} passed, fewer than the {want['min_passed']} "
        f"of tests/real_clients/thresholds.toml ({s['counts']}; {s['report']})\n{top}")


@pytest.mark.parametrize("suite", ["numba", "cupy", "cuda-usage"])
def test_client_suite_keeps_its_pass_count(suite):
    _check(suite)


@pytest.mark.parametrize("client", sorted(PROBES))
def test_client_fails_without_pyshim_and_runs_under_it(client):
    """The tier proves pyshim did the work: without it each client finds no device."""
    python = str(harness.ensure_venv())
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_PRELOAD")}
    bare = subprocess.run([python, "-c", PROBES[client]], env=env, capture_output=True,
                          text=True, timeout=300)
    assert bare.returncode != 0, f"{client} found a CUDA device without pyshim"
    launcher = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(REPO_DIR)!r}); "
                "from pyshim.cli import main; sys.exit(main())", "run", "--"]
    shimmed = subprocess.run([*launcher, python, "-c", PROBES[client]], env=env,
                             capture_output=True, text=True, timeout=300)
    assert shimmed.returncode == 0, shimmed.stdout + shimmed.stderr


def test_numba_benchmark_runs_and_verifies():
    """benchmarks/numba_suite.py at quick sizes: every kernel checked against numpy under
    pyshim and under numba's simulator, each row present (no timing is judged)."""
    import json

    env = {**os.environ, "PYTHONPATH": str(REPO_DIR)}
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--only", "numba", "--quick",
                           "--json"], cwd=REPO_DIR, capture_output=True, text=True, env=env,
                          timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = {d["name"]: d for d in json.loads(proc.stdout)}
    for kernel in ("saxpy", "block_sum", "matmul"):
        for row in ("vs_cudasim", "first_call", "translate"):
            d = items[f"numba.{kernel}.{row}"]
            assert d["verified"] and d["value"] > 0 and d["baseline"] > 0, d


def test_harness_resumes_a_module_after_a_test_kills_its_process(tmp_path):
    """A test that kills its process (as the OOM killer does) is counted crashed and takes
    only itself: the module's later tests still run, in a new process, and keep their
    outcomes, with a sample choosing the same tests as without the crash."""
    mod_file = tmp_path / "test_crashy.py"
    mod_file.write_text(
        "import os, signal\n"
        "def test_a(): pass\n"
        "def test_b(): os.kill(os.getpid(), signal.SIGKILL)\n"
        "def test_c(): pass\n"
        "def test_d(): os.kill(os.getpid(), signal.SIGKILL)\n"
        "def test_e(): assert False, 'plain failure'\n")
    mod = harness.Module("selftest", "test_crashy.py", str(mod_file))
    python = harness.ensure_venv()
    r = harness.run_module(mod, python, tmp_path, tmp_path / "out", {}, 300, 60)
    got = {k.rsplit("::", 1)[-1]: v for k, v in r.outcomes.items()}
    assert got == {"test_a": "passed", "test_b": "crashed", "test_c": "passed",
                   "test_d": "crashed", "test_e": "failed"}, (r.status, r.tail)
    assert r.status.startswith("crash rc=-9, resumed 2x"), r.status
