"""The ELF files a PATH argument names: the file itself, or every ELF file below a directory
(found by their first four bytes, not by name: executables have no suffix)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

_ELF_MAGIC = b"\x7fELF"


def is_elf(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == _ELF_MAGIC
    except OSError:
        return False


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
