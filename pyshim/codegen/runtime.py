"""libcudart.so.13 / .12's generated C, mapped straight onto HIP (not through libcuda).

From tables/runtime.json (and cuda12.json for the .12 library) this writes, per CUDA major:
  runtime_thunks_<major>.c   a weak definition of every exported runtime symbol: a forwarding
                             thunk where the arguments pass or convert mechanically, else a
                             cudaErrorNotSupported stub. shim/runtime's strong definitions win.
  libcudart.so.<major>.map   the linker version script: every symbol under the version node
                             NVIDIA uses (named after the soname), everything else local.
and, shared by both: runtime_enums.h (enum/status converters), runtime_errors.inc (CUDA's
error names and strings), runtime_devprop.inc (cudaDeviceProp <- hipDeviceProp_tR0600 field
copies for both layouts), runtime_exports_<major>.txt (the symbol list, for tests).

The thunk translation unit sees only CUDA's headers: cuda_runtime_api.h and the HIP headers
cannot share one (dim3, ...), so each HIP target is declared here from its CUDA-side
signature (the tables say those arguments are ABI-identical) and declared *weak*: a target
the backend lacks (the CPU device implements a subset of HIP) reads as NULL and the thunk
refuses with cudaErrorNotSupported instead of the loader killing the process.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from pyshim.codegen import common, export_stubs
from pyshim.codegen.common import STAMP, c_ident, declare, enum_converter, load_table, param_names

MAJORS = (13, 12)
THUNKABLE = ("direct", "handle")
# Exported by NVIDIA's libcudart but declared in no header the tables parse: nvcc's hidden
# registration/launch hooks (crt/host_runtime.h, crt/device_functions.h) and the profiler
# control of cuda_profiler_api.h. shim/runtime defines each of them.
HOOKS = (
    "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary",
    "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaRegisterManagedVar",
    "__cudaRegisterHostVar", "__cudaInitModule", "__cudaPushCallConfiguration",
    "__cudaPopCallConfiguration", "__cudaGetKernel", "__cudaLaunchKernel",
    "__cudaLaunchKernel_ptsz", "cudaProfilerStart", "cudaProfilerStop",
)
# Arguments that are host-side identities (a kernel's host stub, a __device__ variable's
# host shadow): only our registry knows them, so HIP must never see them.
HOST_IDENTITY_PARAMS = {("const void *", "func"), ("const void *", "symbol"),
                        ("const void *", "symbolPtr"), ("const void *", "entryFuncAddr")}
# CUDA's own wording for the errors programs print most; the rest are spelled from the name.
ERROR_STRINGS = {
    "cudaSuccess": "no error",
    "cudaErrorInvalidValue": "invalid argument",
    "cudaErrorMemoryAllocation": "out of memory",
    "cudaErrorInitializationError": "initialization error",
    "cudaErrorInvalidConfiguration": "invalid configuration argument",
    "cudaErrorInvalidDevicePointer": "invalid device pointer",
    "cudaErrorInvalidDevice": "invalid device ordinal",
    "cudaErrorInvalidResourceHandle": "invalid resource handle",
    "cudaErrorInvalidDeviceFunction": "invalid device function",
    "cudaErrorInvalidSymbol": "invalid device symbol",
    "cudaErrorNoDevice": "no CUDA-capable device is detected",
    "cudaErrorNotSupported": "operation not supported",
    "cudaErrorNoKernelImageForDevice": "no kernel image is available for execution on the device",
    "cudaErrorIllegalAddress": "an illegal memory access was encountered",
    "cudaErrorLaunchFailure": "unspecified launch failure",
    "cudaErrorNotReady": "device not ready",
    "cudaErrorUnknown": "unknown error",
}


# ---------------------------------------------------------------- the symbol sets


def symbols_for(major: int, runtime: dict, cuda12: dict) -> dict[str, tuple[dict, dict | None]]:
    """symbol -> (signature, its runtime.json entry, or None where the symbol's ABI is not
    CUDA 13's: 12-only symbols and those whose signature changed)."""
    out: dict[str, tuple[dict, dict | None]] = {}
    for entry in runtime["entry_points"].values():
        for symbol, sig in entry["symbols"].items():
            out[symbol] = (sig, entry)
    if major == 13:
        return out
    thirteen = dict(out)
    for symbol in cuda12["symbols_only_in_13"]:
        out.pop(symbol, None)
    for symbol, versions in cuda12["signature_changed"].items():
        sig13, entry = thirteen.get(symbol, (None, None))
        out[symbol] = (versions["12"], _older_abi(versions["12"], sig13, entry))
    for symbol, sig in cuda12["symbols_only_in_12"].items():
        # CUDA 12's _v2 forms (graph edge data) are CUDA 13's plain ones
        twin = thirteen.get(re.sub(r"_v2(?=$|_ptsz$)", "", symbol))
        out[symbol] = (sig, twin[1] if twin is not None and twin[0] == sig else None)
    return out


def _older_abi(sig12: dict, sig13: dict | None, entry: dict | None) -> dict | None:
    """The entry for CUDA 12's signature of a symbol whose CUDA 13 signature added
    arguments HIP has no room for (graph edge data, reserved flags): the same conversions
    with those arguments left out, or None when the signatures differ otherwise."""
    if entry is None or sig13 is None or sig12["ret"] != sig13["ret"] \
            or len(entry["args"]) != len(sig13["params"]):
        return None
    args, i = [], 0
    for param, conv in zip(sig13["params"], entry["args"], strict=True):
        if i < len(sig12["params"]) and sig12["params"][i] == param:
            args.append(conv)
            i += 1
        elif conv not in DROPPED:
            return None
    return {**entry, "args": args} if i == len(sig12["params"]) else None


def version_script(major: int, symbols: list[str]) -> str:
    names = sorted(set(symbols) | set(HOOKS))
    body = "".join(f"    {s};\n" for s in names)
    return f"{STAMP}libcudart.so.{major} {{\n  global:\n{body}  local:\n    *;\n}};\n"


# ---------------------------------------------------------------- thunks


def _hip_param_type(conv: str, cuda_type: str, pairs: set[str]) -> str | None:
    if conv in THUNKABLE:
        return cuda_type  # ABI-identical per the tables
    if conv.startswith("enum:") and conv[5:] in pairs:
        return "int"
    return None


def _arg_expr(conv: str, name: str, cuda_type: str, per_thread: bool) -> str:
    if conv.startswith("enum:"):
        cuda, rocm = conv[5:].split("->")
        return f"pyshim_{c_ident(cuda)}_to_{c_ident(rocm)}((int){name})"
    if cuda_type == "cudaStream_t":
        return f"pyshim_rt_stream({name}, {int(per_thread)})"
    return name


# Arguments CUDA has and HIP does not: accepted only with the value that means "nothing"
# (CUDA 12.3+ graph edge data, reserved flags), then left out of the HIP call.
DROPPED = {"drop-null": "NULL", "drop-zero": "0"}


def _thunk(symbol: str, sig: dict, entry: dict | None, rocm_fns: dict,
           declared: dict[str, str], pairs: set[str]) -> str | None:
    """A forwarding thunk, or None when the symbol must be a stub (or is hand-written).
    Adapter entries qualify when every argument converts mechanically (a renamed target,
    an argument to drop)."""
    if entry is None or entry["class"] not in ("direct", "converted", "adapter"):
        return None
    if entry["returns"] != "cudaError_t" or sig["ret"] != "cudaError_t":
        return None
    target = rocm_fns.get(entry["target"])
    if target is None or target["ret"] != "hipError_t":
        return None
    if any((t, n) in HOST_IDENTITY_PARAMS for t, n in sig["params"]):
        return None
    if len(entry["args"]) != len(sig["params"]):
        return None  # an entry whose arguments the tables describe for another ABI
    per_thread = symbol.endswith(("_ptds", "_ptsz"))
    hip_types, exprs, checks = [], [], []
    for conv, name, (ctype, _cn) in zip(
            entry["args"], param_names(sig), sig["params"], strict=True):
        if conv in DROPPED:
            checks.append(f"    if ({name} != {DROPPED[conv]})\n"
                          f'        return pyshim_rt_unsupported_arg("{symbol}", "{name}");\n')
            continue
        htype = _hip_param_type(conv, ctype, pairs)
        if htype is None:
            return None
        hip_types.append(htype)
        expr = _arg_expr(conv, name, ctype, per_thread)
        exprs.append(expr)
        if conv.startswith("enum:"):
            # a value with no HIP counterpart is refused by name before HIP sees anything
            checks.append(f"    if ({expr} == PYSHIM_RT_UNMAPPED)\n"
                          f'        return pyshim_rt_unmapped("{symbol}", "{name}", '
                          f"(int){name});\n")
    if len(target["params"]) != len(hip_types):
        return None
    hip_name = entry["target"]
    hip_sig = {"ret": "int", "params": [[t, f"a{i}"] for i, t in enumerate(hip_types)]}
    decl = declare(hip_name, hip_sig, attrs="extern PYSHIM_WEAK_IMPORT ")
    if declared.setdefault(hip_name, decl) != decl:
        return None  # two CUDA symbols disagree on the target's CUDA-side types
    call = f"{hip_name}({', '.join(exprs)})"
    return (f"{declare(symbol, sig, attrs='PYSHIM_WEAK ')}\n{{\n"
            f"    PYSHIM_RT_ENTER();\n"
            f"    if ({hip_name} == NULL)\n"
            f'        return pyshim_rt_missing("{symbol}", "{hip_name}");\n'
            f"{''.join(checks)}"
            f"    return pyshim_rt_hip_result({call});\n}}\n")


def _stub(symbol: str, sig: dict) -> str:
    unused = "".join(f"    (void){n};\n" for n in param_names(sig))
    if sig["ret"] == "cudaError_t":
        tail = f'    return pyshim_rt_unsupported("{symbol}");\n'
    else:
        tail = (f'    pyshim_rt_unsupported("{symbol}");\n'
                f"    {sig['ret']} zero;\n    memset(&zero, 0, sizeof zero);\n    return zero;\n")
    return f"{declare(symbol, sig, attrs='PYSHIM_WEAK ')}\n{{\n{unused}{tail}}}\n"


def thunks(major: int, runtime: dict, cuda12: dict, rocm: dict,
           enums: dict) -> tuple[str, dict[str, int]]:
    head = [STAMP,
            f"/* Every symbol of libcudart.so.{major}, weak: shim/runtime's strong definitions"
            " win. */\n",
            "/* see every exported variant (_ptds/_ptsz) and none of the renaming macros */\n",
            "#define __CUDA_API_VERSION_INTERNAL 1\n",
            "#include <stddef.h>\n#include <string.h>\n#include <cuda_runtime_api.h>\n",
            '#include "runtime_enums.h"\n#include "rt_thunk.h"\n',
            '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n\n']
    decls: dict[str, str] = {}
    texts = []
    counts = {"thunks": 0, "stubs": 0}
    for _symbol, body, is_thunk in bodies(major, runtime, cuda12, rocm, enums, decls):
        counts["thunks" if is_thunk else "stubs"] += 1
        texts.append(body + "\n")
    hip_decls = [d + ";\n" for _n, d in sorted(decls.items())]
    text = "".join(head) + "/* HIP targets, weak: NULL when the backend lacks one */\n"
    return text + "".join(hip_decls) + "\n" + "".join(texts), counts


def bodies(major: int, runtime: dict, cuda12: dict, rocm: dict, enums: dict,
           decls: dict[str, str] | None = None) -> list[tuple[str, str, bool]]:
    """(symbol, its weak C definition, whether that is a forwarding thunk rather than a
    cudaErrorNotSupported stub) for every symbol of libcudart.so.<major>, in file order;
    `decls` collects the HIP targets the thunks call."""
    rocm_fns = rocm["functions"]
    pairs = set(used_enum_pairs(runtime, enums))
    decls = {} if decls is None else decls
    out = []
    for symbol, (sig, entry) in sorted(symbols_for(major, runtime, cuda12).items()):
        body = _thunk(symbol, sig, entry, rocm_fns, decls, pairs)
        out.append((symbol, body, True) if body is not None
                   else (symbol, _stub(symbol, sig), False))
    return out


# ---------------------------------------------------------------- enums, errors


def used_enum_pairs(runtime: dict, enums: dict) -> list[str]:
    """The enum pairs the thunks convert (those enums.json has a map for)."""
    used = {a[5:] for e in runtime["entry_points"].values()
            for a in e["args"] if a.startswith("enum:")} | {"cudaError_t->hipError_t"}
    return sorted(used & set(enums["pairs"]))


def _twins(pair: dict, typedefs: dict) -> list[tuple[str, int, str, int]]:
    """Constants the pair leaves unmatched whose exact HIP twin (cudaX -> hipX) the ROCm
    enum has: the tables' own name rule, applied where their matcher missed it
    (cudaLimitStackSize -> hipLimitStackSize)."""
    cuda = typedefs["cuda_enums"].get(pair["cuda"], {})
    rocm = typedefs["rocm_enums"].get(pair["rocm"], {})
    return [(n, cuda[n], "hip" + n[4:], rocm["hip" + n[4:]])
            for n in pair.get("unmatched", []) if n in cuda and "hip" + n[4:] in rocm]


def forward_converter(pair: dict, typedefs: dict) -> str:
    """CUDA value -> ROCm value; a CUDA value with no counterpart gives
    PYSHIM_RT_UNMAPPED, never a pass-through (the numbering differs: 91 of 93 device
    attributes would silently name another one)."""
    fname = f"pyshim_{c_ident(pair['cuda'])}_to_{c_ident(pair['rocm'])}"
    seen: set[int] = set()
    lines = [f"static inline int {fname}(int v)", "{", "    switch (v) {"]
    for _cn, cv, _rn, rv in [*pair["values"], *_twins(pair, typedefs)]:
        if cv not in seen:
            seen.add(cv)
            lines.append(f"    case {cv}: return {rv};")
    lines += ["    default: return PYSHIM_RT_UNMAPPED;", "    }", "}"]
    return "\n".join(lines) + "\n"


def enums_header(enums: dict, names: list[str], typedefs: dict) -> str:
    out = [STAMP, "#ifndef PYSHIM_GEN_RUNTIME_ENUMS_H\n#define PYSHIM_GEN_RUNTIME_ENUMS_H\n\n",
           "#include <limits.h>\n/* a CUDA enum value the ROCm enum has no counterpart for */\n",
           "#define PYSHIM_RT_UNMAPPED INT_MIN\n\n"]
    for name in names:
        pair = enums["pairs"][name]
        if name.startswith("cudaError_t->"):
            out.append(enum_converter(pair, reverse=True))  # status codes: HIP -> CUDA
        else:
            out.append(forward_converter(pair, typedefs))
        out.append("\n")
    out.append("#endif\n")
    return "".join(out)


def _readable(name: str) -> str:
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z]*|\d+", name.removeprefix("cudaError"))
    return " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)


