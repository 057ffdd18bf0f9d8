"""What every suite gets: the run's settings and the libraries shared between suites,
opened once (the CPU device and PoCL each start their thread pools on first use)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from benchmarks import build
from benchmarks.hip_device import HipDevice
from benchmarks.items import BenchError
from benchmarks.pocl import Pocl


@dataclass
class Context:
    quick: bool
    repeats: int
    threads: int
    # baselines that could not be set up (name -> why): their comparisons are left out,
    # the suites still run, and the runner says so at the end
    missing: dict[str, str] = field(default_factory=dict)

    @functools.cached_property
    def device(self) -> HipDevice:
        return HipDevice(build.cpu_device_dir())

    @functools.cached_property
    def pocl(self) -> Pocl:
        return Pocl()

    @functools.cached_property
    def pocl_or_none(self) -> Pocl | None:
        """PoCL, or None (recorded in `missing`) where pyopencl or PoCL is not installed."""
        try:
            return self.pocl
        except BenchError as exc:
            self.missing["PoCL"] = str(exc)
            return None
