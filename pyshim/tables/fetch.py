"""Fetch the pinned header sets from PyPI and Debian into the headers cache.

Each source lands in `<headers>/<key>/` with a `.complete` stamp holding its version, so a
second call costs nothing. A source that its registry no longer serves raises
`SourceVanished` naming the package and version, which `tables check` turns into a skip.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from pyshim.paths import headers_dir
from pyshim.tables.sources import DEBIAN, SOURCES, Source

STAMP = ".complete"


class FetchError(RuntimeError):
    pass


class SourceVanished(FetchError):
    """The registry answered, but no longer has this pinned package version."""

    def __init__(self, source: Source, detail: str) -> None:
        self.source = source
        super().__init__(
            f"pinned package {source.package}=={source.version} ({source.registry}) "
            f"is no longer served: {detail.strip().splitlines()[-1] if detail.strip() else ''}"
        )


def source_dir(source: Source) -> Path:
    return headers_dir() / source.key


def is_fetched(source: Source) -> bool:
    stamp = source_dir(source) / STAMP
    return stamp.is_file() and stamp.read_text().strip() == source.version


def _log(msg: str) -> None:
    print(f"pyshim tables: {msg}", file=sys.stderr, flush=True)


def _extract_zip(archive: Path, members: tuple[str, ...], dest: Path) -> None:
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            if info.is_dir() or not info.filename.startswith(members):
                continue
            name = info.filename.rsplit("/", 1)[-1]
            # headers only: C++ library headers have no suffix (<nv/target>), so drop
            # binaries rather than keep suffixes
            if ".so" in name or name.endswith((".a", ".o", ".bc", ".whl", ".fatbin")):
                continue
            target = dest / info.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)


def _fetch_pypi(source: Source, dest: Path, work: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
           "--disable-pip-version-check", "--only-binary", ":all:", "--dest", str(work),
           f"{source.package}=={source.version}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        if "No matching distribution" in proc.stderr or "Could not find a version" in proc.stderr:
            raise SourceVanished(source, proc.stderr)
        raise FetchError(f"pip download {source.package}=={source.version} failed:\n"
                         f"{proc.stderr.strip()}")
    wheels = sorted(work.glob("*.whl"))
    if not wheels:
        raise FetchError(f"pip download {source.package}: no wheel produced")
    _extract_zip(wheels[0], source.members, dest)


def _apt_env(root: Path) -> dict[str, str]:
    """A private apt configuration: the system's sources stay untouched."""
    for sub in ("lists/partial", "cache/archives/partial"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
    (root / "sources.list").write_text(
        "".join(f"deb [signed-by={keyring}] http://deb.debian.org/debian {suite} main\n"
                for suite in ("experimental", "sid"))
    )
    (root / "apt.conf").write_text(
        f'Dir::Etc::SourceList "{root}/sources.list";\n'
        'Dir::Etc::SourceParts "/nonexistent";\n'
        f'Dir::State::Lists "{root}/lists";\n'
        f'Dir::Cache "{root}/cache";\n'
        'APT::Architecture "amd64";\n'
    )
    env = dict(os.environ)
    env["APT_CONFIG"] = str(root / "apt.conf")
    return env


_apt_updated: set[str] = set()


def apt_download(package: str, version: str, work: Path) -> Path:
    """Download one exact .deb with the private apt configuration; returns its path."""
    root = headers_dir() / ".apt"
    env = _apt_env(root)
    if str(root) not in _apt_updated:
        proc = subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True,
                              text=True)
        if proc.returncode != 0:
            raise FetchError(f"apt-get update failed:\n{proc.stderr.strip()}")
        _apt_updated.add(str(root))
    proc = subprocess.run(["apt-get", "download", "-q", f"{package}={version}"], env=env,
                          cwd=work, capture_output=True, text=True)
    if proc.returncode != 0:
        if "Version" in proc.stderr and "was not found" in proc.stderr or \
                "Unable to locate" in proc.stderr:
            raise FetchError(f"{package}={version}: {proc.stderr.strip()}")
        raise FetchError(f"apt-get download {package}={version} failed:\n{proc.stderr.strip()}")
    debs = sorted(work.glob("*.deb"))
    if not debs:
        raise FetchError(f"apt-get download {package}: no .deb produced")
    return debs[0]


def _fetch_debian(source: Source, dest: Path, work: Path) -> None:
    try:
        deb = apt_download(source.package, source.version, work)
    except FetchError as exc:
        if "was not found" in str(exc) or "Unable to locate" in str(exc):
            raise SourceVanished(source, str(exc)) from exc
        raise
    unpack = work / "unpack"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(unpack)], check=True)
    for member in source.members:
        src = unpack / member
        if src.is_dir():
            shutil.copytree(src, dest / member, dirs_exist_ok=True, symlinks=True)


@contextlib.contextmanager
def _fetch_lock():
    """One fetch at a time per headers cache, across processes: parallel test workers on a
    fresh cache would otherwise run apt-get on one private apt root at once (apt's own lock
    then fails the second)."""
    root = headers_dir()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".fetch.lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def fetch(source: Source, *, quiet: bool = False) -> Path:
    """Make sure `source` is in the headers cache; return its directory."""
    dest = source_dir(source)
    if is_fetched(source):
        return dest
    with _fetch_lock():
        return _fetch_locked(source, dest, quiet)


def _fetch_locked(source: Source, dest: Path, quiet: bool) -> Path:
    if is_fetched(source):
        return dest  # another process fetched it while this one waited
    if not quiet:
        _log(f"fetching {source.package}=={source.version} from {source.registry}")
    # unpacked beside its place and renamed into it: processes fetching the same source at
    # once (parallel test workers on a fresh cache) never write into one directory
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        with tempfile.TemporaryDirectory(prefix="pyshim-fetch-") as tmp:
            work = Path(tmp)
            if source.registry == DEBIAN:
                _fetch_debian(source, staging, work)
            else:
                _fetch_pypi(source, staging, work)
        (staging / STAMP).write_text(source.version + "\n")
        if is_fetched(source):
            return dest  # another process got there first
        if dest.exists():
            shutil.rmtree(dest, ignore_errors=True)  # an unfinished fetch of an earlier run
        try:
            os.rename(staging, dest)
        except OSError:
            if not is_fetched(source):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest


def fetch_all(*, quiet: bool = False) -> dict[str, Path]:
    return {s.key: fetch(s, quiet=quiet) for s in SOURCES}


def include_dir(key: str) -> Path:
    """The include directory of a fetched source (the one holding its headers)."""
    from pyshim.tables.sources import BY_KEY

    source = BY_KEY[key]
    base = fetch(source)
    member = source.members[0]
    path = base / member
    return path if path.is_dir() else base


if __name__ == "__main__":
    for key, path in fetch_all().items():
        print(f"{key}\t{path}")
