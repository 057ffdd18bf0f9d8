"""libcuda.so.1's generated C: the cuGetProcAddress map, enum/status converters, and a weak
definition of every exported driver symbol (a forwarding thunk where the tables say the
arguments pass or convert mechanically, else a NOT_SUPPORTED stub). The hand-written core
in shim/core defines the entry points it implements as strong symbols, which win."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from pyshim.codegen.common import (
    STAMP,
    declare,
    enum_converter,
    load_table,
    param_names,
    write_changed,
)

VARIANTS = {"": "PYSHIM_PROC_DEFAULT", "ptds": "PYSHIM_PROC_PTDS", "ptsz": "PYSHIM_PROC_PTSZ"}
THUNKABLE = ("direct", "handle", "deviceptr", "int-cast")


def proc_table(driver: dict) -> str:
    rows = [STAMP, "/* PYSHIM_PROC(name, introduced in CUDA version, variant, symbol) */\n"]
    for name, version, variant, symbol in driver["proc_address"]:
        rows.append(f'PYSHIM_PROC("{name}", {version}, {VARIANTS[variant]}, {symbol})\n')
    return "".join(rows)


def enums_header(enums: dict, names: list[str]) -> str:
    out = [STAMP, "#ifndef PYSHIM_GEN_DRIVER_ENUMS_H\n#define PYSHIM_GEN_DRIVER_ENUMS_H\n\n"]
    pairs = enums["pairs"]
    for name in names:
        pair = pairs[name]
        out.append(enum_converter(pair))
        if "reverse" in pair:
            out.append(enum_converter(pair, reverse=True))
        out.append("\n")
    out.append("#endif\n")
    return "".join(out)


def _arg_expr(conv: str, name: str, cuda_type: str, rocm_type: str,
              per_thread: bool = False) -> str | None:
    if cuda_type == "CUstream" and conv == "handle":
        # CU_STREAM_LEGACY / CU_STREAM_PER_THREAD and the _ptsz NULL stream mean what the
        # core says they mean
        return f"pyshim_hip_stream({name}, {int(per_thread)})"
    if conv in THUNKABLE:
        if cuda_type == rocm_type:
            return name
        if "*" in cuda_type or "*" in rocm_type or conv != "direct":
            return f"({rocm_type}){name}"
        # same layout, maybe a struct by value: copy the bits
        return f"PYSHIM_BITCAST({rocm_type}, {name})"
    if conv.startswith("enum:"):
        cuda, rocm = conv[5:].split("->")
        return f"({rocm_type})pyshim_{cuda}_to_{rocm}({name})"
    return None


def _thunk(symbol: str, sig: dict, entry: dict, rocm_fns: dict) -> str | None:
    if entry["class"] not in ("direct", "converted") or entry["returns"] != "CUresult":
        return None
    target = rocm_fns.get(entry["target"])
    if target is None or len(target["params"]) != len(sig["params"]):
        return None
    per_thread = symbol.endswith(("_ptds", "_ptsz"))
    target_name = entry["target"]
    if per_thread:
        # the per-thread default stream: HIP's _spt twin where it has one, else the stream
        # argument (NULL -> hipStreamPerThread) carries it
        if f"{target_name}_spt" in rocm_fns:
            target_name = f"{target_name}_spt"
        elif not any(t == "CUstream" for t, _n in sig["params"]):
            return None
    base = re.sub(r"_pt(ds|sz)$", "", symbol)
    primary = entry["symbols"][entry["primary"]]["params"]
    if sig["params"] != primary and not (per_thread and base == entry["primary"]):
        return None  # legacy ABIs (32-bit CUdeviceptr ...) are not the mapped one
    exprs = []
    for conv, name, (ctype, _cn), (rtype, _rn) in zip(
            entry["args"], param_names(sig), sig["params"], target["params"], strict=True):
        expr = _arg_expr(conv, name, ctype, rtype, per_thread)
        if expr is None:
            return None
        exprs.append(expr)
    call = f"{target_name}({', '.join(exprs)})"
    return (f"{declare(symbol, sig, attrs='PYSHIM_WEAK ')}\n{{\n"
            f"    return (CUresult)pyshim_CUresult_from_hipError_t({call});\n}}\n")


def _stub(symbol: str, sig: dict) -> str:
    names = param_names(sig)
    unused = "".join(f"    (void){n};\n" for n in names)
    ret = sig["ret"]
    value = "CUDA_ERROR_NOT_SUPPORTED" if ret == "CUresult" else f"({ret})0"
    return (f"{declare(symbol, sig, attrs='PYSHIM_WEAK ')}\n{{\n{unused}"
            f'    pyshim_unsupported("{symbol}");\n    return {value};\n}}\n')


def stubs(driver: dict, rocm: dict) -> tuple[str, dict[str, int]]:
    out = [STAMP,
           "/* Every exported driver symbol, weak: the core's strong definitions win. */\n",
           "#define __CUDA_API_VERSION_INTERNAL 1\n",
           "#include <string.h>\n#include <cuda.h>\n#include <cudaProfiler.h>\n"
           "#include <hip/hip_runtime_api.h>\n",
           "/* CUDA's API is current where HIP marks its twin deprecated: forward anyway */\n",
           '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n',
           "#define PYSHIM_BITCAST(T, x) \\\n"
           "    (__extension__({ T _t; _Static_assert(sizeof(T) == sizeof(x), #x); \\\n"
           "                     memcpy(&_t, &(x), sizeof _t); _t; }))\n",
           '#include "driver_enums.h"\n\n',
           "#define PYSHIM_WEAK __attribute__((weak, visibility(\"default\")))\n",
           "void pyshim_unsupported(const char *name);\n",
           "/* the core's stream mapping (shim/core/stream.c) */\n",
           "hipStream_t pyshim_hip_stream(CUstream stream, int per_thread);\n\n"]
    counts = {"thunks": 0, "stubs": 0}
    for _symbol, body, is_thunk in bodies(driver, rocm):
        counts["thunks" if is_thunk else "stubs"] += 1
        out.append(body + "\n")
    return "".join(out), counts


def bodies(driver: dict, rocm: dict) -> list[tuple[str, str, bool]]:
    """(symbol, its weak C definition, whether that is a forwarding thunk rather than a
    NOT_SUPPORTED stub) for every exported driver symbol, in file order."""
    rocm_fns = rocm["functions"]
    every = {**driver["entry_points"], **driver.get("extra_entry_points", {})}
    out = []
    for _name, entry in sorted(every.items()):
        for symbol, sig in sorted(entry["symbols"].items()):
            body = _thunk(symbol, sig, entry, rocm_fns)
            out.append((symbol, body, True) if body is not None
                       else (symbol, _stub(symbol, sig), False))
    return out


def exported_symbols(driver: dict) -> list[str]:
    every = [*driver["entry_points"].values(), *driver.get("extra_entry_points", {}).values()]
    return sorted(s for e in every for s in e["symbols"])


def generate(out_dir: Path) -> list[Path]:
    driver = load_table("driver")
    rocm = load_table("rocm")
    enums = load_table("enums")
    every = [*driver["entry_points"].values(), *driver.get("extra_entry_points", {}).values()]
    used = sorted({a[5:] for e in every
                   for a in e["args"] if a.startswith("enum:")} | {"CUresult->hipError_t"})
    files = {
        "driver_proc_table.inc": proc_table(driver),
        "driver_enums.h": enums_header(enums, used),
        "driver_stubs.c": stubs(driver, rocm)[0],
        "driver_exports.txt": "\n".join(exported_symbols(driver)) + "\n",
    }
    return write_changed(out_dir, files)


if __name__ == "__main__":
    for p in generate(Path(sys.argv[1] if len(sys.argv) > 1 else "build/gen")):
        print(p)
