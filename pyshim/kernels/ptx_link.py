"""A PTX linker: several PTX modules (what the driver's cuLink* API or an -rdc=true program
hands over) become one module the translator takes, as ptxas + nvlink would link them.

    ptx = link_ptx([ptx_a, ptx_b])

The header is the newest `.version`, the highest `.target` and `.address_size`; variables
come first, then functions in module order; an `.extern` declaration that another module
satisfies is dropped (a function's stays as a plain prototype), of two definitions of the
same `.weak` or `.common` symbol the first is kept, and what no kernel reaches (nor the host
names) is left out. Two strong definitions of one name are an error naming it, as nvlink's
"multiple definition" is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r"^\s*\.(version|target|address_size)\b[^\n]*\n?", re.M)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_NAME_AFTER = re.compile(r"\.(?:func|entry)\s*(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$]*)", re.S)
_VAR_NAME = re.compile(r"([A-Za-z_$%][\w$]*)\s*(?:\[[^\]]*\]\s*)*(?:=|;|$)")


class PtxLinkError(ValueError):
    """The modules do not link (a name defined twice)."""


@dataclass
class _Statement:
    text: str         # the whole top-level statement (a declaration, or a definition with body)
    name: str | None  # the symbol it declares or defines
    extern: bool
    weak: bool
    defines: bool     # a function body, or a variable that is not .extern


def _statements(body: str) -> list[_Statement]:
    """The top-level statements of a module body (header removed): each ends at a ';' or
    at the '}' closing its braces."""
    out: list[_Statement] = []
    depth = paren = 0
    start = 0
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == "/" and body.startswith("//", i):
            j = body.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "/" and body.startswith("/*", i):
            j = body.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == '"':
            j = i + 1
            while j < n and body[j] != '"':
                j += 2 if body[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            paren += 1
        elif c == ")":
            paren -= 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            # a body ends its statement; an initializer's braces ({1, 2}) do not
            if depth == 0 and paren == 0 and "=" not in body[start:i].split("{", 1)[0]:
                out.append(_describe(body[start:i + 1], has_body=True))
                start = i + 1
        elif c == ";" and depth == 0 and paren == 0:
            out.append(_describe(body[start:i + 1], has_body=False))
            start = i + 1
        i += 1
    if body[start:].strip():
        out.append(_Statement(body[start:], None, False, False, False))
    return out


def _describe(text: str, has_body: bool) -> _Statement:
    head = _COMMENT.sub(" ", text.split("{", 1)[0] if has_body else text)
    words = head.split()
    extern = ".extern" in words
    weak = ".weak" in words or ".common" in words  # .common: one copy, as C's tentative defs
    if ".func" in words or ".entry" in words:
        m = _NAME_AFTER.search(head)
        return _Statement(text, m.group(1) if m else None, extern, weak, has_body)
    if any(w in words for w in (".global", ".const", ".shared")):
        m = _VAR_NAME.search(head.split("=", 1)[0].rstrip().rstrip(";") + ";")
        return _Statement(text, m.group(1) if m else None, extern, weak, not extern)
    return _Statement(text, None, extern, weak, False)


def _version(ptx: str) -> tuple[int, int]:
    m = re.search(r"^\s*\.version\s+(\d+)\.(\d+)", ptx, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def _target(ptx: str) -> tuple[int, str]:
    m = re.search(r"^\s*\.target\s+([^\n]*)", ptx, re.M)
    text = m.group(1).strip() if m else "sm_75"
    sm = re.search(r"sm_(\d+)", text)
    return (int(sm.group(1)) if sm else 0, text)


def link_ptx(modules: list[str], names: list[str] | None = None) -> str:
    """One PTX module holding every module's code; a single module comes back unchanged.
    `names` (one per module) name the modules in errors."""
    if len(modules) == 1:
        return modules[0]
    if not modules:
        raise PtxLinkError("nothing to link: no PTX module")
    version = max(_version(m) for m in modules)
    target = max(_target(m) for m in modules)[1]
    sizes = {m.group(1) for p in modules
             for m in re.finditer(r"^\s*\.address_size\s+(\d+)", p, re.M)}
    parts = _localize([[s for s in _statements(_HEADER.sub("", p))] for p in modules])
    names = names or [f"module {i + 1}" for i in range(len(modules))]
    defined: dict[str, _Statement] = {}
    where: dict[str, int] = {}
    for index, stmts in enumerate(parts):
        for s in stmts:
            if s.name is None or not s.defines:
                continue
            first = defined.get(s.name)
            if first is None:
                defined[s.name] = s
                where[s.name] = index
            elif not (first.weak or s.weak):
                raise PtxLinkError(f"PTX link: {s.name} is defined in more than one module "
                                   f"({names[where[s.name]]}, {names[index]})")
    # variables first (a function of one module may use another's), then the functions in
    # module order; an .extern function declaration that some module satisfies stays as a
    # plain prototype, as a call must follow a declaration
    variables: list[str] = []
    functions: list[str] = []
    for stmts in parts:
        for s in stmts:
            text = s.text
            if s.name is not None and s.name in defined:
                if s.defines and defined[s.name] is not s:
                    continue  # a second copy of a weak definition
                if s.extern:
                    if not _is_function(s):
                        continue  # the variable is defined (first, above)
                    text = re.sub(r"\.extern\b", "", text, count=1)
            (functions if _is_function(s) else variables).append(text)
    functions, variables = _reachable(functions, variables)
    head = [f".version {version[0]}.{version[1]}", f".target {target}",
            f".address_size {max(sizes) if sizes else '64'}"]
    body = [t.strip("\n") for t in variables + functions]
    return "\n".join(head) + "\n" + "\n".join(body) + "\n"


_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def _is_local(s: _Statement) -> bool:
    """A definition of internal linkage (no .visible, .extern, .weak or .common): PTX keeps
    it to its own module, as nvcc's `$str` printf formats and `__nv_static_*` names are."""
    head = _COMMENT.sub(" ", s.text.split("{", 1)[0].split("=", 1)[0]).split()
    return s.defines and not s.weak and not s.extern and ".visible" not in head


