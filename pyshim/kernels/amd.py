"""Compiling translated kernels (HIP-dialect source) into AMD GPU code objects.

    co = compile_hip(source, "gfx942")          # ELF code object bytes, cached
    text = isa(co, "gfx942")                    # disassembly
    kernel_resources(co) -> {"saxpy": {"vgpr": 6, "sgpr": 18, "scratch": 0, ...}}

No AMD GPU is needed. Compilers, in order of preference:
- "clang": clang >= 19 with lld (Debian `clang-19 lld-19 llvm-19`), device-only, no HIP
  headers and no device libraries (the translator's prelude uses clang's AMDGPU builtins);
- "hiprtc": ROCm's runtime compiler, always in a SUBPROCESS: for some archs it aborts the
  whole process (SIGABRT in its code-object manager, see notes/amd-toolchain.md).
$PYSHIM_HIP_CLANG names a clang++ to use instead of searching PATH.

Flags keep PTX semantics as the CPU path does: no contraction into fma unless PTX says fma
(-ffp-contract=off), wrapping signed arithmetic, no type-based alias analysis.
Results go to the kernel cache keyed by (source, arch, compiler identity).
"""

from __future__ import annotations

import ctypes.util
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pyshim.kernels import cache
from pyshim.kernels.compile import CompileError

# The archs the tests compile for; others that the compiler knows work as well.
ARCHS = ("gfx90a", "gfx942", "gfx1100", "gfx1201")
# a processor, optionally with target-ID features: "gfx942", "gfx90a:sramecc+:xnack-"
_ARCH_RE = re.compile(r"gfx[0-9]{2,3}[0-9a-f](:(sramecc|xnack)[+-])*")
MIN_CLANG = 19
HIP_FLAGS = ("-O3", "-ffp-contract=off", "-fwrapv", "-fno-strict-aliasing")
CLANG_FLAGS = ("-x", "hip", "--cuda-device-only", "--no-gpu-bundle-output", "-nogpuinc",
               "-nogpulib")
COMPILERS = ("clang", "hiprtc")
# hiprtc lives in libhiprtc from ROCm 6 on; ROCm 5 had it inside libamdhip64.
HIPRTC_LIBRARIES = ("libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so", "libamdhip64.so.5")
EM_AMDGPU = 0xE0


class AmdCompileError(CompileError):
    """Compiling for an AMD arch failed; the message names the arch and the compiler."""


def wave_size(arch: str) -> int:
    """The wavefront width HIP compiles for: 64 on GCN/CDNA (gfx9xx), 32 on RDNA."""
    _check_arch(arch)
    return 64 if arch.startswith("gfx9") else 32


def _check_arch(arch: str) -> None:
    if not isinstance(arch, str) or not _ARCH_RE.fullmatch(arch):
        raise AmdCompileError(f"invalid AMD GPU arch {arch!r}: expected a name like "
                              f"{', '.join(ARCHS)}")


# ---- finding the tools ---------------------------------------------------------------------

def _clang_version(exe: str) -> tuple[int, str] | None:
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = out.stdout.strip().splitlines()[0] if out.stdout.strip() else ""
    m = re.search(r"clang version (\d+)", first)
    return (int(m.group(1)), first) if m else None


@functools.cache
def find_clang() -> tuple[str, int, str] | None:
    """(path, major version, version line) of a clang++ >= 19, or None.

    $PYSHIM_HIP_CLANG wins; else the newest clang++-NN on PATH, else clang++."""
    env = os.environ.get("PYSHIM_HIP_CLANG")
    names = [env] if env else [f"clang++-{v}" for v in range(30, MIN_CLANG - 1, -1)] + ["clang++"]
    for name in names:
        exe = shutil.which(name)
        if exe is None:
            continue
        found = _clang_version(exe)
        if found and found[0] >= MIN_CLANG:
            return exe, found[0], found[1]
    return None


def _llvm_tool(tool: str) -> str | None:
    """An LLVM tool (ld.lld, llvm-objdump, llvm-readelf) from the same LLVM as our clang,
    else a versioned or plain one on PATH."""
    clang = find_clang()
    candidates = []
    if clang is not None:
        candidates.append(str(Path(os.path.realpath(clang[0])).parent / tool))
        candidates.append(f"{tool}-{clang[1]}")
    candidates += [f"{tool}-{v}" for v in range(30, 14, -1)] + [tool]
    for c in candidates:
        exe = shutil.which(c)
        if exe is not None:
            return exe
    return None


