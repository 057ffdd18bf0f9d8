"""Build pyshim's libcublas.so.13 (+ .so.12), libcusolver.so.12 (+ .so.11),
libcusolverMg.so.12 (every entry point refused) and libcublasLt.so.13 (tables/cublaslt.json:
hand-written on hipBLASLt, the rest refused).

Generated C (pyshim.codegen.blas: thunks, adapters, stubs, version scripts) plus the
hand-written C in shim/blas, compiled with -Wall -Wextra -Werror against the real cuBLAS,
cuSOLVER, CUDA, rocBLAS, rocSOLVER and HIP headers. Each soname gets its own GNU version
node named after it, as NVIDIA's libraries have (`cublasSgemm_v2@libcublas.so.13`).

The libraries need librocblas.so.5, librocsolver.so.0 and libamdhip64.so.7 by SONAME only
(DT_NEEDED, no rpath): whoever runs the program puts the backend directory (ROCm's, or the
CPU device's build/cpu) on the library path. Linking resolves them in `backend_dir`
(default: build/cpu, built on demand). Rebuilds are skipped when nothing changed.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from pyshim.builders.common import CC, BuildError, build_lock, run
from pyshim.codegen import blas as codegen
from pyshim.codegen import blaslt
from pyshim.paths import SHIM_DIR, build_dir

BLAS_SRC = SHIM_DIR / "blas"
# C shared with the other shims: the unsupported-call counts and the log line
COMMON_DIR = SHIM_DIR / "common"
COMMON_SOURCES = ("log.c", "unsupported.c")
CFLAGS = ["-std=c11", "-O2", "-fPIC", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden",
          "-D_GNU_SOURCE", "-D__HIP_PLATFORM_AMD__", "-DROCBLAS_NO_DEPRECATED_WARNINGS"]
HEADER_KEYS = ("cublas13", "cusolver12", "cusparse12", "cuda13-runtime", "cuda13-crt", "cuda13-cccl",
               "rocblas", "rocsolver", "hip", "hsa")
# backend libraries each of ours needs, by SONAME (cuBLAS's batched getrf/getrs/getri/gels
# are rocSOLVER's)
NEEDS = {"cublas": ("librocblas.so.5", "librocsolver.so.0", "libamdhip64.so.7"),
         "cusolver": ("librocsolver.so.0", "librocblas.so.5", "libamdhip64.so.7")}
STAMP_VERSION = "1"


def header_dirs() -> list[Path]:
    from pyshim.tables.fetch import include_dir

    return [include_dir(k) for k in HEADER_KEYS]


def sources(lib: str) -> list[Path]:
    """Hand-written C of one library: its own files, the shared blas_*.c and shim/common's
    part (no name there is also one of shim/blas: the objects share a folder)."""
    return sorted([*BLAS_SRC.glob(f"{lib}_*.c"), *BLAS_SRC.glob("blas_*.c"),
                   *(COMMON_DIR / n for n in COMMON_SOURCES)])


def default_backend_dir() -> Path:
    """The CPU device (HIP runtime, rocBLAS, rocSOLVER), built if needed."""
    from pyshim.builders.cpu import build_cpu_device
    from pyshim.builders.cpu_blas import build_cpu_blas

    out = build_cpu_device()
    return build_cpu_blas(out, out)


def _fingerprint(lib: str, gen: list[Path], inc: list[Path], backend: Path, cc: str) -> str:
    h = hashlib.sha256(STAMP_VERSION.encode())
    for path in sorted({*sources(lib), *BLAS_SRC.glob("*.h"), *COMMON_DIR.glob("*.h"), *gen,
                        Path(__file__)}):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    h.update(" ".join([cc, *map(str, inc), *CFLAGS]).encode())
    for name in NEEDS[lib]:
        st = (backend / name).stat()
        h.update(f"{name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def _build_lib(lib: str, out_dir: Path, gen_dir: Path, inc: list[Path],
               backend: Path) -> list[Path]:
    cc = CC
    gen = [gen_dir / f"{lib}_thunks.c", gen_dir / f"{lib}_export_stubs.c",
           gen_dir / f"{lib}_enums.h",
           *(gen_dir / f"{s}.map" for s in codegen.SONAMES[lib])]
    key = _fingerprint(lib, gen, inc, backend, cc)
    targets = [out_dir / s for s in codegen.SONAMES[lib]]
    stamp = out_dir / f".{lib}.stamp"
    if all(t.is_file() for t in targets) and stamp.is_file() and stamp.read_text() == key:
        return targets
    obj_dir = gen_dir / f"obj-{lib}"
    obj_dir.mkdir(parents=True, exist_ok=True)
    # SHIM_DIR: the shared headers are included as "common/<name>.h"
    iflags = [f"-I{BLAS_SRC}", f"-I{SHIM_DIR}", f"-I{gen_dir}", *[f"-I{d}" for d in inc]]
    objects = []
    for src in [gen_dir / f"{lib}_thunks.c", gen_dir / f"{lib}_export_stubs.c", *sources(lib)]:
        obj = obj_dir / (src.stem + ".o")
        run([cc, *CFLAGS, *iflags, "-c", str(src), "-o", str(obj)], f"compiling {src.name}")
        objects.append(obj)
    needs = [f"-l:{n}" for n in NEEDS[lib]]
    for soname, target in zip(codegen.SONAMES[lib], targets, strict=True):
        tmp = out_dir / f".{soname}.{os.getpid()}.tmp"
        run([cc, "-shared", "-o", str(tmp), *map(str, objects),
             f"-Wl,-soname,{soname}", f"-Wl,--version-script,{gen_dir / (soname + '.map')}",
             "-Wl,-z,defs", "-Wl,--no-as-needed", f"-L{backend}", *needs, "-lpthread"],
            f"linking {soname}")
        os.replace(tmp, target)
    stamp.write_text(key)
    return targets


def _build_own(soname: str, stamp_name: str, srcs: list[Path], headers: list[Path],
               iflags: list[str], out_dir: Path, gen_dir: Path) -> Path:
    """Compile srcs into soname with its version script; skipped when nothing changed."""
    script = gen_dir / f"{soname}.map"
    h = hashlib.sha256(STAMP_VERSION.encode())
    for path in sorted({*srcs, script, *headers, Path(__file__)}):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    h.update(" ".join([CC, *CFLAGS, *iflags]).encode())
    target = out_dir / soname
    stamp = out_dir / f".{stamp_name}.stamp"
    if target.is_file() and stamp.is_file() and stamp.read_text() == h.hexdigest():
        return target
    obj_dir = gen_dir / f"obj-{stamp_name}"
    obj_dir.mkdir(parents=True, exist_ok=True)
    objects = []
    for src in srcs:
        obj = obj_dir / (src.stem + ".o")
        run([CC, *CFLAGS, *iflags, "-c", str(src), "-o", str(obj)], f"compiling {src.name}")
        objects.append(obj)
    tmp = out_dir / f".{soname}.{os.getpid()}.tmp"
    run([CC, "-shared", "-o", str(tmp), *map(str, objects), f"-Wl,-soname,{soname}",
         f"-Wl,--version-script,{script}", "-Wl,-z,defs", "-ldl", "-lpthread"],
        f"linking {soname}")
    os.replace(tmp, target)
    stamp.write_text(h.hexdigest())
    return target


def _build_refused_only(lib: str, out_dir: Path, gen_dir: Path, inc: list[Path]) -> Path:
    """A library without a table (libcusolverMg): generated refusals for NVIDIA's export
    list."""
    srcs = [gen_dir / f"{lib}_export_stubs.c", BLAS_SRC / f"{lib}_refuse.c",
            *(COMMON_DIR / n for n in COMMON_SOURCES)]
    iflags = [f"-I{SHIM_DIR}", f"-I{SHIM_DIR / 'include'}", *[f"-I{d}" for d in inc]]
    return _build_own(codegen.REFUSED_ONLY[lib], lib, srcs, list(COMMON_DIR.glob("*.h")),
                      iflags, out_dir, gen_dir)


def _build_blaslt(out_dir: Path, gen_dir: Path, inc: list[Path]) -> Path:
    """libcublasLt.so.13: the generated weak definitions of tables/cublaslt.json and the
    export-list stubs, and shim/blaslt's strong hand-written ones. Its backend,
    libhipblaslt, is dlopen'ed (ROCm's or the CPU device's), so it is no DT_NEEDED."""
    hand = blaslt.HAND_DIR
    srcs = [gen_dir / f"{blaslt.LIB}_thunks.c", gen_dir / f"{blaslt.LIB}_export_stubs.c",
            *sorted(hand.glob("*.c")),
            *(COMMON_DIR / n for n in (*COMMON_SOURCES, "handle_set.c"))]
    headers = [*COMMON_DIR.glob("*.h"), *hand.glob("*.h"),
               SHIM_DIR / "include" / "pyshim_hipblaslt_abi.h"]
    iflags = [f"-I{hand}", f"-I{SHIM_DIR}", f"-I{SHIM_DIR / 'include'}",
              *[f"-I{d}" for d in inc]]
    return _build_own(blaslt.SONAME, blaslt.LIB, srcs, headers, iflags, out_dir, gen_dir)


