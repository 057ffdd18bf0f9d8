"""`pyshim check` never blocks on what is not a file (a FIFO opened for reading waits for a
writer forever), and `check` and `tables stats` need no libclang (they read the committed
tables; only `tables generate` parses headers)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pyshim.paths import REPO_DIR

# Python with libclang's bindings made unimportable, as on a machine without them
NO_CLANG = ("import sys; sys.modules['clang'] = None; sys.modules['clang.cindex'] = None; "
            "from pyshim.cli import main; sys.exit(main(sys.argv[1:]))")


def pyshim(*args: str, no_clang: bool = False) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", NO_CLANG, *args] if no_clang else \
        [sys.executable, "-m", "pyshim", *args]
    env = dict(os.environ, PYTHONPATH=str(REPO_DIR))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env,
                          stdin=subprocess.DEVNULL)


def test_check_skips_a_named_fifo_and_device(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    out = pyshim("check", "--no-translate", str(fifo), "/dev/null")
    assert "a FIFO, not a file: skipped" in out.stderr, out.stderr
    assert "a character device, not a file: skipped" in out.stderr
    assert "Traceback" not in out.stderr


def test_check_walks_past_a_fifo_in_a_directory(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "notes.txt").write_text("not a program")
    out = pyshim("check", "--no-translate", "--json", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert '"binaries": []' in out.stdout


def test_tables_stats_without_libclang() -> None:
    out = pyshim("tables", "stats", no_clang=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "runtime" in out.stdout and "cublas" in out.stdout


def test_check_without_libclang(tmp_path: Path) -> None:
    exe = Path(sys.executable).resolve()  # an ELF that uses no CUDA
    out = pyshim("check", "--no-translate", "--json", str(exe), no_clang=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert str(exe) in out.stdout


def test_tables_generate_without_libclang_says_what_is_missing(tmp_path: Path) -> None:
    from pyshim.tables import clang_parse

    if clang_parse.ci is not None:
        clang_parse._index.cache_clear()
    code = ("import sys; sys.modules['clang'] = None; sys.modules['clang.cindex'] = None\n"
            "from pyshim.tables import clang_parse\n"
            "try:\n    clang_parse._index()\nexcept clang_parse.ParseError as e:\n"
            "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, env=dict(os.environ, PYTHONPATH=str(REPO_DIR)))
    assert "libclang" in out.stdout, out.stderr
