"""Run under `pyshim run`: links the inputs named on the command line (TYPE=FILE, TYPE one
of CUjitInputType's names: cubin ptx fatbin object library nvvm) with cuLinkCreate /
cuLinkAddFile / cuLinkComplete, loads the result and launches k(y, n) from link_kernel.cu;
prints the result and the counter."""

import ctypes
import sys

TYPES = {"cubin": 0, "ptx": 1, "fatbin": 2, "object": 3, "library": 4, "nvvm": 5}
cu = ctypes.CDLL("libcuda.so.1")


def check(rc: int, what: str) -> None:
    if rc != 0:
        name = ctypes.c_char_p()
        cu.cuGetErrorName(rc, ctypes.byref(name))
        print(f"FAIL {what}: {name.value.decode() if name.value else rc}")
        sys.exit(1)


check(cu.cuInit(0), "cuInit")
dev, ctx = ctypes.c_int(), ctypes.c_void_p()
check(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
state = ctypes.c_void_p()
check(cu.cuLinkCreate_v2(0, None, None, ctypes.byref(state)), "cuLinkCreate")
for arg in sys.argv[1:]:
    kind, path = arg.split("=", 1)
    check(cu.cuLinkAddFile_v2(state, TYPES[kind], path.encode(), 0, None, None),
          f"cuLinkAddFile {arg}")
image, size = ctypes.c_void_p(), ctypes.c_size_t()
check(cu.cuLinkComplete(state, ctypes.byref(image), ctypes.byref(size)), "cuLinkComplete")
mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
check(cu.cuModuleLoadData(ctypes.byref(mod), image), "cuModuleLoadData")
check(cu.cuLinkDestroy(state), "cuLinkDestroy")
check(cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"k"), "cuModuleGetFunction")
n = 64
host = (ctypes.c_float * n)(*range(n))
dptr = ctypes.c_uint64()
check(cu.cuMemAlloc_v2(ctypes.byref(dptr), n * 4), "cuMemAlloc")
check(cu.cuMemcpyHtoD_v2(dptr, host, n * 4), "cuMemcpyHtoD")
nn = ctypes.c_int(n)
params = (ctypes.c_void_p * 2)(ctypes.addressof(dptr), ctypes.addressof(nn))
check(cu.cuLaunchKernel(fn, 1, 1, 1, n, 1, 1, 0, None, params, None), "cuLaunchKernel")
check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
check(cu.cuMemcpyDtoH_v2(host, dptr, n * 4), "cuMemcpyDtoH")
counter, csize = ctypes.c_uint64(), ctypes.c_size_t()
check(cu.cuModuleGetGlobal_v2(ctypes.byref(counter), ctypes.byref(csize), mod, b"counter"),
      "cuModuleGetGlobal")
value = ctypes.c_int()
check(cu.cuMemcpyDtoH_v2(ctypes.byref(value), counter, 4), "counter")
print("result", " ".join(f"{v:g}" for v in host[:4]), "counter", value.value)
