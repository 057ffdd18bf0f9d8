"""The kernels a file embeds: PTX ISA versions and SASS archs per kernel, and whether the
PTX the loader would pick translates (a dry run, bounded so that a math library with
hundreds of MB of PTX is still checked in seconds: past the budget a module is listed but
not translated, and the report says so).

The loader translates a whole module (fat binary container) at once, so a translation
error fails every kernel of that module; the kernel the error is in is named first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pyshim.binary import fatbin
from pyshim.binary.elf import HostElf
from pyshim.binary.errors import FatbinError, NoPtxError, UnsupportedPtxVersion
from pyshim.check import translate_probe

DEFAULT_PTX_BUDGET = 16 << 20  # bytes of PTX text dry-run translated per file
DEFAULT_TIME_BUDGET = 20.0  # seconds of dry runs per file


@dataclass
class Kernel:
    name: str
    ptx: list[str] = field(default_factory=list)  # PTX ISA versions, "9.0"
    ptx_archs: list[str] = field(default_factory=list)  # "compute_75"
    sass: list[str] = field(default_factory=list)  # "sm_75"
    translates: bool | None = None
    unsupported_instructions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "ptx": self.ptx, "ptx_archs": self.ptx_archs,
                "sass": self.sass, "translates": self.translates,
                "unsupported_instructions": self.unsupported_instructions,
                "notes": self.notes}


@dataclass
class Budget:
    ptx_bytes: int = DEFAULT_PTX_BUDGET
    seconds: float = DEFAULT_TIME_BUDGET
    used_bytes: int = 0
    started: float = field(default_factory=time.monotonic)

    def allows(self, size: int) -> str | None:
        """None if a module of `size` bytes may be dry-run, else why not."""
        if self.used_bytes + size > self.ptx_bytes:
            return f"PTX budget of {self.ptx_bytes >> 20} MiB per file used up"
        if time.monotonic() - self.started > self.seconds:
            return f"time budget of {self.seconds:g} s per file used up"
        return None


@dataclass
class KernelScan:
    kernels: list[Kernel]
    containers: int
    errors: list[str]  # containers that could not be read
    modules_translated: int = 0
    modules_skipped: int = 0
    ptx_bytes: int = 0


def _isa(v: tuple[int, int]) -> str:
    return f"{v[0]}.{v[1]}"


def _add(lst: list[str], value: str) -> None:
    if value not in lst:
        lst.append(value)


def _translate(entries: list[fatbin.Entry], names: list[str], by_name: dict[str, Kernel],
               budget: Budget, scan: KernelScan) -> None:
    """Dry-run the PTX the loader would choose for this container and mark its kernels."""
    try:
        chosen = fatbin.choose_ptx(entries)
    except NoPtxError:
        return  # SASS-only kernels are reported from the inventory
    except UnsupportedPtxVersion as exc:
        for n in names:
            by_name[n].translates = False
            _add(by_name[n].notes, str(exc))
        return
    why = budget.allows(chosen.uncompressed_size or len(chosen.stored))
    if why is not None:
        scan.modules_skipped += 1
        for n in names:
            _add(by_name[n].notes, f"translation not checked: {why}")
        return
    try:
        text = chosen.ptx()
    except FatbinError as exc:
        for n in names:
            by_name[n].translates = False
            _add(by_name[n].notes, f"PTX unreadable: {exc}")
        return
    budget.used_bytes += len(text)
    scan.ptx_bytes += len(text)
    scan.modules_translated += 1
    out = translate_probe.dry_run(text)
    for n in names:
        k = by_name[n]
        if out.translates is False:
            k.translates = False
            if out.function in (None, "", n):
                if out.unsupported and out.error:
                    _add(k.unsupported_instructions, out.error)
                elif out.error:
                    _add(k.notes, out.error)
            else:
                _add(k.notes, f"its module fails to translate: {out.error}")
        elif out.translates is True:
            if k.translates is None:
                k.translates = True
        elif out.note:
            _add(k.notes, out.note)


def scan(elf: HostElf, translate: bool = True, budget: Budget | None = None,
         progress: Callable[[int, int], None] | None = None) -> KernelScan:
    """Every kernel of every container in `elf`, merged by name."""
    budget = budget or Budget()
    by_name: dict[str, Kernel] = {}
    containers = elf.embedded_containers()
    result = KernelScan(kernels=[], containers=len(containers), errors=[])
    for i, c in enumerate(containers):
        if progress is not None:
            progress(i, len(containers))
        try:
            entries = fatbin.entries(c.data)
        except FatbinError as exc:
            result.errors.append(f"container at {c.address:#x} ({c.section}): {exc}")
            continue
        names: list[str] = []
        for e in entries:
            try:
                if e.is_ptx:
                    found = fatbin.ptx_kernels(e.data())
                elif e.is_elf:
                    found = fatbin.cubin_kernels(e.data())
                else:
                    continue
            except FatbinError as exc:
                result.errors.append(f"container at {c.address:#x}, {e.describe()}: {exc}")
                continue
            for n in found:
                k = by_name.setdefault(n, Kernel(name=n))
                if n not in names:
                    names.append(n)
                if e.is_ptx:
                    _add(k.ptx, _isa(e.version))
                    _add(k.ptx_archs, f"compute_{e.arch}")
                else:
                    _add(k.sass, f"sm_{e.arch}")
        ptx_names = [n for n in names if by_name[n].ptx]
        if translate and ptx_names:
            _translate(entries, ptx_names, by_name, budget, result)
    for k in by_name.values():
        k.ptx.sort(key=lambda v: tuple(int(x) for x in v.split(".")))
        k.ptx_archs.sort(key=lambda v: int(v.split("_")[1]))
        k.sass.sort(key=lambda v: int(v.split("_")[1]))
        if not k.ptx:
            k.translates = False
            _add(k.notes, "SASS only (" + ", ".join(k.sass) + "): no PTX to translate")
    result.kernels = sorted(by_name.values(), key=lambda k: k.name)
    return result
