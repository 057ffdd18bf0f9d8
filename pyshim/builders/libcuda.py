"""`pyshim build`: the CPU device and the shim libraries, into the build directory.

    build/cpu/   the CPU device (libamdhip64.so.7 ...), from pyshim.builders.cpu
    build/lib/   libcuda.so.1 (+ libcuda.so), the shim's driver library

libcuda.so.1 is a cffi *embedding* library: hand-written C from shim/core plus the
generated proc-address map (and, once the code generator exists, the generated stubs of
every other driver entry point), with the PTX translator reachable through an embedded
Python interpreter (pyshim/embed). Each step is skipped when its inputs are unchanged.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

from pyshim.paths import PACKAGE_DIR, REPO_DIR, SHIM_DIR

CORE_DIR = SHIM_DIR / "core"
# C shared with libcudart and the BLAS shims, compiled into each (shim/common)
COMMON_DIR = SHIM_DIR / "common"
COMMON_SOURCES = ["device_identity.c", "elf_write.c", "embed_bridge.c", "fatbin_extent.c", "log.c",
                  "unsupported.c"]
EMBED_DIR = PACKAGE_DIR / "embed"
CUDA_TOOLKIT_INCLUDE = Path("/usr/local/cuda/include")
CFLAGS = ["-std=c11", "-O2", "-fPIC", "-Wall", "-Wextra", "-Werror", "-D__HIP_PLATFORM_AMD__"]
CC = os.environ.get("CC", "cc")
LIBCUDA = "libcuda.so.1"
# the driver's entry points are the only symbols libcuda.so.1 exports
VERSION_SCRIPT = "{\n  global:\n    cu*;\n  local:\n    *;\n};\n"


class BuildError(RuntimeError):
    pass


def _log(msg: str) -> None:
    print(f"pyshim build: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- include paths


def cuda_include() -> Path:
    """cuda.h / cudaTypedefs.h: the toolkit's when installed, else the fetched headers."""
    if (CUDA_TOOLKIT_INCLUDE / "cudaTypedefs.h").is_file():
        return CUDA_TOOLKIT_INCLUDE
    from pyshim.tables.fetch import include_dir

    return Path(include_dir("cuda13-runtime"))


def hip_includes() -> list[Path]:
    from pyshim.tables.fetch import include_dir

    return [Path(include_dir("hip")), Path(include_dir("hsa"))]


def core_cflags() -> list[str]:
    # SHIM_DIR: the shared headers are included as "common/<name>.h"
    incs = [CORE_DIR, SHIM_DIR, cuda_include(), *hip_includes()]
    return CFLAGS + [f"-I{p}" for p in incs]


# ---------------------------------------------------------------- small helpers


def _digest(parts: Iterable[bytes | str]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()


def _file_digest(paths: Iterable[Path]) -> str:
    return _digest(b for p in sorted(paths) for b in (str(p).encode(), p.read_bytes()))


def _run(cmd: list[str], cwd: Path | None = None) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"{' '.join(cmd)}\n{proc.stdout}{proc.stderr}")


def compile_objects(sources: list[Path], obj_dir: Path, flags: list[str]) -> list[Path]:
    """Compile each C file to an object, skipping those whose source, headers and flags
    are unchanged (the stamp beside each object records them)."""
    obj_dir.mkdir(parents=True, exist_ok=True)
    headers = [*sorted(CORE_DIR.glob("*.h")), *sorted(CORE_DIR.glob("*.inc")),
               *sorted(COMMON_DIR.glob("*.h")), *sorted(COMMON_DIR.glob("*.inc"))]
    header_digest = _file_digest(headers)
    objs = []
    for src in sources:
        obj = obj_dir / (src.stem + ".o")
        stamp = obj.with_suffix(".stamp")
        key = _digest([src.read_bytes(), header_digest, *flags])
        if not (obj.exists() and stamp.exists() and stamp.read_text() == key):
            _run([CC, *flags, "-c", str(src), "-o", str(obj)])
            stamp.write_text(key)
        objs.append(obj)
    return objs


