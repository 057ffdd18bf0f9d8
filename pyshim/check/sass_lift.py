"""`pyshim check` for SASS-only kernels: does each lift (pyshim.sass), and which opcodes do
not. One cubin per container is lifted (the arch the device would take), under a time
budget: a file with thousands of cubins is sampled in container order, and the report says
how many were looked at. nvdisasm's listings are cached, so a second check is faster.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field

DEFAULT_SASS_SECONDS = float(os.environ.get("PYSHIM_CHECK_SASS_SECONDS", "20"))


@dataclass
class SassSummary:
    cubins: int = 0              # SASS-only containers with a liftable cubin
    cubins_checked: int = 0
    kernels_checked: int = 0
    kernels_lift: int = 0
    opcodes: Counter = field(default_factory=Counter)  # unlifted opcode -> kernels
    arch: int = 0
    note: str = ""

    def line(self) -> str:
        top = ", ".join(f"{o} ({n})" for o, n in self.opcodes.most_common(10))
        share = 100.0 * self.kernels_lift / self.kernels_checked if self.kernels_checked else 0
        s = (f"SASS-only: {self.cubins} cubins, {self.cubins_checked} lifted-checked for "
             f"sm_{self.arch}: {self.kernels_lift} of {self.kernels_checked} kernels lift "
             f"({share:.1f}%)")
        if self.note:
            s += f" [{self.note}]"
        if top:
            s += f"; unlifted opcodes: {top}"
        return s


def check_arch() -> int:
    return int(os.environ.get("PYSHIM_CHECK_SASS_ARCH", "86"))


def lift_modules(modules: list[list], by_name: dict, seconds: float | None = None
                 ) -> SassSummary:
    """Lift one cubin of each SASS-only container; mark its kernels in `by_name`."""
    from pyshim.sass.errors import LiftError, NoDisassembler
    from pyshim.sass.image import choose_cubin
    from pyshim.sass.lift import lift_report

    arch = check_arch()
    if seconds is None:
        seconds = DEFAULT_SASS_SECONDS
    out = SassSummary(arch=arch)
    start = time.monotonic()
    chosen = [e for e in (choose_cubin(m, arch) for m in modules) if e is not None]
    out.cubins = len(chosen)
    # a sample spread over the whole file, the same on every run (cached listings then
    # make a second check cover more)
    random.Random(0).shuffle(chosen)
    for e in chosen:
        if time.monotonic() - start > seconds:
            out.note = (f"a random sample: time budget of {seconds:g} s used up "
                        "($PYSHIM_CHECK_SASS_SECONDS)")
            break
        out.arch = e.arch
        try:
            report = lift_report(e.data())
        except NoDisassembler as exc:
            out.note = str(exc)
            break
        except LiftError as exc:
            report = {}
            out.opcodes[f"(cubin: {exc})"[:80]] += 1
        out.cubins_checked += 1
        for name, refused in report.items():
            out.kernels_checked += 1
            k = by_name.get(name)
            if not refused:
                out.kernels_lift += 1
                if k is not None:
                    k.translates = True
                    k.notes.append(f"SASS only: lifts from sm_{e.arch}")
                continue
            for op in refused:
                out.opcodes[op] += 1
            if k is not None:
                k.translates = False
                for op in sorted(refused):
                    if op not in k.unsupported_instructions:
                        k.unsupported_instructions.append(op)
                k.notes.append(f"SASS only: sm_{e.arch} does not lift (" +
                               ", ".join(sorted(refused)) + ")")
    return out
