"""libpyshim_trace.so's generated C: a tracing wrapper with the exact signature of every
driver symbol (tables/driver.json) and runtime symbol (tables/runtime.json).

Each wrapper calls the real function (found once, by dlsym(RTLD_NEXT), or handed over by
the cuGetProcAddress wrapper in shim/trace/proc_address.c), then writes one line:

    [tid] cuMemAlloc_v2(dptr=0x7ffd...->0x7f00..., bytesize=4096) = CUDA_SUCCESS (0) 1.2us

How an argument is shown follows from its type in the tables: integers in decimal, handles,
pointers, device pointers and flags in hex, enums as a number with the constant's name,
`const char *` as a string, by-value structs of scalars field by field, and simple
pointer-to-scalar out-parameters dereferenced after a successful call.

The cuGetProcAddress / cuGetExportTable wrappers are hand-written (shim/trace/); this
module only declares their real-function slots and puts them in the symbol maps.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from pyshim.codegen.common import STAMP, c_ident, declare, load_table, param_names, write_changed

# Hand-written in shim/trace/: they change what they return, not only log it.
HANDWRITTEN = ("cuGetExportTable", "cuGetProcAddress", "cuGetProcAddress_v2",
               "cuGetProcAddress_v2_ptsz")
VARIANTS = {"": 0, "ptds": 1, "ptsz": 2}


def _sig(ret: str, *params: str) -> dict:
    return {"ret": ret, "params": [p.rsplit(" ", 1) for p in params]}


# The hidden hooks nvcc's host code calls in libcudart (crt/host_runtime.h and
# crt/device_functions.h, C++-only headers, so not in tables/runtime.json). Address
# arguments the headers type as `char *` (a host function or variable) are `void *` here:
# the same ABI, shown as addresses instead of read as strings.
RUNTIME_HOOKS = {
    "__cudaRegisterFatBinary": _sig("void **", "void * fatCubin"),
    "__cudaRegisterFatBinaryEnd": _sig("void", "void ** fatCubinHandle"),
    "__cudaUnregisterFatBinary": _sig("void", "void ** fatCubinHandle"),
    "__cudaRegisterFunction": _sig(
        "void", "void ** fatCubinHandle", "const void * hostFun", "void * deviceFun",
        "const char * deviceName", "int thread_limit", "uint3 * tid", "uint3 * bid",
        "dim3 * bDim", "dim3 * gDim", "int * wSize"),
    "__cudaRegisterVar": _sig(
        "void", "void ** fatCubinHandle", "void * hostVar", "void * deviceAddress",
        "const char * deviceName", "int ext", "size_t size", "int constant", "int global"),
    "__cudaPushCallConfiguration": _sig(
        "unsigned", "dim3 gridDim", "dim3 blockDim", "size_t sharedMem",
        "struct CUstream_st * stream"),
    "__cudaPopCallConfiguration": _sig(
        "cudaError_t", "dim3 * gridDim", "dim3 * blockDim", "size_t * sharedMem",
        "void * stream"),
    "__cudaGetKernel": _sig("cudaError_t", "cudaKernel_t * kernel", "const void * hostFun"),
    "__cudaLaunchKernel": _sig(
        "cudaError_t", "cudaKernel_t kernel", "dim3 gridDim", "dim3 blockDim", "void ** args",
        "size_t sharedMem", "cudaStream_t stream"),
    "__cudaLaunchKernel_ptsz": _sig(
        "cudaError_t", "cudaKernel_t kernel", "dim3 gridDim", "dim3 blockDim", "void ** args",
        "size_t sharedMem", "cudaStream_t stream"),
}
REAL = "pyshim_tracer_real_"
CALLS = "pyshim_tracer_calls_"

SIGNED = {"int", "short", "long", "long long", "signed char", "char", "long int",
          "long long int", "short int", "int8_t", "int16_t", "int32_t", "int64_t", "ssize_t",
          "signed", "signed int"}
UNSIGNED = {"unsigned", "unsigned int", "unsigned short", "unsigned long",
            "unsigned long long", "unsigned char", "size_t", "uint8_t", "uint16_t", "uint32_t",
            "uint64_t", "uintptr_t", "unsigned long int", "unsigned long long int",
            "unsigned short int", "_Bool", "bool"}
FLOATS = {"float", "double"}
SCALARS = ("int", "uint", "hex", "float", "enum")
# `void **` parameters that are inputs (argument arrays), not results to dereference
VOID_PP_INPUTS = {"kernelParams", "extra", "args", "params", "kernelArgs"}
MAX_STRUCT_FIELDS = 8


@dataclass(frozen=True)
class Kind:
    """How one value is shown: one of SCALARS, "cstr", "struct", "opaque"."""

    name: str
    enum: str = ""  # enum name for "enum" (a key of typedefs.json's cuda_enums)
    struct: str = ""  # struct key for "struct" (a key of cuda_structs)


class Types:
    """Type facts from tables/typedefs.json: typedef chains, enums, struct layouts."""

    def __init__(self, typedefs: dict) -> None:
        self.typedefs = typedefs["cuda"]
        self.enums = typedefs["cuda_enums"]
        self.structs = typedefs["cuda_structs"]

    @staticmethod
    def strip(ctype: str) -> str:
        t = re.sub(r"\b(const|volatile)\b", " ", ctype)
        return re.sub(r"\s+", " ", t).strip().replace(" *", "*").replace("* ", "*")

    def chain(self, ctype: str) -> list[str]:
        """`ctype` and every type its typedefs resolve to, qualifiers removed."""
        out = [self.strip(ctype)]
        for _ in range(16):
            nxt = self.typedefs.get(out[-1])
            if nxt is None or self.strip(nxt) == out[-1]:
                break
            out.append(self.strip(nxt))
        return out

    def kind(self, ctype: str, name: str = "") -> Kind:
        """The Kind of a value of type `ctype` (a parameter named `name`)."""
        chain = self.chain(ctype)
        base = chain[-1]
        if ctype.rstrip().endswith("]") or "(*)" in base or base.endswith("*"):
            if re.fullmatch(r"const\s+char\s*\*", ctype.strip()):
                return Kind("cstr")
            return Kind("hex")
        if base.startswith("enum "):
            enum = base[5:]
            return Kind("enum", enum=enum) if self.enums.get(enum) else Kind("int")
        if base.startswith(("struct ", "union ")):
            return self._struct(chain)
        if base in FLOATS:
            return Kind("float")
        if base in SIGNED:
            return Kind("int")
        if base in UNSIGNED:
            hexy = any("deviceptr" in t.lower() or "handle" in t.lower() for t in chain)
            if hexy or "flag" in name.lower() or name.lower() in ("ptr", "dptr"):
                return Kind("hex")
            return Kind("uint")
        return Kind("opaque")

    def _struct(self, chain: list[str]) -> Kind:
        for t in chain:
            key = t.split(" ", 1)[-1]
            layout = self.structs.get(key)
            if layout is None:
                continue
            fields = layout.get("fields", [])
            if 0 < len(fields) <= MAX_STRUCT_FIELDS and all(
                    re.fullmatch(r"\w+", f[0]) and "[" not in f[1]
                    and self.kind(f[1]).name in SCALARS
                    for f in fields):
                return Kind("struct", struct=key)
            break
        return Kind("opaque")

    def out_kind(self, ctype: str, name: str) -> Kind | None:
        """For a non-const `T *` parameter with scalar T: the Kind of *param, else None."""
        t = ctype.strip()
        if not t.endswith("*") or t.startswith("const ") or t.endswith("]"):
            return None
        pointee = t[:-1].rstrip()
        if pointee.endswith("*const") or " const" in pointee:
            return None
        if pointee == "void*" or pointee == "void *":
            return None if name in VOID_PP_INPUTS else Kind("hex")
        if pointee in ("void", "char"):
            return None
        k = self.kind(pointee, name)
        return k if k.name in (*SCALARS, "struct") else None


def _value(types: Types, kind: Kind, expr: str) -> str:
    """C statements that append the value `expr` of kind `kind` to the line `pt__L`."""
    if kind.name == "int":
        return f"pt_v_int(&pt__L, (long long)({expr}));"
    if kind.name == "uint":
        return f"pt_v_uint(&pt__L, (unsigned long long)({expr}));"
    if kind.name == "hex":
        return f"pt_v_hex(&pt__L, (unsigned long long)(uintptr_t)({expr}));"
    if kind.name == "float":
        return f"pt_v_float(&pt__L, (double)({expr}));"
    if kind.name == "enum":
        v = f"(long long)({expr})"
        return f"pt_v_enum(&pt__L, {v}, pt_enum_{c_ident(kind.enum)}({v}));"
    if kind.name == "cstr":
        return f"pt_v_cstr(&pt__L, {expr});"
    if kind.name == "struct":
        parts = ['pt_v_text(&pt__L, "{");']
        for i, (fname, ftype, _off, _size) in enumerate(types.structs[kind.struct]["fields"]):
            sep = ", " if i else ""
            parts.append(f'pt_v_text(&pt__L, "{sep}{fname}=");')
            parts.append(_value(types, types.kind(ftype, fname), f"({expr}).{fname}"))
        parts.append('pt_v_text(&pt__L, "}");')
        return " ".join(parts)
    return 'pt_v_text(&pt__L, "{...}");'


def _success_test(ret: str) -> str:
    """C condition: the call succeeded, so its out-parameters were written."""
    if ret in ("CUresult", "cudaError_t"):
        return "pt__r == 0"
    return "0"


MAX_ARRAY = 8  # elements of an input array shown


def _input_arrays(types: Types, sig: dict) -> dict[str, str]:
    """Array parameters whose length another parameter gives (`jitOptions` with
    `numJitOptions`, `libraryOptionValues` with `numLibraryOptions`): inputs, shown element
    by element (at most MAX_ARRAY), never as out-parameters. {array: count parameter}."""
    names = param_names(sig)
    integers = {n for (t, _), n in zip(sig["params"], names, strict=True)
                if types.kind(t, n).name in ("int", "uint")}
    out = {}
    for name in names:
        base = name[:-6] if name.endswith("Values") else name
        cap = base[:1].upper() + base[1:]
        for count in (f"num{cap}", f"num{cap}s"):
            if count in integers and count != name:
                out[name] = count
    return out


def _element_kind(types: Types, ctype: str) -> Kind | None:
    t = ctype.strip()
    if not t.endswith("*") or t.endswith("]"):
        return None
    elem = re.sub(r"\bconst\b", " ", t[:-1]).strip()
    kind = types.kind(elem) if elem not in ("void", "char") else None
    return kind if kind is not None and kind.name in SCALARS else None


def _array(types: Types, ctype: str, name: str, count: str) -> list[str] | None:
    kind = _element_kind(types, ctype)
    if kind is None:
        return None
    return [f"    pt_v_hex(&pt__L, (unsigned long long)(uintptr_t){name});",
            f"    if ({name} != NULL && {count} > 0) {{",
            '        pt_v_text(&pt__L, "->[");',
            f"        for (size_t pt__i = 0; pt__i < (size_t){count} && pt__i < {MAX_ARRAY};"
            " pt__i++) {",
            '            if (pt__i) pt_v_text(&pt__L, ", ");',
            f"            {_value(types, kind, name + '[pt__i]')}",
            "        }",
            f'        pt_v_text(&pt__L, (size_t){count} > {MAX_ARRAY} ? ", ...]" : "]");',
            "    }"]


def _params(types: Types, sig: dict) -> list[str]:
    lines = []
    ok = _success_test(sig["ret"])
    arrays = _input_arrays(types, sig)
    for (ctype, _n), name in zip(sig["params"], param_names(sig), strict=True):
        lines.append(f'    pt_name(&pt__L, "{name}");')
        if name in arrays:
            shown = _array(types, ctype, name, arrays[name])
            lines += shown or [f"    {_value(types, types.kind(ctype, name), name)}"]
            continue
        out = types.out_kind(ctype, name)
        if out is not None:
            lines.append(f"    pt_v_hex(&pt__L, (unsigned long long)(uintptr_t){name});")
            lines.append(f"    if (({ok}) && {name} != NULL) {{")
            lines.append(f'        pt_v_text(&pt__L, "->"); {_value(types, out, "*" + name)}')
            lines.append("    }")
        elif re.fullmatch(r"char\s*\*", ctype.strip()):
            lines.append(f"    pt_v_hex(&pt__L, (unsigned long long)(uintptr_t){name});")
            lines.append(f"    if (({ok}) && {name} != NULL) {{")
            lines.append(f'        pt_v_text(&pt__L, "->"); pt_v_cstr(&pt__L, {name});')
            lines.append("    }")
        elif re.fullmatch(r"const\s+char\s*\*\s*\*", ctype.strip()):
            # a string handed back (cuGetErrorName's pStr)
            lines.append(f"    pt_v_hex(&pt__L, (unsigned long long)(uintptr_t){name});")
            lines.append(f"    if (({ok}) && {name} != NULL) {{")
            lines.append(f'        pt_v_text(&pt__L, "->"); pt_v_cstr(&pt__L, *{name});')
            lines.append("    }")
        else:
            lines.append(f"    {_value(types, types.kind(ctype, name), name)}")
    return lines


STATUS_ENUMS = {"CUresult": "cudaError_enum", "cudaError_t": "cudaError"}


def _error_code(ret: str) -> str:
    """C arguments: the status a call returned (0 when it cannot fail that way) and the
    status's name (NULL if unknown)."""
    enum = STATUS_ENUMS.get(ret)
    if enum is None:
        return "0, NULL"
    return f"(long long)pt__r, pt__r ? pt_enum_{enum}((long long)pt__r) : NULL"


