"""AMD GPUs: HIP-dialect source with no HIP headers, for clang -x hip -nogpuinc -nogpulib
(or hiprtc). wave32 (RDNA) and wave64 (CDNA) differ only in the wavefront primitives."""

from __future__ import annotations

from pyshim.ptx.targets.base import GpuTarget


class HipTarget(GpuTarget):
    prelude_files = ("gpu_types.h", "hip.h", "common.h", "atomics.h", "warp.h")

    def __init__(self, arch: str = "") -> None:
        self.arch = arch
        self.name = f"hip-wave{self.wave_size}" + (f":{arch}" if arch else "")

    def launch_bounds(self, threads: int) -> str:
        return f"__attribute__((amdgpu_flat_work_group_size(1, {threads}))) "


class HipWave64(HipTarget):
    wave_size = 64


class HipWave32(HipTarget):
    wave_size = 32
