"""What every suite gets: the run's settings and the libraries shared between suites,
opened once (the CPU device and PoCL each start their thread pools on first use)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from benchmarks import build
from benchmarks.hip_device import HipDevice
from benchmarks.pocl import Pocl


@dataclass
class Context:
    quick: bool
    repeats: int
    threads: int

    @functools.cached_property
    def device(self) -> HipDevice:
        return HipDevice(build.cpu_device_dir())

    @functools.cached_property
    def pocl(self) -> Pocl:
        return Pocl()
