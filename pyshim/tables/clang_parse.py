"""Read C declarations out of real headers with libclang.

Gives, for the files we ask about: functions (spelled and canonical types), enums with
their values, struct layouts (size, field offsets), typedefs and simple `#define A B`
renames. Everything else in the translation unit is ignored.
"""

from __future__ import annotations

import functools
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

# Only parsing headers (`pyshim tables generate`) needs libclang; the dataclasses here are
# also what reading the committed tables (`tables stats`, `check`) imports.
ci: ModuleType | None
try:
    import clang.cindex as ci
except ImportError as _exc:
    ci = None
    _NO_CLANG = str(_exc)


class ParseError(RuntimeError):
    pass


@dataclass(frozen=True)
class Param:
    name: str
    type: str        # as spelled in the header
    canonical: str   # with typedefs resolved


@dataclass
class Function:
    name: str
    ret: str
    ret_canonical: str
    params: list[Param]
    deprecated: bool
    file: str
    # static (the header gives its inline body): compiled into the caller, no library symbol
    inline: bool = False

    def signature(self) -> dict:
        return {"ret": self.ret, "params": [[p.type, p.name] for p in self.params]}


@dataclass
class Field:
    name: str
    type: str
    canonical: str
    offset: int  # bytes
    size: int
    bits: int = 0       # bit-field width, 0 for an ordinary field
    bit_offset: int = 0  # of a bit-field, from the start of the struct



@dataclass
class Struct:
    name: str
    size: int
    align: int
    fields: list[Field]


@dataclass
class Header:
    functions: dict[str, Function] = field(default_factory=dict)
    enums: dict[str, dict[str, int]] = field(default_factory=dict)
    structs: dict[str, Struct] = field(default_factory=dict)
    typedefs: dict[str, str] = field(default_factory=dict)      # name -> canonical
    renames: dict[str, str] = field(default_factory=dict)       # #define A B


def merge_headers(headers: list[Header]) -> Header:
    """One header with every name of `headers`; the first definition of a name wins."""
    out = Header()
    for h in headers:
        for k, v in h.enums.items():
            out.enums.setdefault(k, v)
        for k, v in h.structs.items():
            out.structs.setdefault(k, v)
        for k, v in h.typedefs.items():
            out.typedefs.setdefault(k, v)
    return out


def struct_json(s: Struct) -> dict:
    """A struct layout as the tables store it."""
    return {"size": s.size, "align": s.align,
            "fields": [[f.name, f.type, f.offset, f.size] + ([f.bit_offset, f.bits] if f.bits else [])
                       for f in s.fields]}


@functools.cache
def _system_include() -> str:
    """libclang from PyPI ships no resource headers (stddef.h ...): borrow gcc's."""
    out = subprocess.run(["gcc", "-print-file-name=include"], capture_output=True, text=True)
    path = out.stdout.strip()
    if out.returncode != 0 or not Path(path, "stddef.h").is_file():
        raise ParseError("cannot find compiler headers (gcc -print-file-name=include)")
    return path


@functools.cache
def _index() -> ci.Index:
    if ci is None:
        raise ParseError(f"parsing headers needs libclang's Python bindings ({_NO_CLANG}): "
                         "pip install libclang")
    return ci.Index.create()


# `#define cuMemAlloc cuMemAlloc_v2`, and the per-thread wrappers
# `#define cuMemcpy __CUDA_API_PTDS(cuMemcpy)` / `__CUDART_API_PTSZ(cudaMemcpyAsync)`
_DEFINE_RE = re.compile(
    r"^\s*#\s*define\s+([A-Za-z_]\w*)\s+(?:__CUDA\w*_API_PT(?:DS|SZ)\()?([A-Za-z_]\w*)\)?\s*$",
    re.M)


def _wanted(cursor: ci.Cursor, files: tuple[str, ...]) -> bool:
    """`files` holds file-name suffixes ("/cuda.h") and directories ("/include/hip/")."""
    loc = cursor.location.file
    if loc is None:
        return False
    name = loc.name
    return name.endswith(files) or any(f.endswith("/") and f in name for f in files)


def _is_deprecated(cursor: ci.Cursor) -> bool:
    for child in cursor.get_children():
        if child.kind == ci.CursorKind.UNEXPOSED_ATTR:
            toks = [t.spelling for t in child.get_tokens()]
            if toks and "deprecated" in toks[0]:
                return True
    # availability is what clang records for __attribute__((deprecated))
    return cursor.availability == ci.AvailabilityKind.DEPRECATED