def defined_symbols(objs: list[Path]) -> set[str]:
    """Global function symbols the objects define (nm)."""
    out = subprocess.run(
        ["nm", "--defined-only", "-g", *map(str, objs)], capture_output=True, text=True, check=True
    ).stdout
    return {parts[2] for line in out.splitlines() if len(parts := line.split()) == 3}


# ---------------------------------------------------------------- proc-address map

_PFN = re.compile(r"\bPFN_(cu\w+?)_v(\d+)(_ptds|_ptsz)?\)")
_MACRO = re.compile(
    r"^#define\s+(cu\w+)\s+(?:__CUDA_API_PT(?:DS|SZ)\((cu\w+)\)|(cu\w+))\s*$", re.M
)
_VARIANT = {None: "PYSHIM_PROC_DEFAULT", "_ptds": "PYSHIM_PROC_PTDS", "_ptsz": "PYSHIM_PROC_PTSZ"}


def stopgap_proc_table(cuda_inc: Path, available: set[str]) -> list[tuple[str, int, str, str]]:
    """(name, version, variant, symbol) rows derived from cudaTypedefs.h and cuda.h.

    STOPGAP until pyshim.codegen.driver generates the table from the dispatch tables: the
    newest version of a name binds to cuda.h's macro target (cuMemAlloc -> cuMemAlloc_v2),
    each older one to the previous _vN (down to the bare name), per-thread variants to the
    target plus _ptds/_ptsz. Only symbols this library defines are listed.
    """
    typedefs = (cuda_inc / "cudaTypedefs.h").read_text()
    cuda_h = (cuda_inc / "cuda.h").read_text()
    target = {m[1]: m[2] or m[3] for m in _MACRO.finditer(cuda_h)}
    versions: dict[str, set[int]] = {}
    rows = set()
    for name, ver, variant in _PFN.findall(typedefs):
        variant = variant or None
        if variant:
            rows.add((name, int(ver), variant, target.get(name, name) + variant))
        else:
            versions.setdefault(name, set()).add(int(ver))
    for name, vers in versions.items():
        ordered = sorted(vers)
        newest = target.get(name, name)
        m = re.fullmatch(re.escape(name) + r"_v(\d+)", newest)
        # a name asked at n versions has n symbols, even where cuda.h's rename macro is
        # conditional (cuCtxSynchronize -> cuCtxSynchronize_v2 in CUDA 13)
        top = max(int(m[1]) if m else 1, len(ordered))
        for i, ver in enumerate(ordered):
            k = top - (len(ordered) - 1 - i)
            sym = name if k <= 1 else f"{name}_v{k}"
            rows.add((name, ver, None, sym))
    return sorted(
        (name, ver, _VARIANT[variant], sym)
        for name, ver, variant, sym in rows
        if sym in available
    )


def write_proc_table(rows: list[tuple[str, int, str, str]], path: Path) -> None:
    lines = ["/* generated by pyshim.build (stopgap proc-address map); do not edit */"]
    lines += [f'PYSHIM_PROC("{n}", {v}, {var}, {s})' for n, v, var, s in rows]
    text = "\n".join(lines) + "\n"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def generated_sources(gen_dir: Path, core_symbols: set[str]) -> tuple[Path, list[Path]]:
    """The proc-address X-macro file and any generated C (the driver stubs).

    Uses the code generator (pyshim.codegen.driver.generate) when it exists; until then a
    proc table derived here from the headers, listing only what shim/core implements.
    """
    gen_dir.mkdir(parents=True, exist_ok=True)
    try:
        from pyshim.codegen.driver import generate  # type: ignore[import-not-found]
    except ImportError:
        generate = None
    if generate is not None:
        paths = [Path(p) for p in generate(gen_dir)]
        table = next(p for p in paths if p.name == "driver_proc_table.inc")
        return table, [p for p in paths if p.suffix == ".c"]
    table = gen_dir / "driver_proc_table.inc"
    write_proc_table(stopgap_proc_table(cuda_include(), core_symbols), table)
    return table, []


# ---------------------------------------------------------------- libcuda.so.1


