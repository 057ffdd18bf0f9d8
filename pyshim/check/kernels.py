"""The kernels a file embeds: PTX ISA versions and SASS archs per kernel, and whether the
PTX the loader would pick translates (a dry run, bounded so that a math library with
hundreds of MB of PTX is still checked in seconds: past the budget a module is listed but
not translated, and the report says so).

The loader translates a whole module (fat binary container) at once, so a translation
error fails every kernel of that module; the kernel the error is in is named first.
"""

from __future__ import annotations

import mmap
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from pyshim.binary import fatbin
from pyshim.binary.elf import FATBIN_SECTIONS, HostElf
from pyshim.binary.errors import FatbinError, NoPtxError, UnsupportedPtxVersion
from pyshim.check import cubin, translate_probe

DEFAULT_PTX_BUDGET = 16 << 20  # bytes of PTX text dry-run translated per file (--deep)
DEFAULT_TIME_BUDGET = 20.0  # seconds of dry runs per file (--deep)
# the scan (scan.py) costs a parse per module and a dry run per new instruction shape
SCAN_PTX_BUDGET = 1 << 30
SCAN_TIME_BUDGET = 120.0


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
    deep: bool = False  # the full translator dry run per module instead of the scan
    jobs: int = 1       # worker processes for the modules' verdicts

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
    sass: object = None  # check.sass_lift.SassSummary, for files with SASS-only kernels


def _isa(v: tuple[int, int]) -> str:
    return f"{v[0]}.{v[1]}"


def _add(lst: list[str], value: str) -> None:
    if value not in lst:
        lst.append(value)


@dataclass
class _Failed:
    """A module whose first dry run failed: its other errors are looked for afterwards."""

    names: list[str]
    text: str
    first: translate_probe.Outcome


def _prepare(entries: list[fatbin.Entry] | str, names: list[str], by_name: dict[str, Kernel],
             budget: Budget, scan: KernelScan) -> str | None:
    """The PTX text the loader would choose for this container (or the linked text of the
    -rdc units), within the budget; None (and the kernels marked) where it is not checked."""
    from pyshim.kernels.loader import device_arch

    if isinstance(entries, str):  # the -rdc units, linked already (_link_relocatable)
        why = budget.allows(len(entries))
        if why is not None:
            scan.modules_skipped += 1
            for n in names:
                _add(by_name[n].notes, f"translation not checked: {why}")
            return None
        budget.used_bytes += len(entries)
        scan.ptx_bytes += len(entries)
        scan.modules_translated += 1
        return entries
    try:
        chosen = fatbin.choose_ptx(entries, max_arch=device_arch())
    except NoPtxError:
        return None  # SASS-only kernels are reported from the inventory
    except UnsupportedPtxVersion as exc:
        for n in names:
            by_name[n].translates = False
            _add(by_name[n].notes, str(exc))
        return None
    why = budget.allows(chosen.uncompressed_size or len(chosen.stored))
    if why is not None:
        scan.modules_skipped += 1
        for n in names:
            _add(by_name[n].notes, f"translation not checked: {why}")
        return None
    try:
        text = chosen.ptx()
    except FatbinError as exc:
        for n in names:
            by_name[n].translates = False
            _add(by_name[n].notes, f"PTX unreadable: {exc}")
        return None
    budget.used_bytes += len(text)
    scan.ptx_bytes += len(text)
    scan.modules_translated += 1
    return text


def _finish(text: str, names: list[str], out: translate_probe.Outcome,
            by_name: dict[str, Kernel]) -> _Failed | None:
    """Mark the kernels with the outcome; a module that fails with an unsupported
    instruction is returned for a second look."""
    if out.translates is False and out.unsupported or out.kernel_errors:
        return _Failed(names, text, out)
    _attribute(names, out, [out], by_name)
    return None


_memo: dict | None = None  # instruction shapes known to translate (scan.py), per process


def _outcome(text: str, deep: bool) -> translate_probe.Outcome:
    global _memo
    from pyshim.check import scan as shape_scan

    if _memo is None:
        _memo = shape_scan.load_memo()
    before = len(_memo)
    out = shape_scan.cached_outcome(text, deep, _memo)
    if len(_memo) > before:
        shape_scan.save_memo(_memo)
    return out


def _translate(entries: list[fatbin.Entry] | str, names: list[str], by_name: dict[str, Kernel],
               budget: Budget, scan: KernelScan) -> _Failed | None:
    """Dry-run (or scan) the PTX the loader would choose for this container and mark its
    kernels; a module that fails with an unsupported instruction is returned."""
    text = _prepare(entries, names, by_name, budget, scan)
    if text is None:
        return None
    return _finish(text, names, _outcome(text, budget.deep), by_name)


