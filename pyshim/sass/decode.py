"""SASS decoding with NVIDIA's nvdisasm (PyPI: nvidia-cuda-nvdisasm), run as a subprocess.

nvdisasm's text is parsed into `Insn` rows per code section; labels are kept where nvdisasm
puts them (branch targets, function symbols). Its output for a cubin is cached on disk like
translations (key: the cubin's bytes and nvdisasm's version).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pyshim.sass.errors import NoDisassembler

HINT = "pip install nvidia-cuda-nvdisasm"


@functools.cache
def nvdisasm_path() -> str | None:
    """nvdisasm from the environment ($PYSHIM_NVDISASM), the Python the shim runs in (the
    PyPI wheel puts it under nvidia/cu13/bin), or PATH."""
    env = os.environ.get("PYSHIM_NVDISASM")
    if env:
        return env if os.access(env, os.X_OK) else None
    roots = [Path(p) for p in sys.path if p and "site-packages" in p]
    try:
        import nvidia  # type: ignore[import-not-found]

        roots += [Path(p).parent for p in getattr(nvidia, "__path__", [])]
    except ImportError:
        pass
    for root in roots:
        for sub in ("nvidia/cu13/bin/nvdisasm", "nvidia/cu12/bin/nvdisasm",
                    "nvidia/cuda_nvdisasm/bin/nvdisasm"):
            p = root / sub
            if os.access(p, os.X_OK):
                return str(p)
    return shutil.which("nvdisasm")


@functools.cache
def nvdisasm_version() -> str:
    path = nvdisasm_path()
    if path is None:
        return ""
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    lines = [ln for ln in out.stdout.splitlines() if ln.strip()]
    return lines[-1] if lines else "unknown"


@dataclass(slots=True)
class Insn:
    offset: int
    opcode: str                 # "IMAD.WIDE.U32"
    operands: list[str]         # top-level comma-separated, as printed
    pred: str = ""              # "P0", "!P0", "UP1", "" (always)


@dataclass
class Section:
    name: str
    insns: list[Insn] = field(default_factory=list)
    labels: dict[int, list[str]] = field(default_factory=dict)  # offset -> labels there
    functions: dict[str, int] = field(default_factory=dict)     # symbol -> offset


_INSN = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(?:@(!?U?P[T0-9]+)\s+)?([A-Z0-9_.]+(?:x\d+[A-Z0-9_.]*)*)\s*(.*?)\s*;")
_LABEL = re.compile(r"^([.$\w@]+):\s*$")
_ANNOT = re.compile(r"\(\*.*?\*\)")
_SECTION = re.compile(r"^\s*\.section\s+([^,\s]+)")


def split_operands(text: str) -> list[str]:
    """Top-level operands: commas inside [], () and `() do not split."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    # `RET.REL.NODEC R20 `(fn)`: the register and the call target are one printed operand
    res = []
    for op in out:
        if " `(" in op:
            a, b = op.split(" `(", 1)
            res += [a.strip(), "`(" + b]
        else:
            res.append(op)
    return res


def parse_listing(text: str) -> dict[str, Section]:
    sections: dict[str, Section] = {}
    cur: Section | None = None
    pending: list[str] = []
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            name = m.group(1)
            cur = sections.setdefault(name, Section(name)) if name.startswith(".text.") else None
            pending = []
            continue
        if cur is None:
            continue
        m = _INSN.match(line)
        if m:
            off = int(m.group(1), 16)
            # nvdisasm's annotations ((*"SpillRefill"*)) are not operands
            text = _ANNOT.sub("", m.group(4)).strip()
            ins = Insn(off, m.group(3), split_operands(text), m.group(2) or "")
            cur.insns.append(ins)
            if pending:
                cur.labels.setdefault(off, []).extend(pending)
                for lab in pending:
                    if not lab.startswith(".L"):
                        cur.functions[lab] = off
                pending = []
            continue
        m = _LABEL.match(line.strip())
        if m and not line.strip().startswith("//"):
            pending.append(m.group(1))
    return sections


def decode_seconds(size: int) -> float:
    """How long nvdisasm may take for a cubin of `size` bytes: generous for a real cubin
    (a second per 100 kB on top of 20 s), short of a user's patience with a hung load."""
    return 20.0 + size / 100_000


def disassemble(elf: bytes) -> dict[str, Section]:
    """Every code section of a cubin, decoded (cached by the cubin's bytes)."""
    from pyshim.kernels import cache

    path = nvdisasm_path()
    if path is None:
        raise NoDisassembler(f"SASS-only kernels need nvdisasm to be lifted ({HINT})")
    key = cache.cache_key(bytes(elf), nvdisasm_version(), "sass-listing")
    found = cache.lookup(key, ".sass")
    text = None
    if found is not None:
        try:
            text = cache.read_entry(found).decode("utf-8")
        except (cache.CacheError, UnicodeDecodeError):
            text = None
    if text is None:
        from pyshim.sass.errors import LiftError

        limit = decode_seconds(len(elf))
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(elf)
            f.flush()
            try:
                proc = subprocess.run([path, "-c", f.name], capture_output=True, text=True,
                                      timeout=limit)
            except subprocess.TimeoutExpired:
                # (nvdisasm loops forever on some malformed cubins: the program's load must
                # fail, not hang; subprocess.run has killed it)
                raise LiftError(f"nvdisasm did not finish decoding this {len(elf)}-byte cubin "
                                f"in {limit:.0f} s (a malformed cubin?)") from None
        if proc.returncode != 0:
            raise LiftError("nvdisasm cannot decode this cubin: "
                            + (proc.stderr.strip().splitlines() or ["no message"])[-1])
        text = proc.stdout
        cache.store(key, ".sass", text.encode("utf-8"))
    return parse_listing(text)
