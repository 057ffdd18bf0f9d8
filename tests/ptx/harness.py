"""A tiny runner for compiled CPU-device modules, for the PTX tests (not the CPU device
runtime): loads the .so with ctypes, reads `pyshim_module`, and calls a kernel's run_block
for every block of a grid, with numpy arrays as device memory."""

from __future__ import annotations

import ctypes
import struct
from pathlib import Path

import numpy as np


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint32), ("y", ctypes.c_uint32), ("z", ctypes.c_uint32)]


VPRINTF = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
# pyshim_devrt_fn: (launch, block, thread, op, args) -> the syscall's result
DEVRT = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32,
                         ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint64))


class Launch(ctypes.Structure):
    _fields_ = [("grid", Dim3), ("block", Dim3), ("warp_size", ctypes.c_uint32),
                ("dyn_shared_bytes", ctypes.c_uint32), ("num_sms", ctypes.c_uint32),
                ("reserved0", ctypes.c_uint32), ("vprintf", VPRINTF),
                ("runtime_ctx", ctypes.c_void_p), ("globaltimer_base", ctypes.c_uint64),
                ("cluster", Dim3), ("reserved1", ctypes.c_uint32),
                ("devrt", ctypes.c_void_p), ("devrt_ctx", ctypes.c_void_p)]


MAX_CLUSTER = 16


class Cluster(ctypes.Structure):
    _fields_ = [("arrived", ctypes.c_uint64), ("block_arrived", ctypes.c_uint64 * MAX_CLUSTER),
                ("exited", ctypes.c_uint32 * MAX_CLUSTER),
                ("window", ctypes.c_void_p * MAX_CLUSTER),
                ("window_size", ctypes.c_uint64 * MAX_CLUSTER),
                ("thread_arrivals", ctypes.POINTER(ctypes.c_uint32))]


class Block(ctypes.Structure):
    _fields_ = [("ctaid", Dim3), ("smid", ctypes.c_uint32), ("dyn_shared", ctypes.c_void_p),
                ("cluster", ctypes.POINTER(Cluster))]


BLOCK_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Launch), ctypes.POINTER(Block),
                            ctypes.POINTER(ctypes.c_void_p))


class ParamDesc(ctypes.Structure):
    _fields_ = [("offset", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("align", ctypes.c_uint32), ("reserved0", ctypes.c_uint32)]


class KernelDesc(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("run_block", BLOCK_FN),
                ("num_params", ctypes.c_uint32), ("params_bytes", ctypes.c_uint32),
                ("params", ctypes.POINTER(ParamDesc)), ("static_shared_bytes", ctypes.c_uint32),
                ("local_bytes", ctypes.c_uint32), ("max_threads", ctypes.c_uint32),
                ("reqntid", Dim3), ("min_ctas_per_sm", ctypes.c_uint32),
                ("num_regs", ctypes.c_uint32), ("reqnctapercluster", Dim3),
                ("explicit_cluster", ctypes.c_uint32)]


class GlobalDesc(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("addr", ctypes.c_void_p), ("size", ctypes.c_uint64)]


class ModuleDesc(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_uint32), ("num_kernels", ctypes.c_uint32),
                ("kernels", ctypes.POINTER(KernelDesc)), ("num_globals", ctypes.c_uint32),
                ("globals", ctypes.POINTER(GlobalDesc)), ("target", ctypes.c_char_p)]


def _printf_args(fmt: bytes, buf: int) -> str:
    """Formats a device printf with Python's % (enough for tests)."""
    import re

    out = []
    pos = 0
    text = fmt.decode()
    for m in re.finditer(r"%[-+ #0]*\d*(?:\.\d+)?(ll|l|h|hh)?([diouxXfeEgGcsp%])", text):
        conv = m.group(2)
        if conv == "%":
            continue
        size = 8 if conv in "feEgGsp" or m.group(1) in ("l", "ll") else 4
        pos = (pos + size - 1) & ~(size - 1)
        raw = ctypes.string_at(buf + pos, size)
        pos += size
        if conv in "feEgG":
            out.append(struct.unpack("<d", raw)[0])
        elif conv == "s":
            out.append(ctypes.string_at(struct.unpack("<Q", raw)[0]).decode())
        elif conv in "di":
            out.append(int.from_bytes(raw, "little", signed=True))
        else:
            out.append(int.from_bytes(raw, "little"))
    py = re.sub(r"%(ll|l|hh|h)([diouxX])", r"%\2", text)
    return py % tuple(out)


