"""Check the tables' ROCm targets against the real ROCm 7.2 runtime libraries.

Every HIP, hiprtc, rocBLAS and rocSOLVER function that `tables/rocm.json` names as a target
("functions") must be exported by the real library, or the shim would fail to resolve it on
an AMD machine. The libraries come from Debian's ROCm packages: `apt-get download` (through
`pyshim.tables.fetch.apt_download`'s private apt configuration), then only the shared object
is taken out of the .deb (librocblas5 is ~318 MB because of its GPU kernels) and cached under
`<cache>/rocm-bin/<package>_<version>/`. The libraries need glibc 2.38 and do not load on
Debian 12, so their dynamic symbol tables are read with pyelftools; nothing is ever loaded.

    python3 -m pyshim.tables.rocm_symbols [-v] [--json]   # exit 1 if a target symbol is missing
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from pyshim import paths

STAMP = ".complete"


class RocmSymbolsError(RuntimeError):
    """A library could not be fetched or read; the message names the package."""


@dataclass(frozen=True)
class RocmLibrary:
    key: str          # "hip", "hiprtc", "rocblas", ...: also the prefix of its functions
    package: str      # Debian binary package
    version: str      # exact Debian version (pinned; a vanished pin raises)
    soname: str       # the shared object the shim resolves symbols from

    def owns(self, function: str) -> bool:
        """Whether a target function name is resolved from this library."""
        if self.key == "hip":
            return function.startswith("hip") and not function.startswith(
                ("hiprtc", "hipfft", "hipblasLt"))
        return function.startswith(self.key)


# ROCm 7 moved hiprtc out of libamdhip64 into its own libhiprtc.so.7.
LIBRARIES: tuple[RocmLibrary, ...] = (
    RocmLibrary("hip", "libamdhip64-7", "7.2.4-1~exp2", "libamdhip64.so.7"),
    RocmLibrary("hiprtc", "libhiprtc7", "7.2.4-1~exp2", "libhiprtc.so.7"),
    RocmLibrary("rocblas", "librocblas5", "7.2.4-1~exp1", "librocblas.so.5"),
    RocmLibrary("rocsolver", "librocsolver0", "7.2.4-1~exp1+b1", "librocsolver.so.0"),
    RocmLibrary("rocrand", "librocrand1", "7.2.4-1~exp1", "librocrand.so.1"),
    RocmLibrary("hipfft", "libhipfft0", "7.2.4-1~exp1", "libhipfft.so.0"),
    RocmLibrary("rocsparse", "librocsparse1", "7.2.4-1~exp1", "librocsparse.so.1"),
    # cuBLASLt's targets (the version of the pinned libhipblaslt-dev headers)
    RocmLibrary("hipblasLt", "libhipblaslt1", "7.2.4+dfsg-1~exp1", "libhipblaslt.so.1"),
)
BY_KEY = {lib.key: lib for lib in LIBRARIES}


@dataclass
class LibraryReport:
    library: RocmLibrary
    path: Path
    exported: int                       # defined global/weak function symbols
    targets: list[str]                  # target functions this library must export
    missing: list[str] = field(default_factory=list)
    # declared by the ROCm headers (rocm.json "names") but not exported: not a failure
    # unless a table targets one, but worth knowing before mapping anything onto it
    declared_not_exported: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"key": self.library.key, "package": self.library.package,
                "version": self.library.version, "soname": self.library.soname,
                "path": str(self.path), "exported": self.exported,
                "targets": len(self.targets), "missing": self.missing,
                "declared_not_exported": self.declared_not_exported}


def bin_dir() -> Path:
    """Where extracted ROCm shared objects are cached (never in git)."""
    return paths.cache_dir() / "rocm-bin"


def library_dir(lib: RocmLibrary) -> Path:
    return bin_dir() / f"{lib.package}_{lib.version}"


def cached_library(lib: RocmLibrary) -> Path | None:
    """The extracted shared object if it is already cached, else None."""
    d = library_dir(lib)
    stamp = d / STAMP
    so = d / lib.soname
    if stamp.is_file() and stamp.read_text().strip() == lib.version and so.is_file():
        return so
    return None


def _extract_so(deb: Path, lib: RocmLibrary, dest: Path) -> Path:
    """Stream the .deb's data archive and keep only files named <soname>*, written straight
    to `dest` (librocblas.so.5 alone is ~210 MB). The soname itself is usually a symlink to
    the versioned file; it is resolved here so that `dest/<soname>` is the real file."""
    dest.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None
    files: set[str] = set()
    links: dict[str, str] = {}
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            for member in tar:
                name = PurePosixPath(member.name).name
                if not name.startswith(lib.soname):
                    continue
                if member.issym():
                    links[name] = PurePosixPath(member.linkname).name
                elif member.isfile():
                    src = tar.extractfile(member)
                    if src is not None:
                        with open(dest / name, "wb") as out:
                            shutil.copyfileobj(src, out, 1 << 20)
                        files.add(name)
    except tarfile.TarError as exc:
        raise RocmSymbolsError(f"{deb.name}: bad data archive: {exc}") from exc
    finally:
        stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        rc = proc.wait()
    if rc != 0:
        raise RocmSymbolsError(f"dpkg-deb --fsys-tarfile {deb.name} failed: {stderr.strip()}")
    name = lib.soname
    for _ in range(8):  # follow soname -> libX.so.7.2.x links inside the package
        if name in files:
            break
        if name not in links:
            raise RocmSymbolsError(f"{lib.package}={lib.version}: no {lib.soname} in "
                                   f"{deb.name} (found {sorted(files | set(links))})")
        name = links[name]
    else:
        raise RocmSymbolsError(f"{lib.package}: symlink loop at {lib.soname}")
    out = dest / lib.soname
    if name != lib.soname:
        os.replace(dest / name, out)
    for other in files - {name, lib.soname}:
        (dest / other).unlink(missing_ok=True)
    return out


def fetch_library(lib: RocmLibrary, *, quiet: bool = False) -> Path:
    """The real shared object of `lib`, downloaded and extracted on first use."""
    so = cached_library(lib)
    if so is not None:
        return so
    from pyshim.tables.fetch import FetchError, apt_download

    if not quiet:
        print(f"pyshim rocm-symbols: downloading {lib.package}={lib.version}",
              file=sys.stderr, flush=True)
    dest = library_dir(lib)
    if dest.exists():
        shutil.rmtree(dest)
    with tempfile.TemporaryDirectory(prefix="pyshim-rocm-bin-") as tmp:
        try:
            deb = apt_download(lib.package, lib.version, Path(tmp))
        except FetchError as exc:
            raise RocmSymbolsError(f"{lib.package}={lib.version}: {exc}") from exc
        so = _extract_so(deb, lib, dest)
    (dest / STAMP).write_text(lib.version + "\n")
    return so


def exported_functions(path: Path) -> set[str]:
    """Names of the functions a shared object exports (defined, global or weak, in
    .dynsym), read from the file without loading it."""
    try:
        with open(path, "rb") as f:
            elf = ELFFile(f)
            dynsym = elf.get_section_by_name(".dynsym")
            if not isinstance(dynsym, SymbolTableSection):
                raise RocmSymbolsError(f"{path}: no .dynsym section")
            names = set()
            for sym in dynsym.iter_symbols():
                e = sym.entry
                if (e.st_shndx != "SHN_UNDEF" and e.st_info.type in ("STT_FUNC", "STT_GNU_IFUNC")
                        and e.st_info.bind in ("STB_GLOBAL", "STB_WEAK")
                        and e.st_other.visibility in ("STV_DEFAULT", "STV_PROTECTED")):
                    names.add(sym.name)
            return names
    except (ELFError, OSError) as exc:
        raise RocmSymbolsError(f"{path}: not a readable ELF shared object: {exc}") from exc


def _read_rocm_json(tables_dir: Path | None) -> tuple[Path, dict]:
    path = (tables_dir or paths.TABLES_DIR) / "rocm.json"
    try:
        doc = json.loads(path.read_text())
        if not isinstance(doc.get("functions"), dict) or not isinstance(doc.get("names"), dict):
            raise ValueError('no "functions" or "names" object')
    except (OSError, ValueError, AttributeError) as exc:
        raise RocmSymbolsError(f"{path}: cannot read the ROCm tables: {exc}") from exc
    return path, doc


def _group(path: Path, names: list[str], what: str) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {lib.key: [] for lib in LIBRARIES}
    for name in sorted(names):
        owner = next((lib for lib in LIBRARIES if lib.owns(name)), None)
        if owner is None:
            raise RocmSymbolsError(f"{path}: {what} {name} belongs to no known ROCm library")
        grouped[owner.key].append(name)
    return grouped


def target_functions(tables_dir: Path | None = None) -> dict[str, list[str]]:
    """The tables' ROCm target functions, grouped by the library that must export them."""
    path, doc = _read_rocm_json(tables_dir)
    return _group(path, list(doc["functions"]), "target function")


