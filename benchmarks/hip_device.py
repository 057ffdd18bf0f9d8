"""The CPU device driven the way a HIP program drives it: libamdhip64.so.7 through ctypes
(hipModuleLoad, hipMalloc, hipMemcpy, hipModuleLaunchKernel, hipDeviceSynchronize). The
kernels take tens of milliseconds, so ctypes' microseconds per call do not matter here;
launch latency is measured in C (api_bench)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from benchmarks.items import BenchError

H2D, D2H = 1, 2   # hipMemcpyHostToDevice, hipMemcpyDeviceToHost


class HipDevice:
    def __init__(self, lib_dir: Path) -> None:
        self.lib = ctypes.CDLL(str(lib_dir / "libamdhip64.so.7"))
        self.lib.hipGetErrorName.restype = ctypes.c_char_p
        self.lib.hipModuleLaunchKernel.argtypes = [
            ctypes.c_void_p, *[ctypes.c_uint] * 6, ctypes.c_uint, ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
        self.lib.hipMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                       ctypes.c_int]
        self.lib.hipMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        self.lib.hipFree.argtypes = [ctypes.c_void_p]
        self.lib.hipModuleGetFunction.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                                  ctypes.c_void_p, ctypes.c_char_p]
        self.lib.hipModuleUnload.argtypes = [ctypes.c_void_p]
        self._check(self.lib.hipInit(0), "hipInit")

    def _check(self, err: int, what: str) -> None:
        if err != 0:
            name = self.lib.hipGetErrorName(err).decode()
            raise BenchError(f"CPU device: {what} failed: {name} ({err})")

    def load(self, so: Path) -> ctypes.c_void_p:
        mod = ctypes.c_void_p()
        self._check(self.lib.hipModuleLoad(ctypes.byref(mod), str(so).encode()),
                    f"hipModuleLoad({so})")
        return mod

    def unload(self, mod: ctypes.c_void_p) -> None:
        self._check(self.lib.hipModuleUnload(mod), "hipModuleUnload")

    def function(self, mod: ctypes.c_void_p, name: str) -> ctypes.c_void_p:
        f = ctypes.c_void_p()
        self._check(self.lib.hipModuleGetFunction(ctypes.byref(f), mod, name.encode()),
                    f"hipModuleGetFunction({name})")
        return f

    def upload(self, host: np.ndarray) -> ctypes.c_void_p:
        ptr = ctypes.c_void_p()
        self._check(self.lib.hipMalloc(ctypes.byref(ptr), max(host.nbytes, 1)), "hipMalloc")
        self._check(self.lib.hipMemcpy(ptr, host.ctypes.data, host.nbytes, H2D), "hipMemcpy")
        return ptr

    def copy_in(self, ptr: ctypes.c_void_p, host: np.ndarray) -> None:
        self._check(self.lib.hipMemcpy(ptr, host.ctypes.data, host.nbytes, H2D), "hipMemcpy")

    def download(self, ptr: ctypes.c_void_p, like: np.ndarray) -> np.ndarray:
        out = np.empty_like(like)
        self._check(self.lib.hipMemcpy(out.ctypes.data, ptr, out.nbytes, D2H), "hipMemcpy")
        return out

    def free(self, ptr: ctypes.c_void_p) -> None:
        self._check(self.lib.hipFree(ptr), "hipFree")

    def launch(self, f: ctypes.c_void_p, grid: tuple[int, int], block: tuple[int, int],
               args: list[ctypes._SimpleCData]) -> None:
        """One launch (kernelParams: a pointer to each argument), waited for."""
        params = (ctypes.c_void_p * max(len(args), 1))(
            *[ctypes.cast(ctypes.byref(a), ctypes.c_void_p) for a in args])
        self._check(self.lib.hipModuleLaunchKernel(f, grid[0], grid[1], 1, block[0], block[1],
                                                   1, 0, None, params, None),
                    "hipModuleLaunchKernel")
        self._check(self.lib.hipDeviceSynchronize(), "hipDeviceSynchronize")
