"""The on-disk kernel cache: translated and compiled kernels, content-addressed.

Layout: ``<cache root>/kernels/<key[:2]>/<key><suffix>``, where the cache root is
``pyshim.paths.cache_dir()`` ($PYSHIM_CACHE overrides it). Keys are sha256 digests of
stable inputs only (PTX bytes, translator version, target, compiler identity), so an
entry never needs invalidating: a change of any input is a different key.

Safety: a cached .so is loaded into the process, so an entry someone else could have
written is as dangerous as arbitrary code. The root is created 0700, and an entry (the
file or its shard directory) that is group/world-writable, owned by another uid, or not a
plain file/directory is refused, deleted if we can, rebuilt, and logged.
Concurrency: writers go through a temp file in the same directory, fsync, os.replace, so
readers see either nothing or a whole entry, and two processes building the same kernel
both succeed (the last rename wins with identical bytes).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from pyshim import paths

log = logging.getLogger("pyshim")

# prefix of temporary files; never a valid entry name (entries start with a hex key)
TMP_PREFIX = ".tmp-"
_KEY_RE = re.compile(r"[0-9a-f]{64}")
# suffixes are file extensions such as ".so", ".co", ".c": no separators, no "..".
_SUFFIX_RE = re.compile(r"(\.[A-Za-z0-9_-]+)*")
_UNSAFE_MODE = stat.S_IWGRP | stat.S_IWOTH


class CacheError(Exception):
    """The cache cannot be used (bad key or suffix, unusable root directory)."""


def cache_root() -> Path:
    """The directory holding the kernel cache (not created here)."""
    return paths.cache_dir() / "kernels"


def cache_key(*parts: bytes | str) -> str:
    """sha256 hex digest of the parts, each prefixed by its length (so parts never run
    together: ("ab", "c") and ("a", "bc") differ). str parts are UTF-8 encoded."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, str):
            data = part.encode("utf-8")
        elif isinstance(part, bytes | bytearray | memoryview):
            data = bytes(part)
        else:
            raise CacheError(f"cache_key: part must be bytes or str, not {type(part).__name__}")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def _check_name(key: str, suffix: str) -> None:
    if not isinstance(key, str) or not _KEY_RE.fullmatch(key):
        raise CacheError(f"invalid kernel cache key {key!r}: expected 64 lowercase hex digits")
    if not isinstance(suffix, str) or not _SUFFIX_RE.fullmatch(suffix):
        raise CacheError(f"invalid kernel cache suffix {suffix!r}: expected e.g. '.so'")


def _unsafe_reason(st: os.stat_result, want_dir: bool) -> str | None:
    """Why an lstat() result must not be trusted as a cache entry, or None if it is fine."""
    if want_dir and not stat.S_ISDIR(st.st_mode):
        return "not a directory"
    if not want_dir and not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_uid != os.getuid():
        return f"owned by uid {st.st_uid}, not {os.getuid()}"
    if st.st_mode & _UNSAFE_MODE:
        return f"group/world-writable (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def _remove(path: Path, is_dir: bool) -> bool:
    try:
        if is_dir:
            shutil.rmtree(path)
        else:
            path.unlink()
    except OSError as exc:
        log.warning("kernel cache: could not remove unsafe %s: %s", path, exc)
        return False
    return True


def _ensure_root() -> Path:
    """Create the root 0700 or check that an existing one is ours and private."""
    root = cache_root()
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = root.lstat()
    except OSError as exc:
        raise CacheError(f"kernel cache directory {root}: {exc}") from exc
    reason = _unsafe_reason(st, want_dir=True)
    if reason is None:
        return root
    if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid():
        # our own directory with loose permissions: tighten rather than refuse
        log.warning("kernel cache: %s was %s; setting mode 0700", root, reason)
        os.chmod(root, 0o700)
        return root
    raise CacheError(f"kernel cache directory {root} is unsafe: {reason}")


