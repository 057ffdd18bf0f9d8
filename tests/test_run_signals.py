"""Signals under `pyshim run`, as a user meets them: Ctrl-C stops a CUDA program in the
middle of a kernel and in the middle of its first translation (exit status as native, and
the kernel cache still sound afterwards), a closed pipe kills the program as it would
natively, and with --report a launcher told to stop takes the program with it and still
writes the report."""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pyshim.builders.components import build_all
from pyshim.paths import REPO_DIR, build_dir

SPIN = REPO_DIR / "tests" / "signals" / "spin.cu"
FOREVER = str(10**15)  # kernel iterations: far past any test's patience


@pytest.fixture(scope="module")
def shim() -> Path:
    build_all()
    return build_dir()


def nvcc(*flags: str) -> Path:
    key = hashlib.sha256(SPIN.read_bytes() + repr(flags).encode()).hexdigest()[:16]
    out_dir = build_dir() / "runtime" / "bins"
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / f"spin-{key}"
    if not exe.exists():
        tmp = exe.with_name(f"{exe.name}.{os.getpid()}.tmp")
        proc = subprocess.run(["nvcc", "-O2", *flags, "-o", str(tmp), str(SPIN)],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        os.replace(tmp, exe)
    return exe


def launch(args: list[str], cache: Path, **popen: object) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYSHIM_CACHE=str(cache))
    # the test's own dispositions must not decide the program's: a shell's background job
    # starts with SIGINT ignored, a run under nohup with SIGHUP ignored (and the launcher
    # rightly keeps an inherited SIG_IGN, so the program would outlive the SIGHUP test)
    return subprocess.Popen([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", *args],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_default_signals,
                            start_new_session=True, **popen)  # type: ignore[call-overload]


def _default_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def wait_for_line(proc: subprocess.Popen[bytes], want: bytes, timeout: float) -> None:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    seen = b""
    while want not in seen:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([proc.stdout], [], [], max(left, 0))
        if not ready:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail(f"no {want!r} within {timeout} s; got {seen!r}")
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            pytest.fail(f"the program ended before {want!r}: {proc.wait()} "
                        f"{proc.stderr.read() if proc.stderr else b''!r}")
        seen += chunk


def finish(proc: subprocess.Popen[bytes], timeout: float = 20) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # and whatever it left holding our pipes
        _, err = proc.communicate()
        pytest.fail(f"still running {timeout} s after the signal: {err[-2000:]!r}")
    return proc.returncode, err.decode(errors="replace")


@pytest.mark.parametrize("cudart", ["static", "shared"])
def test_ctrl_c_stops_a_program_mid_kernel(shim: Path, tmp_path: Path, cudart: str) -> None:
    exe = nvcc("-cudart", cudart)
    proc = launch([str(exe), FOREVER], tmp_path / "cache")
    wait_for_line(proc, b"start", 120)
    time.sleep(1.5)  # the module is translated and the kernel runs
    proc.send_signal(signal.SIGINT)
    code, err = finish(proc)
    assert code == -signal.SIGINT, err[-2000:]
    assert "KeyboardInterrupt" not in err


def test_ctrl_c_mid_first_translation_leaves_a_sound_cache(shim: Path, tmp_path: Path) -> None:
    exe = nvcc("-DUNROLL=600")  # seconds of translating and compiling
    cache = tmp_path / "cache"
    proc = launch([str(exe), "1"], cache)
    wait_for_line(proc, b"start", 120)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    code, err = finish(proc)
    assert code == -signal.SIGINT, err[-2000:]
    assert "KeyboardInterrupt" not in err and "Traceback" not in err
    # the next run translates (or loads) the module and gets the right answer
    again = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe),
                            "1"], env=dict(os.environ, PYSHIM_CACHE=str(cache)),
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "done no error" in again.stdout


@pytest.mark.parametrize("report", [False, True])
def test_a_closed_pipe_kills_the_program_as_natively(shim: Path, tmp_path: Path,
                                                     report: bool) -> None:
    """`pyshim run yes | head -1` exits 141: SIGPIPE reaches the program at its default."""
    yes = shutil.which("yes")
    assert yes is not None
    extra = f"--report {tmp_path / 'r.json'} " if report else ""
    script = (f"{sys.executable} -m pyshim run --backend cpu {extra}{yes} | head -1; "
              "exit ${PIPESTATUS[0]}")
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 128 + signal.SIGPIPE, out.stderr
    assert out.stdout == "y\n"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_report_launcher_stopped_stops_the_program_and_writes_the_report(
        shim: Path, tmp_path: Path, sig: signal.Signals) -> None:
    report = tmp_path / "run.json"
    # the program says its pid, then waits; the launcher is the one told to stop
    proc = launch(["--report", str(report), "bash", "--", "-c", "echo start $$; exec sleep 600"],
                  tmp_path / "cache")
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    assert line[0] == b"start", line
    child = int(line[1])
    proc.send_signal(sig)
    try:
        code, err = finish(proc)
        orphaned = Path(f"/proc/{child}").exists()
    finally:
        try:
            os.kill(child, signal.SIGKILL)  # an orphan must not outlive the test either
        except ProcessLookupError:
            pass
    assert code == -sig, err
    assert not orphaned, "the program outlived its launcher"
    json.loads(report.read_text())  # written, and whole