def _missing_return(ret: str) -> str:
    if ret == "void":
        return "return;"
    if ret == "CUresult":
        return "return CUDA_ERROR_NOT_FOUND;"
    if ret == "cudaError_t":
        return "return cudaErrorCallRequiresNewerDriver;"
    return f"{{ {ret} z; memset(&z, 0, sizeof z); return z; }}"


def wrapper(types: Types, symbol: str, sig: dict) -> str:
    ret = sig["ret"]
    names = param_names(sig)
    fn_t = f"pt_fn_{symbol}"
    call = f"(({fn_t})pt__fn)({', '.join(names)})"
    out = [f"typedef {declare('(*' + fn_t + ')', sig)};",
           f"void *{REAL}{symbol};",
           f"unsigned long {CALLS}{symbol};",
           f"{declare(symbol, sig, attrs='PT_API ')}",
           "{",
           f'    void *pt__fn = pt_resolve(&{REAL}{symbol}, "{symbol}");',
           f"    if (pt__fn == NULL)\n        {_missing_return(ret)}",
           "    uint64_t pt__t0 = pt_now();"]
    if ret == "void":
        out.append(f"    {call};")
    else:
        out.append(f"    {ret} pt__r = {call};")
    out += ["    uint64_t pt__t1 = pt_now();",
            "    int pt__errno = errno;",
            f'    pt_tally(&{CALLS}{symbol}, "{symbol}", {_error_code(ret)});',
            "    struct pt_line pt__L;",
            f'    pt_begin(&pt__L, "{symbol}");']
    out += _params(types, sig)
    out.append("    pt_close(&pt__L);")
    if ret != "void":
        out.append('    pt_v_text(&pt__L, " = ");')
        out.append(f"    {_value(types, types.kind(ret), 'pt__r')}")
    out += ["    pt_finish(&pt__L, pt__t1 - pt__t0);", "    errno = pt__errno;"]
    out.append("    return pt__r;" if ret != "void" else "    return;")
    out.append("}")
    return "\n".join(out) + "\n"