def _link_stub(work: Path) -> Path:
    """An empty libamdhip64.so.7 to link against: it gives libcuda.so.1 its DT_NEEDED
    entry; at run time the launcher's library path picks ROCm's or the CPU device's."""
    stub_dir = work / "linkstub"
    stub = stub_dir / "libamdhip64.so.7"
    if not stub.exists():
        stub_dir.mkdir(parents=True, exist_ok=True)
        src = stub_dir / "empty.c"
        src.write_text("/* link-only stand-in for libamdhip64.so.7 */\n")
        _run([CC, "-shared", "-fPIC", "-Wl,-soname,libamdhip64.so.7", str(src), "-o", str(stub)])
    return stub_dir


HIP_MISSING = "libpyshim_hip_missing.so"


def undefined_hip_symbols(objs: list[Path]) -> list[str]:
    out = subprocess.run(
        ["nm", "--undefined-only", *map(str, objs)], capture_output=True, text=True, check=True
    ).stdout
    return sorted({w[1] for line in out.splitlines() if len(w := line.split()) == 2
                   and w[0] == "U" and w[1].startswith("hip")})


def build_hip_missing(lib_dir: Path, work: Path, symbols: list[str]) -> Path:
    """libpyshim_hip_missing.so: a refusing definition of every HIP function libcuda.so.1
    calls. It comes after libamdhip64.so.7 in libcuda's DT_NEEDED list, so the dynamic
    loader binds the backend's definition when there is one and this one only when the
    backend lacks the function: a clear error (hipErrorNotSupported, one log line)
    instead of the loader killing the program with "undefined symbol"."""
    lines = [
        "/* generated by pyshim.build; do not edit */",
        "#include <stdio.h>",
        "#define HIP_ERROR_NOT_SUPPORTED 801",
        "static void missing(const char *name, int *logged)",
        "{",
        "    if (!__atomic_exchange_n(logged, 1, __ATOMIC_RELAXED))",
        '        fprintf(stderr, "pyshim: the backend (libamdhip64.so.7) has no %s; '
        'the call fails\\n", name);',
        "}",
    ]
    for sym in symbols:
        lines += [
            f"static int logged_{sym};",
            f"int {sym}(void);",
            f'int {sym}(void) {{ missing("{sym}", &logged_{sym}); '
            "return HIP_ERROR_NOT_SUPPORTED; }",
        ]
    src = work / "hip_missing.c"
    text = "\n".join(lines) + "\n"
    out = lib_dir / HIP_MISSING
    if out.exists() and src.exists() and src.read_text() == text:
        return out
    src.write_text(text)
    lib_dir.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    _run([CC, "-shared", "-fPIC", "-O1", "-Wall", "-Werror", f"-Wl,-soname,{HIP_MISSING}",
          str(src), "-o", str(tmp)])
    os.replace(tmp, out)
    return out


def _python_facts() -> dict[str, str]:
    soname = sysconfig.get_config_var("INSTSONAME") or sysconfig.get_config_var("LDLIBRARY")
    if not soname or not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        raise BuildError(
            "this Python has no shared libpython; the embedded translator needs one "
            "(build Python with --enable-shared)"
        )
    return {
        "soname": soname,
        "hex": f"0x{sys.hexversion:08x}",
        "home": sys.base_prefix,
    }


def _init_code(search_paths: list[str]) -> str:
    template = (EMBED_DIR / "init_code.py").read_text()
    return template.replace("PYSHIM_SEARCH_PATHS = []", f"PYSHIM_SEARCH_PATHS = {search_paths!r}")


def _cdef() -> str:
    return (EMBED_DIR / "api.h").read_text()


