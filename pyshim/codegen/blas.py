"""libcublas / libcusolver generated C: a weak definition of every exported cuBLAS and
cuSOLVER symbol, built from tables/cublas.json and tables/cusolver.json.

- direct/converted entries: a thunk that converts each argument as the table says
  (handles and pointers cast, enums through generated switch converters) and maps the
  rocblas_status back through the table's reverse status map;
- adapters the tables describe mechanically: the GemmEx family (D = C, compute type as a
  datatype, algorithm -> standard), cuSOLVER calls whose workspace is handed to
  rocblas_set_workspace around the rocSOLVER call, and `*_bufferSize` through rocBLAS's
  device-memory size queries;
- everything else: a NOT_SUPPORTED stub that logs its name once and is counted.

The hand-written C in shim/blas defines the `shim` entries as strong symbols, which win.
Version scripts give every symbol the soname's version node (`cublasSgemm_v2@libcublas.so.13`).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from pyshim.codegen import blaslt, common, export_stubs
from pyshim.codegen.common import STAMP, c_ident, declare, enum_converter, load_table, param_names

SONAMES = {"cublas": ("libcublas.so.13", "libcublas.so.12"),
           "cusolver": ("libcusolver.so.12", "libcusolver.so.11")}
STATUS = {"cublas": ("cublasStatus_t", "CUBLAS_STATUS_NOT_SUPPORTED"),
          "cusolver": ("cusolverStatus_t", "CUSOLVER_STATUS_NOT_SUPPORTED")}
# Symbols of ours that the libraries also export (counters for tests and reports).
OWN_EXPORTS = {"cublas": ("pyshim_cublas_unsupported_count",),
               "cusolver": ("pyshim_cusolver_unsupported_count",),
               "cusolverMg": ("pyshim_cusolvermg_unsupported_count",)}
# Libraries with no table: NVIDIA's export list, every name a generated refusal. multi-GPU
# cuSOLVER: rocSOLVER has no multi-device API to map it onto (CUSOLVER_STATUS_NOT_SUPPORTED
# throughout). libcublasLt.so.13, built beside these, has its table (pyshim.codegen.blaslt).
REFUSED_ONLY = {"cusolverMg": "libcusolverMg.so.12"}
# cuBLAS half-precision types exist only in C++; in C the same 2-byte types are rocBLAS's.
CPP_TYPES = {"__half": "rocblas_half", "__nv_bfloat16": "rocblas_bfloat16"}
# cuSOLVER's lwork counts elements of the routine's type: S, D, C, Z.
ELEM_SIZE = {"S": "sizeof(float)", "D": "sizeof(double)", "C": "sizeof(rocblas_float_complex)",
             "Z": "sizeof(rocblas_double_complex)"}
ROCBLAS_OK = ("rocblas_status_success", "rocblas_status_size_increased",
              "rocblas_status_size_unchanged")


class Unmapped(Exception):
    """The tables do not describe this entry mechanically: it becomes a stub."""


@dataclass
class Counts:
    thunks: int = 0
    adapters: int = 0
    stubs: int = 0
    hand: int = 0  # `shim` entries: stubs here, strong definitions in shim/blas


# ---- types and argument expressions ---------------------------------------------------

def _c_type(ctype: str) -> str:
    for cpp, c in CPP_TYPES.items():
        ctype = re.sub(rf"\b{cpp}\b", c, ctype)
    return ctype


def _as_value_type(ctype: str) -> str:
    """A parameter type usable in a cast: `T x[]` decays to `T *`, top-level const of a
    by-value scalar dropped."""
    t = ctype.strip()
    if t.endswith("[]"):
        t = t[:-2].rstrip() + " *"
    if "*" not in t and t.startswith("const "):
        t = t[6:]
    return t


def _norm(t: str) -> str:
    return " ".join(_as_value_type(t).replace("*", " * ").split())


def _cast(expr: str, ctype: str, rtype: str) -> str:
    r = _as_value_type(rtype)
    if _norm(_c_type(ctype)) == _norm(rtype):
        return expr
    return f"({r}){expr}"


class Converters:
    """The enum pairs the generated code uses, resolved through typedefs where a pair
    keyed by a typedef name carries no values (cublasDataType_t is cudaDataType_t)."""

    def __init__(self, enums: dict, typedefs: dict):
        self.pairs = enums["pairs"]
        self.typedefs = typedefs.get("cuda", {})
        self.used: dict[str, dict] = {}

    def _canon(self, name: str) -> str:
        t = self.typedefs.get(name, name)
        return t.replace("enum ", "").strip()

    def pair(self, key: str) -> dict:
        p = self.pairs.get(key)
        if p is not None and (p.get("values") or p.get("reverse")):
            return p
        cuda, rocm = key.split("->")
        for other in self.pairs.values():
            if (other["rocm"] == rocm and other.get("values")
                    and self._canon(other["cuda"]) == self._canon(cuda)):
                return other
        raise Unmapped(f"enum pair {key} has no values")

    def to_rocm(self, key: str, expr: str, rtype: str) -> str:
        p = self.pair(key)
        self.used[f"{p['cuda']}->{p['rocm']}"] = p
        return f"({_as_value_type(rtype)})pyshim_{c_ident(p['cuda'])}_to_{c_ident(p['rocm'])}({expr})"

    def status(self, cuda_status: str) -> str:
        key = f"{cuda_status}->rocblas_status"
        p = self.pairs[key]
        self.used[key] = p
        return f"pyshim_{cuda_status}_from_rocblas_status"

    def header(self) -> str:
        out = [STAMP, "#ifndef PYSHIM_GEN_BLAS_ENUMS_H\n#define PYSHIM_GEN_BLAS_ENUMS_H\n\n"]
        for key in sorted(self.used):
            p = self.used[key]
            if "reverse" in p:
                out.append(enum_converter(p, reverse=True))
            else:
                out.append(enum_converter(p))
            out.append("\n")
        out.append("#endif\n")
        return "".join(out)


# ---- bodies -----------------------------------------------------------------------------

def _arg_expr(conv: str, name: str, ctype: str, rtype: str, cv: Converters) -> str:
    if conv in ("direct", "handle"):
        return _cast(name, ctype, rtype)
    if conv.startswith("enum:"):
        return cv.to_rocm(conv[5:], name, rtype)
    if conv == "compute-type":
        return cv.to_rocm("cublasComputeType_t->rocblas_datatype", name, rtype)
    if conv == "gemm-algo":
        return f"(rocblas_gemm_algo)((void){name}, rocblas_gemm_algo_standard)"
    raise Unmapped(f"conversion {conv}")


def _extras(extra: list[str]) -> dict[str, str]:
    """Target parameters filled by the adapter, not by a CUDA argument: `d=c` fills D's
    pointer, type and leading dimension from C's; `x=<int>` is a constant."""
    out: dict[str, str] = {}
    for item in extra:
        key, _, value = item.partition("=")
        if key == "d" and value == "c":
            out.update({"d": "@c", "d_type": "@c_type", "ldd": "@ldc"})
        elif re.fullmatch(r"-?\d+", value):
            out[key] = value
        else:
            out[key] = "@" + value
    return out


