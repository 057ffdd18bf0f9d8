"""Call every rocblas_*/rocsolver_* entry point the real headers declare with a valid handle,
valid enum values, positive sizes and NULL for every pointer, and print one line per call:
`<name> <status>`. Run as a subprocess: a crash shows as the last name printed without a
status. Usage: python3 null_args.py <lib dir> <size>"""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

from pyshim.builders.cpu_blas import Decl, declarations, header_dirs

# one valid value per enum type (rocblas-types.h / rocsolver-extra-types.h)
ENUMS = {
    "rocblas_operation": 111, "rocblas_fill": 121, "rocblas_diagonal": 131, "rocblas_side": 141,
    "rocblas_datatype": 151, "rocblas_pointer_mode": 0, "rocblas_atomics_mode": 1,
    "rocblas_gemm_algo": 0, "rocblas_math_mode": 0, "rocblas_performance_metric": 0,
    "rocblas_check_numerics_mode": 0, "rocblas_geam_ex_operation": 0,
    "rocblas_direct": 171, "rocblas_storev": 181, "rocblas_svect": 191, "rocblas_workmode": 201,
    "rocblas_evect": 211, "rocblas_eform": 221, "rocblas_erange": 231, "rocblas_eorder": 241,
    "rocblas_esort": 251, "rocblas_srange": 261, "rocsolver_rfinfo_mode": 271,
    "rocblas_pivot": 281, "rocsolver_alg_mode": 291, "rocsolver_function": 401,
    "rocblas_layer_mode_flags": 0, "rocblas_layer_mode": 0,
}
SKIP = {"rocblas_abort", "rocblas_initialize", "rocblas_set_optimal_device_memory_size_impl",
        "rocblas_device_malloc_alloc", "rocblas_status_to_string", "rocblas_pointer_to_mode",
        "rocblas_create_handle", "rocblas_destroy_handle", "rocsolver_create_handle",
        "rocsolver_destroy_handle", "rocblas_set_stream", "rocsolver_set_stream",
        "rocblas_start_device_memory_size_query"}


def _arg(text: str, size: int, handle: ctypes.c_void_p) -> object:
    t = text.replace("const ", "").strip()
    if "*" in t or t.endswith("]"):
        return ctypes.c_void_p(0)
    base = t.rsplit(" ", 1)[0].strip() if " " in t else t
    if base in ("rocblas_handle", "rocsolver_handle"):
        return handle
    if base in ("rocblas_stride", "int64_t", "size_t"):
        return ctypes.c_int64(0 if base == "rocblas_stride" else size)
    if base in ("rocblas_int", "rocsolver_int", "int32_t", "int", "uint32_t"):
        return ctypes.c_int32(size)
    if base == "float":
        return ctypes.c_float(1.0)
    if base == "double":
        return ctypes.c_double(1.0)
    if base in ENUMS:
        return ctypes.c_int(ENUMS[base])
    if base in ("hipStream_t", "hipEvent_t", "rocsolver_rfinfo"):
        return ctypes.c_void_p(0)
    raise KeyError(f"no argument rule for {text!r}")


def main() -> int:
    out, sizes = Path(sys.argv[1]), [int(a) for a in sys.argv[2:]]
    ctypes.CDLL(str(out / "libamdhip64.so.7"), mode=ctypes.RTLD_GLOBAL)
    libs = {"rocblas": ctypes.CDLL(str(out / "librocblas.so.5")),
            "rocsolver": ctypes.CDLL(str(out / "librocsolver.so.0"))}
    handle = ctypes.c_void_p()
    assert libs["rocblas"].rocblas_create_handle(ctypes.byref(handle)) == 0
    decls: dict[str, Decl] = declarations(header_dirs())
    for size in sizes:
        for name in sorted(decls):
            d = decls[name]
            if name in SKIP or not d.ret.endswith("_status") or \
                    "..." in [p.text for p in d.params]:
                continue
            args = [_arg(p.text, size, handle) for p in d.params]
            fn = getattr(libs[name.split("_")[0]], name)
            fn.restype = ctypes.c_int
            print(size, name, end=" ", flush=True)
            print(fn(*args), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