def build_libcuda(lib_dir: Path, work: Path, force: bool = False) -> tuple[Path, bool]:
    """Build lib_dir/libcuda.so.1; returns (path, whether it was rebuilt). Concurrent
    builds (parallel test workers) wait for each other."""
    work.mkdir(parents=True, exist_ok=True)
    with open(work / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_libcuda(lib_dir, work, force)


def _build_libcuda(lib_dir: Path, work: Path, force: bool) -> tuple[Path, bool]:
    py = _python_facts()
    flags = core_cflags() + [
        f'-DPYSHIM_LIBPYTHON="{py["soname"]}"',
        f"-DPYSHIM_PYTHON_VERSION_HEX={py['hex']}",
        f'-DPYSHIM_PYTHONHOME="{py["home"]}"',
        f'-DPYSHIM_PYTHON_EXE="{sys.executable}"',
        f'-DPYSHIM_REPO_DIR="{REPO_DIR}"',
    ]
    from pyshim.codegen.export_tables import generate as export_tables_header

    et = export_tables_header(work / "gen-export")
    # the header's digest in the flags: a changed spec recompiles what includes it
    flags += [f"-I{et.parent}", f"-DPYSHIM_ET_DIGEST={_digest([et.read_bytes()])[:16]}"]
    core_sources = sorted(p for p in CORE_DIR.glob("*.c") if p.name != "proc_table.c")
    core_objs = compile_objects(core_sources, work / "obj", flags)
    common_objs = compile_objects([COMMON_DIR / n for n in COMMON_SOURCES], work / "obj-common",
                                  flags)
    core_symbols = defined_symbols(core_objs)
    table, gen_c = generated_sources(work / "gen", core_symbols)
    try:
        # generated stubs are weak definitions: warnings there are the generator's business
        gen_objs = compile_objects(gen_c, work / "obj-gen", [*flags, "-Wno-error"]) if gen_c else []
    except BuildError as exc:
        # a generator mid-change must not take the driver down with it: build the core
        # alone, with the proc table derived from the headers, and say so
        first = next((ln for ln in str(exc).splitlines() if "error:" in ln), str(exc)[:200])
        _log(f"the generated driver stubs do not compile ({first.strip()}); building "
             "libcuda.so.1 from shim/core alone with the stopgap proc-address table")
        table = work / "gen-stopgap" / "driver_proc_table.inc"
        table.parent.mkdir(parents=True, exist_ok=True)
        write_proc_table(stopgap_proc_table(cuda_include(), core_symbols), table)
        gen_objs = []
    table_flags = [*flags, f"-I{table.parent}", f'-DPYSHIM_PROC_TABLE="{table.name}"']
    table_obj = compile_objects([CORE_DIR / "proc_table.c"], work / "obj-table", table_flags)
    objs = core_objs + common_objs + table_obj + gen_objs

    missing = build_hip_missing(lib_dir, work, undefined_hip_symbols(objs))
    search_paths = [str(REPO_DIR)] + [p for p in sys.path if p.endswith("-packages")]
    init_code = _init_code(search_paths)
    out = lib_dir / LIBCUDA
    key = _digest(
        [_file_digest([*objs, missing]), init_code, _cdef(), sys.version, *map(str, objs), VERSION_SCRIPT]
    )
    stamp = work / "libcuda.stamp"
    if not force and out.exists() and stamp.exists() and stamp.read_text() == key:
        return out, False

    import cffi

    ffi = cffi.FFI()
    ffi.embedding_api(_cdef())
    version_script = work / "libcuda.map"
    version_script.write_text(VERSION_SCRIPT)
    ffi.set_source(
        "_pyshim_cuda",
        '#include "api.h"\n',
        include_dirs=[str(EMBED_DIR)],
        extra_objects=[str(o) for o in objs],
        extra_compile_args=["-O2"],
        extra_link_args=[
            "-Wl,-soname," + LIBCUDA,
            f"-Wl,--version-script={version_script}",
            f"-L{_link_stub(work)}",
            "-Wl,--no-as-needed",
            "-l:libamdhip64.so.7",
            f"-L{lib_dir}",
            f"-l:{HIP_MISSING}",  # after the backend: only what it lacks binds here
            "-Wl,-rpath,$ORIGIN",
            "-ldl",
            "-lpthread",
        ],
    )
    ffi.embedding_init_code(init_code)
    cffi_dir = work / "cffi"
    cffi_dir.mkdir(parents=True, exist_ok=True)
    built = Path(ffi.compile(tmpdir=str(cffi_dir), target="libcuda.so.1", verbose=False))
    lib_dir.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    shutil.copyfile(built, tmp)
    os.replace(tmp, out)  # atomic: a running program keeps its old copy
    link = lib_dir / "libcuda.so"
    if not link.is_symlink():
        link.unlink(missing_ok=True)
        link.symlink_to(LIBCUDA)
    stamp.write_text(key)
    return out, True