def _call_args(entry: dict, sig: dict, target: dict, cv: Converters,
               skip: tuple[str, ...] = ()) -> list[str]:
    """Target arguments from the CUDA arguments in order (those whose conversion is in
    `skip` are left out), with the adapter's extras at their named positions."""
    extras = _extras(entry.get("extra", []))
    cuda = [(conv, n, t) for conv, n, (t, _) in
            zip(entry["args"], param_names(sig), sig["params"], strict=True) if conv not in skip]
    slots = [p for p in target["params"] if p[1] not in extras]
    if len(slots) != len(cuda):
        raise Unmapped(f"{len(cuda)} arguments for {len(slots)} target parameters")
    by_name: dict[str, str] = {}
    it = iter(cuda)
    for rtype, rname in target["params"]:
        if rname in extras:
            continue
        conv, name, ctype = next(it)
        by_name[rname] = _arg_expr(conv, name, ctype, rtype, cv)
    if "compute_type" in by_name and "c_type" in by_name:
        # rocBLAS computes complex data in a complex type; cuBLAS names only its precision
        by_name["compute_type"] = (f"pyshim_blas_compute_type({by_name['compute_type']}, "
                                   f"{by_name['c_type']})")
    exprs = []
    for rtype, rname in target["params"]:
        if rname not in extras:
            exprs.append(by_name[rname])
            continue
        value = extras[rname]
        if value.startswith("@"):
            ref = value[1:]
            if ref not in by_name:
                raise Unmapped(f"extra {rname}={ref}: no such target parameter")
            exprs.append(f"({_as_value_type(rtype)}){by_name[ref]}")
        else:
            exprs.append(value)
    return exprs