@functools.cache
def find_hiprtc() -> str | None:
    """The path of a library exporting hiprtcCompileProgram, or None. Found by name only:
    it is never loaded into this process."""
    for name in HIPRTC_LIBRARIES:
        for d in _library_dirs():
            p = Path(d) / name
            if p.exists():
                return str(p)
    found = ctypes.util.find_library("hiprtc")
    return found


def _library_dirs() -> list[str]:
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    rocm = os.environ.get("ROCM_PATH", "/opt/rocm")
    dirs += [f"{rocm}/lib", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib",
             "/usr/local/lib"]
    return dirs


def available_compilers() -> dict[str, str]:
    """Usable compilers, in order of preference: name -> what it is (path and version).
    clang counts only with ld.lld beside it (it links the code object)."""
    found: dict[str, str] = {}
    clang = find_clang()
    if clang is not None and _llvm_tool("ld.lld") is not None:
        found["clang"] = f"{clang[0]} ({clang[2]})"
    hiprtc = find_hiprtc()
    if hiprtc is not None:
        found["hiprtc"] = os.path.realpath(hiprtc)
    return found


def missing_compiler_hint() -> str:
    return ("install clang >= 19 with lld: apt-get install -y --no-install-recommends "
            "clang-19 lld-19 llvm-19 (or ROCm's hiprtc)")


@functools.cache
def compiler_identity(compiler: str) -> str:
    """What goes into the cache key: the compiler, its version and our flags."""
    if compiler == "clang":
        clang = find_clang()
        if clang is None:
            raise AmdCompileError(f"no clang >= {MIN_CLANG} found: {missing_compiler_hint()}")
        return f"clang | {clang[2]} | {' '.join(CLANG_FLAGS + HIP_FLAGS)}"
    if compiler == "hiprtc":
        lib = find_hiprtc()
        if lib is None:
            raise AmdCompileError("no hiprtc library found (libhiprtc.so.7/.6)")
        real = os.path.realpath(lib)
        return f"hiprtc | {real} | {os.path.getsize(real)} | {' '.join(HIP_FLAGS)}"
    raise AmdCompileError(f"unknown AMD kernel compiler {compiler!r} (one of "
                          f"{', '.join(COMPILERS)})")


def _pick(compiler: str | None) -> str:
    if compiler is not None:
        compiler_identity(compiler)  # validates the name and that it is present
        return compiler
    found = available_compilers()
    if not found:
        raise AmdCompileError(f"no AMD kernel compiler found: {missing_compiler_hint()}")
    return next(iter(found))


# ---- compiling -----------------------------------------------------------------------------

def _trim(msg: str, limit: int = 40) -> str:
    lines = msg.strip().splitlines()
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join(lines)


def _compile_clang(source: str, arch: str, timeout: float) -> bytes:
    clang = find_clang()
    if clang is None or _llvm_tool("ld.lld") is None:
        raise AmdCompileError(f"{arch}: clang >= {MIN_CLANG} with ld.lld not found: "
                              f"{missing_compiler_hint()}")
    with tempfile.TemporaryDirectory(prefix="pyshim-amd-") as tmp:
        src = Path(tmp) / "module.hip"
        out = Path(tmp) / "module.co"
        src.write_text(source)
        # relative names, run in the temp dir: diagnostics then say "module.hip:3:5"
        cmd = [clang[0], *CLANG_FLAGS, f"--offload-arch={arch}", *HIP_FLAGS, src.name, "-o",
               out.name]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            raise AmdCompileError(f"{arch}: clang timed out after {timeout:.0f} s") from None
        if res.returncode != 0 or not out.is_file():
            raise AmdCompileError(f"{arch}: clang failed (exit {res.returncode}):\n"
                                  f"{_trim(res.stderr or res.stdout)}")
        return out.read_bytes()


# Runs in a child process: hiprtc may abort() for archs its comgr cannot handle.
_HIPRTC_CHILD = r"""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
arch = sys.argv[2]
src = sys.stdin.buffer.read()
flags = [f.encode() for f in sys.argv[3:]] + [b"--offload-arch=" + arch.encode()]
prog = ctypes.c_void_p()
def check(rc, what):
    if rc != 0:
        lib.hiprtcGetErrorString.restype = ctypes.c_char_p
        sys.stderr.write(f"{what}: {lib.hiprtcGetErrorString(rc).decode()} ({rc})\n")
rc = lib.hiprtcCreateProgram(ctypes.byref(prog), src, b"module.hip", 0, None, None)
check(rc, "hiprtcCreateProgram")
if rc != 0:
    sys.exit(3)
opts = (ctypes.c_char_p * len(flags))(*flags)
rc = lib.hiprtcCompileProgram(prog, len(flags), opts)
n = ctypes.c_size_t()
lib.hiprtcGetProgramLogSize(prog, ctypes.byref(n))
if n.value > 1:
    log = ctypes.create_string_buffer(n.value)
    lib.hiprtcGetProgramLog(prog, log)
    sys.stderr.write(log.value.decode(errors="replace"))
check(rc, "hiprtcCompileProgram")
if rc != 0:
    sys.exit(4)
lib.hiprtcGetCodeSize(prog, ctypes.byref(n))
code = ctypes.create_string_buffer(n.value)
rc = lib.hiprtcGetCode(prog, code)
check(rc, "hiprtcGetCode")
if rc != 0:
    sys.exit(5)
sys.stdout.buffer.write(code.raw)
"""