def _attribute(names: list[str], out: translate_probe.Outcome,
               errors: list[translate_probe.Outcome], by_name: dict[str, Kernel]) -> None:
    """Mark the kernels of one module with its dry-run outcome: the whole module fails to
    load if any of it fails, and each kernel lists the errors inside it."""
    own = {e.function for e in errors if e.function}
    per_kernel: dict[str, list[str]] = {}
    for name, msg in out.kernel_errors:
        per_kernel.setdefault(name, []).append(msg)
    for n in names:
        k = by_name[n]
        if n in per_kernel:  # this kernel alone cannot run; its module loads
            k.translates = False
            for msg in per_kernel[n]:
                _add(k.unsupported_instructions, msg)
        elif out.translates is False:
            k.translates = False
            for e in errors:
                if e.function not in (None, "", n):
                    continue
                if e.unsupported and e.error:
                    _add(k.unsupported_instructions, e.error)
                elif e.error:
                    _add(k.notes, e.error)
            if n not in own:
                _add(k.notes, f"its module fails to translate: {out.error}")
        elif out.translates is True:
            if k.translates is None:
                k.translates = True
        elif out.note:
            _add(k.notes, out.note)


def _second_look(failed: list[_Failed], by_name: dict[str, Kernel], budget: Budget) -> None:
    """With the time left after every module had its first dry run, find the other
    unsupported instructions of the modules that failed."""
    deadline = budget.started + budget.seconds
    for f in failed:
        if f.first.kernel_errors:  # the module loads; some of its kernels do not
            _attribute(f.names, translate_probe.all_kernel_errors(f.text, f.first, deadline),
                       [], by_name)
            continue
        errors = translate_probe.all_unsupported(f.text, f.first, deadline)
        _attribute(f.names, f.first, errors, by_name)


def _containers(elf: HostElf, view: memoryview) -> Iterator[tuple[str, int, memoryview]]:
    """(section, address, bytes) of each container in the fatbin sections, as views of the
    map: nothing is copied until an entry is decompressed (HostElf.embedded_containers
    copies every container, 500 MB for a big library)."""
    for name in FATBIN_SECTIONS:
        s = elf.section(name)
        if s is None or s.type == "SHT_NOBITS":
            continue
        if s.offset + s.size > len(view):
            raise FatbinError(f"{elf.path}: section {name} lies outside the file")
        data = view[s.offset:s.offset + s.size]
        try:
            yield from _walk(elf, name, s.address, data)
        finally:
            # an error leaves this frame alive in the traceback: let go of the map now, or
            # closing it fails with BufferError and hides the real error
            data.release()


def _walk(elf: HostElf, name: str, address: int,
          data: memoryview) -> Iterator[tuple[str, int, memoryview]]:
    pos = 0
    size_all = len(data)
    head_size = fatbin.CONTAINER_HEADER.size
    while pos + head_size <= size_all:
        head = bytes(data[pos:pos + head_size])
        if head == bytes(head_size):
            pos += 8  # alignment padding between containers
            continue
        try:
            size = fatbin.container_size(head)
        except FatbinError as exc:
            raise FatbinError(f"{elf.path}: {name}+{pos:#x}: {exc}") from None
        if pos + size > size_all:
            raise FatbinError(f"{elf.path}: {name}+{pos:#x}: container of {size} bytes "
                              f"runs past the section ({size_all} bytes)")
        piece = data[pos:pos + size]
        try:
            yield name, address + pos, piece
        finally:
            piece.release()
        pos += (size + 7) & ~7


