"""Build the CPU device's rocBLAS (librocblas.so.5), rocSOLVER (librocsolver.so.0) and
hipBLASLt (libhipblaslt.so.1, the subset libcublasLt.so.13 calls).

Both are compiled against the real rocBLAS/rocSOLVER 7.2 and HIP 7.2 headers (fetched into
the headers cache), so every hand-written entry point is checked by the compiler against
the real declaration. The rocSOLVER _batched/_strided_batched forms (LP64 and _64) of
implemented routines are generated from the declarations as loops over the plain routine.
Every other function the headers declare (returning rocblas_status) gets a generated stub
that returns rocblas_status_not_implemented and names itself once on stderr, so the
libraries export the full ABI surface; `<soname>.unimplemented` lists the stubs.

BLAS/LAPACK come from PyPI scipy-openblas32 (prefixed `scipy_` symbols, 32-bit ints); the
libraries find it through an rpath. Only rocblas_* / rocsolver_* symbols are exported.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pyshim.builders.common import CC, BuildError, defined_symbols, run
from pyshim.paths import SHIM_DIR, build_dir

CPU_SRC = SHIM_DIR / "cpu"
# headers every BLAS/LAPACK library of the CPU device shares (shim/cpu/common)
CPU_COMMON = CPU_SRC / "common"
# C shared with the shim's libraries (shim/common), compiled into librocblas with its own copy
SHIM_COMMON = SHIM_DIR / "common"
HIP_SONAME = "libamdhip64.so.7"
CFLAGS = ["-std=c11", "-O2", "-fPIC", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden",
          "-D__HIP_PLATFORM_AMD__", "-DROCBLAS_NO_DEPRECATED_WARNINGS"]
STAMP_VERSION = "1"
# entry points the CPU rocSOLVER exports that ROCm 7.2's headers lack but newer rocSOLVER
# releases declare (shim/cpu/rocsolver/rocsolver_geev.c: cuSOLVER's Xgeev looks them up)
NEWER_ROCSOLVER = ("rocsolver_sgeev", "rocsolver_dgeev", "rocsolver_cgeev", "rocsolver_zgeev")
COMPILE_JOBS = 2


@dataclass(frozen=True)
class LibSpec:
    soname: str
    prefix: str  # exported symbol prefix, also the source folder (shim/cpu/<prefix>/)
    sources: tuple[Path, ...]
    exports: str = ""  # the version script's glob when it is not `<prefix>_*`


def openblas_dirs() -> tuple[Path, Path]:
    """(include dir, lib dir) of scipy-openblas32; a clear error if it is missing."""
    try:
        import scipy_openblas32  # type: ignore[import-not-found]
    except ImportError as exc:
        raise BuildError(
            "the CPU device's BLAS needs PyPI scipy-openblas32 "
            "(pip install scipy-openblas32)") from exc
    return Path(scipy_openblas32.get_include_dir()), Path(scipy_openblas32.get_lib_dir())


def header_dirs() -> list[Path]:
    from pyshim.tables.fetch import include_dir

    return [include_dir(k) for k in ("hip", "hsa", "rocblas", "rocsolver")]


def _specs() -> list[LibSpec]:
    blas = (*sorted((CPU_SRC / "rocblas").glob("*.c")), SHIM_COMMON / "handle_set.c")
    solver = tuple(sorted((CPU_SRC / "rocsolver").glob("*.c")))
    lt = tuple(sorted((CPU_SRC / "hipblaslt").glob("*.c")))
    return [LibSpec("librocblas.so.5", "rocblas", blas),
            LibSpec("librocsolver.so.0", "rocsolver", solver),
            # hipBLASLt's names are hipblasLt<Name>, not <prefix>_<name>
            LibSpec("libhipblaslt.so.1", "hipblaslt", lt, "hipblasLt*")]


@dataclass(frozen=True)
class Param:
    text: str  # the declaration as written, e.g. "double* const A[]"
    name: str

    @property
    def is_array(self) -> bool:
        return self.text.endswith("]")

    @property
    def is_pointer(self) -> bool:
        return "*" in self.text or self.is_array

    @property
    def is_stride(self) -> bool:
        return self.text.split()[-2:-1] == ["rocblas_stride"] or \
            self.text.startswith(("rocblas_stride ", "const rocblas_stride "))


@dataclass(frozen=True)
class Decl:
    name: str
    ret: str
    params: tuple[Param, ...]


def _parse_params(text: str) -> tuple[Param, ...]:
    text = text.strip()
    if text in ("", "void"):
        return ()
    out = []
    for part in text.split(","):
        part = part.strip()
        m = re.search(r"(\w+)\s*(\[\s*\])?$", part)
        out.append(Param(part, m.group(1) if m else ""))
    return tuple(out)


def declarations(includes: list[Path], cc: str = "gcc") -> dict[str, Decl]:
    """Every rocblas_*/rocsolver_* function the real headers declare, with its parameters."""
    src = "#include <rocblas/rocblas.h>\n#include <rocsolver/rocsolver.h>\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "decls.c"
        path.write_text(src)
        text = run([cc, "-E", "-P", *CFLAGS[:1], "-D__HIP_PLATFORM_AMD__",
                     *[f"-I{d}" for d in includes], str(path)], "preprocessing the headers")
    text = re.sub(r"\s+", " ", text)
    found: dict[str, Decl] = {}
    decl = re.compile(r"([A-Za-z_][\w\s\*]*?)\b((?:rocblas|rocsolver)_\w+)\s*\(([^;{]*?)\)"
                      r"\s*(?:__attribute__\s*\(\([^;]*?\)\))?\s*;")
    for m in decl.finditer(text):
        ret = m.group(1).split(")")[-1].strip()
        found[m.group(2)] = Decl(m.group(2), ret, _parse_params(m.group(3)))
    return found


def declared_functions(includes: list[Path], cc: str = "gcc") -> dict[str, str]:
    """Every rocblas_*/rocsolver_* function the real headers declare -> its return type."""
    return {n: d.ret for n, d in declarations(includes, cc).items()}


BATCH_SUFFIXES = ("_strided_batched", "_batched")


def _batch_wrapper(batched: Decl, plain: Decl) -> str | None:
    """C for a _batched/_strided_batched entry point that loops over the implemented plain
    routine, or None when the parameter lists do not line up. Per instance b: a pointer
    array X[] gives X[b]; a pointer followed by a rocblas_stride gives X + b*stride; any
    other pointer (info, nev, residual...) is a per-instance array and gives X + b. A stride
    that no pointer claims makes the wrapper unusable (None)."""
    params = list(batched.params)
    if not params or params[-1].name != "batch_count" or params[0].name != "handle":
        return None
    # a stride belongs to the closest pointer before it (e.g. "A, lda, strideA")
    stride_of: dict[str, str] = {}
    last_ptr = None
    for p in params[1:-1]:
        if p.is_stride and last_ptr is not None and last_ptr not in stride_of:
            stride_of[last_ptr] = p.name
        elif p.is_pointer:
            last_ptr = p.name
    args: list[str] = []
    for p in params[1:-1]:
        if p.is_stride:
            continue
        if p.is_array:
            args.append(f"({p.name} ? {p.name}[b] : NULL)")
        elif p.is_pointer and p.name in stride_of:
            args.append(f"({p.name} ? {p.name} + b * {stride_of[p.name]} : NULL)")
        elif p.is_pointer:
            args.append(f"({p.name} ? {p.name} + b : NULL)")
        else:
            args.append(p.name)
    strides = [p.name for p in params[1:-1] if p.is_stride]
    if len(args) != len(plain.params) - 1 or sorted(strides) != sorted(stride_of.values()):
        return None
    call = f"{plain.name}(handle, {', '.join(args)})"
    # the pointer arrays are device memory that work queued on the stream may still be
    # writing (CuPy computes them with a kernel just before): read only after the stream
    wait = ["    if (pyshim_batch_wait(handle) != rocblas_status_success)",
            "        return pyshim_batch_wait(handle);"] \
        if any(p.is_array for p in params[1:-1]) else []
    return "\n".join([
        f"PYSHIM_API rocblas_status {batched.name}({', '.join(p.text for p in params)})",
        "{",
        "    if (batch_count < 0)",
        "        return handle ? rocblas_status_invalid_size : rocblas_status_invalid_handle;",
        "    if (rocblas_is_device_memory_size_query(handle)) {",
        "        const int64_t b = 0;",
        f"        return {call};",
        "    }",
        *wait,
        "    for (int64_t b = 0; b < batch_count; b++) {",
        f"        rocblas_status st = {call};",
        "        if (st != rocblas_status_success)",
        "            return st;",
        "    }",
        "    return handle ? rocblas_status_success : rocblas_status_invalid_handle;",
        "}",
    ])


def _batch_source(decls: dict[str, Decl], have: set[str], prefix: str) -> tuple[str, list[str]]:
    """Generated batched forms of implemented plain routines (rocSOLVER): source, names."""
    lines = ["/* generated by pyshim.builders.cpu_blas from the rocSOLVER declarations: do not edit */",
             "#include <stddef.h>", "#include <stdint.h>", "#include <rocblas/rocblas.h>",
             "#include <rocsolver/rocsolver.h>", "#include <hip/hip_runtime_api.h>",
             '#define PYSHIM_API __attribute__((visibility("default")))', "",
             "/* The handle's stream drained before a loop reads its pointer arrays. On a",
             " * stream under capture nothing is waited for: the plain routine refuses. */",
             "static rocblas_status pyshim_batch_wait(rocblas_handle handle)", "{",
             "    hipStream_t s = NULL;",
             "    hipStreamCaptureStatus cap = hipStreamCaptureStatusNone;",
             "    if (!handle || rocblas_get_stream(handle, &s) != rocblas_status_success)",
             "        return rocblas_status_invalid_handle;",
             "    if (hipStreamIsCapturing(s, &cap) == hipSuccess && "
             "cap != hipStreamCaptureStatusNone)",
             "        return rocblas_status_success;",
             "    return hipStreamSynchronize(s) == hipSuccess ? rocblas_status_success",
             "                                                 : rocblas_status_internal_error;",
             "}", ""]
    names = []
    for name in sorted(decls):
        if not name.startswith(prefix + "_") or name in have:
            continue
        stem, wide = (name[:-3], "_64") if name.endswith("_64") else (name, "")
        base = next((stem[: -len(s)] + wide for s in BATCH_SUFFIXES if stem.endswith(s)), None)
        if base is None or base not in have or base not in decls:
            continue
        body = _batch_wrapper(decls[name], decls[base])
        if body:
            lines += [body, ""]
            names.append(name)
    return "\n".join(lines) + "\n", names


def _stub_source(names: list[str]) -> str:
    """Stubs for declared-but-unimplemented entry points. They are defined without the
    header (parameters do not matter to a function that ignores them on x86-64 SysV)."""
    lines = ["/* generated by pyshim.builders.cpu_blas: do not edit */",
             "#pragma GCC diagnostic ignored \"-Wunused-function\"",
             "#include <stdio.h>", "#include <stdatomic.h>",
             "static void pyshim_blas_unimplemented(const char *name, atomic_int *once)",
             "{", "    if (!atomic_exchange(once, 1))",
             '        fprintf(stderr, "pyshim cpu device: %s is not implemented '
             '(returns rocblas_status_not_implemented)\\n", name);', "}"]
    for name in names:
        lines += [f"__attribute__((visibility(\"default\"))) int {name}(void);",
                  f"int {name}(void)", "{", "    static atomic_int once;",
                  f'    pyshim_blas_unimplemented("{name}", &once);',
                  "    return 2; /* rocblas_status_not_implemented */", "}"]
    return "\n".join(lines) + "\n"


def _own_dir(spec: LibSpec) -> Path:
    return CPU_SRC / spec.prefix


def _fingerprint(spec: LibSpec, hip_lib: Path, inc: list[Path], ob_lib: Path) -> str:
    h = hashlib.sha256(STAMP_VERSION.encode())
    # the CPU hipBLASLt reuses rocBLAS's 16-bit float and OpenBLAS headers
    for path in sorted({*spec.sources, *CPU_COMMON.glob("*.h"), *SHIM_COMMON.glob("*.h"),
                        *_own_dir(spec).glob("*.h"), *(CPU_SRC / "rocblas").glob("*.h"),
                        *(SHIM_DIR / "include").glob("*.h"), Path(__file__)}):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    # the HIP runtime is linked by SONAME only: a rebuilt runtime needs no relink
    h.update(" ".join(map(str, [*inc, ob_lib, hip_lib, *CFLAGS])).encode())
    return h.hexdigest()


def _build_one(spec: LibSpec, out_dir: Path, hip_dir: Path, inc: list[Path],
               decls: dict[str, Decl], extra_link: list[str]) -> Path:
    ob_inc, ob_lib = openblas_dirs()
    hip_lib = hip_dir / HIP_SONAME
    target = out_dir / spec.soname
    stamp = out_dir / f".{spec.soname}.stamp"
    key = _fingerprint(spec, hip_lib, inc, ob_lib)
    if target.is_file() and stamp.is_file() and stamp.read_text() == key:
        return target
    obj_dir = out_dir / f"obj-{spec.prefix}"
    obj_dir.mkdir(parents=True, exist_ok=True)
    cc = CC
    # SHIM_DIR/include: ABI headers shared with the CUDA-side libraries (hipBLASLt's)
    iflags = [f"-I{_own_dir(spec)}", f"-I{CPU_COMMON}", f"-I{SHIM_DIR}",
              f"-I{SHIM_DIR / 'include'}", *[f"-I{d}" for d in inc], f"-I{ob_inc}"]
    srcs = list(spec.sources)
    objects = [obj_dir / (src.stem + ".o") for src in srcs]
    # two compiles at a time: the macro-heavy files dominate the build
    with ThreadPoolExecutor(max_workers=COMPILE_JOBS) as pool:
        list(pool.map(lambda so: run([cc, *CFLAGS, *iflags, "-c", str(so[0]), "-o", str(so[1])],
                                     f"compiling {so[0].name}"), zip(srcs, objects, strict=True)))
    have = defined_symbols(objects) if objects else set()
    if spec.prefix == "rocsolver":
        batch_c = obj_dir / "batched.c"
        text, generated = _batch_source(decls, have, spec.prefix)
        batch_c.write_text(text)
        batch_o = obj_dir / "batched.o"
        run([cc, *CFLAGS, *iflags, "-c", str(batch_c), "-o", str(batch_o)],
            "compiling the generated batched forms")
        objects.append(batch_o)
        have |= set(generated)
    missing = sorted(n for n, d in decls.items()
                     if n.startswith(spec.prefix + "_") and n not in have
                     and d.ret.endswith("_status"))
    stub_c = obj_dir / "stubs.c"
    stub_c.write_text(_stub_source(missing))
    stub_o = obj_dir / "stubs.o"
    run([cc, "-std=c11", "-O1", "-fPIC", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden",
         "-c", str(stub_c), "-o", str(stub_o)], "compiling the generated stubs")
    vscript = obj_dir / "exports.map"
    vscript.write_text(f"{{ global: {spec.exports or spec.prefix + '_*'}; local: *; }};\n")
    tmp = target.with_suffix(".tmp")
    run([cc, "-shared", "-o", str(tmp), *map(str, objects), str(stub_o),
         f"-Wl,-soname,{spec.soname}", f"-Wl,--version-script,{vscript}", "-Wl,-z,defs",
         *extra_link, f"-L{hip_dir}", f"-l:{HIP_SONAME}", f"-L{ob_lib}", "-lscipy_openblas",
         f"-Wl,-rpath,$ORIGIN:{hip_dir}:{ob_lib}", "-lm", "-lpthread"],
        f"linking {spec.soname}")
    os.replace(tmp, target)
    (out_dir / f"{spec.soname}.unimplemented").write_text("\n".join(missing) + "\n")
    stamp.write_text(key)
    return target


def build_cpu_blas(out_dir: Path | None = None, hip_dir: Path | None = None) -> Path:
    """Build librocblas.so.5 and librocsolver.so.0 into out_dir (default
    build_dir()/"cpu"), linked against hip_dir/libamdhip64.so.7 (default: out_dir).
    Rebuilds only what changed. Returns out_dir."""
    out_dir = Path(out_dir) if out_dir is not None else build_dir() / "cpu"
    hip_dir = Path(hip_dir) if hip_dir is not None else out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    if not (hip_dir / HIP_SONAME).is_file():
        raise BuildError(f"{hip_dir / HIP_SONAME} not found: build the CPU device's HIP "
                         "runtime first (python3 -m pyshim.builders.cpu)")
    inc = header_dirs()
    decls = declarations(inc)
    blas_spec, solver_spec, lt_spec = _specs()
    _build_one(blas_spec, out_dir, hip_dir, inc, decls, [])
    _build_one(solver_spec, out_dir, hip_dir, inc, decls,
               [f"-L{out_dir}", "-l:librocblas.so.5"])
    _build_one(lt_spec, out_dir, hip_dir, inc, decls, [])
    return out_dir


def measure_gemm(n: int, dtype: str = "float32", out_dir: Path | None = None,
                 reps: int = 3) -> dict[str, float]:
    """Time rocblas_sgemm/dgemm (n x n x n, no transposes) through the CPU device's
    librocblas.so.5 against OpenBLAS's own sgemm_/dgemm_ called directly on the same data,
    alternating the two so machine load affects both alike. Returns the best seconds of
    each and ratio = direct / rocblas (>= 0.95 is the budget)."""
    import ctypes
    import time

    import numpy as np

    pre = {"float32": "s", "float64": "d"}[dtype]
    out = Path(out_dir) if out_dir is not None else build_dir() / "cpu"
    ctypes.CDLL(str(out / HIP_SONAME), mode=ctypes.RTLD_GLOBAL)
    blas = ctypes.CDLL(str(out / "librocblas.so.5"))
    ob = ctypes.CDLL(str(openblas_dirs()[1] / "libscipy_openblas.so"))
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(n * n).astype(dtype) for _ in range(2))
    c = np.zeros(n * n, dtype)
    one, zero = np.ones(1, dtype), np.zeros(1, dtype)
    ptr = [ctypes.c_void_p(x.ctypes.data) for x in (a, b, c, one, zero)]
    handle = ctypes.c_void_p()
    if blas.rocblas_create_handle(ctypes.byref(handle)) != 0:
        raise BuildError("rocblas_create_handle failed")
    dim, trans = ctypes.c_int(n), ctypes.c_char(b"N")
    direct_fn = getattr(ob, f"scipy_{pre}gemm_")
    rb_fn = getattr(blas, f"rocblas_{pre}gemm")

    def direct() -> None:
        direct_fn(ctypes.byref(trans), ctypes.byref(trans), ctypes.byref(dim), ctypes.byref(dim),
                  ctypes.byref(dim), ptr[3], ptr[0], ctypes.byref(dim), ptr[1],
                  ctypes.byref(dim), ptr[4], ptr[2], ctypes.byref(dim))

    def through_rocblas() -> None:
        st = rb_fn(handle, 111, 111, n, n, n, ptr[3], ptr[0], n, ptr[1], n, ptr[4], ptr[2], n)
        if st != 0:
            raise BuildError(f"rocblas_{pre}gemm returned {st}")

    best = {"direct": float("inf"), "rocblas": float("inf")}
    direct()
    through_rocblas()
    for _ in range(reps):
        for name, fn in (("direct", direct), ("rocblas", through_rocblas)):
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    blas.rocblas_destroy_handle(handle)
    return {"direct_s": best["direct"], "rocblas_s": best["rocblas"],
            "ratio": best["direct"] / best["rocblas"]}


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python3 -m pyshim.builders.cpu_blas", description=__doc__)
    ap.add_argument("--out", type=Path, default=None, help="output directory")
    ap.add_argument("--hip-dir", type=Path, default=None,
                    help="directory holding libamdhip64.so.7 (default: the output directory)")
    ap.add_argument("--measure-gemm", type=int, metavar="N", default=0,
                    help="after building, time sgemm/dgemm at N through rocBLAS vs OpenBLAS")
    args = ap.parse_args(argv)
    try:
        out = build_cpu_blas(args.out, args.hip_dir)
        print(out)
        if args.measure_gemm:
            for dtype in ("float32", "float64"):
                r = measure_gemm(args.measure_gemm, dtype, out)
                print(f"{dtype} gemm n={args.measure_gemm}: OpenBLAS {r['direct_s'] * 1e3:.1f} ms, "
                      f"rocBLAS {r['rocblas_s'] * 1e3:.1f} ms, ratio {r['ratio']:.3f}")
    except BuildError as exc:
        print(f"pyshim build_blas: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
