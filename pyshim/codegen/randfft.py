"""libcurand / libcufft generated C: a weak definition of every exported cuRAND and cuFFT
symbol, from tables/curand.json and tables/cufft.json.

- direct/converted entries (cuRAND -> rocRAND): a thunk that casts handles, converts
  enums through generated switch converters and maps the rocrand_status back;
- cuFFT -> hipFFT adapters: cuFFT plans are ints, hipFFT's are pointers, so a plan
  argument goes through pyshim's plan table (`fft-handle`: look up, CUFFT_INVALID_PLAN
  when unknown; `fft-handle-out`: the new hipFFT plan gets a fresh int);
- everything else: a NOT_SUPPORTED stub that logs its name once and is counted. cuRAND has
  no NOT_SUPPORTED status: its stubs return CURAND_STATUS_ARCH_MISMATCH ("the device does
  not support the requested feature").

The hand-written C in shim/randfft defines the `shim` entries as strong symbols, which win.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from pyshim.codegen import common, export_stubs
from pyshim.codegen.common import STAMP, c_ident, declare, enum_converter, load_table, param_names

LIBS = ("curand", "cufft")
SONAMES = {"curand": ("libcurand.so.10",), "cufft": ("libcufft.so.12",)}
# (status type, NOT_SUPPORTED value name, ROCm status type)
STATUS = {"curand": ("curandStatus_t", "CURAND_STATUS_ARCH_MISMATCH", "rocrand_status"),
          "cufft": ("cufftResult", "CUFFT_NOT_SUPPORTED", "hipfftResult")}
OWN_EXPORTS = {"curand": ("pyshim_curand_unsupported_count",),
               "cufft": ("pyshim_cufft_unsupported_count",)}
# CUDA's and HIP's runtime headers cannot share a translation unit (both define float2,
# __host__, ...): the thunks include the CUDA header and declare their ROCm targets from
# the tables in ABI terms (<lib>_rocm.h: pointers and handles void *, enums int). The CPU
# device's libraries compile against the real ROCm headers.
PRELUDE = {
    "curand": "#include <curand.h>\n",
    "cufft": "#include <cufftXt.h>\n",
}
_BUILTIN = {"int", "unsigned int", "size_t", "long long", "unsigned long long", "float",
            "double", "long", "unsigned long", "short", "unsigned short", "char",
            "unsigned char", "void"}


_ROCM_ENUMS: set[str] = set()


def abi_type(rtype: str, rocm_typedefs: dict[str, str]) -> str:
    """A ROCm parameter type as the C type with its ABI: pointers and pointer handles
    become void *, enums int."""
    t = " ".join(_value_type(rtype).replace("const ", "").split())
    if "*" in t:
        return "void *"
    seen = set()
    while t in rocm_typedefs and t not in seen and t not in _ROCM_ENUMS:
        seen.add(t)
        t = rocm_typedefs[t].strip()
    # C++ spells enum types without `enum ` (rocrand.h, hipfftXt.h parse as C++)
    if t.startswith("enum ") or t in _ROCM_ENUMS:
        return "int"
    if "*" in t:
        return "void *"
    if t in _BUILTIN:
        return t
    raise Unmapped(f"ROCm type {rtype}")


def rocm_header(lib: str, names: list[str], rocm_fns: dict, rocm_typedefs: dict) -> str:
    guard = f"PYSHIM_GEN_{lib.upper()}_ROCM_H"
    out = [STAMP, f"/* The ROCm functions libpyshim {lib} calls, declared in ABI terms. */\n",
           f"#ifndef {guard}\n#define {guard}\n#include <stddef.h>\n\n"]
    for n in sorted(names):
        fn = rocm_fns[n]
        params = ", ".join(f"{abi_type(t, rocm_typedefs)} {pn or f'a{i}'}"
                           for i, (t, pn) in enumerate(fn["params"])) or "void"
        out.append(f"{abi_type(fn['ret'], rocm_typedefs)} {n}({params});\n")
    out.append("\n#endif\n")
    return "".join(out)


# ROCm functions the hand-written C in shim/randfft calls (declared in <lib>_rocm.h too)
HAND_TARGETS = {"curand": ("rocrand_get_direction_vectors32", "rocrand_get_direction_vectors64",
                           "rocrand_get_scramble_constants32",
                           "rocrand_get_scramble_constants64"),
                "cufft": ("hipfftDestroy",)}


class Unmapped(Exception):
    """The tables do not describe this entry mechanically: it becomes a stub."""


@dataclass
class Counts:
    thunks: int = 0
    adapters: int = 0
    stubs: int = 0
    hand: int = 0


def _value_type(ctype: str) -> str:
    t = ctype.strip()
    if t.endswith("[]"):
        t = t[:-2].rstrip() + " *"
    if "*" not in t and t.startswith("const "):
        t = t[6:]
    return t


def _norm(t: str) -> str:
    return " ".join(_value_type(t).replace("*", " * ").split())


class Enums:
    def __init__(self, enums: dict):
        self.pairs = enums["pairs"]
        self.used: dict[str, dict] = {}

    def _pair(self, key: str) -> dict:
        p = self.pairs.get(key)
        if p is None or not (p.get("values") or p.get("reverse")):
            raise Unmapped(f"enum pair {key} has no values")
        self.used[key] = p
        return p

    def to_rocm(self, key: str, expr: str, rtype: str) -> str:
        p = self._pair(key)
        return f"({_value_type(rtype)})pyshim_{c_ident(p['cuda'])}_to_{c_ident(p['rocm'])}({expr})"

    def status(self, cuda: str, rocm: str) -> str:
        self._pair(f"{cuda}->{rocm}")
        return f"pyshim_{c_ident(cuda)}_from_{c_ident(rocm)}"

    def header(self, lib: str) -> str:
        guard = f"PYSHIM_GEN_{lib.upper()}_ENUMS_H"
        out = [STAMP, f"#ifndef {guard}\n#define {guard}\n\n"]
        for key in sorted(self.used):
            p = self.used[key]
            out.append(enum_converter(p, reverse="reverse" in p) + "\n")
        out.append("#endif\n")
        return "".join(out)


def _declare(symbol: str, sig: dict) -> str:
    return declare(symbol, sig, attrs="PYSHIM_WEAK ")


def _unused(names: list[str]) -> str:
    return "".join(f"    (void){n};\n" for n in names)


def _stub(lib: str, symbol: str, sig: dict) -> str:
    status_t, not_supported, _ = STATUS[lib]
    value = not_supported if sig["ret"] == status_t else f"({sig['ret']})0"
    return (f"{_declare(symbol, sig)}\n{{\n{_unused(param_names(sig))}"
            f'    pyshim_{lib}_unsupported("{symbol}");\n    return {value};\n}}\n')


def _arg(conv: str, name: str, ctype: str, rtype: str, ev: Enums) -> str:
    if conv in ("direct", "handle"):
        if _norm(ctype) == _norm(rtype):
            return name
        return f"({rtype}){name}"
    if conv.startswith("enum:"):
        return ev.to_rocm(conv[5:], name, rtype)
    raise Unmapped(f"conversion {conv}")


def _thunk(lib: str, symbol: str, sig: dict, entry: dict, target: dict, ev: Enums,
           rocm_typedefs: dict) -> str:
    status_t, _, rocm_status = STATUS[lib]
    if sig["ret"] != status_t:
        raise Unmapped("returns " + sig["ret"])
    names = param_names(sig)
    if len(target["params"]) != len(names):
        raise Unmapped("arity")
    pre: list[str] = []
    post: list[str] = []
    exprs = []
    for conv, name, (ctype, _), (rtype, _rname) in zip(entry["args"], names, sig["params"],
                                                       target["params"], strict=True):
        rtype = abi_type(rtype, rocm_typedefs)
        if conv == "fft-handle":
            pre += [f"    void *h_{name} = pyshim_fft_plan({name});",
                    f"    if (!h_{name})", "        return CUFFT_INVALID_PLAN;"]
            exprs.append(f"h_{name}")
        elif conv == "fft-handle-out":
            pre += [f"    if (!{name})", "        return CUFFT_INVALID_VALUE;",
                    f"    void *h_{name} = NULL;"]
            exprs.append(f"&h_{name}")
            post += ["    if (st == 0) { /* HIPFFT_SUCCESS */",
                     f"        *{name} = pyshim_fft_register(h_{name});",
                     f"        if (*{name} < 0) {{",
                     f"            hipfftDestroy(h_{name});",
                     "            return CUFFT_ALLOC_FAILED;", "        }", "    }"]
        else:
            exprs.append(_arg(conv, name, ctype, rtype, ev))
    from_st = ev.status(status_t, rocm_status)
    call = f"{entry['target']}({', '.join(exprs)})"
    lines = [_declare(symbol, sig), "{", *pre, f"    int st = (int){call};", *post,
             f"    return ({status_t}){from_st}(st);", "}"]
    return "\n".join(lines) + "\n"


def _body(lib: str, symbol: str, sig: dict, entry: dict, rocm_fns: dict, ev: Enums,
          counts: Counts, rocm_typedefs: dict, used: set[str]) -> str:
    cls = entry["class"]
    target = rocm_fns.get(entry["target"] or "")
    if cls in ("direct", "converted", "adapter") and target is not None:
        try:
            text = _thunk(lib, symbol, sig, entry, target, ev, rocm_typedefs)
            used.add(entry["target"])
        except Unmapped as why:
            counts.stubs += 1
            return f"/* {symbol}: not generated ({why}) */\n{_stub(lib, symbol, sig)}"
        if cls == "adapter":
            counts.adapters += 1
        else:
            counts.thunks += 1
        return text
    if cls == "shim":
        counts.hand += 1
    else:
        counts.stubs += 1
    return _stub(lib, symbol, sig)


def thunks(lib: str, table: dict, rocm: dict, ev: Enums, rocm_typedefs: dict,
           used: set[str] | None = None) -> tuple[str, Counts]:
    used = set() if used is None else used
    out = [STAMP,
           f"/* Every exported {lib} symbol, weak: shim/randfft's strong definitions win. */\n",
           "#include <stdint.h>\n#include <stddef.h>\n", PRELUDE[lib],
           '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n',
           '#include "randfft_internal.h"\n', f'#include "{lib}_enums.h"\n',
           f'#include "{lib}_rocm.h"\n\n']
    counts = Counts()
    for _name, entry in sorted(table["entry_points"].items()):
        for symbol, sig in sorted(entry["symbols"].items()):
            out.append(_body(lib, symbol, sig, entry, rocm["functions"], ev, counts,
                             rocm_typedefs, used) + "\n")
    return "".join(out), counts


def exported_symbols(lib: str, table: dict) -> list[str]:
    names = {s for e in table["entry_points"].values() for s in e["symbols"]}
    return sorted(names | set(OWN_EXPORTS[lib]))


def generate(out_dir: Path) -> list[Path]:
    """<lib>_thunks.c, <lib>_export_stubs.c, <lib>_enums.h, <soname>.map for cuRAND and
    cuFFT into out_dir; unchanged files are left alone."""
    rocm, enums, typedefs = load_table("rocm"), load_table("enums"), load_table("typedefs")
    _ROCM_ENUMS.update(typedefs["rocm_enums"])
    files: dict[str, str] = {}
    for lib in LIBS:
        table = load_table(lib)
        ev = Enums(enums)
        used: set[str] = set(HAND_TARGETS[lib])
        text, _ = thunks(lib, table, rocm, ev, typedefs["rocm"], used)
        files[f"{lib}_thunks.c"] = text
        files[f"{lib}_rocm.h"] = rocm_header(lib, sorted(used), rocm["functions"],
                                             typedefs["rocm"])
        files[f"{lib}_enums.h"] = ev.header(lib)
        syms = exported_symbols(lib, table)
        extra = export_stubs.extras(SONAMES[lib][0], syms)
        files[f"{lib}_export_stubs.c"] = export_stubs.source(SONAMES[lib][0], lib, extra,
                                                             typedefs)
        syms = sorted({*syms, *extra})
        files[f"{lib}_exports.txt"] = "\n".join(syms) + "\n"
        for soname in SONAMES[lib]:
            files[f"{soname}.map"] = common.version_script(soname, syms)
    return common.write_changed(out_dir, files)


def counts() -> dict[str, Counts]:
    rocm, enums = load_table("rocm"), load_table("enums")
    typedefs = load_table("typedefs")
    _ROCM_ENUMS.update(typedefs["rocm_enums"])
    rocm_typedefs = typedefs["rocm"]
    return {lib: thunks(lib, load_table(lib), rocm, Enums(enums), rocm_typedefs)[1]
            for lib in LIBS}


if __name__ == "__main__":
    for p in generate(Path(sys.argv[1] if len(sys.argv) > 1 else "build/randfft/gen")):
        print(p)
    for lib, c in counts().items():
        print(lib, c)