def enum_names(types: Types, used: set[str]) -> str:
    """`pt_enum_<E>(v)`: the constant's name for each enum value, NULL if none."""
    out = [STAMP, "#ifndef PT_GEN_ENUMS_H\n#define PT_GEN_ENUMS_H\n\n"]
    for enum in sorted(used):
        out.append(f"static inline const char *pt_enum_{c_ident(enum)}(long long v)\n{{\n"
                   "    switch (v) {\n")
        seen: set[int] = set()
        # the first name of a value in header order would need the header; alphabetical
        # order is stable, and aliases are rare
        for cname, value in sorted(types.enums[enum].items(), key=lambda kv: kv[0]):
            if value in seen or cname.endswith(("_MAX", "_FORCE_INT")):
                continue
            seen.add(value)
            out.append(f'    case {value}LL: return "{cname}";\n')
        out.append("    default: return NULL;\n    }\n}\n\n")
    out.append("#endif\n")
    return "".join(out)


def _used_enums(types: Types, sigs: list[dict]) -> set[str]:
    used: set[str] = set()

    def visit(kind: Kind | None) -> None:
        if kind is None:
            return
        if kind.name == "enum":
            used.add(kind.enum)
        elif kind.name == "struct":
            for fname, ftype, _o, _s in types.structs[kind.struct]["fields"]:
                visit(types.kind(ftype, fname))

    for sig in sigs:
        visit(types.kind(sig["ret"]))
        for (ctype, _n), name in zip(sig["params"], param_names(sig), strict=True):
            visit(types.kind(ctype, name))
            visit(types.out_kind(ctype, name))
    return used