def _localize(parts: list[list[_Statement]]) -> list[list[_Statement]]:
    """Renames a module's internal definitions whose names another module defines too (every
    -rdc unit with a printf has a `$str`, and so has libcudadevrt): each module keeps its
    own, as nvlink keeps them apart; two external definitions stay an error (link_ptx)."""
    defined: dict[str, list[int]] = {}
    for index, stmts in enumerate(parts):
        for s in stmts:
            if s.name is not None and s.defines:
                defined.setdefault(s.name, []).append(index)
    taken = set(defined)
    out = []
    for index, stmts in enumerate(parts):
        clash = {s.name for s in stmts if s.name is not None and _is_local(s)
                 and len(defined[s.name]) > 1 and defined[s.name][0] != index}
        if not clash:
            out.append(stmts)
            continue
        new = {}
        for name in sorted(clash):
            n = 1
            while f"{name}_ps{index}_{n}" in taken:
                n += 1
            new[name] = f"{name}_ps{index}_{n}"
            taken.add(new[name])
        pattern = re.compile(r"(?<![\w$%.])(" + "|".join(re.escape(n) for n in sorted(
            new, key=len, reverse=True)) + r")(?![\w$])")
        out.append([_describe(pattern.sub(lambda m, new=new: new[m.group(1)], s.text),
                              has_body=s.defines and _is_function(s)) for s in stmts])
    return out


def _reachable(functions: list[str], variables: list[str]) -> tuple[list[str], list[str]]:
    """The functions kernels can reach and the variables they or the host can, as nvlink
    keeps of a library only what is used: an -rdc=true program carries the device
    runtime's unit, whose functions call driver-side ones nothing defines and whose tables
    hold kernel addresses. A variable the host can name (.visible, .weak, .extern) stays."""
    def describe(text: str) -> _Statement:
        return _describe(text, has_body="{" in text)

    fdefs = {st.name: text for text in functions
             if (st := describe(text)).name is not None and st.defines}
    vinfo = [(text, describe(text)) for text in variables]
    vdefs = {st.name: text for text, st in vinfo if st.name is not None}
    words = {name: set(_IDENT.findall(_COMMENT.sub(" ", text))) for name, text in
             [*fdefs.items(), *vdefs.items()]}
    live: set[str] = {name for name, text in fdefs.items()
                      if ".entry" in text.split("{", 1)[0].split()}
    live |= {st.name for text, st in vinfo if st.name is not None and
             {".visible", ".weak", ".extern"} & set(_COMMENT.sub(" ", text).split())}
    todo = list(live)
    while todo:
        for w in words.get(todo.pop(), ()):
            if (w in fdefs or w in vdefs) and w not in live:
                live.add(w)
                todo.append(w)
    keep_f = [t for t in functions if (n := describe(t).name) not in fdefs or n in live]
    keep_v = [t for t, st in vinfo if st.name not in vdefs or st.name in live]
    return keep_f, keep_v


def _is_function(s: _Statement) -> bool:
    words = _COMMENT.sub(" ", s.text.split("{", 1)[0]).split()
    return ".func" in words or ".entry" in words


