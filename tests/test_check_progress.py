"""Progress lines: one per phase with counts when stderr is a terminal, none otherwise."""

from __future__ import annotations

import io
import os
import pty

import test_check as tc

from pyshim.check import check_report
from pyshim.check.progress import Progress


def test_progress_lines_name_phases_and_counts():
    out = io.StringIO()
    d = tc.library_dir()
    check_report([d], progress=Progress(stream=out, enabled=True))
    lines = out.getvalue().splitlines()
    assert any(f"{d}: 2 ELF files" in ln for ln in lines), lines
    assert any("libkern.so: kernels: reading container 1, 0 kernels so far" in ln
               for ln in lines), lines
    assert any("libkern.so: kernels: 1 in 2 containers; 1 PTX modules to dry-run translate"
               in ln for ln in lines), lines
    assert any("app: runs, " in ln and " entry points, 0 kernels" in ln for ln in lines)
    assert all(ln.startswith("[") and "s] " in ln for ln in lines)


def test_progress_only_on_a_terminal():
    assert Progress(stream=io.StringIO()).enabled is False
    master, slave = pty.openpty()
    try:
        with os.fdopen(slave, "w") as tty:
            p = Progress(stream=tty)
            assert p.enabled is True
            p("phase one")
        assert b"phase one" in os.read(master, 1024)
    finally:
        os.close(master)