def _symbols(doc: dict) -> dict[str, dict]:
    every = {**doc["entry_points"], **doc.get("extra_entry_points", {})}
    return {s: sig for e in every.values() for s, sig in e["symbols"].items()}


def _prelude(headers: str) -> str:
    return (STAMP + "#define __CUDA_API_VERSION_INTERNAL 1\n"
            "#include <errno.h>\n#include <stddef.h>\n#include <stdint.h>\n"
            "#include <string.h>\n" + headers +
            '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n'
            '#include "trace.h"\n#include "trace_enums.h"\n\n')


def symbol_map(api: str, symbols: list[str]) -> str:
    """The sorted (symbol, wrapper, real slot) array the dlsym wrapper searches."""
    rows = [f'    {{"{s}", (void *){s}, &{REAL}{s}, &{CALLS}{s}}},' for s in sorted(symbols)]
    return (f"const struct pt_symbol pt_symbols_{api}[] = {{\n" + "\n".join(rows) +
            f"\n}};\nconst size_t pt_symbols_{api}_count = {len(symbols)};\n")


def proc_map(driver: dict, wrapped: set[str]) -> str:
    """(name, version, variant) -> wrapper rows for the cuGetProcAddress wrapper, sorted by
    name then variant then version, as shim/trace/proc_address.c searches them."""
    rows = sorted((n, VARIANTS[var], v, s) for n, v, var, s in driver["proc_address"]
                  if s in wrapped)
    lines = [f'    {{"{n}", {v}, {var}, "{s}", (void *){s}, &{REAL}{s}}},'
             for n, var, v, s in rows]
    return ("const struct pt_proc pt_proc_table[] = {\n" + "\n".join(lines) +
            f"\n}};\nconst size_t pt_proc_table_count = {len(rows)};\n")