def _entry_path(key: str, suffix: str) -> Path:
    return cache_root() / key[:2] / f"{key}{suffix}"


def _safe_shard(shard: Path, create: bool) -> bool:
    """True if the shard directory exists (after creating it when asked) and is safe.
    An unsafe shard is removed with everything in it (none of it can be trusted)."""
    try:
        st = shard.lstat()
    except FileNotFoundError:
        if not create:
            return False
        try:
            shard.mkdir(mode=0o700)
        except FileExistsError:
            pass  # another process made it; check it below
        st = shard.lstat()
    reason = _unsafe_reason(st, want_dir=True)
    if reason is None:
        return True
    log.warning("kernel cache: refusing directory %s (%s); removing it", shard, reason)
    _remove(shard, is_dir=stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode))
    if not create:
        return False
    shard.mkdir(mode=0o700, exist_ok=True)  # another process may have re-made it first
    reason = _unsafe_reason(shard.lstat(), want_dir=True)
    if reason is not None:
        raise CacheError(f"kernel cache directory {shard} is unsafe ({reason}) and could "
                         f"not be replaced")
    return True


def lookup(key: str, suffix: str) -> Path | None:
    """The path of a safe existing entry, or None (absent, or unsafe and now removed)."""
    _check_name(key, suffix)
    _ensure_root()
    path = _entry_path(key, suffix)
    if not _safe_shard(path.parent, create=False):
        return None
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None
    reason = _unsafe_reason(st, want_dir=False)
    if reason is None:
        return path
    log.warning("kernel cache: refusing entry %s (%s); removing it", path, reason)
    _remove(path, is_dir=stat.S_ISDIR(st.st_mode))
    return None


def store(key: str, suffix: str, data: bytes) -> Path:
    """Write an entry atomically (temp file, fsync, rename) and return its path."""
    _check_name(key, suffix)
    _ensure_root()
    path = _entry_path(key, suffix)
    try:
        _safe_shard(path.parent, create=True)
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=path.parent)
    except OSError as exc:
        raise CacheError(f"kernel cache: cannot write in {path.parent}: {exc}") from exc
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)  # mkstemp made it 0600: private from the start
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def get_or_build(key: str, suffix: str, build: Callable[[], bytes]) -> tuple[Path, bool]:
    """(path, was_cached): the existing entry, or build() stored under the key."""
    path = lookup(key, suffix)
    if path is not None:
        return path, True
    data = build()
    if not isinstance(data, bytes | bytearray | memoryview):
        raise CacheError(f"kernel cache: build for {key}{suffix} returned "
                         f"{type(data).__name__}, not bytes")
    return store(key, suffix, bytes(data)), False


def iter_entries() -> list[Path]:
    """Every entry file currently in the cache (not temp files), sorted."""
    root = cache_root()
    if not root.is_dir():
        return []
    found = []
    for shard in sorted(root.iterdir()):
        if not (len(shard.name) == 2 and shard.is_dir() and not shard.is_symlink()):
            continue
        for entry in sorted(shard.iterdir()):
            if _KEY_RE.match(entry.name) and entry.name.startswith(shard.name):
                found.append(entry)
    return found


def clear() -> int:
    """Remove every entry and stale temp file; returns the number of entries removed.
    Only names the cache itself creates are touched, whatever $PYSHIM_CACHE points at."""
    root = cache_root()
    if not root.is_dir():
        return 0
    removed = 0
    for shard in sorted(root.iterdir()):
        if not (len(shard.name) == 2 and shard.is_dir() and not shard.is_symlink()):
            continue
        for entry in shard.iterdir():
            is_entry = bool(_KEY_RE.match(entry.name))
            if is_entry or entry.name.startswith(TMP_PREFIX):
                entry.unlink(missing_ok=True)
                removed += is_entry
        try:
            shard.rmdir()
        except OSError:
            pass  # something else lives there; leave it
    return removed
