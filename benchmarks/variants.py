"""The three ways each kernel case runs: translated CUDA on the CPU device, plain C loops,
OpenCL on PoCL. `prepare(case)` copies the inputs in and returns a Prepared whose run()
does one whole launch (waited for) and whose results() reads the outputs back."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.cases import Case
from benchmarks.hip_device import HipDevice
from benchmarks.pocl import Pocl


@dataclass
class Prepared:
    run: Callable[[], None]
    results: Callable[[], dict[int, np.ndarray]]
    close: Callable[[], None]
    clear: Callable[[], None] = lambda: None   # zero every output (before a checked run)


def _outputs(case: Case) -> list[tuple[int, np.ndarray]]:
    return [(i, np.zeros_like(a.value)) for i, a in enumerate(case.args) if a.kind == "out"]


class DeviceVariant:
    """CUDA kernels: nvcc -ptx -> load_module('cpu-wave64') -> hipModuleLaunchKernel."""

    label = "CPU device"

    def __init__(self, device: HipDevice, module_so: Path) -> None:
        self.dev = device
        self.mod = device.load(module_so)

    def prepare(self, case: Case) -> Prepared:
        dev = self.dev
        f = dev.function(self.mod, case.name)
        ptrs: dict[int, ctypes.c_void_p] = {}
        cargs: list[Any] = []
        for i, a in enumerate(case.args):
            if a.kind == "int":
                cargs.append(ctypes.c_int(int(a.value)))
            elif a.kind == "float":
                cargs.append(ctypes.c_float(float(a.value)))
            else:
                assert isinstance(a.value, np.ndarray)
                ptrs[i] = dev.upload(a.value)
                cargs.append(ptrs[i])
        resets = [(ptrs[i], a.value) for i, a in enumerate(case.args) if a.reset]

        def run() -> None:
            for ptr, zeros in resets:
                dev.copy_in(ptr, zeros)
            dev.launch(f, case.grid, case.block, cargs)

        def results() -> dict[int, np.ndarray]:
            return {i: dev.download(ptrs[i], case.args[i].value) for i in case.expected}

        def close() -> None:
            for p in ptrs.values():
                dev.free(p)

        def clear() -> None:
            for i, zeros in _outputs(case):
                dev.copy_in(ptrs[i], zeros)

        return Prepared(run, results, close, clear)

    def close(self) -> None:
        self.dev.unload(self.mod)


class LoopVariant:
    """The same computation as plain C loops (kernels/loops.c), OpenMP over blocks."""

    label = "C loop (OpenMP)"

    def __init__(self, so: Path, threads: int) -> None:
        self.lib = ctypes.CDLL(str(so))
        self.lib.bench_set_threads(threads)

    def prepare(self, case: Case) -> Prepared:
        fn = getattr(self.lib, case.name)
        arrays = {i: np.array(a.value, copy=True) for i, a in enumerate(case.args)
                  if a.kind in ("in", "out")}
        cargs: list[Any] = []
        for i, a in enumerate(case.args):
            if a.kind == "int":
                cargs.append(ctypes.c_int(int(a.value)))
            elif a.kind == "float":
                cargs.append(ctypes.c_float(float(a.value)))
            else:
                cargs.append(ctypes.c_void_p(arrays[i].ctypes.data))

        def run() -> None:
            fn(*cargs)

        def results() -> dict[int, np.ndarray]:
            return {i: arrays[i].copy() for i in case.expected}

        def clear() -> None:
            for i, _ in _outputs(case):
                arrays[i][...] = 0

        return Prepared(run, results, lambda: None, clear)

    def close(self) -> None:
        pass


class PoclVariant:
    """The equivalent OpenCL kernel (kernels/kernels.cl) on PoCL, same work-group sizes."""

    label = "PoCL"

    def __init__(self, pocl: Pocl) -> None:
        self.pocl = pocl

    def prepare(self, case: Case) -> Prepared:
        p = self.pocl
        bufs: dict[int, Any] = {}
        clargs: list[Any] = []
        for i, a in enumerate(case.args):
            if a.kind == "int":
                clargs.append(np.int32(a.value))
            elif a.kind == "float":
                clargs.append(np.float32(a.value))
            else:
                assert isinstance(a.value, np.ndarray)
                bufs[i] = p.upload(a.value)
                clargs.append(bufs[i])
        resets = [(bufs[i], a.value) for i, a in enumerate(case.args) if a.reset]
        gsize = (case.grid[0] * case.block[0], case.grid[1] * case.block[1])
        lsize = case.block
        if case.block[1] == 1:
            gsize, lsize = gsize[:1], lsize[:1]

        def run() -> None:
            for buf, zeros in resets:
                p.cl.enqueue_copy(p.queue, buf, zeros)
            p.launch(case.name, gsize, lsize, clargs)

        def results() -> dict[int, np.ndarray]:
            return {i: p.download(bufs[i], case.args[i].value) for i in case.expected}

        def close() -> None:
            for b in bufs.values():
                b.release()

        def clear() -> None:
            for i, zeros in _outputs(case):
                p.cl.enqueue_copy(p.queue, bufs[i], zeros)
            p.queue.finish()

        return Prepared(run, results, close, clear)

    def close(self) -> None:
        pass