def _walk(cursor: ci.Cursor):
    """Top-level declarations, looking through extern "C" blocks."""
    for child in cursor.get_children():
        if child.kind in (ci.CursorKind.LINKAGE_SPEC, ci.CursorKind.UNEXPOSED_DECL):
            yield from _walk(child)
        else:
            yield child


# clang names unnamed records after their file and line: keep tables machine-independent
_UNNAMED_RE = re.compile(r"\((unnamed|anonymous)( \w+)? at [^)]*\)")


def _spell(t: ci.Type) -> str:
    return _UNNAMED_RE.sub(r"(\1\2)", t.spelling)


def _struct(cursor: ci.Cursor, name: str) -> Struct | None:
    t = cursor.type
    size = t.get_size()
    if size < 0:
        return None
    fields = []
    for f in cursor.type.get_fields():
        off = t.get_offset(f.spelling)
        fname = "" if f.is_anonymous() else _UNNAMED_RE.sub(r"(\1\2)", f.spelling)
        bits = f.get_bitfield_width() if f.is_bitfield() else 0
        fields.append(Field(fname, _spell(f.type), _spell(f.type.get_canonical()),
                            off // 8 if off >= 0 else -1, max(f.type.get_size(), 0),
                            bits, off if bits else 0))
    return Struct(name, size, t.get_align(), fields)


def parse_header(header: Path, include_dirs: list[Path], *, files: tuple[str, ...],
                 defines: tuple[str, ...] = (), lang: str = "c") -> Header:
    """Parse `header`; keep declarations whose file name ends with one of `files`."""
    args = ["-x", lang, "-std=c11" if lang == "c" else "-std=c++17",
            "-isystem", _system_include(), *(f"-I{d}" for d in include_dirs),
            *(f"-D{d}" for d in defines)]
    tu = _index().parse(str(header), args=args,
                        options=ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
    errors = [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise ParseError(f"{header.name} ({lang}, {' '.join(defines)}): " + "; ".join(errors[:5]))
    out = Header()
    for cur in _walk(tu.cursor):
        if not _wanted(cur, files):
            continue
        kind = cur.kind
        if kind == ci.CursorKind.FUNCTION_DECL:
            params = [Param(a.spelling, a.type.spelling, a.type.get_canonical().spelling)
                      for a in cur.get_arguments()]
            out.functions[cur.spelling] = Function(
                cur.spelling, cur.result_type.spelling, cur.result_type.get_canonical().spelling,
                params, _is_deprecated(cur), Path(cur.location.file.name).name,
                cur.storage_class == ci.StorageClass.STATIC)
        elif kind == ci.CursorKind.ENUM_DECL:
            values = {c.spelling: c.enum_value for c in cur.get_children()
                      if c.kind == ci.CursorKind.ENUM_CONSTANT_DECL}
            if cur.spelling and not cur.spelling.startswith("enum (") and values:
                out.enums.setdefault(cur.spelling, values)
        elif kind in (ci.CursorKind.STRUCT_DECL, ci.CursorKind.UNION_DECL):
            _record_structs(cur, out)
        elif kind == ci.CursorKind.TYPEDEF_DECL:
            under = cur.underlying_typedef_type
            canon = under.get_canonical()
            out.typedefs[cur.spelling] = _spell(canon)
            decl = canon.get_declaration()
            if canon.kind == ci.TypeKind.ENUM:
                values = {c.spelling: c.enum_value for c in decl.get_children()
                          if c.kind == ci.CursorKind.ENUM_CONSTANT_DECL}
                if values:
                    out.enums[cur.spelling] = values
            elif canon.kind == ci.TypeKind.RECORD and decl.is_definition():
                s = _struct(decl, cur.spelling)
                if s:
                    out.structs[cur.spelling] = s
    for f in files:
        if f.endswith("/"):
            continue
        for path in _header_files(tu, f):
            out.renames.update(dict(_DEFINE_RE.findall(path.read_text(errors="replace"))))
    return out


def _record_structs(cur: ci.Cursor, out: Header) -> None:
    """A struct definition and the named ones nested in it (C puts those in file scope)."""
    if cur.is_definition() and cur.spelling and "(" not in cur.spelling:
        s = _struct(cur, cur.spelling)
        if s:
            out.structs.setdefault(cur.spelling, s)
    for child in cur.get_children():
        if child.kind in (ci.CursorKind.STRUCT_DECL, ci.CursorKind.UNION_DECL):
            _record_structs(child, out)


def _header_files(tu: ci.TranslationUnit, suffix: str) -> list[Path]:
    seen = {inc.include.name for inc in tu.get_includes()} | {tu.spelling}
    return sorted(Path(p) for p in seen if p.endswith(suffix))
