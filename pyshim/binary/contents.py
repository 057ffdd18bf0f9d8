"""What kernels a host binary carries, per fat binary container: as PTX (translatable, with
ISA version and arch) and as SASS (NVIDIA machine code, not translatable). `pyshim check`
builds on this; a malformed container is reported, not raised, so one bad container does
not hide the others.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field

from pyshim.binary import fatbin
from pyshim.binary.elf import HostElf
from pyshim.binary.errors import FatbinError


@dataclass
class PtxInfo:
    isa: tuple[int, int]
    arch: int
    compression: str | None
    kernels: list[str]


@dataclass
class ContainerReport:
    section: str  # .nv_fatbin or __nv_relfatbin
    address: int  # virtual address of the container
    size: int
    wrapper_versions: list[int]  # versions of the wrappers pointing here ([] = none)
    ptx: list[PtxInfo] = field(default_factory=list)
    sass_archs: list[int] = field(default_factory=list)
    sass_kernels: list[str] = field(default_factory=list)
    error: str | None = None  # why this container could not be read

    @property
    def ptx_kernels(self) -> list[str]:
        return sorted({k for p in self.ptx for k in p.kernels})

    @property
    def kernels(self) -> list[str]:
        return sorted(set(self.ptx_kernels) | set(self.sass_kernels))

    @property
    def sass_only_kernels(self) -> list[str]:
        """Kernels that exist only as SASS: these cannot run under pyshim."""
        return sorted(set(self.sass_kernels) - set(self.ptx_kernels))

    def to_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["kernels"] = self.kernels
        d["sass_only_kernels"] = self.sass_only_kernels
        return d


def _describe(report: ContainerReport, data: bytes) -> None:
    try:
        items = fatbin.entries(data)
        for e in items:
            if e.is_ptx:
                report.ptx.append(PtxInfo(isa=e.version, arch=e.arch,
                                          compression=e.compression,
                                          kernels=sorted(fatbin.ptx_kernels(e.data()))))
            elif e.is_elf:
                report.sass_archs.append(e.arch)
                report.sass_kernels.extend(fatbin.cubin_kernels(e.data()))
    except FatbinError as exc:
        report.error = str(exc)
    report.sass_archs = sorted(set(report.sass_archs))
    report.sass_kernels = sorted(set(report.sass_kernels))


def kernels_in_binary(path: str | os.PathLike[str]) -> list[ContainerReport]:
    """One report per fat binary container embedded in the ELF file at `path`, in file
    order. Raises ElfError if the file is not a readable ELF and FatbinError if the fatbin
    sections themselves cannot be walked."""
    with HostElf(path) as elf:
        pointed: dict[int, list[int]] = {}
        for w in elf.fatbin_wrappers():
            pointed.setdefault(w.data_address, []).append(w.version)
        reports = []
        for c in elf.embedded_containers():
            report = ContainerReport(section=c.section, address=c.address, size=len(c.data),
                                     wrapper_versions=sorted(pointed.get(c.address, [])))
            _describe(report, c.data)
            reports.append(report)
        return reports
