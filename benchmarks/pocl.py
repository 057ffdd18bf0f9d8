"""PoCL, the CPU OpenCL implementation to beat, through pyopencl: kernels.cl built once,
buffers copied in, each run enqueued and waited for."""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.build import KERNELS_DIR
from benchmarks.items import BenchError


class Pocl:
    def __init__(self) -> None:
        try:
            import pyopencl as cl
        except ImportError:
            raise BenchError("pyopencl is not installed (pip install pyopencl; "
                             "apt-get install pocl-opencl-icd ocl-icd-libopencl1)") from None
        self.cl = cl
        devices = [d for p in cl.get_platforms() if "Portable Computing Language" in p.name
                   for d in p.get_devices()]
        if not devices:
            raise BenchError("no PoCL OpenCL platform (apt-get install pocl-opencl-icd)")
        self.device = devices[0]
        self.ctx = cl.Context([self.device])
        self.queue = cl.CommandQueue(self.ctx)
        src = (KERNELS_DIR / "kernels.cl").read_text()
        self.program = cl.Program(self.ctx, src).build()
        # one Kernel object per name: pyopencl makes a new one per attribute access
        self.kernels = {k.function_name: k for k in self.program.all_kernels()}

    @property
    def compute_units(self) -> int:
        return int(self.device.max_compute_units)

    def upload(self, host: np.ndarray) -> Any:
        """A cl.Buffer holding a copy of `host`."""
        mf = self.cl.mem_flags
        return self.cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host)

    def download(self, buf: Any, like: np.ndarray) -> np.ndarray:
        out = np.empty_like(like)
        self.cl.enqueue_copy(self.queue, out, buf)
        self.queue.finish()
        return out

    def launch(self, name: str, global_size: tuple[int, ...], local_size: tuple[int, ...] | None,
               args: list[Any]) -> None:
        k = self.kernels[name]
        k.set_args(*args)
        self.cl.enqueue_nd_range_kernel(self.queue, k, global_size, local_size)
        self.queue.finish()
