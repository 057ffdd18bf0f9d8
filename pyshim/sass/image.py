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
    from pyshim.sass.lift import lift_cubin

    e = choose_cubin(entries, max_arch)
    if e is None:
        return None
    return lift_cubin(e.data(), partial=True)
