import subprocess
import sys


def _pyshim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyshim", *args], capture_output=True,
                          text=True)


def test_help_lists_every_command():
    from pyshim.cli import COMMANDS

    out = _pyshim("--help")
    assert out.returncode == 0
    for name in COMMANDS:
        assert name in out.stdout


def test_unknown_command_is_an_error():
    out = _pyshim("frobnicate")
    assert out.returncode == 2
    assert "frobnicate" in out.stderr
