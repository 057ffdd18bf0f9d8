"""A Python process as the CUDA host (as PyTorch or CuPy are): it loads libcudart with
ctypes, registers a fat binary as nvcc's host code would, and launches a kernel. The
translator then runs in this process's own interpreter, not a second one.

usage: python3 python_host.py path/to/libcudart.so.13 scale.fatbin
(scale.fatbin: `nvcc -fatbin` of scale.cu)."""

import ctypes
import sys


class Wrapper(ctypes.Structure):  # __fatBinC_Wrapper_t
    _fields_ = [("magic", ctypes.c_uint32), ("version", ctypes.c_uint32),
                ("data", ctypes.c_void_p), ("aux", ctypes.c_void_p)]


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


def main() -> int:
    lib = ctypes.CDLL(sys.argv[1])
    with open(sys.argv[2], "rb") as f:
        data = f.read()
    image = ctypes.create_string_buffer(data, len(data))
    wrapper = Wrapper(0x466243B1, 1, ctypes.cast(image, ctypes.c_void_p), None)
    lib.__cudaRegisterFatBinary.restype = ctypes.c_void_p
    handle = lib.__cudaRegisterFatBinary(ctypes.byref(wrapper))
    stub = ctypes.create_string_buffer(8)  # any unique host address names the kernel
    lib.__cudaRegisterFunction(ctypes.c_void_p(handle), stub, b"scale", b"scale", -1,
                               None, None, None, None, None)
    n = 256
    host = (ctypes.c_int * n)(*range(n))
    dev = ctypes.c_void_p()
    if lib.cudaMalloc(ctypes.byref(dev), n * 4) != 0:
        print("FAIL cudaMalloc")
        return 1
    lib.cudaMemcpy(dev, host, ctypes.c_size_t(n * 4), 1)
    count, factor = ctypes.c_int(n), ctypes.c_int(5)
    args = (ctypes.c_void_p * 3)(ctypes.addressof(dev), ctypes.addressof(count),
                                 ctypes.addressof(factor))
    rc = lib.cudaLaunchKernel(stub, Dim3(4, 1, 1), Dim3(64, 1, 1), args, ctypes.c_size_t(0),
                              None)
    sync = lib.cudaDeviceSynchronize()
    lib.cudaMemcpy(host, dev, ctypes.c_size_t(n * 4), 2)
    ok = rc == 0 and sync == 0 and all(host[i] == 5 * i for i in range(n))
    print(f"launch {rc} sync {sync}")
    print("PASS python host" if ok else f"FAIL python host: {list(host[:4])}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
