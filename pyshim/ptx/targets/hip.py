"""AMD GPUs: HIP-dialect source with no HIP headers, for clang -x hip -nogpuinc -nogpulib
(or hiprtc). wave32 (RDNA) and wave64 (CDNA) differ only in the wavefront primitives."""

from __future__ import annotations

from pyshim.ptx.printf_buffer import SYMBOL as PRINTF_SYMBOL
from pyshim.ptx.targets.base import GpuTarget


class HipTarget(GpuTarget):
    prelude_files = ("gpu_types.h", "hip.h", "common.h", "atomics.h", "warp.h",
                     "printf_buffer.h")
    extern_functions = frozenset(("__assertfail", "vprintf"))

    def __init__(self, arch: str = "") -> None:
        self.arch = arch
        self.name = f"hip-wave{self.wave_size}" + (f":{arch}" if arch else "")
        self.uses_printf = False

    def prelude(self) -> str:
        # device printf: records in the module global the runtime drains (printf_buffer.h)
        return super().prelude() + (
            f'\nextern "C" PS_DEVQ uint8_t {PRINTF_SYMBOL}[];\n'
            "PS_FN int ps_vprintf(const ps_tctx *c, uint64_t fmt, uint64_t args) {\n"
            f"    (void)c; return ps_printf_record({PRINTF_SYMBOL}, fmt, args);\n}}\n")

    def extern_call(self, fe, inst, name, params, nrets):
        if name == "vprintf":
            self.uses_printf = True
        return super().extern_call(fe, inst, name, params, nrets)

    def module_descriptor(self, tr, kernels) -> str:
        if not self.uses_printf:
            return ""
        return (f'extern "C" {{ PS_DEVQ PS_ALIGN(64) uint8_t {PRINTF_SYMBOL}[PS_PRINTF_BYTES]; }}')

    def launch_bounds(self, threads: int) -> str:
        return f"__attribute__((amdgpu_flat_work_group_size(1, {threads}))) "


class HipWave64(HipTarget):
    wave_size = 64


class HipWave32(HipTarget):
    wave_size = 32
