"""libcusparse generated C: a weak definition of every exported cuSPARSE symbol, from
tables/cusparse.json.

- direct/converted entries (cuSPARSE -> rocSPARSE): a thunk that passes handles and
  descriptors through, converts enums through generated switch converters and maps the
  rocsparse_status back;
- everything else: a CUSPARSE_STATUS_NOT_SUPPORTED stub that logs its name once and is
  counted (entries returning something else return 0 / NULL).

The hand-written C in shim/sparse defines the `shim` entries as strong symbols, which win.
The ROCm targets are declared in ABI terms (<lib>_rocm.h), as pyshim.codegen.randfft does:
CUDA's and HIP's headers cannot share a translation unit.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyshim.codegen import common, export_stubs
from pyshim.codegen import randfft as rf
from pyshim.codegen.common import STAMP, load_table, param_names, write_changed

LIBS = ("cusparse",)
SONAMES = {"cusparse": ("libcusparse.so.12",)}
STATUS = {"cusparse": ("cusparseStatus_t", "CUSPARSE_STATUS_NOT_SUPPORTED", "rocsparse_status")}
OWN_EXPORTS = {"cusparse": ("pyshim_cusparse_unsupported_count",)}
PRELUDE = {"cusparse": "#include <cusparse.h>\n"}
# ROCm functions the hand-written C in shim/sparse calls (declared in <lib>_rocm.h too; the
# tables keep their signatures because [cusparse.target] names them for the hand entries)
HAND_TARGETS = {"cusparse": (
    "rocsparse_create_csr_descr", "rocsparse_create_coo_descr", "rocsparse_create_csc_descr",
    "rocsparse_destroy_spmat_descr", "rocsparse_create_dnvec_descr",
    "rocsparse_destroy_dnvec_descr", "rocsparse_create_dnmat_descr",
    "rocsparse_destroy_dnmat_descr", "rocsparse_spmv", "rocsparse_spmm",
    "rocsparse_dnvec_get_values", "rocsparse_dnvec_set_values", "rocsparse_dnmat_get_values",
    "rocsparse_dnmat_set_values", "rocsparse_spmat_get_size", "rocsparse_spmat_get_format",
    "rocsparse_spmat_get_values", "rocsparse_spmat_set_values", "rocsparse_sparse_to_dense", "rocsparse_spgemm",
    "rocsparse_csr_set_pointers", "rocsparse_dense_to_sparse", "rocsparse_csr2csc_buffer_size",
    "rocsparse_dcsr2csc", "rocsparse_create_spvec_descr", "rocsparse_destroy_spvec_descr",
    "rocsparse_csrgeam_nnz", "rocsparse_scsrgeam", "rocsparse_dcsrgeam", "rocsparse_ccsrgeam",
    "rocsparse_zcsrgeam", "rocsparse_spsv", "rocsparse_spsm", "rocsparse_spvv",
    "rocsparse_spmat_set_attribute", "rocsparse_spmat_get_attribute", "rocsparse_csr_get",
    "rocsparse_coo_get")}


_STDINT = {"int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t",
           "uint64_t"}

# what shim/sparse/cusparse_bsr.c calls (the BSR routines, their mat_info, strided batches)
HAND_TARGETS["cusparse"] += (
    "rocsparse_create_mat_info", "rocsparse_destroy_mat_info", "rocsparse_bsrsv_zero_pivot",
    "rocsparse_bsrsm_zero_pivot", "rocsparse_dnmat_set_strided_batch",
    "rocsparse_dnmat_get_strided_batch",
    *(f"rocsparse_{p}bsrmv" for p in "sdcz"),
    *(f"rocsparse_{p}bsr{k}_{s}" for p in "sdcz" for k in ("sv", "sm")
      for s in ("buffer_size", "analysis", "solve")))

# what shim/sparse/cusparse_precond.c calls (the incomplete factorizations and their boost)
HAND_TARGETS["cusparse"] += (
    "rocsparse_csrilu0_zero_pivot", "rocsparse_csric0_zero_pivot",
    "rocsparse_bsrilu0_zero_pivot", "rocsparse_bsric0_zero_pivot",
    *(f"rocsparse_{p}{k}ilu0_numeric_boost" for p in ("ds", "d", "dc", "z")
      for k in ("csr", "bsr")),
    *(f"rocsparse_{p}{f}{k}{s}" for p in "sdcz" for f in ("csr", "bsr") for k in ("ilu0", "ic0")
      for s in ("_buffer_size", "_analysis", "")))

# what shim/sparse/cusparse_gtsv.c calls (interleaved batches of tri- and pentadiagonal solves)
HAND_TARGETS["cusparse"] += tuple(f"rocsparse_{p}{k}_interleaved_batch{s}" for p in "sdcz"
                                  for k in ("gtsv", "gpsv") for s in ("_buffer_size", ""))


def abi_type(rtype: str, rocm_typedefs: dict[str, str]) -> str:
    """randfft's ABI spelling, plus <stdint.h>'s types (rocSPARSE's sizes are int64_t)."""
    t = " ".join(rf._value_type(rtype).replace("const ", "").split())
    if t in _STDINT:
        return t
    return rf.abi_type(rtype, rocm_typedefs)


def rocm_header(lib: str, names: list[str], rocm_fns: dict, rocm_typedefs: dict) -> str:
    guard = f"PYSHIM_GEN_{lib.upper()}_ROCM_H"
    out = [STAMP, f"/* The ROCm functions libpyshim {lib} calls, declared in ABI terms. */\n",
           f"#ifndef {guard}\n#define {guard}\n#include <stddef.h>\n#include <stdint.h>\n\n"]
    for n in sorted(names):
        fn = rocm_fns[n]
        params = ", ".join(f"{abi_type(t, rocm_typedefs)} {pn or f'a{i}'}"
                           for i, (t, pn) in enumerate(fn["params"])) or "void"
        out.append(f"{abi_type(fn['ret'], rocm_typedefs)} {n}({params});\n")
    out.append("\n#endif\n")
    return "".join(out)


def _stub(lib: str, symbol: str, sig: dict) -> str:
    status_t, not_supported, _ = STATUS[lib]
    value = not_supported if sig["ret"] == status_t else f"({sig['ret']})0"
    if sig["ret"] == "void":
        value = ""
    ret = f"    return {value};\n" if value else "    return;\n"
    return (f"{rf._declare(symbol, sig)}\n{{\n{rf._unused(param_names(sig))}"
            f'    pyshim_{lib}_unsupported("{symbol}");\n{ret}}}\n')


def _thunk(lib: str, symbol: str, sig: dict, entry: dict, target: dict, ev: rf.Enums,
           rocm_typedefs: dict) -> str:
    status_t, _, rocm_status = STATUS[lib]
    value_ret = sig["ret"] != status_t
    if value_ret and not _identity_return(sig["ret"], target["ret"], ev):
        raise rf.Unmapped("returns " + sig["ret"])
    names = param_names(sig)
    if len(target["params"]) != len(names):
        raise rf.Unmapped("arity")
    exprs = []
    for conv, name, (ctype, _), (rtype, _rname) in zip(entry["args"], names, sig["params"],
                                                       target["params"], strict=True):
        exprs.append(rf._arg(conv, name, ctype, abi_type(rtype, rocm_typedefs), ev))
    call = f"{entry['target']}({', '.join(exprs)})"
    if value_ret:  # a getter of an enum whose values both libraries share
        return "\n".join([rf._declare(symbol, sig), "{", f"    return ({sig['ret']}){call};",
                          "}"]) + "\n"
    from_st = ev.status(status_t, rocm_status)
    return "\n".join([rf._declare(symbol, sig), "{", f"    int st = (int){call};",
                      f"    return ({status_t}){from_st}(st);", "}"]) + "\n"


def _identity_return(cuda_ret: str, rocm_ret: str, ev: rf.Enums) -> bool:
    """The getters (cusparseGetMatIndexBase...) return enums: passed back as they are only
    where the tables found the two enums value-identical."""
    pair = ev.pairs.get(f"{cuda_ret}->{rocm_ret}")
    return bool(pair and pair.get("identity"))


def _body(lib: str, symbol: str, sig: dict, entry: dict, rocm_fns: dict, ev: rf.Enums,
          counts: rf.Counts, rocm_typedefs: dict, used: set[str]) -> str:
    cls = entry["class"]
    target = rocm_fns.get(entry["target"] or "")
    if cls in ("direct", "converted") and target is not None:
        try:
            text = _thunk(lib, symbol, sig, entry, target, ev, rocm_typedefs)
        except rf.Unmapped as why:
            counts.stubs += 1
            return f"/* {symbol}: not generated ({why}) */\n{_stub(lib, symbol, sig)}"
        used.add(entry["target"])
        counts.thunks += 1
        return text
    if cls == "shim":
        counts.hand += 1
    else:
        counts.stubs += 1
    return _stub(lib, symbol, sig)


def thunks(lib: str, table: dict, rocm: dict, ev: rf.Enums, rocm_typedefs: dict,
           used: set[str] | None = None) -> tuple[str, rf.Counts]:
    used = set() if used is None else used
    out = [STAMP,
           f"/* Every exported {lib} symbol, weak: shim/sparse's strong definitions win. */\n",
           "#include <stdint.h>\n#include <stddef.h>\n", PRELUDE[lib],
           '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n',
           '#include "sparse_internal.h"\n', f'#include "{lib}_enums.h"\n',
           f'#include "{lib}_rocm.h"\n\n']
    counts = rf.Counts()
    for _name, entry in sorted(table["entry_points"].items()):
        for symbol, sig in sorted(entry["symbols"].items()):
            out.append(_body(lib, symbol, sig, entry, rocm["functions"], ev, counts,
                             rocm_typedefs, used) + "\n")
    return "".join(out), counts


def exported_symbols(lib: str, table: dict) -> list[str]:
    names = {s for e in table["entry_points"].values() for s in e["symbols"]}
    return sorted(names | set(OWN_EXPORTS[lib]))


def generate(out_dir: Path) -> list[Path]:
    """<lib>_thunks.c, <lib>_rocm.h, <lib>_export_stubs.c, <lib>_enums.h, <soname>.map into
    out_dir; unchanged files are left alone."""
    rocm, enums, typedefs = load_table("rocm"), load_table("enums"), load_table("typedefs")
    rf._ROCM_ENUMS.update(typedefs["rocm_enums"])
    files: dict[str, str] = {}
    for lib in LIBS:
        table = load_table(lib)
        ev = rf.Enums(enums)
        # the hand-written C converts these too (sparse_internal.h declares them)
        for key in ("cusparseIndexBase_t->rocsparse_index_base",
                    "cusparseIndexType_t->rocsparse_indextype",
                    "cusparseOperation_t->rocsparse_operation",
                    "cusparseOrder_t->rocsparse_order"):
            ev._pair(key)
        ev.status(*STATUS[lib][::2])
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
    return write_changed(out_dir, files)


def counts() -> dict[str, rf.Counts]:
    rocm, enums = load_table("rocm"), load_table("enums")
    typedefs = load_table("typedefs")
    rf._ROCM_ENUMS.update(typedefs["rocm_enums"])
    return {lib: thunks(lib, load_table(lib), rocm, rf.Enums(enums), typedefs["rocm"])[1]
            for lib in LIBS}


if __name__ == "__main__":
    for p in generate(Path(sys.argv[1] if len(sys.argv) > 1 else "build/sparse/gen")):
        print(p)
    for lib, c in counts().items():
        print(lib, c)