def errors_table(typedefs: dict) -> str:
    """PYSHIM_RT_ERROR(value, "name", "string") for every cudaError_t constant."""
    values = typedefs["cuda_enums"]["cudaError_t"]
    rows = [STAMP, "/* PYSHIM_RT_ERROR(value, name, description) */\n"]
    for name, value in sorted(values.items(), key=lambda kv: (kv[1], kv[0])):
        text = ERROR_STRINGS.get(name) or _readable(name)
        rows.append(f'PYSHIM_RT_ERROR({value}, "{name}", "{text}")\n')
    return "".join(rows)


def error_codes_header(typedefs: dict) -> str:
    """PYSHIM_RT_<cudaError name> for every cudaError_t constant: the numbers for the files
    that cannot include CUDA's headers (those that talk to HIP, and the embedding door)."""
    values = typedefs["cuda_enums"]["cudaError_t"]
    rows = [STAMP, "#ifndef PYSHIM_RUNTIME_ERROR_CODES_H\n", "#define PYSHIM_RUNTIME_ERROR_CODES_H\n"]
    for name, value in sorted(values.items(), key=lambda kv: (kv[1], kv[0])):
        rows.append(f"#define PYSHIM_RT_{name} {value}\n")
    rows.append("#endif\n")
    return "".join(rows)