# ---------------------------------------------------------------- link images (cuLink*)

LINK_PREFIX = ".pyshim.link."
INPUT_TYPES = ("cubin", "ptx", "fatbin", "object", "library", "nvvm")


def _elf_sections(data: bytes) -> dict[str, list[bytes]] | None:
    """name -> contents (in order) of a 64-bit little-endian ELF's sections; None when
    `data` is not one whose section table is all there."""
    import struct

    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    if shentsize != 64 or shoff + shnum * 64 > len(data) or shstrndx >= shnum:
        return None
    heads = [struct.unpack_from("<IIQQQQ", data, shoff + i * 64) for i in range(shnum)]
    _n, _t, _f, _a, str_off, str_size = heads[shstrndx]
    names = data[str_off:str_off + str_size]
    out: dict[str, list[bytes]] = {}
    for name_at, kind, _flags, _addr, off, size in heads:
        if kind == 8 or off + size > len(data):  # SHT_NOBITS / out of bounds
            continue
        end = names.find(b"\0", name_at)
        name = names[name_at:end if end >= 0 else None].decode("latin-1")
        out.setdefault(name, []).append(data[off:off + size])
    return out


def link_inputs(data: bytes) -> list[tuple[str, bytes]] | None:
    """The (type[:name], bytes) inputs of a cuLink* link image in input order, with
    ("arch", b"sm_XX") last; None when `data` is no link image."""
    import struct

    if _elf_sections(data) is None:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", data, 0x3c)
    heads = [struct.unpack_from("<IIQQQQ", data, shoff + i * 64) for i in range(shnum)]
    names = data[heads[shstrndx][4]:heads[shstrndx][4] + heads[shstrndx][5]]
    out = []
    for name_at, _kind, _f, _a, off, size in heads[1:]:
        end = names.find(b"\0", name_at)
        name = names[name_at:end].decode("latin-1")
        if name.startswith(LINK_PREFIX):
            out.append((name[len(LINK_PREFIX):], data[off:off + size]))
    return out or None


def _ar_members(data: bytes) -> list[tuple[str, bytes]]:
    """The members of a Unix ar archive (a host library), without its symbol tables."""
    if not data.startswith(b"!<arch>\n"):
        raise PtxLinkError("library input is not an ar archive")
    out = []
    pos = 8
    while pos + 60 <= len(data):
        head = data[pos:pos + 60]
        name = head[:16].decode("latin-1").strip()
        try:
            size = int(head[48:58].decode("latin-1").strip())
        except ValueError:
            raise PtxLinkError(f"library input: malformed member header at {pos}") from None
        body = data[pos + 60:pos + 60 + size]
        if name not in ("/", "//", "/SYM64/"):
            out.append((name, body))
        pos += 60 + size + (size & 1)
    return out


def _object_ptx(data: bytes, what: str) -> list[str]:
    """The PTX of each fat binary container in a host object (one per translation unit)."""
    from pyshim.binary import fatbin
    from pyshim.binary.errors import NoPtxError

    modules = []
    for container in fatbin.containers_in(data):
        try:
            modules.append(fatbin.choose_ptx(container.entries).ptx())
        except NoPtxError:
            pass  # SASS only: nothing of this unit to link
    return modules


def _nvjitlink_candidates() -> list[str]:
    """NVIDIA's libnvJitLink files: one this process or its parent (the program, when the
    translator runs in a subprocess) mapped, then those of the nvidia-* wheels beside any
    site-packages either maps from or this Python imports from, then CUDA_HOME's."""
    import os
    import re as _re
    from pathlib import Path

    from pyshim.kernels import nvrtc

    found: list[str] = []
    site: list[Path] = [d.parent.parent.parent for d in nvrtc._wheel_dirs()]
    for pid in ("self", str(os.getppid())):
        try:
            with open(f"/proc/{pid}/maps") as f:
                paths = {line.split()[-1] for line in f if "/" in line}
        except OSError:
            continue
        for path in sorted(paths):
            if "libnvJitLink.so" in path and "/lib/jit/" not in path:
                found.append(path)
            m = _re.match(r"(.*/site-packages)/", path)
            if m:
                site.append(Path(m.group(1)))
        try:  # a Python program's own site-packages (a virtualenv's, by its argv[0])
            argv0 = Path(open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[0].decode())
            site += sorted(argv0.parent.parent.glob("lib/python3*/site-packages"))
        except (OSError, UnicodeDecodeError):
            pass
    for sp in dict.fromkeys(site):
        for sub in ("nvidia/cu13/lib", "nvidia/nvjitlink/lib"):
            found += [str(p) for p in sorted((sp / sub).glob("libnvJitLink.so*"))]
    for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if home:
            found += [str(p) for p in sorted(Path(home, "lib64").glob("libnvJitLink.so*"))]
    return list(dict.fromkeys(found))


