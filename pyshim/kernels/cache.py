"""The on-disk kernel cache: translated and compiled kernels, content-addressed.

Layout: ``<cache root>/kernels/<key[:2]>/<key><suffix>``, where the cache root is
``pyshim.paths.cache_dir()`` ($PYSHIM_CACHE overrides it). Keys are sha256 digests of
stable inputs only (PTX bytes, translator version, target, compiler identity), so an
entry never needs invalidating: a change of any input is a different key.

Safety: a cached .so is loaded into the process, so an entry someone else could have
written is as dangerous as arbitrary code. The root is created 0700, and an entry (the
file or its shard directory) that is group/world-writable, owned by another uid, or not a
plain file/directory is refused, deleted if we can, rebuilt, and logged.
Integrity: every entry ends with a record of its own size and sha256 (`_RECORD`), checked
the first time a process looks it up (a hash of the entry is cheap next to a rebuild; later
lookups in the process compare size, mtime and inode with what was hashed, cheaper still:
benchmarks/README.md, Figures behind the code): a truncated, emptied or altered entry
is removed, logged and rebuilt, never loaded (dlopen of a truncated .so was a SIGBUS on
every run). The record rides in the same file, so one rename publishes data and record
together. ELF loaders ignore bytes past the image; `read_entry` gives the data alone.
A cache that cannot be used (unsafe or unwritable root, a full or read-only disk,
$PYSHIM_CACHE naming a file) is said once, and the process keeps its kernels in a private
temporary directory (or, failing that, in memory) instead.
System caches: read-only cache roots consulted before the user's, in order:
$PYSHIM_SYSTEM_CACHE (directories separated by ':'; empty: none), else /var/cache/pyshim
(a package ships one, or an admin fills one with `pyshim precompile --cache DIR`). Their
layout is the user cache's (``<root>/kernels/<key[:2]>/<key><suffix>``); an entry there is
used only if it, its shard and the kernels directory are owned by root or by us and not
group/world-writable, and it matches its record; anything else there is skipped (logged
once), never changed: the user's cache is looked up next and built into as before.
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
import struct
import tempfile
import time
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
# trailer of every entry: magic, size of the data before it, sha256 of that data
_RECORD = struct.Struct("<8sQ32s")
_RECORD_MAGIC = b"PYSHIMk1"
RECORD_BYTES = _RECORD.size
# private stand-ins for an unusable cache: "<tmp>/pyshim-cache-<pid>-XXXX"
_PRIVATE_PREFIX = "pyshim-cache-"
# a private directory of a dead process older than this is swept by the next one to need one
_PRIVATE_STALE_S = 3600.0

# once the disk cache is refused: where this process keeps its entries instead (a private
# directory, or None for memory), and the entries kept in memory by name
_private: dict[str, Path] | None = None
_private_dir: Path | None = None
# the subprocess translator hands its parent a path: /proc/self/fd/N would mean nothing there
memory_entries_allowed = True
# entries this process has hashed: path -> (size, mtime, inode, device) when it matched
_verified: dict[str, tuple[int, int, int, int]] = {}


class CacheError(Exception):
    """The cache cannot be used (bad key or suffix, unusable root directory)."""


DEFAULT_SYSTEM_CACHE = "/var/cache/pyshim"
# system cache entries found unusable, said once each
_system_refused: set[str] = set()


def system_roots() -> list[Path]:
    """The read-only cache roots consulted before the user's (see the module docstring)."""
    env = os.environ.get("PYSHIM_SYSTEM_CACHE")
    raw = DEFAULT_SYSTEM_CACHE if env is None else env
    user = cache_root()
    return [Path(d) / "kernels" for d in raw.split(":")
            if d and (Path(d) / "kernels") != user]


def _system_untrusted(st: os.stat_result, want_dir: bool) -> str | None:
    """Why an lstat() result in a system cache must not be trusted, or None."""
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if want_dir != stat.S_ISDIR(st.st_mode) or (not want_dir and not stat.S_ISREG(st.st_mode)):
        return "not a directory" if want_dir else "not a regular file"
    if st.st_uid not in (0, os.getuid()):
        return f"owned by uid {st.st_uid}"
    if st.st_mode & _UNSAFE_MODE:
        return f"group/world-writable (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def _system_lookup(key: str, suffix: str) -> Path | None:
    for root in system_roots():
        path = root / key[:2] / f"{key}{suffix}"
        try:
            st = path.lstat()
        except OSError:
            continue
        why = _system_untrusted(st, want_dir=False)
        for d in (path.parent, root):
            if why is None:
                try:
                    why = _system_untrusted(d.lstat(), want_dir=True)
                except OSError as exc:
                    why = f"{d}: {exc.strerror or exc}"
        if why is None:
            why = _mismatch(path, st)
        if why is None:
            return path
        if str(path) not in _system_refused:
            _system_refused.add(str(path))
            log.warning("pyshim: system kernel cache: skipping %s (%s)", path, why)
    return None


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
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
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
        parent = root.parent.stat()
    except OSError as exc:
        raise CacheError(f"kernel cache directory {root}: {exc.strerror or exc}") from exc
    if parent.st_mode & _UNSAFE_MODE and not parent.st_mode & stat.S_ISVTX:
        # anyone who can write there can swap kernels/ for a directory of their own
        raise CacheError(f"kernel cache directory {root.parent} is unsafe: group/world-"
                         f"writable (mode {stat.S_IMODE(parent.st_mode):04o}) without the "
                         "sticky bit")
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


def _seal(data: bytes) -> bytes:
    return data + _RECORD.pack(_RECORD_MAGIC, len(data), hashlib.sha256(data).digest())


