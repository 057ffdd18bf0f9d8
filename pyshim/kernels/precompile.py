"""Translate and compile every kernel of executables, libraries or directories into the
kernel cache ahead of the first run (issue 23 point 3; the command: pyshim.commands.precompile,
`pyshim precompile [--jobs N] [--cache DIR] [--target T] [--json] PATH...`).

Each module is the one the driver would load (one fat binary container, the PTX the loader
picks for the presented device) and goes through the loader itself, so every key is the one
a run looks up. A huge module (lazy.py) becomes its data object plus one job per kernel.
Jobs run in N worker processes (default: one per usable core) at nice 10; what the cache
already holds is counted and skipped, so an interrupted precompile resumes where it stopped.
`--cache DIR` fills DIR (a system cache: point $PYSHIM_SYSTEM_CACHE at it) instead of the
user's cache, and leaves it readable by everyone.

`plan(paths, target)` is shared with `pyshim cache info PATH`: how many kernels of a binary
the cache holds.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

WORKER_NICE = 10


@dataclass
class Module:
    """One module image of a file, as the driver would load it."""

    file: str
    image: bytes            # the container (or PTX text) handed to load_module
    kernels: list[str]
    lazy: bool
    module_key: str = ""    # lazily loaded: the key its kernels' requests name
    cached: set[str] = field(default_factory=set)  # kernels whose code the cache holds
    data_cached: bool = False  # lazily loaded: the data object is in the cache
    error: str = ""


def default_target() -> str:
    wave = os.environ.get("PYSHIM_CPU_WAVE", "64").strip()
    return f"cpu-wave{wave if wave in ('32', '64') else '64'}"


def _images(path: Path) -> list[tuple[bytes, str]]:
    """(image, error) per module of one file: its fat binary containers (an ELF), or the
    file itself (PTX text, a fat binary)."""
    from pyshim.binary import fatbin
    from pyshim.binary.elf import FATBIN_SECTIONS, HostElf
    from pyshim.binary.errors import FatbinError

    data = path.read_bytes()
    if data[:4] != b"\x7fELF":
        return [(data, "")]
    with HostElf(str(path)) as elf:
        sections = [elf.section(name) for name in FATBIN_SECTIONS]
    out: list[tuple[bytes, str]] = []
    for name, s in zip(FATBIN_SECTIONS, sections, strict=True):
        if s is None or s.type == "SHT_NOBITS":
            continue
        section = data[s.offset:s.offset + s.size]
        pos = 0
        head = fatbin.CONTAINER_HEADER.size
        while pos + head <= len(section):
            if section[pos:pos + head] == bytes(head):
                pos += 8
                continue
            try:
                size = fatbin.container_size(section[pos:pos + head])
            except FatbinError as exc:
                out.append((b"", f"{name}+{pos:#x}: {exc}"))
                break
            out.append((section[pos:pos + size], ""))
            pos += (size + 7) & ~7
    return out


def _has_ptx(image: bytes) -> bool:
    from pyshim.binary import fatbin
    from pyshim.binary.errors import FatbinError

    if not fatbin.is_container(image):
        return True
    try:
        return any(e.is_ptx for e in fatbin.entries(memoryview(image)))
    except FatbinError:
        return True  # the loader names what is wrong


def plan(paths: list[str | Path], target: str) -> list[Module]:
    """Every module of the files under `paths` with the kernels the cache already holds."""
    from pyshim.binary.errors import BinaryError
    from pyshim.check import walk
    from pyshim.kernels import cache, lazy, loader
    from pyshim.kernels.compile import compiler_identity
    from pyshim.ptx.fingerprint import translator_fingerprint

    files: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such file or directory")
        if p.is_dir():
            own = cache.cache_root().resolve()  # never the cache's own entries
            found = {*walk.elf_files(p), *(f for f in p.rglob("*")
                                           if f.suffix in (".ptx", ".fatbin") and f.is_file())}
            files += sorted(f for f in found if own not in f.resolve().parents)
        else:
            files.append(p)
    modules: list[Module] = []
    for f in files:
        try:
            images = _images(f)
        except (OSError, ValueError, BinaryError) as exc:
            modules.append(Module(str(f), b"", [], False, error=str(exc)))
            continue
        for image, error in images:
            if error or not _has_ptx(image):
                if error:
                    modules.append(Module(str(f), b"", [], False, error=error))
                continue
            try:
                ptx = loader.extract_ptx(image)
            except Exception as exc:  # noqa: BLE001 - reported per module, others go on
                modules.append(Module(str(f), image, [], False, error=str(exc)))
                continue
            ptx_bytes = ptx.encode("utf-8")
            index = lazy.Index(ptx_bytes)
            m = Module(str(f), image, index.kernels, lazy.wanted(ptx, target))
            if m.lazy:
                m.module_key = loader._lazy_module_key(ptx_bytes, target)  # noqa: SLF001
                m.data_cached = cache.lookup(m.module_key, ".so") is not None
                m.cached = {k for k in m.kernels
                            if cache.lookup(cache.cache_key(m.module_key, k, "kernel"), ".so")}
            else:
                key = cache.cache_key(ptx_bytes, translator_fingerprint(), target,
                                      compiler_identity())
                if cache.lookup(key, ".so") is not None:
                    m.cached = set(m.kernels)
            modules.append(m)
    return modules


def _job(image: bytes, target: str) -> tuple[float, str]:
    """One load in a worker: (seconds, error or "")."""
    from pyshim.kernels.loader import load_module

    t0 = time.perf_counter()
    try:
        load_module(image, target)
    except Exception as exc:  # noqa: BLE001 - one bad kernel must not stop the others
        return time.perf_counter() - t0, f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    return time.perf_counter() - t0, ""


def _init_worker() -> None:
    # Ctrl-C reaches the whole process group: the parent stops the pool, the workers must
    # not die mid-write with a traceback each
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.nice(WORKER_NICE)
    except OSError:
        pass
    os.environ["PYSHIM_JIT"] = "opt"  # what a run looks up first, at every tier


class Bar:
    """A progress bar with an ETA on a terminal; one line per 10% elsewhere."""

    def __init__(self, total: int, stream=None, enabled: bool | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if enabled is None else enabled
        self.started = time.monotonic()
        self.done = 0
        self.failed = 0
        self._last_tenth = -1

    def update(self, done: int, failed: int) -> None:
        self.done, self.failed = done, failed
        elapsed = time.monotonic() - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (self.total - done) / rate if rate > 0 else float("inf")
        eta = "--:--" if left == float("inf") else f"{int(left) // 60}:{int(left) % 60:02d}"
        if self.tty:
            width = 30
            fill = int(width * done / self.total) if self.total else width
            self.stream.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{self.total} "
                              f"jobs, {failed} failed, {rate:.2f}/s, ETA {eta}  ")
            self.stream.flush()
        elif self.total:
            tenth = 10 * done // self.total
            if tenth != self._last_tenth:
                self._last_tenth = tenth
                print(f"pyshim precompile: {done}/{self.total} jobs ({failed} failed), "
                      f"ETA {eta}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _cache_bytes() -> int:
    from pyshim.kernels import cache

    return sum(p.stat().st_size for p in cache.iter_entries())


def precompile(paths: list[str | Path], target: str, jobs: int,
               bar: Bar | None = None) -> dict:
    """Build every module and kernel of `paths` that the cache lacks; the summary."""
    from pyshim.kernels import lazy

    t0 = time.monotonic()
    modules = plan(paths, target)
    size_before = _cache_bytes()
    kernels = sum(len(m.kernels) for m in modules)
    already = sum(len(m.cached) for m in modules)
    failures = [{"file": m.file, "kernel": None, "error": m.error} for m in modules if m.error]
    # stage 1: eager modules whole, and the data object of each lazy one (its kernels' jobs
    # read the PTX it stores); stage 2: each lazy module's kernels
    first = [(m, None) for m in modules if not m.error and m.kernels
             and ((not m.lazy and len(m.cached) < len(m.kernels)) or (m.lazy and (
                 not m.data_cached or len(m.cached) < len(m.kernels))))]
    second = [(m, k) for m in modules if m.lazy and not m.error for k in m.kernels
              if k not in m.cached]
    total = len(first) + len(second)
    bar = bar or Bar(total)
    bar.total = total
    built = 0
    done = 0
    interrupted = False
    pool = ProcessPoolExecutor(max_workers=max(1, jobs), initializer=_init_worker)
    try:
        for stage in (first, second):
            running: dict[Future, tuple[Module, str | None]] = {}
            queue = list(stage)
            while queue or running:
                while queue and len(running) < 2 * jobs:
                    m, k = queue.pop(0)
                    image = m.image if k is None else lazy.encode_request(m.module_key, k)
                    running[pool.submit(_job, image, target)] = (m, k)
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    m, k = running.pop(fut)
                    _seconds, error = fut.result()
                    done += 1
                    if error:
                        failures.append({"file": m.file, "kernel": k, "error": error})
                    elif k is not None:
                        built += 1
                    elif not m.lazy:
                        built += len(m.kernels) - len(m.cached)
                    bar.update(done, len(failures))
    except KeyboardInterrupt:
        interrupted = True
        # a second Ctrl-C must not cut the summary short: what was built is in the cache
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        pool.shutdown(wait=False, cancel_futures=True)
    finally:
        pool.shutdown(wait=not interrupted, cancel_futures=True)
        bar.close()
    seconds = time.monotonic() - t0
    return {"files": len({m.file for m in modules}), "modules": len(modules),
            "kernels": kernels, "already_cached": already, "built": built,
            "failed": failures, "jobs": total, "jobs_done": done, "interrupted": interrupted,
            "seconds": round(seconds, 3),
            "kernels_per_s": round(built / seconds, 3) if seconds > 0 else 0.0,
            "cache_bytes_added": _cache_bytes() - size_before, "target": target}


def _share(root: Path) -> None:
    """A cache filled for others (--cache DIR): directories 0755, entries 0644."""
    for dirpath, _dirs, files in os.walk(root):
        os.chmod(dirpath, 0o755)
        for f in files:
            p = Path(dirpath) / f
            if not p.is_symlink():
                os.chmod(p, 0o644)