# ---------------------------------------------------------------- cudaDeviceProp


def devprop_table(typedefs: dict, cuda12: dict) -> str:
    """PYSHIM_RT_PROP(cuda offset, hip offset, size) rows: the fields of cudaDeviceProp
    (CUDA 13's or 12.9's layout) that hipDeviceProp_tR0600 has under the same name and
    size; the rest stay zero."""
    hip = {f[0]: f for f in typedefs["rocm_structs"]["hipDeviceProp_tR0600"]["fields"]}
    layouts = cuda12["structs"]["cudaDeviceProp"]
    out = [STAMP, "/* PYSHIM_RT_PROP(cuda offset, hip offset, size, field) */\n"]
    for major in MAJORS:
        layout = layouts[str(major)]
        out.append(f"#if PYSHIM_CUDART_MAJOR == {major}\n")
        size = max(off + sz for _n, _t, off, sz in layout["fields"])
        out.append(f"#define PYSHIM_RT_DEVPROP_SIZE {size}\n")
        for name, _ctype, off, sz in layout["fields"]:
            h = hip.get(name)
            if h is not None and h[3] == sz:
                out.append(f"PYSHIM_RT_PROP({off}, {h[2]}, {sz}, {name})\n")
        out.append("#endif\n")
    hip_size = max(f[2] + f[3] for f in hip.values())
    out.append(f"#define PYSHIM_RT_HIPPROP_SIZE {hip_size}\n")
    return "".join(out)