def _compile_hiprtc(source: str, arch: str, timeout: float) -> bytes:
    lib = find_hiprtc()
    if lib is None:
        raise AmdCompileError(f"{arch}: no hiprtc library found")
    cmd = [sys.executable, "-c", _HIPRTC_CHILD, lib, arch, *HIP_FLAGS]
    try:
        res = subprocess.run(cmd, input=source.encode(), capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AmdCompileError(f"{arch}: hiprtc timed out after {timeout:.0f} s") from None
    err = res.stderr.decode(errors="replace")
    if res.returncode < 0:
        raise AmdCompileError(f"{arch}: hiprtc ({lib}) killed the compiling process with "
                              f"signal {-res.returncode}:\n{_trim(err)}")
    if res.returncode != 0:
        raise AmdCompileError(f"{arch}: hiprtc ({lib}) failed (exit {res.returncode}):\n"
                              f"{_trim(err)}")
    return res.stdout


def _check_code_object(data: bytes, arch: str, compiler: str) -> None:
    if len(data) < 20 or data[:4] != b"\x7fELF" or int.from_bytes(data[18:20], "little") \
            != EM_AMDGPU:
        raise AmdCompileError(f"{arch}: {compiler} did not produce an AMDGPU ELF code object "
                              f"({len(data)} bytes, starting {data[:8]!r})")


def compile_hip(source: str, arch: str, *, compiler: str | None = None,
                timeout: float = 600.0, use_cache: bool = True) -> bytes:
    """Compile HIP-dialect source for one gfx arch; returns the code object (ELF) bytes.
    `arch` is a processor ("gfx942") or a target ID with features ("gfx90a:xnack+");
    `compiler` is "clang" or "hiprtc" (default: the first available)."""
    _check_arch(arch)
    if not isinstance(source, str):
        raise AmdCompileError(f"{arch}: source must be str, not {type(source).__name__}")
    name = _pick(compiler)

    def build() -> bytes:
        if name == "clang":
            data = _compile_clang(source, arch, timeout)
        else:
            data = _compile_hiprtc(source, arch, timeout)
        _check_code_object(data, arch, name)
        return data

    if not use_cache:
        return build()
    key = cache.cache_key("amd-code-object", source, arch, compiler_identity(name))
    path, _ = cache.get_or_build(key, ".co", build)
    return cache.read_entry(path)


# ---- inspecting code objects ---------------------------------------------------------------

def _run_tool(tool: str, args: list[str], data: bytes, what: str) -> str:
    exe = _llvm_tool(tool)
    if exe is None:
        raise AmdCompileError(f"{what}: {tool} not found: {missing_compiler_hint()}")
    with tempfile.TemporaryDirectory(prefix="pyshim-amd-") as tmp:
        path = Path(tmp) / "module.co"
        path.write_bytes(data)
        res = subprocess.run([exe, *args, str(path)], capture_output=True, text=True,
                             timeout=300)
    if res.returncode != 0:
        raise AmdCompileError(f"{what}: {tool} failed (exit {res.returncode}):\n"
                              f"{_trim(res.stderr)}")
    return res.stdout


def isa(code_object: bytes, arch: str) -> str:
    """The disassembly of a code object (llvm-objdump -d --mcpu=arch)."""
    _check_arch(arch)
    return _run_tool("llvm-objdump", ["-d", f"--mcpu={arch}"], code_object,
                     f"disassembling for {arch}")


def isa_by_kernel(code_object: bytes, arch: str) -> dict[str, str]:
    """The disassembly split per function symbol: {name: its instructions}."""
    functions: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in isa(code_object, arch).splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            current = functions.setdefault(m.group(1), [])
        elif not line.strip():
            current = None
        elif current is not None:
            current.append(line.strip())
    return {name: "\n".join(lines) for name, lines in functions.items()}


def code_object_target(code_object: bytes) -> str:
    """The code object's full target ID from its metadata: "gfx942", "gfx90a:xnack+"."""
    out = _run_tool("llvm-readelf", ["--notes"], code_object, "reading the kernel metadata")
    m = re.search(r"^amdhsa\.target:\s*'?amdgcn-amd-amdhsa--([^'\s]+)", out, re.M)
    if m is None:
        raise AmdCompileError("reading the kernel metadata: no amdhsa.target")
    return m.group(1)


def code_object_arch(code_object: bytes) -> str:
    """The gfx arch a code object was built for, from its ELF header flags."""
    out = _run_tool("llvm-readelf", ["--file-header"], code_object, "reading the ELF header")
    m = re.search(r"^\s*Flags:.*\b(gfx[0-9a-f]+)", out, re.M)
    if m is None:
        raise AmdCompileError("reading the ELF header: no gfx arch in the flags")
    return m.group(1)


# kernel metadata key -> our name; values are integers in the code object's YAML
_RESOURCE_KEYS = {
    "vgpr_count": "vgpr", "sgpr_count": "sgpr", "private_segment_fixed_size": "scratch",
    "agpr_count": "agpr", "group_segment_fixed_size": "lds",
    "vgpr_spill_count": "vgpr_spill", "sgpr_spill_count": "sgpr_spill",
    "wavefront_size": "wavefront_size",
}
# '  - .name: x' opens a kernel entry; '    .key: value' are its scalar fields (nested
# lists such as .args are indented further and skipped).
_KERNEL_FIELD = re.compile(r"^(  - |    )\.([a-z_]+):\s*(.*?)\s*$")


def kernel_resources(code_object: bytes) -> dict[str, dict[str, int]]:
    """Per kernel: vgpr, sgpr, scratch (private segment bytes), agpr, lds (bytes of static
    shared memory), vgpr_spill, sgpr_spill, wavefront_size; from the AMDGPU metadata note."""
    out = _run_tool("llvm-readelf", ["--notes"], code_object, "reading the kernel metadata")
    kernels: list[dict[str, str]] = []
    in_kernels = False
    for line in out.splitlines():
        if line.startswith("amdhsa.kernels:"):
            in_kernels = True
            continue
        if in_kernels and line and not line.startswith(" "):
            in_kernels = False  # next top-level key (amdhsa.target, ...)
        if not in_kernels:
            continue
        m = _KERNEL_FIELD.match(line)
        if m is None:
            continue
        if m.group(1) == "  - ":
            kernels.append({})
        if kernels:
            kernels[-1][m.group(2)] = m.group(3)
    result: dict[str, dict[str, int]] = {}
    for k in kernels:
        name = k.get("name")
        if not name:
            raise AmdCompileError("reading the kernel metadata: a kernel entry has no .name")
        try:
            result[name] = {ours: int(k[theirs]) for theirs, ours in _RESOURCE_KEYS.items()
                            if theirs in k}
        except ValueError as exc:
            raise AmdCompileError(f"kernel {name}: bad resource value: {exc}") from None
        for need in ("vgpr", "sgpr", "scratch"):
            if need not in result[name]:
                raise AmdCompileError(f"kernel {name}: metadata has no {need} figure")
    if not result:
        raise AmdCompileError("reading the kernel metadata: the code object has no kernels")
    return result


# ---- command line: python3 -m pyshim.kernels.amd module.hip [--arch A]... [--isa] -----------

def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python3 -m pyshim.kernels.amd",
                                description="compile HIP-dialect source for AMD GPUs and show "
                                "each kernel's VGPR/SGPR/scratch figures")
    p.add_argument("source", help="a .hip file ('-' for stdin)")
    p.add_argument("--arch", action="append", help=f"repeatable; default: {' '.join(ARCHS)}")
    p.add_argument("--compiler", choices=COMPILERS)
    p.add_argument("--isa", action="store_true", help="print the disassembly too")
    args = p.parse_args(argv)
    try:
        text = sys.stdin.read() if args.source == "-" else Path(args.source).read_text()
    except OSError as exc:
        print(f"{args.source}: {exc.strerror}", file=sys.stderr)
        return 2
    rc = 0
    for arch in args.arch or ARCHS:
        try:
            co = compile_hip(text, arch, compiler=args.compiler)
            for name, r in sorted(kernel_resources(co).items()):
                print(f"{arch:<10} {name:<32} vgpr {r['vgpr']:>3}  sgpr {r['sgpr']:>3}  "
                      f"scratch {r['scratch']:>6}  lds {r.get('lds', 0):>6}")
            if args.isa:
                print(isa(co, arch))
        except AmdCompileError as exc:
            print(str(exc), file=sys.stderr)
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
