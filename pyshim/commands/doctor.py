"""`pyshim doctor`: what pyshim finds on this machine, what is missing, and the fix for each.

Areas: ROCm (version and the libraries the shim resolves: libamdhip64.so.7, librocblas,
librocsolver, libhiprtc), AMD GPUs (/dev/kfd; each GPU's gfx arch from the KFD topology in
sysfs, else rocminfo), kernel compilers (clang >= 19 with lld, hiprtc, cc) and nvcc for
building the examples, the pinned vendor headers, pyshim's own builds (the shim libraries in
build/lib, the CPU device in build/cpu), the kernel cache. Nothing is loaded or run on a GPU: libraries are found by
name, never dlopen'ed (ROCm's may not even load on an older glibc).

Exit status: 0 when at least one backend can run programs (the CPU device is built, or ROCm's
HIP and a GPU are visible), else 1. `--json` prints the same findings as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from pyshim import paths

OK, MISSING, WARN, INFO = "ok", "missing", "warn", "info"

APT_CLANG = "apt-get install -y --no-install-recommends clang-19 lld-19 llvm-19"
FIX_ROCM = ("ROCm 7.x (https://rocm.docs.amd.com) or Debian experimental: "
            "apt-get install -t experimental {pkg} (PYSHIM_ROCM_LIB names its lib directory)")
FIX_BUILD = "pyshim build"

# soname alternatives, newest first; the first is the one the HIP 7 ABI needs
ROCM_LIBRARIES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("HIP runtime", ("libamdhip64.so.7", "libamdhip64.so.6"), "libamdhip64-7"),
    ("rocBLAS", ("librocblas.so.5", "librocblas.so.4"), "librocblas5"),
    ("rocSOLVER", ("librocsolver.so.0",), "librocsolver0"),
    ("hiprtc", ("libhiprtc.so.7", "libhiprtc.so.6"), "libhiprtc7"),
)
SHIM_LIBRARIES = ("libcuda.so.1", "libcudart.so.13", "libcudart.so.12", "libcublas.so.13",
                  "libcublas.so.12", "libcusolver.so.12", "libcusolver.so.11", "libcurand.so.10",
                  "libcufft.so.12")
CPU_LIBRARIES = ("libamdhip64.so.7", "librocblas.so.5", "librocsolver.so.0", "librocrand.so.1",
                 "libhipfft.so.0")


@dataclass
class Finding:
    area: str
    name: str
    status: str          # ok | missing | warn | info
    detail: str = ""
    fix: str = ""


# ---- ROCm libraries ------------------------------------------------------------------------

def rocm_root() -> Path:
    return Path(os.environ.get("ROCM_PATH", "/opt/rocm"))


def library_dirs() -> list[Path]:
    """Where ROCm libraries are looked for, in order (the launcher's order first)."""
    from pyshim.runner.launcher import ROCM_LIB_DIRS

    dirs: list[str] = []
    if os.environ.get("PYSHIM_ROCM_LIB"):
        dirs.append(os.environ["PYSHIM_ROCM_LIB"])
    dirs += [str(rocm_root() / "lib"), str(rocm_root() / "lib64"), *ROCM_LIB_DIRS]
    dirs += [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    seen: dict[str, None] = {}
    for d in dirs:
        seen.setdefault(d, None)
    return [Path(d) for d in seen]


def find_library(soname: str, dirs: list[Path] | None = None) -> Path | None:
    for d in library_dirs() if dirs is None else dirs:
        p = d / soname
        if p.exists():
            return p
    return None


def version_from_path(lib: Path) -> str | None:
    """ROCm's version from a library's real file name: libamdhip64.so.7.2.70204 -> 7.2.4
    (the last component is major*10000 + minor*100 + patch)."""
    m = re.search(r"\.so\.(\d+)\.(\d+)\.(\d+)$", os.path.realpath(lib))
    if m is None:
        return None
    major, minor, build = (int(g) for g in m.groups())
    if build >= 10000 and build // 10000 == major:
        return f"{major}.{(build // 100) % 100}.{build % 100}"
    return f"{major}.{minor}.{build}"


def rocm_version(hip: Path | None) -> str | None:
    for info in (rocm_root() / ".info" / "version",):
        try:
            text = info.read_text().strip()
        except OSError:
            continue
        if text:
            return text
    return version_from_path(hip) if hip is not None else None


def check_rocm(dirs: list[Path] | None = None) -> list[Finding]:
    out = []
    hip_found: Path | None = None
    for label, sonames, package in ROCM_LIBRARIES:
        found = [(s, p) for s in sonames if (p := find_library(s, dirs)) is not None]
        fix = FIX_ROCM.format(pkg=package)
        if not found:
            out.append(Finding("rocm", sonames[0], MISSING, f"{label} not found", fix))
            continue
        soname, path = found[0]
        if soname == sonames[0]:
            if label == "HIP runtime":
                hip_found = path
            out.append(Finding("rocm", soname, OK, f"{label}: {os.path.realpath(path)}"))
        else:
            out.append(Finding("rocm", sonames[0], WARN,
                               f"only {soname} ({os.path.realpath(path)}): pyshim targets "
                               f"the ROCm 7 ABI", fix))
    version = rocm_version(hip_found)
    if version is not None:
        out.insert(0, Finding("rocm", "version", OK, f"ROCm {version}"))
    else:
        out.insert(0, Finding("rocm", "version", MISSING, "no ROCm installation found",
                              FIX_ROCM.format(pkg="libamdhip64-7 librocblas5 librocsolver0")))
    return out


# ---- GPUs ----------------------------------------------------------------------------------

def gfx_from_target_version(value: int) -> str | None:
    """KFD's gfx_target_version (major*10000 + minor*100 + stepping) as a gfx name:
    90402 -> gfx942, 90010 -> gfx90a, 110000 -> gfx1100, 120001 -> gfx1201; 0 (a CPU) -> None."""
    if value <= 0:
        return None
    major, minor, step = value // 10000, (value // 100) % 100, value % 100
    return f"gfx{major}{minor:x}{step:x}"


def gpus_from_sysfs(topology: Path = Path("/sys/class/kfd/kfd/topology/nodes")) -> list[dict]:
    """[{"node": n, "arch": "gfx942", "name": ...}] from the KFD topology; [] if absent."""
    gpus = []
    try:
        nodes = sorted(topology.iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else 0)
    except OSError:
        return []
    for node in nodes:
        try:
            props = (node / "properties").read_text()
        except OSError:
            continue
        m = re.search(r"^gfx_target_version\s+(\d+)", props, re.M)
        arch = gfx_from_target_version(int(m.group(1))) if m else None
        if arch is None:
            continue
        try:
            name = (node / "name").read_text().strip()
        except OSError:
            name = ""
        gpus.append({"node": int(node.name) if node.name.isdigit() else node.name,
                     "arch": arch, "name": name})
    return gpus


def gpus_from_rocminfo(text: str) -> list[dict]:
    """GPU agents from `rocminfo` output: each agent's "Name: gfxNNN" line."""
    gpus = []
    for i, block in enumerate(re.split(r"\n\*+\s*\nAgent \d+\s*\n\*+", text)[1:]):
        m = re.search(r"^\s*Name:\s+(gfx[0-9a-f]+)\s*$", block, re.M)
        if m is None:
            continue
        market = re.search(r"^\s*Marketing Name:\s+(.*?)\s*$", block, re.M)
        gpus.append({"node": i, "arch": m.group(1), "name": market.group(1) if market else ""})
    return gpus


def _rocminfo() -> list[dict]:
    exe = shutil.which("rocminfo") or shutil.which(str(rocm_root() / "bin" / "rocminfo"))
    if exe is None:
        return []
    try:
        res = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return gpus_from_rocminfo(res.stdout) if res.returncode == 0 else []


def check_gpus(kfd: Path = Path("/dev/kfd"),
               topology: Path = Path("/sys/class/kfd/kfd/topology/nodes")) -> list[Finding]:
    from pyshim.kernels import amd

    out = []
    if not kfd.exists():
        out.append(Finding("gpu", str(kfd), MISSING, "no AMD GPU visible (no KFD device); "
                           "programs run on the CPU device",
                           "on a machine with an AMD GPU: load the amdgpu kernel driver"))
        return out
    if not os.access(kfd, os.R_OK | os.W_OK):
        out.append(Finding("gpu", str(kfd), WARN, "exists but this user cannot open it",
                           "add the user to the render and video groups"))
    else:
        out.append(Finding("gpu", str(kfd), OK, "AMD KFD device present"))
    gpus = gpus_from_sysfs(topology) or _rocminfo()
    if not gpus:
        out.append(Finding("gpu", "GPUs", WARN, "no GPU agents in the KFD topology or rocminfo",
                           "check `rocminfo` and the amdgpu driver (dmesg)"))
    for g in gpus:
        wave = amd.wave_size(g["arch"])
        out.append(Finding("gpu", f"GPU node {g['node']}", OK,
                           f"{g['arch']} (wave{wave}) {g['name']}".rstrip()))
    return out


# ---- compilers and tools -------------------------------------------------------------------

def _version_line(cmd: list[str]) -> str:
    try:
        res = subprocess.run([*cmd, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = [ln for ln in (res.stdout or res.stderr).splitlines() if ln.strip()]
    return lines[-1].strip() if cmd[0].endswith("nvcc") and lines else \
        (lines[0].strip() if lines else "")


def check_compilers() -> list[Finding]:
    from pyshim.kernels import amd
    from pyshim.kernels.compile import cpu_compiler

    out = []
    found = amd.available_compilers()
    clang = amd.find_clang()
    if "clang" in found:
        out.append(Finding("compilers", "clang (AMD kernels)", OK, found["clang"]))
    elif clang is not None:
        out.append(Finding("compilers", "clang (AMD kernels)", MISSING,
                           f"{clang[0]} found but no ld.lld beside it", APT_CLANG))
    else:
        out.append(Finding("compilers", "clang (AMD kernels)", MISSING,
                           f"no clang >= {amd.MIN_CLANG}: kernels cannot be compiled for AMD "
                           "GPUs without hiprtc", APT_CLANG))
    if "hiprtc" in found:
        out.append(Finding("compilers", "hiprtc (AMD kernels)", OK, found["hiprtc"]))
    else:
        out.append(Finding("compilers", "hiprtc (AMD kernels)", INFO,
                           "no libhiprtc (optional when clang is present)",
                           FIX_ROCM.format(pkg="libhiprtc7")))
    for tool in ("llvm-objdump", "llvm-readelf"):
        exe = amd._llvm_tool(tool)
        if exe is None:
            out.append(Finding("compilers", tool, MISSING,
                               "needed to inspect AMD code objects", APT_CLANG))
        else:
            out.append(Finding("compilers", tool, OK, exe))
    cc = cpu_compiler()
    exe = shutil.which(cc[0])
    if exe is None:
        out.append(Finding("compilers", "cc (CPU device kernels)", MISSING,
                           f"{' '.join(cc)} not found ($PYSHIM_CC, $CC, clang-19 or cc)",
                           "apt-get install -y gcc"))
    else:
        out.append(Finding("compilers", "cc (CPU device kernels)", OK,
                           f"{exe} ({_version_line(cc)})"))
    from pyshim.sass.decode import HINT, nvdisasm_path, nvdisasm_version

    nvdisasm = nvdisasm_path()
    if nvdisasm is None:
        out.append(Finding("compilers", "nvdisasm (SASS-only kernels)", INFO,
                           "kernels shipped only as SASS cannot be lifted without it", HINT))
    else:
        out.append(Finding("compilers", "nvdisasm (SASS-only kernels)", OK,
                           f"{nvdisasm} ({nvdisasm_version()})"))
    nvcc = shutil.which("nvcc") or shutil.which("/usr/local/cuda/bin/nvcc")
    if nvcc is None:
        out.append(Finding("compilers", "nvcc (examples)", MISSING,
                           "needed only to build the example programs",
                           "install the CUDA toolkit and put nvcc on PATH, then `make examples`"))
    else:
        out.append(Finding("compilers", "nvcc (examples)", OK,
                           f"{nvcc} ({_version_line([nvcc])})"))
    return out


# ---- pyshim's builds and caches ------------------------------------------------------------

def check_builds(build: Path | None = None) -> list[Finding]:
    build = build or paths.build_dir()
    out = []
    lib = build / "lib"
    have = [n for n in SHIM_LIBRARIES if (lib / n).exists()]
    if "libcuda.so.1" in have:
        out.append(Finding("build", "shim libraries", OK, f"{lib}: {', '.join(have)}"))
    else:
        out.append(Finding("build", "shim libraries", MISSING, f"no {lib / 'libcuda.so.1'}",
                           FIX_BUILD))
    cpu = build / "cpu"
    have = [n for n in CPU_LIBRARIES if (cpu / n).exists()]
    lacking = [n for n in CPU_LIBRARIES if n not in have]
    if not lacking:
        out.append(Finding("build", "CPU device", OK, f"{cpu}: {', '.join(have)}"))
    elif "libamdhip64.so.7" in have:
        out.append(Finding("build", "CPU device", WARN,
                           f"{cpu}: lacks {', '.join(lacking)}", FIX_BUILD))
    else:
        out.append(Finding("build", "CPU device", MISSING, f"nothing built in {cpu}", FIX_BUILD))
    return out


def check_headers() -> list[Finding]:
    """The pinned vendor headers that `pyshim build` and `pyshim tables` compile against."""
    from pyshim.tables import fetch
    from pyshim.tables.sources import SOURCES

    have = [s for s in SOURCES if fetch.is_fetched(s)]
    lacking = [s for s in SOURCES if not fetch.is_fetched(s)]
    root = paths.headers_dir()
    if not lacking:
        return [Finding("headers", "vendor headers", OK, f"{root}: all {len(have)} pinned sets")]
    names = ", ".join(f"{s.package}=={s.version}" for s in lacking)
    return [Finding("headers", "vendor headers", MISSING,
                    f"{root}: {len(have)} of {len(SOURCES)} pinned sets; lacks {names}",
                    "python3 -m pyshim.tables.fetch")]


def _tree_size(root: Path) -> tuple[int, int]:
    files = size = 0
    for dirpath, _dirs, names in os.walk(root):
        for n in names:
            try:
                size += os.lstat(os.path.join(dirpath, n)).st_size
                files += 1
            except OSError:
                pass
    return files, size


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def check_cache() -> list[Finding]:
    from pyshim.kernels import cache

    root = cache.cache_root()
    entries = cache.iter_entries()
    size = sum(p.stat().st_size for p in entries)
    out = [Finding("cache", "kernel cache", INFO,
                   f"{root}: {len(entries)} entries, {_human(size)}"
                   + ("" if root.is_dir() else " (not created yet)"),
                   "pyshim cache clear" if entries else "")]
    rocm_bin = paths.cache_dir() / "rocm-bin"
    if rocm_bin.is_dir():
        files, size = _tree_size(rocm_bin)
        out.append(Finding("cache", "ROCm libraries for symbol checks", INFO,
                           f"{rocm_bin}: {files} files, {_human(size)}",
                           f"rm -r {rocm_bin}"))
    return out


# ---- the report ----------------------------------------------------------------------------

def collect() -> list[Finding]:
    return [*check_rocm(), *check_gpus(), *check_compilers(), *check_headers(), *check_builds(),
            *check_cache()]


def backends(findings: list[Finding]) -> dict[str, bool]:
    """Which backends could run a program now."""
    by = {(f.area, f.name): f.status for f in findings}
    cpu = by.get(("build", "CPU device")) in (OK, WARN) and \
        by.get(("compilers", "cc (CPU device kernels)")) == OK
    hip = by.get(("rocm", "libamdhip64.so.7")) == OK and by.get(("gpu", "/dev/kfd")) == OK
    return {"cpu": cpu, "hip": hip}


AREA_TITLES = {"rocm": "ROCm", "gpu": "AMD GPUs", "compilers": "Compilers and tools",
               "headers": "Vendor headers", "build": "pyshim builds", "cache": "Caches"}


def format_text(findings: list[Finding]) -> str:
    lines = []
    for area, title in AREA_TITLES.items():
        items = [f for f in findings if f.area == area]
        if not items:
            continue
        lines.append(title)
        for f in items:
            lines.append(f"  {f.status:<8} {f.name}: {f.detail}")
            if f.fix and f.status != OK:
                lines.append(f"  {'':<8}   fix: {f.fix}")
        lines.append("")
    usable = [k for k, v in backends(findings).items() if v]
    lines.append("backends that can run programs now: "
                 + (", ".join(usable) if usable else "none (see the fixes above)"))
    return "\n".join(lines)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")


def run(args: argparse.Namespace) -> int:
    findings = collect()
    usable = backends(findings)
    if args.json:
        print(json.dumps({"findings": [asdict(f) for f in findings], "backends": usable},
                         indent=2))
    else:
        print(format_text(findings))
    return 0 if any(usable.values()) else 1


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog="pyshim doctor")
    configure(p)
    sys.exit(run(p.parse_args()))
