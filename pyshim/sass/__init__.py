"""The SASS front end: cubins (sm_75..sm_90) decoded with NVIDIA's nvdisasm and lifted into
PTX text that the PTX front end reads, so every pass and target serves SASS-only kernels.

    ptx = lift_cubin(elf_bytes)        # raises LiftError naming the opcodes it cannot lift
"""

from pyshim.sass.errors import LiftError, NoDisassembler
from pyshim.sass.lift import lift_cubin, lift_report

__all__ = ["LiftError", "NoDisassembler", "lift_cubin", "lift_report"]