def driver_source(types: Types, driver: dict) -> tuple[str, int]:
    syms = _symbols(driver)
    out = [_prelude("#include <cuda.h>\n#include <cudaProfiler.h>\n")]
    for s in HANDWRITTEN:
        out.append(f"extern void *{REAL}{s};\nextern unsigned long {CALLS}{s};\n"
                   f"{declare(s, syms[s])};\n")
    out.append("\n")
    count = 0
    for symbol, sig in sorted(syms.items()):
        if symbol in HANDWRITTEN:
            continue
        out.append(wrapper(types, symbol, sig) + "\n")
        count += 1
    out.append(symbol_map("driver", list(syms)))
    out.append(proc_map(driver, set(syms)))
    return "".join(out), count


def runtime_symbols(runtime: dict, cuda12: dict) -> dict[str, dict]:
    """Every libcudart symbol: CUDA 13's, those only libcudart.so.12 exports (their CUDA
    12.9 signatures), and nvcc's hidden hooks. A symbol whose signature changed in 13
    keeps the 13 one: the wrapper forwards every argument register either way."""
    return {**cuda12["symbols_only_in_12"], **_symbols(runtime), **RUNTIME_HOOKS}


def runtime_source(types: Types, syms: dict[str, dict]) -> tuple[str, int]:
    out = [_prelude("#include <cuda_runtime_api.h>\n")]
    # struct tags CUDA 12 signatures name that 13's headers dropped (cudaLaunchParams):
    # declared here so each wrapper's pointer parameter has one type
    tags = sorted({m for sig in syms.values() for t, _n in sig["params"]
                   for m in re.findall(r"\bstruct\s+(\w+)\s*\*", t)})
    out += [f"struct {tag};\n" for tag in tags] + ["\n"]
    for symbol, sig in sorted(syms.items()):
        out.append(wrapper(types, symbol, sig) + "\n")
    out.append(symbol_map("runtime", list(syms)))
    return "".join(out), len(syms)


def generate(out_dir: Path) -> list[Path]:
    """Write trace_driver.c, trace_runtime.c and trace_enums.h into `out_dir` (files whose
    text is unchanged are left alone, so their times stay valid for the build)."""
    types = Types(load_table("typedefs"))
    driver = load_table("driver")
    runtime = runtime_symbols(load_table("runtime"), load_table("cuda12"))
    sigs = [*_symbols(driver).values(), *runtime.values()]
    files = {
        "trace_enums.h": enum_names(types, _used_enums(types, sigs)),
        "trace_driver.c": driver_source(types, driver)[0],
        "trace_runtime.c": runtime_source(types, runtime)[0],
    }
    return write_changed(out_dir, files)


if __name__ == "__main__":
    for p in generate(Path(sys.argv[1] if len(sys.argv) > 1 else "build/trace/gen")):
        print(p)