def nvvm_to_ptx(inputs: list[bytes], arch: str) -> str:
    """LTO-IR (NVVM) inputs linked to PTX by NVIDIA's nvJitLink (-lto -ptx)."""
    import ctypes

    lib = None
    for path in _nvjitlink_candidates():
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError:
            continue
    if lib is None:
        raise PtxLinkError("an LTO-IR (CU_JIT_INPUT_NVVM) link input needs NVIDIA's nvJitLink, "
                           "which was not found (pip install nvidia-nvjitlink)")
    handle = ctypes.c_void_p()
    opts = [f"-arch={arch}".encode(), b"-lto", b"-ptx"]
    argv = (ctypes.c_char_p * len(opts))(*opts)

    def check(rc: int, what: str) -> None:
        if rc != 0:
            size = ctypes.c_size_t()
            log = ""
            if handle and lib.nvJitLinkGetErrorLogSize(handle, ctypes.byref(size)) == 0:
                buf = ctypes.create_string_buffer(size.value + 1)
                lib.nvJitLinkGetErrorLog(handle, buf)
                log = buf.value.decode(errors="replace").strip()
            raise PtxLinkError(f"nvJitLink {what} failed ({rc}){': ' + log if log else ''}")

    check(lib.nvJitLinkCreate(ctypes.byref(handle), len(opts), argv), "create")
    try:
        for i, data in enumerate(inputs):
            check(lib.nvJitLinkAddData(handle, 3, data, ctypes.c_size_t(len(data)),
                                       f"nvvm{i}".encode()), "add LTO-IR")
        check(lib.nvJitLinkComplete(handle), "link")
        size = ctypes.c_size_t()
        check(lib.nvJitLinkGetLinkedPtxSize(handle, ctypes.byref(size)), "PTX size")
        buf = ctypes.create_string_buffer(size.value + 1)
        check(lib.nvJitLinkGetLinkedPtx(handle, buf), "PTX")
        return buf.value.decode()
    finally:
        lib.nvJitLinkDestroy(ctypes.byref(handle))


def link_image_ptx(inputs: list[tuple[str, bytes]], extract) -> str:  # type: ignore[no-untyped-def]
    """The linked PTX of a link image's inputs; `extract` gives the PTX of a cubin or fat
    binary (the loader's extract_ptx)."""
    arch = next((d.decode() for t, d in inputs if t == "arch"), "sm_75")
    if arch == "sm_0":
        arch = "sm_75"
    modules: list[str] = []
    names: list[str] = []
    nvvm: list[bytes] = []
    for label, data in inputs:
        kind, _, name = label.partition(":")
        name = name or kind
        if kind == "ptx":
            found = [data.rstrip(b"\0").decode("utf-8")]
        elif kind in ("cubin", "fatbin"):
            found = [extract(data)]
        elif kind == "object":
            found = _object_ptx(data, name)
        elif kind == "library":
            found = [p for member, body in _ar_members(data)
                     for p in _object_ptx(body, f"{name}({member})")]
        elif kind == "nvvm":
            nvvm.append(data)
            continue
        else:
            continue
        modules += found
        names += [name] * len(found)
    if nvvm:
        modules.append(nvvm_to_ptx(nvvm, arch))
        names.append("the LTO-IR inputs")
    if not modules:
        raise PtxLinkError("the link's inputs hold no PTX (SASS only?)")
    linked = link_ptx(modules, names)
    bound = next((d.decode() for t, d in inputs if t == "maxrregcount"), "")
    return bound_registers(linked, int(bound)) if bound.isdigit() and int(bound) > 0 else linked


_ENTRY = re.compile(r"\.entry\s+[\w$.]+")


def bound_registers(ptx: str, limit: int) -> str:
    """`.maxnreg limit` on every kernel that has no register bound of its own: what a link
    with -maxrregcount (numba's max_registers) asked ptxas for, in the PTX pyshim runs."""
    out, pos = [], 0
    for m in _ENTRY.finditer(ptx):
        brace = ptx.find("{", m.end())
        if brace < 0:
            break
        head = ptx[m.end():brace]
        if ";" not in head and ".maxnreg" not in head:  # a declaration ends in ";"
            out.append(ptx[pos:brace])
            out.append(f".maxnreg {limit}\n")
            pos = brace
    out.append(ptx[pos:])
    return "".join(out)