def _link_name(out_dir: Path, lib: str) -> None:
    """lib<name>.so -> the newest soname, for `-l<name>` at link time."""
    link = out_dir / f"lib{lib}.so"
    soname = codegen.SONAMES[lib][0] if lib in codegen.SONAMES else blaslt.SONAME
    if not link.is_symlink() or os.readlink(link) != soname:
        link.unlink(missing_ok=True)
        link.symlink_to(soname)


def build_shim_blas(out_dir: Path, backend_dir: Path | None = None) -> list[Path]:
    """Build libcublas.so.13/.12, libcusolver.so.12/.11 and libcusolverMg.so.12 into out_dir (the generated
    C goes to <build>/blas). Returns the library paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    backend = Path(backend_dir) if backend_dir is not None else default_backend_dir()
    for lib in codegen.SONAMES:
        for name in NEEDS[lib]:
            if not (backend / name).is_file():
                raise BuildError(f"{backend / name} not found: the backend directory "
                                 "must hold the ROCm (or CPU device) libraries")
    gen_dir = build_dir() / "blas"
    gen_dir.mkdir(parents=True, exist_ok=True)
    with build_lock(gen_dir):
        codegen.generate(gen_dir)
        inc = header_dirs()
        built: list[Path] = []
        for lib in codegen.SONAMES:
            built += _build_lib(lib, out_dir, gen_dir, inc, backend)
            _link_name(out_dir, lib)
        for lib in codegen.REFUSED_ONLY:
            built.append(_build_refused_only(lib, out_dir, gen_dir, inc))
        built.append(_build_blaslt(out_dir, gen_dir, inc))
        _link_name(out_dir, blaslt.LIB)  # programs link it: nvcc ... -lcublasLt
    return built


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python3 -m pyshim.builders.blas",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="output directory (build/lib)")
    ap.add_argument("--backend", type=Path, default=None,
                    help="directory with librocblas.so.5, librocsolver.so.0, "
                         "libamdhip64.so.7 (default: the CPU device, build/cpu)")
    args = ap.parse_args(argv)
    try:
        paths = build_shim_blas(args.out or build_dir() / "lib", args.backend)
    except (BuildError, RuntimeError) as exc:
        print(f"pyshim build_shim_blas: {exc}", file=sys.stderr)
        return 1
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