class Module:
    def __init__(self, path: Path) -> None:
        self.lib = ctypes.CDLL(str(path))
        self.desc = ModuleDesc.in_dll(self.lib, "pyshim_module")
        self.kernels = {self.desc.kernels[i].name.decode(): self.desc.kernels[i]
                        for i in range(self.desc.num_kernels)}
        self.globals = {self.desc.globals[i].name.decode(): self.desc.globals[i]
                        for i in range(self.desc.num_globals)}
        self.printed: list[str] = []
        self._vprintf = VPRINTF(self._on_printf)

    def _on_printf(self, launch, fmt, args) -> int:
        s = _printf_args(fmt, args or 0)
        self.printed.append(s)
        return len(s)

    def global_array(self, name: str, dtype) -> np.ndarray:
        g = self.globals[name]
        buf = (ctypes.c_char * g.size).from_address(g.addr)
        return np.frombuffer(buf, dtype=dtype)

    def launch(self, name: str, grid, block, args: list, *, warp_size: int = 64,
               dyn_shared: int = 0, cluster=None, devrt=None) -> list[int]:
        """Runs the grid; with `cluster` (its shape), each cluster's blocks at once, a thread
        each, as the CPU device does (shim/cpu/hip/grid.c run_clusters): then the blocks'
        return codes, in the grid's order, else a nonzero one raises. `devrt`: a DEVRT
        function answering the kernel's device-runtime syscalls."""
        k = self.kernels[name]
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        assert len(args) == k.num_params, f"{name} takes {k.num_params} parameters"
        keep = []
        ptrs = (ctypes.c_void_p * max(1, len(args)))()
        for i, a in enumerate(args):
            size = k.params[i].size
            if isinstance(a, np.ndarray):
                raw = struct.pack("<Q", a.ctypes.data)
            elif isinstance(a, bytes):
                raw = a
            elif isinstance(a, float):
                raw = struct.pack("<f" if size == 4 else "<d", a)
            else:
                raw = int(a).to_bytes(size, "little", signed=int(a) < 0)
            assert len(raw) == size, (name, i, len(raw), size)
            buf = ctypes.create_string_buffer(raw, max(size, 16))
            keep.append(buf)
            ptrs[i] = ctypes.addressof(buf)
        launch = Launch(Dim3(*grid), Dim3(*block), warp_size, dyn_shared, 4, 0,
                        self._vprintf, None, 0, Dim3(*(tuple(cluster or ()) + (0, 0, 0))[:3]), 0,
                        ctypes.cast(devrt, ctypes.c_void_p) if devrt is not None else None,
                        None)
        dyn = ctypes.create_string_buffer(max(16, dyn_shared))
        if cluster is not None:
            return self._clusters(k, launch, grid, block, tuple(cluster), ptrs, dyn)
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    blk = Block(Dim3(x, y, z), 0, ctypes.addressof(dyn))
                    rc = k.run_block(ctypes.byref(launch), ctypes.byref(blk), ptrs)
                    if rc:
                        raise RuntimeError(f"{name}: block ({x},{y},{z}) returned {rc}")
        return [0] * (grid[0] * grid[1] * grid[2])

    def _clusters(self, k, launch, grid, block, shape, ptrs, dyn) -> list[int]:
        import threading

        size = shape[0] * shape[1] * shape[2]
        threads = block[0] * block[1] * block[2]
        codes = [0] * (grid[0] * grid[1] * grid[2])
        for kz in range(grid[2] // shape[2]):
            for ky in range(grid[1] // shape[1]):
                for kx in range(grid[0] // shape[0]):
                    cl = Cluster()
                    arrivals = (ctypes.c_uint32 * (size * threads))()
                    cl.thread_arrivals = arrivals

                    def one(cl: Cluster, rank: int, x: int, y: int, z: int) -> None:
                        blk = Block(Dim3(x, y, z), 0, ctypes.addressof(dyn), ctypes.pointer(cl))
                        codes[x + grid[0] * (y + grid[1] * z)] = k.run_block(
                            ctypes.byref(launch), ctypes.byref(blk), ptrs)
                        cl.exited[rank] = 1

                    ts = []
                    rank = 0
                    for rz in range(shape[2]):
                        for ry in range(shape[1]):
                            for rx in range(shape[0]):
                                ts.append(threading.Thread(target=one, args=(
                                    cl, rank, kx * shape[0] + rx, ky * shape[1] + ry,
                                    kz * shape[2] + rz)))
                                rank += 1
                    for t in ts:
                        t.start()
                    for t in ts:
                        t.join()
        return codes


def build(ptx: str, target: str, tmp: Path) -> Module:
    from pyshim.kernels.compile import compile_cpu
    from pyshim.ptx.translate import translate

    src = translate(ptx, target)
    so = compile_cpu(src)
    path = tmp / f"m{abs(hash((ptx, target)))}.so"
    path.write_bytes(so)
    return Module(path)