def _unseal(blob: bytes) -> bytes | str:
    """The data of an entry's bytes, or why they do not match their record."""
    if len(blob) < _RECORD.size:
        return f"is {len(blob)} bytes, shorter than its record"
    magic, size, digest = _RECORD.unpack_from(blob, len(blob) - _RECORD.size)
    if magic != _RECORD_MAGIC:
        return "has no size and hash record (truncated, or not written by pyshim)"
    data = blob[:-_RECORD.size]
    if size != len(data):
        return f"holds {len(data)} bytes where its record says {size}"
    if hashlib.sha256(data).digest() != digest:
        return "does not match its recorded sha256 (altered)"
    return data


def read_entry(path: Path) -> bytes:
    """The data stored in an entry (without its record); CacheError if it does not match."""
    try:
        with open(path, "rb") as f:
            got = _unseal(f.read())
    except OSError as exc:
        raise CacheError(f"kernel cache: cannot read {path}: {exc.strerror or exc}") from exc
    if isinstance(got, str):
        raise CacheError(f"kernel cache: entry {path} {got}")
    return got


def _mismatch(path: Path, st: os.stat_result) -> str | None:
    """Why the entry at `path` (lstat `st`) must not be loaded, or None."""
    ident = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)
    if _verified.get(str(path)) == ident:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            got = _unseal(f.read())
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if isinstance(got, str):
        return got
    _verified[str(path)] = ident
    return None


def _use_private(reason: str) -> None:
    """From now on this process keeps its kernels to itself (said once)."""
    global _private, _private_dir
    if _private is not None:
        return
    _private = {}
    _private_dir = _make_private_dir()
    where = (f"a private temporary directory ({_private_dir})" if _private_dir is not None
             else "memory")
    log.warning("pyshim: %s; kernels of this process are kept in %s", reason, where)


def _make_private_dir() -> Path | None:
    tmp = Path(tempfile.gettempdir())
    _sweep_private_dirs(tmp)
    try:
        return Path(tempfile.mkdtemp(prefix=f"{_PRIVATE_PREFIX}{os.getpid()}-", dir=tmp))
    except OSError:
        return None


def _sweep_private_dirs(tmp: Path) -> None:
    """Remove private directories of ours whose process is gone (after an hour: the
    subprocess translator's directory outlives it until its parent has loaded the file)."""
    try:
        names = [p for p in tmp.iterdir() if p.name.startswith(_PRIVATE_PREFIX)]
    except OSError:
        return
    now = time.time()
    for d in names:
        pid = d.name[len(_PRIVATE_PREFIX):].partition("-")[0]
        try:
            st = d.lstat()
            if (not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid()
                    or now - st.st_mtime < _PRIVATE_STALE_S or not pid.isdigit()):
                continue
            os.kill(int(pid), 0)
            continue  # still running
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
        except OSError:
            continue


def _private_store(key: str, suffix: str, sealed: bytes) -> Path:
    assert _private is not None
    name = f"{key}{suffix}"
    if _private_dir is not None:
        path = _private_dir / name
        try:
            _write_atomically(path, sealed)
            _private[name] = path
            return path
        except OSError as exc:
            if not memory_entries_allowed:
                raise CacheError(f"kernel cache: cannot write {path} either: "
                                 f"{exc.strerror or exc}") from exc
    if not memory_entries_allowed:
        raise CacheError("kernel cache: unusable, and no private temporary directory")
    fd = os.memfd_create(f"pyshim-{name[:48]}", os.MFD_CLOEXEC)  # kept open: it is the entry
    os.write(fd, sealed)
    path = Path(f"/proc/self/fd/{fd}")
    _private[name] = path
    return path


def forget_private() -> None:
    """Use the disk cache again (tests: each sets up a cache of its own)."""
    global _private, _private_dir
    _private = None
    _private_dir = None


def lookup(key: str, suffix: str) -> Path | None:
    """The path of a sound existing entry, or None (absent; or unsafe, or not matching its
    record, and now removed)."""
    _check_name(key, suffix)
    found = _system_lookup(key, suffix)
    if found is not None:
        return found
    if _private is None:
        try:
            _ensure_root()
        except CacheError as exc:
            _use_private(str(exc))
    if _private is not None:
        return _private.get(f"{key}{suffix}")
    path = _entry_path(key, suffix)
    try:
        if not _safe_shard(path.parent, create=False):
            return None
        st = path.lstat()
    except FileNotFoundError:
        return None
    except (OSError, CacheError) as exc:
        _use_private(f"kernel cache: cannot read {path.parent}: {exc}")
        return None
    reason = _unsafe_reason(st, want_dir=False)
    if reason is None:
        reason = _mismatch(path, st)
        if reason is None:
            return path
        log.warning("pyshim: kernel cache: entry %s %s; removing it and rebuilding", path, reason)
    else:
        log.warning("pyshim: kernel cache: refusing entry %s (%s); removing it", path, reason)
    _remove(path, is_dir=stat.S_ISDIR(st.st_mode))
    return None


def _write_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=path.parent)
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


def store(key: str, suffix: str, data: bytes) -> Path:
    """Write an entry (data and its record) atomically and return its path; where the cache
    cannot be written, into this process's private stand-in (one warning)."""
    _check_name(key, suffix)
    sealed = _seal(bytes(data))
    if _private is None:
        try:
            _ensure_root()
            path = _entry_path(key, suffix)
            _safe_shard(path.parent, create=True)
            _write_atomically(path, sealed)
            return path
        except CacheError as exc:
            _use_private(str(exc))
        except OSError as exc:
            _use_private(f"kernel cache: cannot write in {cache_root()}: "
                         f"{exc.strerror or exc}")
    return _private_store(key, suffix, sealed)


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
