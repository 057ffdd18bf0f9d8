"""Lazy per-kernel translation of huge modules (issue 23 point 1).

A module load of a huge PTX module (CUB's 21 MB, ggml's matrix-multiply files) translates
and compiles only a *data object*: the module's .global/.const variables and its module
descriptor's globals, no kernels. The index the driver needs before any launch (kernel
names, parameter layouts, .const bytes, globals) comes from parsing a skeleton of the
module: its variables and each kernel's signature with an empty body.

Each kernel is translated and compiled when the driver first asks for it
(cuModuleGetFunction, or a library kernel's first launch), with the functions it calls,
transitively. Its object does not define the module's variables: it reads their
addresses from a binding table (`pyshim:bind-slots`, names in `pyshim:bind-names`) that
libcuda fills from the data object of the same loaded module right after dlopen, so every
kernel of one module shares one copy of each variable and two modules whose variables have
the same names never see each other's (no RTLD_GLOBAL, no symbol interposition).

Only modules above a size threshold are loaded lazily, so an ordinary module's generated C
stays byte-identical to the eager translation; CUDA_MODULE_LOADING=EAGER keeps eager loading
for every module, and the CPU device is the only target for now (AMD loads eagerly).
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass

# a module is loaded lazily when its PTX has at least this many lines or kernels; 32
# kernels takes in CuPy's random generator module (48 kernels, of which one call uses one
# or two: benchmarks/README.md "Figures behind the code")
LAZY_MIN_LINES = 200_000
LAZY_MIN_KERNELS = 32
REQUEST_MAGIC = b"PSLAZYK1\n"

_SCAN = re.compile(
    rb'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|[{};]'
    rb"|^[ \t]*\.(?:version|target|address_size|file)\b[^\n]*", re.M | re.S)
_ENTRY = re.compile(rb"\.entry\s+([A-Za-z_$%][\w$.]*)")
_FUNC = re.compile(rb"\.func\s*(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$.]*)", re.S)
_IDENT = re.compile(rb"[A-Za-z_$%][\w$.]*")


@dataclass
class Item:
    kind: str   # "header", "entry", "func" (with a body), "decl" (variable or prototype)
    name: str
    start: int
    end: int
    body: int = -1  # offset of the body's "{" for entry/func


class Index:
    """The top-level items of one PTX module, found without parsing instructions."""

    def __init__(self, ptx: bytes) -> None:
        self.ptx = ptx
        self.items: list[Item] = []
        start, depth, brace_at, eq_before = 0, 0, -1, False
        for m in _SCAN.finditer(ptx):
            tok = m.group()
            c = tok[:1]
            if c == b"/" or c == b'"':
                continue
            if depth == 0 and tok.lstrip()[:1] == b".":
                self.items.append(Item("header", "", m.start(), m.end()))
                start = m.end()
                continue
            if c == b"{":
                if depth == 0:
                    brace_at = m.start()
                    eq_before = b"=" in ptx[start:brace_at]
                depth += 1
            elif c == b"}":
                depth -= 1
                if depth == 0 and not eq_before:
                    self._add(start, m.end(), brace_at)
                    start = m.end()
            elif c == b";" and depth == 0:
                self._add(start, m.end(), -1)
                start = m.end()
        self.by_name = {i.name: i for i in self.items if i.kind in ("entry", "func")}

    def _add(self, start: int, end: int, brace: int) -> None:
        head = self.ptx[start:brace if brace >= 0 else end]
        kind, name = "decl", ""
        m = _ENTRY.search(head)
        if m is not None and brace >= 0:
            kind, name = "entry", m.group(1).decode()
        elif m is not None:
            pass  # `.entry k(...);` is a prototype (pyshim's PTX linker keeps them): a decl
        else:
            m = _FUNC.search(head)
            if m is not None and brace >= 0:
                kind, name = "func", m.group(1).decode()
        self.items.append(Item(kind, name, start, end, brace))

    def text(self, item: Item) -> bytes:
        return self.ptx[item.start:item.end]

    @property
    def kernels(self) -> list[str]:
        return [i.name for i in self.items if i.kind == "entry"]

    def headers(self) -> list[bytes]:
        return [self.text(i) for i in self.items if i.kind == "header"]

    def skeleton(self) -> str:
        """Variables, prototypes and each kernel's signature with an empty body: parses to
        the module's kernel parameters and variables at a fraction of the cost."""
        out = []
        for i in self.items:
            if i.kind == "entry":
                out.append(self.ptx[i.start:i.body] + b"{\n\tret;\n}")
            elif i.kind != "func":
                out.append(self.text(i))
        return b"\n".join(out).decode("utf-8", "replace") + "\n"

    def data_module(self) -> str:
        """The module's variables alone (the data object's PTX)."""
        out = [self.text(i) for i in self.items
               if i.kind == "header" or (i.kind == "decl" and not _is_prototype(self.text(i)))]
        return b"\n".join(out).decode("utf-8", "replace") + "\n"

    def kernel_module(self, name: str) -> str:
        """Kernel `name` and every function it reaches, with the module's variables and
        prototypes, in their original order."""
        if self.by_name.get(name) is None or self.by_name[name].kind != "entry":
            raise KeyError(name)
        need, todo = {name}, [name]
        while todo:
            item = self.by_name[todo.pop()]
            for ident in set(_IDENT.findall(self.ptx, item.body, item.end)):
                callee = ident.decode()
                if callee in self.by_name and callee not in need:
                    need.add(callee)
                    todo.append(callee)
        out = [self.text(i) for i in self.items
               if i.kind in ("header", "decl") or i.name in need]
        return b"\n".join(out).decode("utf-8", "replace") + "\n"


def _is_prototype(text: bytes) -> bool:
    return _FUNC.search(text) is not None or _ENTRY.search(text) is not None


def wanted(ptx: str, target: str) -> bool:
    """Whether a module is loaded lazily (see the module docstring)."""
    if not target.startswith("cpu"):
        return False
    if os.environ.get("CUDA_MODULE_LOADING", "").strip().upper() == "EAGER":
        return False
    lines = _env_int("PYSHIM_LAZY_MIN_LINES", LAZY_MIN_LINES)
    kernels = _env_int("PYSHIM_LAZY_MIN_KERNELS", LAZY_MIN_KERNELS)
    if ptx.count("\n") + 1 >= lines:
        return True
    return kernels > 0 and ptx.count(".entry") >= kernels and _count_entries(ptx) >= kernels


def _count_entries(ptx: str) -> int:
    return len(re.findall(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s", ptx, re.M))


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, ""))
    except ValueError:
        return default


@functools.lru_cache(maxsize=4)
def index_of(ptx: bytes) -> Index:
    return Index(ptx)


def encode_request(module_key: str, kernel: str) -> bytes:
    return REQUEST_MAGIC + module_key.encode() + b"\n" + kernel.encode() + b"\n"


def decode_request(data: bytes) -> tuple[str, str]:
    _, key, kernel = bytes(data).rstrip(b"\0").rstrip(b"\n").split(b"\n", 2)
    return key.decode(), kernel.decode()
