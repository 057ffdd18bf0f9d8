"""NOT_SUPPORTED stubs for the symbols NVIDIA's library exports that pyshim's tables do not
define (tables/exports/<soname>.txt minus the header-derived exports).

No header declares most of them (internal entry points), so a stub has no signature: it
is defined as `int name(void)` in a translation unit that includes no CUDA header (where
one is declared, its real prototype would clash). On the x86-64 and AArch64 C ABIs the
caller owns its arguments, so a call with any arguments is sound; the stub only counts
and logs the name once, as the header-typed stubs do, and returns the library's
NOT_SUPPORTED status, a value read from the enums in tables/typedefs.json.
"""

from __future__ import annotations

from pyshim.codegen.common import STAMP, load_table
from pyshim.tables import exports

# library -> (unsupported-note function, its declaration, [(name prefix, status enum)])
# The first prefix that matches a symbol picks its status (libcusolver exports cublas*
# helpers, which return cuBLAS statuses).
KINDS: dict[str, tuple[str, str, list[tuple[str, str, str]]]] = {
    "blas": ("pyshim_blas_unsupported",
             "void pyshim_blas_unsupported(const char *name);",
             [("cusolver", "cusolverStatus_t", "CUSOLVER_STATUS_NOT_SUPPORTED"),
              ("", "cublasStatus_t", "CUBLAS_STATUS_NOT_SUPPORTED")]),
    # libcusolverMg: every export refused (its internal cudaLibMg* helpers too)
    "cusolverMg": ("pyshim_cusolvermg_unsupported",
                   "void pyshim_cusolvermg_unsupported(const char *name);",
                   [("", "cusolverStatus_t", "CUSOLVER_STATUS_NOT_SUPPORTED")]),
    # libcublasLt: what cublasLt.h does not declare (the typed-matmul variants such as
    # cublasLtSSSMatmul, internal helpers)
    "cublasLt": ("pyshim_cublaslt_unsupported",
                 "void pyshim_cublaslt_unsupported(const char *name);",
                 [("", "cublasStatus_t", "CUBLAS_STATUS_NOT_SUPPORTED")]),
    "curand": ("pyshim_curand_unsupported", "void pyshim_curand_unsupported(const char *name);",
               [("", "curandStatus_t", "CURAND_STATUS_ARCH_MISMATCH")]),
    "cufft": ("pyshim_cufft_unsupported", "void pyshim_cufft_unsupported(const char *name);",
              [("", "cufftResult_t", "CUFFT_NOT_SUPPORTED")]),
    "cusparse": ("pyshim_cusparse_unsupported",
                 "void pyshim_cusparse_unsupported(const char *name);",
                 [("", "cusparseStatus_t", "CUSPARSE_STATUS_NOT_SUPPORTED")]),
    "runtime": ("pyshim_rt_note_unsupported",
                '__attribute__((visibility("hidden"))) int pyshim_rt_note_unsupported('
                "const char *name);",
                [("", "cudaError_t", "cudaErrorNotSupported")]),
}


def _status_value(typedefs: dict, enum: str, member: str) -> int:
    values = typedefs["cuda_enums"].get(enum)
    if values is None or member not in values:
        raise KeyError(f"tables/typedefs.json has no {enum}.{member}")
    return int(values[member])


def source(soname: str, kind: str, symbols: list[str], typedefs: dict | None = None) -> str:
    """The C of the stubs for `symbols` (the generated library's extra exports)."""
    typedefs = typedefs if typedefs is not None else load_table("typedefs")
    note, decl, statuses = KINDS[kind]
    values = [(prefix, member, _status_value(typedefs, enum, member))
              for prefix, enum, member in statuses]
    out = [STAMP,
           f"/* {soname}: symbols NVIDIA's library exports that no pinned header gives pyshim\n"
           f" * (tables/exports/{soname}.txt): NOT_SUPPORTED, logged once by name. */\n",
           # weak, as the header-typed stubs: a hand-written definition wins
           "#define PYSHIM_EXPORT __attribute__((weak, visibility(\"default\")))\n",
           decl, "\n\n"]
    for sym in symbols:
        _prefix, member, value = next(v for v in values if sym.startswith(v[0]))
        if kind == "runtime":
            # the runtime's note also records the sticky/last error and returns it
            body = f'    return {note}("{sym}"); /* {member} */\n'
        else:
            body = f'    {note}("{sym}");\n    return {value}; /* {member} */\n'
        out.append(f"PYSHIM_EXPORT int {sym}(void);\nPYSHIM_EXPORT int {sym}(void)\n{{\n"
                   f"{body}}}\n\n")
    return "".join(out)


def extras(soname: str, defined: list[str] | set[str]) -> list[str]:
    """The symbols of `soname`'s export list that `defined` lacks. An older soname built
    from the same sources (libcublas.so.12 from .13's) takes the newest list's names."""
    for lib in exports.LIBRARIES:
        if soname == lib.soname:
            return exports.extra_symbols(soname, defined)
        if soname in lib.also:
            return sorted(set(exports.load(lib.soname)) - set(defined))
    return []
