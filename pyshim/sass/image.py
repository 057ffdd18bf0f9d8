"""Which cubin of a module image to lift, for the loader: the SASS-only counterpart of
fatbin.choose_ptx."""

from __future__ import annotations

from collections.abc import Iterable

LIFTABLE = (75, 80, 86, 89, 90)


def choose_cubin(entries: Iterable, max_arch: int) -> object | None:
    """The ELF entry to lift: the newest liftable arch the device has, else the oldest
    liftable one (the device is older than every cubin: still better than nothing)."""
    elf = [e for e in entries if e.is_elf and e.arch in LIFTABLE]
    if not elf:
        return None
    fitting = [e for e in elf if e.arch <= max_arch]
    if fitting:
        return max(fitting, key=lambda e: (e.arch, -e.index))
    return min(elf, key=lambda e: (e.arch, e.index))


def lift_entries(entries: list, max_arch: int) -> str | None:
    """PTX lifted from the best cubin among fat binary entries; None if none is liftable."""
    e = choose_cubin(entries, max_arch)
    if e is None:
        return None
    return lift_cached(e.data())


def lifter_fingerprint() -> str:
    """A hash of the lifter's own sources: a changed lifter never reuses old lifts."""
    import hashlib
    from pathlib import Path

    h = hashlib.sha256()
    for p in sorted(Path(__file__).parent.glob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def lift_cached(elf: bytes) -> str:
    """lift_cubin(elf, partial=True), cached on disk like translations (key: the cubin's
    bytes, the lifter's sources, nvdisasm's version); a cached lift logs its refusals
    again, so every load names the kernels that did not lift."""
    import json
    import logging

    from pyshim.kernels import cache
    from pyshim.sass.decode import nvdisasm_version
    from pyshim.sass.errors import LiftError
    from pyshim.sass.lift import ModuleLifter, _refusal_message

    log = logging.getLogger("pyshim")
    key = cache.cache_key(bytes(elf), lifter_fingerprint(), nvdisasm_version(), "sass-lift")
    found = cache.lookup(key, ".json")
    entry = None
    if found is not None:
        try:
            entry = json.loads(cache.read_entry(found))
        except (cache.CacheError, ValueError):
            entry = None
    if entry is None:
        ml = ModuleLifter(elf)
        ptx, refused = ml.lift()
        entry = {"ptx": ptx, "refused": refused, "kernels": len(ml.cub.kernels)}
        cache.store(key, ".json", json.dumps(entry).encode())
    refused = entry["refused"]
    if refused and len(refused) >= entry["kernels"]:
        raise LiftError(_refusal_message(refused), kernel=next(iter(refused)),
                        opcodes=tuple(sorted({o for r in refused.values() for o in r})))
    for name, ops in refused.items():
        log.warning("pyshim: kernel %s is SASS only and does not lift: %s", name,
                    _refusal_message({name: ops}))
    return entry["ptx"]