# ---------------------------------------------------------------- driver


def exported(major: int, runtime: dict, cuda12: dict) -> list[str]:
    return sorted(set(symbols_for(major, runtime, cuda12)) | set(HOOKS))


def generate(out_dir: Path) -> list[Path]:
    runtime = load_table("runtime")
    cuda12 = load_table("cuda12")
    rocm = load_table("rocm")
    enums = load_table("enums")
    typedefs = load_table("typedefs")
    files = {
        "runtime_enums.h": enums_header(enums, used_enum_pairs(runtime, enums), typedefs),
        "runtime_errors.inc": errors_table(typedefs),
        "runtime_error_codes.h": error_codes_header(typedefs),
        "runtime_devprop.inc": devprop_table(typedefs, cuda12),
    }
    for major in MAJORS:
        syms = exported(major, runtime, cuda12)
        files[f"runtime_thunks_{major}.c"] = thunks(major, runtime, cuda12, rocm, enums)[0]
        # NVIDIA's exports no pinned header declares
        extra = export_stubs.extras(f"libcudart.so.{major}", syms)
        files[f"runtime_export_stubs_{major}.c"] = export_stubs.source(
            f"libcudart.so.{major}", "runtime", extra, typedefs)
        syms = sorted({*syms, *extra})
        files[f"libcudart.so.{major}.map"] = version_script(major, syms)
        files[f"runtime_exports_{major}.txt"] = "\n".join(syms) + "\n"
    return common.write_changed(out_dir, files)


if __name__ == "__main__":
    for p in generate(Path(sys.argv[1] if len(sys.argv) > 1 else "build/runtime/gen")):
        print(p)
