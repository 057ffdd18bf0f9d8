"""benchmarks/: the whole runner at quick sizes (every figure present, shaped as documented,
every variant verified), and the checks that make a wrong result fail instead of timing it.
No timing assertions: this machine's speed is not a test result."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pyshim.paths import REPO_DIR

# benchmarks/ is a top-level package of the repository, not part of the installed pyshim
if str(REPO_DIR) not in sys.path:
    sys.path.insert(0, str(REPO_DIR))

from benchmarks import blas, cases  # noqa: E402
from benchmarks.items import BenchError, VerificationError  # noqa: E402
from benchmarks.kernels_suite import check  # noqa: E402
from benchmarks.runner import SUITES, parse_args, table  # noqa: E402

KERNELS = ("saxpy", "reduce", "sgemm", "histogram", "stencil", "scan")
KEYS = {"name": str, "value": float, "unit": str, "baseline": float, "ratio": float,
        "baseline_name": str, "budget": str, "verified": bool, "repeats": int, "note": str}


def _pocl_available() -> bool:
    try:
        import pyopencl as cl

        return any("Portable Computing Language" in p.name for p in cl.get_platforms())
    except Exception:  # no pyopencl, or no ICD at all
        return False


needs_tools = pytest.mark.skipif(
    shutil.which("nvcc") is None or not _pocl_available(),
    reason="needs nvcc, pyopencl and PoCL (pocl-opencl-icd)")


@pytest.fixture(scope="module")
def quick_run() -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(REPO_DIR)}
    # every suite but blas, whose scripts belong to the cuBLAS tests (the blas adapter is
    # tested below with scripts of our own)
    # (numba needs the clients' virtualenv: tests/test_real_clients.py runs it)
    suites = ",".join(n for n in SUITES if n not in ("blas", "numba"))
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--json",
                           "--only", suites],
                          cwd=REPO_DIR, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@needs_tools
def test_quick_run_has_every_figure(quick_run: list[dict]) -> None:
    names = [d["name"] for d in quick_run]
    assert len(names) == len(set(names))
    want = {"api.cuDeviceGetCount", "api.cuStreamQuery", "launch.empty.grid1",
            "launch.empty.grid64", "launch.empty.grid1.shim", "launch.empty.grid64.shim",
            "launch.empty.grid64.vs_pocl", "module_load.shim.cached", "module_load.cached",
            "module_load.cold.translate", "translator.lines_per_s",
            "translator.parse_lines_per_s", "translator.grid_stride_unrolled_lines_per_s",
            "launch.empty", "launch.empty.shim", "launch.block", "launch.saxpy_small",
            "launch.saxpy_big"}
    want |= {f"kernel.{k}.vs_{b}" for k in KERNELS for b in ("c_loop", "pocl")}
    assert want <= set(names)


@needs_tools
def test_quick_run_items_are_well_formed(quick_run: list[dict]) -> None:
    for d in quick_run:
        for key, typ in KEYS.items():
            assert isinstance(d[key], typ), (d["name"], key, d[key])
        assert d["ok"] in (True, False, None)
        assert d["verified"] is True, d["name"]
        assert d["value"] > 0 and d["baseline"] > 0, d
        assert math.isclose(d["ratio"], d["value"] / d["baseline"], rel_tol=1e-9)
        # a budget is judged exactly when there is one
        assert (d["ok"] is None) == (d["budget"] == ""), d


@needs_tools
def test_budget_verdicts_follow_the_figures(quick_run: list[dict]) -> None:
    by = {d["name"]: d for d in quick_run}
    for k in KERNELS:
        d = by[f"kernel.{k}.vs_c_loop"]
        assert d["ok"] == (d["value"] <= 2 * d["baseline"])
        d = by[f"kernel.{k}.vs_pocl"]
        assert d["ok"] == (d["value"] < d["baseline"])
    d = by["api.cuStreamQuery"]
    assert d["ok"] == (d["value"] - d["baseline"] <= 5.0)
    d = by["module_load.cached"]
    assert d["ok"] == (d["value"] <= 10.0)
    d = by["translator.lines_per_s"]
    assert d["ok"] == (d["value"] >= 50_000)


def test_check_refuses_a_wrong_result() -> None:
    rng = np.random.default_rng(0)
    case = cases.reduce(1000, rng)
    good = {2: case.expected[2].copy()}
    check(case, "test", good)
    bad = {2: good[2].copy()}
    bad[2][3] += 1.0
    with pytest.raises(VerificationError, match=r"reduce on test: 1 of 4 .*\[3\]"):
        check(case, "test", bad)


def test_check_tolerance_is_one_rounding_not_more() -> None:
    case = cases.saxpy(100, np.random.default_rng(0))
    want = case.expected[4]
    check(case, "t", {4: np.nextafter(want, np.float32(np.inf))})   # an fma's difference
    with pytest.raises(VerificationError):
        check(case, "t", {4: want * np.float32(1.001)})
    with pytest.raises(VerificationError):
        check(case, "t", {4: np.full_like(want, np.nan)})


def test_quick_cases_exercise_partial_blocks() -> None:
    for case in cases.all_cases(quick=True):
        n = case.sizes.get("n", 0)
        if case.name in ("saxpy", "reduce", "scan"):
            assert n % cases.BLOCK, case.name     # bounds checks are part of the kernels


def test_runner_arguments() -> None:
    assert parse_args([]).suites == list(SUITES)
    args = parse_args(["--only", "api,kernels", "--quick"])
    assert args.suites == ["api", "kernels"] and args.repeats == 1
    with pytest.raises(SystemExit):
        parse_args(["--only", "nonesuch"])
    with pytest.raises(SystemExit):
        parse_args(["--repeats", "0"])


def test_table_marks_missed_budgets() -> None:
    from benchmarks.items import item

    text = table([item("x", 3.0, "ms", 1.0, "b", budget="<= 2x", ok=False),
                  item("y", 1.0, "ms", 1.0, "b")])
    assert "MISSED" in text.splitlines()[1] and "3.00" in text.splitlines()[1]
    assert text.splitlines()[2].endswith("-")


def test_blas_scripts_are_read_and_checked(tmp_path: Path) -> None:
    good = tmp_path / "blas_good.py"
    good.write_text("import json, sys\nprint(json.dumps([{'name': 'blas.sgemm', 'value': 2.0,"
                    " 'unit': 'GFLOP/s', 'baseline': 4.0, 'verified': True,"
                    " 'quick': '--quick' in sys.argv}]))\n")
    [it] = blas.run_scripts([good], quick=True, repeats=1)
    assert (it.name, it.ratio, it.verified) == ("blas.sgemm", 0.5, True)
    bad = tmp_path / "blas_bad.py"
    bad.write_text("print('not json')\n")
    with pytest.raises(BenchError, match="blas_bad.py"):
        blas.run_scripts([bad], quick=True, repeats=1)
    failing = tmp_path / "blas_fail.py"
    failing.write_text("raise SystemExit('boom')\n")
    with pytest.raises(BenchError, match="boom"):
        blas.run_scripts([failing], quick=True, repeats=1)


@needs_tools
def test_profile_prints_mode_and_timing_split() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_DIR)}
    proc = subprocess.run([sys.executable, "-m", "benchmarks.profile", "stencil", "--quick",
                           "--runs", "1", "--cflags=-O3"], cwd=REPO_DIR, capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("stencil: 5-point Jacobi step, 67x45; runs as '")
    labels = [ln.strip().rsplit(" ", 2)[0].strip() for ln in lines[1:]]
    assert labels == ["CPU device", "CPU device -O3", "C loop"]
    assert all(ln.rstrip().endswith(" ms") for ln in lines[1:])


def test_cases_are_fixed_and_seeded() -> None:
    a, b = cases.one_case("scan", quick=True), cases.one_case("scan", quick=True)
    assert np.array_equal(a.args[1].value, b.args[1].value)
    assert [c.name for c in cases.all_cases(quick=True)] == list(cases.NAMES)


class _Garbage:
    """A variant that computes nothing: fast, and wrong."""

    label = "garbage"

    def prepare(self, case: cases.Case):  # noqa: ANN201 - a Prepared
        from benchmarks.variants import Prepared

        out = {i: np.zeros_like(w) for i, w in case.expected.items()}
        return Prepared(lambda: None, lambda: out, lambda: None)


def test_a_wrong_variant_fails_the_case_before_timing() -> None:
    from benchmarks.context import Context
    from benchmarks.kernels_suite import _one_case

    ctx = Context(quick=True, repeats=1, threads=1)
    case = cases.one_case("histogram", quick=True)
    with pytest.raises(VerificationError, match="kernel histogram on garbage"):
        _one_case(ctx, case, {"device": _Garbage(), "loop": _Garbage(), "pocl": _Garbage()},
                  "loop")


def test_runner_exit_status_when_a_suite_fails(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import runner

    def failing(ctx: object) -> list:
        raise VerificationError("kernel x on y: 3 of 4 results wrong")

    monkeypatch.setattr(runner, "_suite", lambda name: failing)
    monkeypatch.setattr(runner, "apply_threads", lambda n: None)   # keep this process's env
    assert runner.main(["--only", "kernels", "--json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out) == []
    assert "suite kernels failed: kernel x on y" in err


class _Lazy(_Garbage):
    """Right the first time, then stops computing: caught by the check after timing."""

    label = "lazy"

    def prepare(self, case: cases.Case):  # noqa: ANN201 - a Prepared
        from benchmarks.variants import Prepared

        state = {i: w.copy() for i, w in case.expected.items()}

        def clear() -> None:
            for v in state.values():
                v[...] = 0

        return Prepared(lambda: None, lambda: dict(state), lambda: None, clear)


def test_outputs_are_cleared_before_the_last_check() -> None:
    from benchmarks.context import Context
    from benchmarks.kernels_suite import _one_case

    ctx = Context(quick=True, repeats=1, threads=1)
    case = cases.one_case("saxpy", quick=True)
    with pytest.raises(VerificationError, match="kernel saxpy on lazy"):
        _one_case(ctx, case, {"device": _Lazy(), "loop": _Lazy(), "pocl": _Lazy()}, "loop")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_a_missing_baseline_leaves_out_its_comparisons_only() -> None:
    """Without pyopencl the api and kernels suites still run and verify; the PoCL rows are
    left out and the run says which baseline is missing (it used to fail both suites)."""
    code = ("import sys; sys.modules['pyopencl'] = None\n"
            "from benchmarks.runner import main\n"
            "sys.exit(main(['--quick', '--json', '--only', 'api,kernels']))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_DIR, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(REPO_DIR)},
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "baseline PoCL is missing" in proc.stderr and "pyopencl" in proc.stderr
    names = {d["name"] for d in json.loads(proc.stdout)}
    assert {f"kernel.{k}.vs_c_loop" for k in KERNELS} <= names
    assert "api.cuStreamQuery" in names
    assert not any("pocl" in n for n in names)


def test_host_compiled_loops_never_fail_on_warnings() -> None:
    # the C loops are built for the host CPU (-march=native) at run time: a compiler that half
    # knows a new CPU warns about the -march flag itself, which must not fail the build
    from benchmarks.build import loop_flags

    flags = loop_flags()
    assert "-march=native" in flags
    assert not any(f.startswith("-Werror") for f in flags)
