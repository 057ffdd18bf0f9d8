"""pyshim.runner.tracing: the environment of a traced / reported run, and the report afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyshim.runner import tracing


@pytest.fixture()
def fake_library(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    lib = tmp_path / "lib" / "libpyshim_trace.so"
    monkeypatch.setattr(tracing, "trace_library", lambda: lib)
    return lib


def test_trace_off_leaves_the_environment_alone(fake_library: Path) -> None:
    env = {"LD_PRELOAD": "/x/libcuda.so.1", "PYSHIM_TRACE_FILE": "/old"}
    for off in (False, None, ""):
        assert tracing.trace_environment(off, env) == env
    assert tracing.trace_environment(False, env) is not env


def test_tracer_goes_first_in_ld_preload(fake_library: Path) -> None:
    env = {"LD_PRELOAD": "/b/libcuda.so.1:/b/libcudart.so.13", "PYSHIM_TRACE_FILE": "/old"}
    out = tracing.trace_environment(True, env)
    assert out["LD_PRELOAD"] == f"{fake_library}:/b/libcuda.so.1:/b/libcudart.so.13"
    assert "PYSHIM_TRACE_FILE" not in out  # stderr
    again = tracing.trace_environment(True, out)
    assert again["LD_PRELOAD"] == out["LD_PRELOAD"]  # not twice
    assert tracing.trace_environment(True, {})["LD_PRELOAD"] == str(fake_library)


def test_trace_file_is_absolute_and_fresh(fake_library: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "run.trace").write_text("an old run\n")
    out = tracing.trace_environment("sub/run.trace", {})
    assert out["PYSHIM_TRACE_FILE"] == str(tmp_path / "sub" / "run.trace")
    assert (tmp_path / "sub" / "run.trace").read_text() == ""
    out = tracing.trace_environment("new/dir/t.log", {})
    assert Path(out["PYSHIM_TRACE_FILE"]).parent.is_dir()


def test_report_environment_and_finish(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert tracing.report_environment(None, {"A": "1"}) == {"A": "1"}
    env = tracing.report_environment(tmp_path / "r.json", {"A": "1"})
    raw = Path(env["PYSHIM_REPORT"])
    assert raw.exists() and env["A"] == "1"
    raw.write_text("unsupported cuGraphCreate 2\nunsupported cuFooBar 1\n"
                   "call cuInit 1\nerror cuMemAlloc_v2 CUDA_ERROR_OUT_OF_MEMORY\n")
    report = tracing.finish_report(env, tmp_path / "r.json")
    assert not raw.exists()
    assert (tmp_path / "r.json").read_text().startswith("{")
    assert report["totals"]["unsupported_calls"] == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "2 unsupported function(s) called 3 time(s)" in err[0]
    assert "cuGraphCreate" in err[0] and "cuFooBar" in err[0] and str(tmp_path / "r.json") \
        in err[0]


def test_clean_run_prints_nothing(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    env = tracing.report_environment(tmp_path / "r.txt", {})
    Path(env["PYSHIM_REPORT"]).write_text("call cuInit 1\n")
    report = tracing.finish_report(env, tmp_path / "r.txt")
    assert report["totals"]["calls"] == 1
    assert capsys.readouterr().err == ""
    assert "run report" in (tmp_path / "r.txt").read_text()
    assert tracing.finish_report(env, None) is None


def test_summary_names_at_most_three(tmp_path: Path) -> None:
    report = {"unsupported": [{"name": f"cuF{i}"} for i in range(5)],
              "totals": {"unsupported_calls": 9}}
    line = tracing.summary_line(report, "r.json")
    assert line is not None and "cuF0, cuF1, cuF2 and 2 more" in line
    assert tracing.summary_line({"unsupported": []}, "r.json") is None


def test_finish_without_report_environment_names_the_problem(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="PYSHIM_REPORT"):
        tracing.finish_report({}, tmp_path / "r.json")


def test_dash_means_stderr(fake_library: Path) -> None:
    out = tracing.trace_environment("-", {"PYSHIM_TRACE_FILE": "/old"})
    assert out["LD_PRELOAD"] == str(fake_library) and "PYSHIM_TRACE_FILE" not in out


def test_an_executable_is_never_emptied(fake_library: Path, tmp_path: Path) -> None:
    exe = tmp_path / "app"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    with pytest.raises(ValueError, match="is an executable"):
        tracing.trace_environment(str(exe), {})
    assert exe.read_text() == "#!/bin/sh\n"


def test_bare_trace_before_the_program_is_normalized() -> None:
    values = {"--backend", "--cudart", "--report"}
    norm = tracing.normalize_trace_argv
    assert norm(["--trace", "./app", "x"], values) == ["--trace=-", "./app", "x"]
    assert norm(["--backend", "cpu", "--trace", "--report", "r.json", "./app"], values) == \
        ["--backend", "cpu", "--trace=-", "--report", "r.json", "./app"]
    assert norm(["--trace=t.log", "./app"], values) == ["--trace=t.log", "./app"]
    # the program's own arguments, and anything after --, are left alone
    assert norm(["./app", "--trace"], values) == ["./app", "--trace"]
    assert norm(["--", "./app", "--trace"], values) == ["--", "./app", "--trace"]
    assert norm(["--report", "--trace", "./app"], values) == ["--report", "--trace", "./app"]


def test_normalized_argv_parses_as_intended() -> None:
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("--report")
    p.add_argument("--trace", nargs="?", const=True, default=False)
    p.add_argument("program")
    p.add_argument("args", nargs=argparse.REMAINDER)
    raw = ["--trace", "./app", "--size", "3"]
    with pytest.raises(SystemExit):  # what goes wrong without it: ./app taken as FILE
        p.parse_args(raw)
    args = p.parse_args(tracing.normalize_trace_argv(raw, {"--report"}))
    assert (args.trace, args.program, args.args) == ("-", "./app", ["--size", "3"])
    args = p.parse_args(["--trace=run.log", "./app"])
    assert (args.trace, args.program) == ("run.log", "./app")