def _unused(names: list[str]) -> str:
    return "".join(f"    (void){n};\n" for n in names)


def _thunk(lib: str, symbol: str, sig: dict, entry: dict, target: dict, cv: Converters) -> str:
    status_t, _ = STATUS[lib]
    if sig["ret"] != status_t:
        raise Unmapped("returns " + sig["ret"])
    exprs = _call_args(entry, sig, target, cv)
    call = f"{entry['target']}({', '.join(exprs)})"
    return (f"{_declare(symbol, sig)}\n{{\n"
            f"    return ({status_t}){cv.status(status_t)}({call});\n}}\n")


def _workspace_adapter(symbol: str, sig: dict, entry: dict, target: dict,
                       cv: Converters) -> str:
    """The user's workspace becomes the handle's rocBLAS workspace for the call."""
    names = param_names(sig)
    ws = [(n, t) for conv, n, (t, _) in zip(entry["args"], names, sig["params"], strict=True)
          if conv == "workspace"]
    ptrs = [n for n, t in ws if "*" in t]
    counts = [n for n, t in ws if "*" not in t]
    if len(ptrs) != 1 or len(counts) > 1:
        raise Unmapped("workspace arguments")
    exprs = _call_args(entry, sig, target, cv, skip=("workspace", "ignored"))
    ignored = [n for conv, n in zip(entry["args"], names, strict=True) if conv == "ignored"]
    call = f"{entry['target']}({', '.join(exprs)})"
    from_st = cv.status("cusolverStatus_t")
    letter = _precision(symbol)
    lines = [f"{_declare(symbol, sig)}", "{", _unused(ignored).rstrip("\n")]
    lines += ["    rocblas_handle h = (rocblas_handle)handle;", "    size_t ws_bytes = 0;",
              "    rocblas_status st;"]
    if counts:
        lines += [f"    if ({counts[0]} < 0)",
                  "        return CUSOLVER_STATUS_INVALID_VALUE;",
                  f"    ws_bytes = (size_t){counts[0]} * {ELEM_SIZE[letter]};"]
    else:
        # no size given: the workspace is what the matching _bufferSize reported
        lines += ["    st = pyshim_blas_query_begin(h);",
                  "    if (st != rocblas_status_success)",
                  f"        return (cusolverStatus_t){from_st}(st);",
                  f"    st = {call};",
                  "    st = pyshim_blas_query_end(h, st, &ws_bytes);",
                  "    if (st != rocblas_status_success)",
                  f"        return (cusolverStatus_t){from_st}(st);"]
    lines += [f"    st = rocblas_set_workspace(h, {ptrs[0]}, {ptrs[0]} ? ws_bytes : 0);",
              "    if (st != rocblas_status_success)",
              f"        return (cusolverStatus_t){from_st}(st);",
              f"    st = {call};",
              "    rocblas_set_workspace(h, NULL, 0); /* the user may free it now */",
              f"    return (cusolverStatus_t){from_st}(st);", "}"]
    return "\n".join(line for line in lines if line) + "\n"


# bufferSize: target parameters found by name among the CUDA ones (lower case, aliases)
_ALIASES = {"jobz": ("evect", "left_svect"), "range": ("erange",), "meig": ("nev",),
            "batchsize": ("batch_count",), "side": ("storev", "side"),
            "devipiv": ("ipiv",), "devinfo": ("info",), "w": ("d",), "itype": ("itype",)}


# Target parameters a size query needs but cuSOLVER's _bufferSize does not take: the
# workspace does not depend on them (sytrf_bufferSize has no uplo).
_QUERY_DEFAULTS = {"uplo": "rocblas_fill_upper"}


def _precision(symbol: str) -> str:
    m = re.match(r"cusolverDn([SDCZ])", symbol)
    if not m:
        raise Unmapped("no precision letter")
    return m.group(1)


