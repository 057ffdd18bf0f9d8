"""The ELF files a PATH argument names: the file itself, or every ELF file below a directory
(found by their first four bytes, not by name: executables have no suffix)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

_ELF_MAGIC = b"\x7fELF"


_SPECIAL = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def special_kind(path: Path) -> str | None:
    """What `path` (followed) is when it is neither a regular file nor a directory."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return next((what for test, what in _SPECIAL if test(mode)), None)


def is_elf(path: Path) -> bool:
    try:
        # O_NONBLOCK: a FIFO put in the file's place after the walk looked must not hang us
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        return os.read(fd, 4) == _ELF_MAGIC
    except OSError:
        return False
    finally:
        os.close(fd)


def elf_files(root: Path) -> Iterator[Path]:
    """Every regular ELF file below `root`, in sorted order; symlinks to files are followed
    once (by real path), directory symlinks are not (no cycles)."""
    seen: set[Path] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if not p.is_file():
                continue
            real = p.resolve()
            if real in seen:
                continue
            seen.add(real)
            if is_elf(p):
                yield p
