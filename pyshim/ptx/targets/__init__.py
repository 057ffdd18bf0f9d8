"""Code-generation targets: one subclass per target, each overriding a few attributes."""

from __future__ import annotations

from pyshim.ptx.targets.base import Target

TARGET_NAMES = ("cpu", "cpu-wave32", "cpu-wave64", "hip-wave32", "hip-wave64", "cuda")


def get_target(name: str) -> Target:
    """'cpu' (= cpu-wave64), 'cpu-wave32', 'cpu-wave64', 'hip-wave32[:gfxNNN]',
    'hip-wave64[:gfxNNN]', 'cuda'."""
    base, _, arch = name.partition(":")
    base, _, option = base.partition("+")
    if base in ("cpu", "cpu-wave64", "cpu-wave32") and option in ("", "fibers", "phases"):
        from pyshim.ptx.targets.cpu.target import CpuTarget

        # for tests and comparisons: "+fibers" runs every barrier kernel as fibers,
        # "+phases" as phases (never region loops)
        t = CpuTarget(32 if base == "cpu-wave32" else 64)
        t.phase_mode = option != "fibers"
        t.region_loops = option == ""
        return t
    if base in ("hip-wave32", "hip-wave64"):
        from pyshim.ptx.targets.hip import HipWave32, HipWave64

        return (HipWave32 if base == "hip-wave32" else HipWave64)(arch)
    if base == "cuda":
        from pyshim.ptx.targets.cuda import CudaTarget

        return CudaTarget()
    raise ValueError(f"unknown PTX target {name!r} (one of {', '.join(TARGET_NAMES)})")


__all__ = ["TARGET_NAMES", "Target", "get_target"]