def declared_functions(tables_dir: Path | None = None) -> dict[str, list[str]]:
    """Every function the ROCm headers declare, grouped by library."""
    path, doc = _read_rocm_json(tables_dir)
    return _group(path, [n for names in doc["names"].values() for n in names],
                  "declared function")


def check_library(lib: RocmLibrary, targets: list[str], so: Path,
                  declared: tuple[str, ...] | list[str] = ()) -> LibraryReport:
    exported = exported_functions(so)
    missing = [n for n in targets if n not in exported]
    unexported = [n for n in declared if n not in exported]
    return LibraryReport(lib, so, len(exported), list(targets), missing, unexported)


def check(*, quiet: bool = False, tables_dir: Path | None = None) -> list[LibraryReport]:
    """Fetch every library (cached after the first time) and check the targets."""
    targets = target_functions(tables_dir)
    declared = declared_functions(tables_dir)
    return [check_library(lib, targets[lib.key], fetch_library(lib, quiet=quiet),
                          declared[lib.key])
            for lib in LIBRARIES]


def format_report(reports: list[LibraryReport], verbose: bool = False) -> str:
    lines = []
    for r in reports:
        lib = r.library
        status = "ok" if not r.missing else f"{len(r.missing)} MISSING"
        lines.append(f"{lib.soname:<20} {lib.package}={lib.version}: {r.exported} exported "
                     f"functions, {len(r.targets)} targets, {status}; "
                     f"{len(r.declared_not_exported)} declared in the headers but not exported")
        lines.extend(f"    missing: {n}" for n in r.missing)
        if verbose:
            lines.extend(f"    declared, not exported: {n}" for n in r.declared_not_exported)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        reports = check()
    except RocmSymbolsError as exc:
        print(f"pyshim rocm-symbols: {exc}", file=sys.stderr)
        return 2
    if "--json" in argv:
        print(json.dumps([r.as_dict() for r in reports], indent=2))
    else:
        print(format_report(reports, verbose="-v" in argv))
    return 1 if any(r.missing for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
