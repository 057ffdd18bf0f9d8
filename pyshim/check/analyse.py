"""One file's report: how it reaches CUDA, what it asks of each CUDA library, its kernels,
and the verdict (runs | runs-with-gaps | cannot-run) with the reasons for it.

Verdict rules (each reason names the thing):
  cannot-run      the file cannot be read, its fat binaries are malformed, or it has kernels
                  and none of them can run (SASS only, PTX that does not translate);
  runs-with-gaps  some kernels cannot run; it imports or calls an entry point the tables
                  mark unsupported or do not know; it needs an NVIDIA library pyshim does not
                  replace and that library is missing or has gaps of its own;
  runs            none of the above.
What cannot be known statically (stripped calls, translation not checked) goes in `notes`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pyshim.binary.elf import HostElf
from pyshim.binary.errors import BinaryError
from pyshim.check import backends, hooks, libraries, static_cudart
from pyshim.check import kernels as kernel_scan
from pyshim.check.tables import TABLE_LIBRARIES, Tables

RUNS = "runs"
GAPS = "runs-with-gaps"
CANNOT = "cannot-run"
VERDICTS = (RUNS, GAPS, CANNOT)
_LIST_CAP = 10  # names listed in one reason before "and N more"
_CUDA_PREFIXES = ("cu", "__cuda", "nvrtc", "nccl")


@dataclass
class EntryPoint:
    name: str
    library: str
    status: str  # a table class, "unknown" (not in the tables) or "not-replaced"
    via: str  # "import" (dynamic symbol), "call" (static cudart), "cuGetProcAddress"
    reason: str | None = None
    # backend -> the HIP target it lacks, for an entry point the tables forward to HIP
    backend_gaps: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "library": self.library, "status": self.status,
                "via": self.via, "reason": self.reason, "backend_gaps": self.backend_gaps}


@dataclass
class Dependency:
    soname: str
    family: str
    replaced: bool
    path: str | None  # where it was found (None: not found in RPATH/RUNPATH/origin)

    def to_dict(self) -> dict[str, object]:
        return {"soname": self.soname, "family": self.family, "replaced": self.replaced,
                "path": self.path}


@dataclass
class BinaryReport:
    path: str
    verdict: str = RUNS
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cuda_access: list[str] = field(default_factory=list)
    cuda_libraries: list[str] = field(default_factory=list)
    dependencies: list[Dependency] = field(default_factory=list)
    static_cudart: dict[str, object] | None = None
    entry_points: list[EntryPoint] = field(default_factory=list)
    kernels: list[kernel_scan.Kernel] = field(default_factory=list)
    uses_cuda: bool = False
    needed_by: str | None = None  # checked because this file depends on it
    stats: dict[str, int] = field(default_factory=dict)
    # backend -> entry points used (not merely nameable) whose HIP target it lacks
    backend_gaps: dict[str, list[str]] = field(default_factory=dict)

    def gap(self, reason: str) -> None:
        self.reasons.append(reason)
        if self.verdict == RUNS:
            self.verdict = GAPS

    def fail(self, reason: str) -> None:
        self.reasons.append(reason)
        self.verdict = CANNOT

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path, "verdict": self.verdict, "reasons": self.reasons,
            "notes": self.notes, "cuda_access": self.cuda_access,
            "cuda_libraries": self.cuda_libraries,
            "dependencies": [d.to_dict() for d in self.dependencies],
            "static_cudart": self.static_cudart,
            "entry_points": [e.to_dict() for e in self.entry_points],
            "kernels": [k.to_dict() for k in self.kernels],
            "needed_by": self.needed_by, "stats": self.stats,
            "backend_gaps": self.backend_gaps,
        }


def _names(items: list[str]) -> str:
    shown = ", ".join(items[:_LIST_CAP])
    more = len(items) - _LIST_CAP
    return shown + (f" and {more} more" if more > 0 else "")


def _imports(elf: HostElf, tables: Tables, report: BinaryReport) -> None:
    """Entry points imported through the dynamic symbol table."""
    for sym in elf.imported_symbols():
        st = tables.lookup(sym.name)
        lib = libraries.classify(sym.version) if sym.version else None
        if st is not None:
            library = sym.version or TABLE_LIBRARIES[st.api]
            if lib is not None and not lib.replaced:
                # cublasLt exports some cublas-looking names: what counts is where it binds
                report.entry_points.append(EntryPoint(sym.name, library, "not-replaced",
                                                      "import", f"from {lib.family}"))
                continue
            report.entry_points.append(EntryPoint(sym.name, library, st.status, "import",
                                                  st.reason))
        elif sym.name.startswith(hooks.PREFIX):
            hook_status, why = hooks.status(sym.name)
            report.entry_points.append(EntryPoint(sym.name, sym.version or "libcudart.so",
                                                  hook_status, "import", why))
        elif lib is not None:
            status = "unknown" if lib.replaced else "not-replaced"
            why = "not in the dispatch tables" if lib.replaced else f"from {lib.family}"
            report.entry_points.append(EntryPoint(sym.name, sym.version or lib.soname,
                                                  status, "import", why))
        elif sym.name.startswith(_CUDA_PREFIXES) and sym.name[2:3].isupper() \
                and sym.version is None and any(d.family == "driver"
                                                for d in report.dependencies):
            report.entry_points.append(EntryPoint(sym.name, "libcuda.so.1", "unknown",
                                                  "import", "not in the dispatch tables"))


def _dependencies(elf: HostElf, path: Path, report: BinaryReport) -> list[Path]:
    """Classify DT_NEEDED; return the paths of CUDA-using libraries worth checking too."""
    dirs = libraries.search_dirs(path, elf.rpath(), elf.runpath())
    to_check: list[Path] = []
    for soname in elf.needed():
        lib = libraries.classify(soname)
        found = libraries.find(soname, dirs)
        if lib is None:
            if found is not None:
                to_check.append(found)  # maybe a CUDA-using library of the application's
            continue
        report.cuda_libraries.append(soname)
        report.dependencies.append(Dependency(soname, lib.family, lib.replaced,
                                              str(found) if found else None))
        if not lib.replaced:
            if found is None:
                report.gap(f"needs {soname} ({lib.family}), which pyshim does not replace "
                           f"and which was not found beside it or in its RPATH/RUNPATH")
            else:
                to_check.append(found)
    return to_check


def _access(report: BinaryReport, cudart: static_cudart.StaticCudart) -> None:
    fam = {d.family: d.soname for d in report.dependencies}
    if cudart.present:
        # the version is a lower bound: the newest driver ABI the cudart asks for
        v = f", CUDA >= {cudart.version}" if cudart.version else ""
        report.cuda_access.append(f"static cudart{v} (dlopens libcuda.so.1)")
        if "libcuda.so.1" not in report.cuda_libraries:
            report.cuda_libraries.append("libcuda.so.1")
    for family, label in (("runtime", "shared cudart"), ("driver", "driver API"),
                          ("cublas", "cuBLAS"), ("cusolver", "cuSOLVER")):
        if family in fam:
            report.cuda_access.append(f"{label} ({fam[family]})")
    for d in report.dependencies:
        if not d.replaced:
            report.cuda_access.append(f"{d.family} ({d.soname}, not replaced by pyshim)")


def _static(cudart: static_cudart.StaticCudart, tables: Tables, report: BinaryReport) -> None:
    report.static_cudart = {"version": cudart.version, "driver_abi": cudart.driver_abi,
                            "evidence": cudart.evidence,
                            "calls_visible": cudart.calls_visible}
    for name in cudart.runtime_calls:
        st = tables.lookup(name)
        if st is not None:
            report.entry_points.append(EntryPoint(name, "libcudart_static", st.status,
                                                  "call", st.reason))
        else:
            hook_status, why = hooks.status(name)
            report.entry_points.append(EntryPoint(name, "libcudart_static", hook_status,
                                                  "call", why))
    for name in cudart.driver_names:
        st = tables.driver_status(name)
        if st is not None:
            report.entry_points.append(EntryPoint(name, "libcuda.so.1", st.status,
                                                  "cuGetProcAddress", st.reason))
    asked = [e for e in report.entry_points if e.via == "cuGetProcAddress"]
    missing = [e.name for e in asked if e.status == "unsupported"]
    report.notes.append(
        f"static cudart can request {len(asked)} driver entry points; {len(missing)} are "
        f"unsupported (cudart tolerates them until one is used)")
    if not cudart.calls_visible:
        report.notes.append("no symbol table: the runtime functions it calls cannot be seen")


def _by_name(cudart: static_cudart.StaticCudart, tables: Tables, report: BinaryReport) -> None:
    """A library that loads libcuda.so.1 itself and looks entry points up by name."""
    report.cuda_access.append("driver API by name (loads libcuda.so.1 and looks entry points "
                              "up itself)")
    if "libcuda.so.1" not in report.cuda_libraries:
        report.cuda_libraries.append("libcuda.so.1")
    for name in cudart.driver_names:
        st = tables.driver_status(name)
        if st is not None:
            report.entry_points.append(EntryPoint(name, "libcuda.so.1", st.status,
                                                  "cuGetProcAddress", st.reason))
    asked = [e for e in report.entry_points if e.via == "cuGetProcAddress"]
    missing = sum(e.status == "unsupported" for e in asked)
    report.notes.append(f"names {len(asked)} driver entry points; {missing} are unsupported "
                        f"(which of them it calls cannot be seen statically)")


def _kernels(elf: HostElf, report: BinaryReport, translate: bool,
             budget: kernel_scan.Budget, progress: Callable[[str], None] | None) -> None:
    try:
        ks = kernel_scan.scan(elf, translate=translate, budget=budget, progress=progress)
    except BinaryError as exc:
        report.fail(f"fat binaries unreadable: {exc}")
        return
    report.kernels = ks.kernels
    report.stats.update(containers=ks.containers, kernels=len(ks.kernels),
                        modules_translated=ks.modules_translated,
                        modules_skipped=ks.modules_skipped, ptx_bytes_translated=ks.ptx_bytes)
    for err in ks.errors:
        report.gap(f"unreadable fat binary: {err}")
    if ks.sass is not None:  # SASS-only kernels lifted (pyshim.sass)
        report.notes.append(ks.sass.line())
        report.stats.update(sass_cubins=ks.sass.cubins, sass_kernels_lift=ks.sass.kernels_lift,
                            sass_kernels_checked=ks.sass.kernels_checked)
    if ks.modules_skipped:
        report.notes.append(f"{ks.modules_skipped} of {ks.modules_skipped + ks.modules_translated}"
                            f" PTX modules not dry-run translated (budget); their kernels "
                            f"show translates: null")
    bad = [k for k in ks.kernels if k.translates is False]
    sass_only = [k.name for k in bad if not k.ptx]
    failing = [k.name for k in bad if k.ptx]
    if ks.kernels and len(bad) == len(ks.kernels):
        report.fail(f"no kernel can run: {_describe_bad(sass_only, failing)}")
    elif bad:
        report.gap(f"{len(bad)} of {len(ks.kernels)} kernels cannot run: "
                   f"{_describe_bad(sass_only, failing)}")
    unknown = [k for k in ks.kernels if k.translates is None]
    if unknown and not ks.modules_skipped:
        note = next((n for k in unknown for n in k.notes), "")
        report.notes.append(f"translation of {len(unknown)} kernels not checked: {note}")


def _describe_bad(sass_only: list[str], failing: list[str]) -> str:
    parts = []
    if sass_only:
        parts.append(f"SASS only, no PTX: {_names(sass_only)}")
    if failing:
        parts.append(f"PTX does not translate: {_names(failing)}")
    return "; ".join(parts)


def _entry_gaps(report: BinaryReport) -> None:
    used = [e for e in report.entry_points if e.via != "cuGetProcAddress"]
    unsupported = sorted({e.name for e in used if e.status == "unsupported"})
    unknown = sorted({e.name for e in used if e.status == "unknown"})
    if unsupported:
        report.gap(f"uses {len(unsupported)} unsupported entry point(s): {_names(unsupported)}")
    if unknown:
        report.gap(f"uses {len(unknown)} entry point(s) the tables do not know: "
                   f"{_names(unknown)}")


_BACKEND_LABELS = {backends.CPU: "the CPU device", backends.ROCM: "ROCm (tables/rocm.json)"}


def _backend_gaps(report: BinaryReport, tables: Tables, have: backends.Backends) -> None:
    """Entry points the tables forward to a HIP function some backend does not have: they
    are `direct` (or converted, adapter) yet fail there at run time."""
    for e in report.entry_points:
        if e.status not in backends.FORWARDING:
            continue
        st = tables.driver_status(e.name) if e.via == "cuGetProcAddress" else tables.lookup(e.name)
        if st is not None:
            e.backend_gaps = have.missing(st.target)
    for backend, label in _BACKEND_LABELS.items():
        used = sorted({e.name for e in report.entry_points
                       if backend in e.backend_gaps and e.via != "cuGetProcAddress"})
        if not used:
            continue
        report.backend_gaps[backend] = used
        targets = {e.name: e.backend_gaps[backend] for e in report.entry_points
                   if backend in e.backend_gaps}
        report.gap(f"on {label}: {len(used)} entry point(s) whose HIP target it lacks fail "
                   f"at run time: {_names([f'{n} ({targets[n]})' for n in used])}")


def analyse(path: str | os.PathLike[str], tables: Tables, *, translate: bool = True,
            budget: kernel_scan.Budget | None = None,
            progress: Callable[[str], None] | None = None) -> tuple[BinaryReport, list[Path]]:
    """The report for one ELF file, and the libraries it needs that should be checked too.
    Raises BinaryError if it is not a readable ELF file."""
    p = Path(path)
    report = BinaryReport(path=str(p))
    budget = budget or kernel_scan.Budget()

    def say(msg: str) -> None:
        if progress is not None:
            progress(msg)

    with HostElf(p) as elf:
        say("dependencies")
        to_check = _dependencies(elf, p, report)
        say("static cudart")
        cudart = static_cudart.analyse(elf, tables)
        say("imports")
        _imports(elf, tables, report)
        _access(report, cudart)
        if cudart.present:
            _static(cudart, tables, report)
        elif cudart.driver_by_name:
            _by_name(cudart, tables, report)
        _kernels(elf, report, translate, budget, say)
    report.uses_cuda = bool(report.cuda_libraries or report.entry_points or report.kernels
                            or cudart.present or report.stats.get("containers"))
    _entry_gaps(report)
    _backend_gaps(report, tables, backends.load())
    own = libraries.classify(p.name)
    # NVIDIA's carry a cudart or kernels; pyshim's own libraries of these names carry neither
    if own is not None and own.replaced and (cudart.present or report.kernels):
        report.notes.append(f"this is NVIDIA's {own.family} library: under pyshim, pyshim's "
                            f"own {p.name} is loaded in its place")
    if not report.uses_cuda:
        report.notes.append("no CUDA use found")
    report.stats.update(
        entry_points=len(report.entry_points),
        unsupported_entry_points=sum(e.status == "unsupported" for e in report.entry_points
                                     if e.via != "cuGetProcAddress"))
    return report, to_check