def _buffer_size_adapter(symbol: str, sig: dict, entry: dict, target: dict,
                         cv: Converters) -> str:
    """`*_bufferSize`: run the rocSOLVER routine as a rocBLAS device-memory size query
    (pointers it does not need are NULL) and report the size in elements."""
    names = param_names(sig)
    letter = _precision(symbol)
    lwork = [n for conv, n in zip(entry["args"], names, strict=True) if conv == "lwork-out"]
    if len(lwork) != 1:
        raise Unmapped("lwork")
    cuda = {}
    for conv, n, (t, _) in zip(entry["args"], names, sig["params"], strict=True):
        if conv in ("lwork-out", "ignored"):
            continue
        for key in (n.lower(), *_ALIASES.get(n.lower(), ())):
            cuda.setdefault(key, (conv, n, t))
    exprs = []
    used = set()
    for rtype, rname in target["params"]:
        hit = cuda.get(rname.lower())
        if hit is not None:
            conv, n, t = hit
            used.add(n)
            exprs.append(_arg_expr(conv, n, t, rtype, cv))
        elif "*" in rtype:
            exprs.append("NULL")
        elif rname in _QUERY_DEFAULTS:
            exprs.append(_QUERY_DEFAULTS[rname])
        elif rname.startswith("ld") and "n" in cuda:
            exprs.append(f"({_as_value_type(rtype)})({cuda['n'][1]} > 1 ? {cuda['n'][1]} : 1)")
        else:
            raise Unmapped(f"target parameter {rname}")
    unused = [n for conv, n in zip(entry["args"], names, strict=True)
              if n not in used and conv != "lwork-out" and n != "handle"]
    call = f"{entry['target']}({', '.join(exprs)})"
    from_st = cv.status("cusolverStatus_t")
    body = [f"{_declare(symbol, sig)}", "{", _unused(unused).rstrip("\n"),
            "    rocblas_handle h = (rocblas_handle)handle;",
            f"    if (!{lwork[0]})", "        return CUSOLVER_STATUS_INVALID_VALUE;",
            "    size_t bytes = 0;",
            "    rocblas_status st = pyshim_blas_query_begin(h);",
            "    if (st != rocblas_status_success)",
            f"        return (cusolverStatus_t){from_st}(st);",
            f"    st = {call};",
            "    st = pyshim_blas_query_end(h, st, &bytes);",
            "    if (st != rocblas_status_success)",
            f"        return (cusolverStatus_t){from_st}(st);",
            f"    size_t elems = (bytes + {ELEM_SIZE[letter]} - 1) / {ELEM_SIZE[letter]};",
            f"    *{lwork[0]} = elems > INT32_MAX ? INT32_MAX : (int)elems;",
            "    return CUSOLVER_STATUS_SUCCESS;", "}"]
    return "\n".join(line for line in body if line) + "\n"


def _stub(lib: str, symbol: str, sig: dict) -> str:
    status_t, not_supported = STATUS[lib]
    ret = _c_type(sig["ret"])
    value = not_supported if ret == status_t else f"({ret})0"
    return (f"{_declare(symbol, sig)}\n{{\n{_unused(param_names(sig))}"
            f'    pyshim_blas_unsupported("{symbol}");\n    return {value};\n}}\n')


def _declare(symbol: str, sig: dict) -> str:
    csig = {"ret": _c_type(sig["ret"]), "params": [[_c_type(t), n] for t, n in sig["params"]]}
    return declare(symbol, csig, attrs="PYSHIM_WEAK ")


def _body(lib: str, symbol: str, sig: dict, entry: dict, rocm_fns: dict, cv: Converters,
          counts: Counts) -> str:
    cls = entry["class"]
    target = rocm_fns.get(entry["target"] or "")
    try:
        if cls in ("direct", "converted") and target is not None:
            text = _thunk(lib, symbol, sig, entry, target, cv)
            counts.thunks += 1
            return text
        if cls == "adapter" and target is not None:
            if "lwork-out" in entry["args"]:
                text = _buffer_size_adapter(symbol, sig, entry, target, cv)
            elif "workspace" in entry["args"]:
                text = _workspace_adapter(symbol, sig, entry, target, cv)
            else:
                text = _thunk(lib, symbol, sig, entry, target, cv)
            counts.adapters += 1
            return text
    except Unmapped as why:
        text = _stub(lib, symbol, sig)
        counts.stubs += 1
        return f"/* {symbol}: not generated ({why}) */\n{text}"
    if cls == "shim":
        counts.hand += 1
    else:
        counts.stubs += 1
    return _stub(lib, symbol, sig)