def scan(elf: HostElf, translate: bool = True, budget: Budget | None = None,
         progress: Callable[[str], None] | None = None) -> KernelScan:
    """Every kernel of every container in `elf`, merged by name. Modules are dry-run
    translated smallest first, so a budget covers as many kernels as it can."""
    budget = budget or Budget()
    by_name: dict[str, Kernel] = {}
    result = KernelScan(kernels=[], containers=0, errors=[])
    modules: list[tuple[int, list[fatbin.Entry] | str, list[str]]] = []
    relocatable: list[tuple[int, list[fatbin.Entry], list[str]]] = []  # -rdc units
    sass_modules: list[list[fatbin.Entry]] = []  # containers with no PTX: to lift
    with open(elf.path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        view = memoryview(m)
        try:
            for section, address, data in _containers(elf, view):
                result.containers += 1
                if progress is not None and result.containers % 256 == 1:
                    progress(f"kernels: reading container {result.containers}, "
                             f"{len(by_name)} kernels so far")
                names = _inventory(address, data, by_name, result)
                del data
                if names is not None and not names[1] and translate:
                    sass_modules.append([e for e in names[0] if e.is_elf])
                if names is not None and names[1]:
                    entries, ptx_names = names
                    ptx = [e for e in entries if e.is_ptx]
                    size = min(e.uncompressed_size or len(e.stored) for e in ptx)
                    # keep only the PTX entries: the cubins were needed for names only
                    (relocatable if section == "__nv_relfatbin" else modules).append(
                        (size, ptx, ptx_names))
        finally:
            view.release()
    modules += _link_relocatable(relocatable)
    if progress is not None:
        progress(f"kernels: {len(by_name)} in {result.containers} containers; "
                 f"{len(modules)} PTX modules" + (" to dry-run translate" if translate else ""))
    if translate:
        failed = _verdicts(sorted(modules, key=lambda t: t[0]), by_name, budget, result,
                           progress)
        if progress is not None and failed:
            progress(f"kernels: looking for more unsupported instructions in "
                     f"{len(failed)} failed modules")
        _second_look(failed, by_name, budget)
    if sass_modules:
        from pyshim.check.sass_lift import lift_modules

        result.sass = lift_modules(sass_modules, by_name)
    for k in by_name.values():
        k.ptx.sort(key=lambda v: tuple(int(x) for x in v.split(".")))
        k.ptx_archs.sort(key=lambda v: int(v.split("_")[1]))
        k.sass.sort(key=lambda v: int(v.split("_")[1]))
        if not k.ptx and k.translates is None:
            k.translates = False
            _add(k.notes, "SASS only (" + ", ".join(k.sass) + "): no PTX to translate")
    result.kernels = sorted(by_name.values(), key=lambda k: k.name)
    return result


def _link_relocatable(units: list[tuple[int, list[fatbin.Entry], list[str]]]
                      ) -> list[tuple[int, list[fatbin.Entry] | str, list[str]]]:
    """The -rdc translation units (and the device libraries linked with them, such as
    libcudadevrt) as the loader sees them: one module of their PTX, linked (loader.py,
    kernels/ptx_link.py), so that a call into another unit is no unresolved extern. Units
    that do not link are checked one by one, as before."""
    if len(units) < 2:
        return list(units)
    from pyshim.kernels import ptx_link
    from pyshim.kernels.loader import device_arch

    try:
        texts = [fatbin.choose_ptx(entries, max_arch=device_arch()).ptx()
                 for _size, entries, _names in units]
        text = ptx_link.link_ptx(texts, [f"translation unit {i + 1}" for i in range(len(units))])
    except (FatbinError, ptx_link.PtxLinkError):
        return list(units)
    names = [n for _size, _entries, unit_names in units for n in unit_names]
    return [(len(text), text, names)]


def _verdicts(modules: list, by_name: dict[str, Kernel], budget: Budget, result: KernelScan,
              progress: Callable[[str], None] | None) -> list[_Failed]:
    """Each module's verdict, in `budget.jobs` worker processes when there are several."""
    failed: list[_Failed] = []
    jobs = budget.jobs if len(modules) > 1 else 1

    def step(i: int) -> None:
        if progress is not None and (i + 1) % 16 == 0:
            progress(f"kernels: {i + 1}/{len(modules)} PTX modules done "
                     f"({result.modules_translated} checked, "
                     f"{result.modules_skipped} over budget)")

    if jobs <= 1:
        for i, (_size, entries, ptx_names) in enumerate(modules):
            f = _translate(entries, ptx_names, by_name, budget, result)
            if f is not None:
                failed.append(f)
            step(i)
        return failed
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending = []
        for _size, entries, ptx_names in modules:
            text = _prepare(entries, ptx_names, by_name, budget, result)
            if text is not None:
                pending.append((text, ptx_names, pool.submit(_outcome, text, budget.deep)))
        for i, (text, ptx_names, fut) in enumerate(pending):
            f = _finish(text, ptx_names, fut.result(), by_name)
            if f is not None:
                failed.append(f)
            step(i)
    return failed


def _inventory(address: int, data: memoryview, by_name: dict[str, Kernel],
               result: KernelScan) -> tuple[list[fatbin.Entry], list[str]] | None:
    """Record the kernels of one container; return its entries and its PTX kernels."""
    try:
        entries = fatbin.entries(data)
    except FatbinError as exc:
        result.errors.append(f"container at {address:#x}: {exc}")
        return None
    ptx_names: list[str] = []
    for e in entries:
        try:
            if e.is_ptx:
                found = fatbin.ptx_kernels(e.data())
            elif e.is_elf:
                found = cubin.kernels(e.data())
            else:
                continue
        except FatbinError as exc:
            result.errors.append(f"container at {address:#x}, {e.describe()}: {exc}")
            continue
        for n in found:
            k = by_name.setdefault(n, Kernel(name=n))
            if e.is_ptx:
                _add(ptx_names, n)
                _add(k.ptx, _isa(e.version))
                _add(k.ptx_archs, f"compute_{e.arch}")
            else:
                _add(k.sass, f"sm_{e.arch}")
    return entries, ptx_names