PRELUDE = {
    "cublas": "#include <cublas_v2.h>\n",
    # cusparse.h (cusolverSp.h's types) warns on its own deprecated types unless told not to
    "cusolver": ("#define DISABLE_CUSPARSE_DEPRECATED 1\n"
                 "#include <cusolverDn.h>\n#include <cusolverSp.h>\n"
                 "#include <cusolverSp_LOWLEVEL_PREVIEW.h>\n#include <cusolverRf.h>\n"),
}


def thunks(lib: str, table: dict, rocm: dict, cv: Converters) -> tuple[str, Counts]:
    out = [STAMP,
           f"/* Every exported {lib} symbol, weak: shim/blas's strong definitions win. */\n",
           "#include <stdint.h>\n#include <stddef.h>\n", PRELUDE[lib],
           "#include <rocblas/rocblas.h>\n#include <rocsolver/rocsolver.h>\n",
           '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n',
           '#include "blas_internal.h"\n', f'#include "{lib}_enums.h"\n\n']
    counts = Counts()
    for _name, entry in sorted(table["entry_points"].items()):
        for symbol, sig in sorted(entry["symbols"].items()):
            out.append(_body(lib, symbol, sig, entry, rocm["functions"], cv, counts) + "\n")
    return "".join(out), counts


def exported_symbols(lib: str, table: dict) -> list[str]:
    names = {s for e in table["entry_points"].values() for s in e["symbols"]}
    return sorted(names | set(OWN_EXPORTS[lib]))


def generate(out_dir: Path) -> list[Path]:
    """Write <lib>_thunks.c, <lib>_export_stubs.c, <lib>_enums.h, <soname>.map and
    <lib>_exports.txt for cuBLAS and cuSOLVER (stubs and a map for cuSOLVERMg, and
    cuBLASLt's, pyshim.codegen.blaslt) into out_dir; files whose text is unchanged are left
    alone."""
    rocm = load_table("rocm")
    enums = load_table("enums")
    typedefs = load_table("typedefs")
    files: dict[str, str] = {}
    for lib in ("cublas", "cusolver"):
        table = load_table(lib)
        cv = Converters(enums, typedefs)
        text, _counts = thunks(lib, table, rocm, cv)
        files[f"{lib}_thunks.c"] = text
        files[f"{lib}_enums.h"] = cv.header()
        syms = exported_symbols(lib, table)
        # NVIDIA's exports no pinned header declares: stubs in their own translation unit
        extra = export_stubs.extras(SONAMES[lib][0], syms)
        files[f"{lib}_export_stubs.c"] = export_stubs.source(SONAMES[lib][0], "blas", extra,
                                                             typedefs)
        syms = sorted({*syms, *extra})
        files[f"{lib}_exports.txt"] = "\n".join(syms) + "\n"
        for soname in SONAMES[lib]:
            files[f"{soname}.map"] = common.version_script(soname, syms)
    for lib, soname in REFUSED_ONLY.items():
        own = list(OWN_EXPORTS[lib])
        extra = export_stubs.extras(soname, own)
        files[f"{lib}_export_stubs.c"] = export_stubs.source(soname, lib, extra, typedefs)
        files[f"{soname}.map"] = common.version_script(soname, sorted({*own, *extra}))
    files.update(blaslt.files(typedefs))
    return common.write_changed(out_dir, files)


def counts() -> dict[str, Counts]:
    """How many symbols of each library are thunks, adapters, hand-written, stubs."""
    rocm, enums, typedefs = load_table("rocm"), load_table("enums"), load_table("typedefs")
    return {lib: thunks(lib, load_table(lib), rocm, Converters(enums, typedefs))[1]
            for lib in ("cublas", "cusolver")}


if __name__ == "__main__":
    for p in generate(Path(sys.argv[1] if len(sys.argv) > 1 else "build/blas/gen")):
        print(p)
    for lib, c in counts().items():
        print(lib, c)
