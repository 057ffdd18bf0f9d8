"""cuda.core's VirtualMemoryResource (NVIDIA's Python object model over the VMM API):
allocate, fill from the host, grow in place (reserve, map new physical memory after the
old, remap: modify_allocation), and check the old contents survived the growth and the new
part is usable. Prints one line per fact; tests/test_vmm.py compares them."""

import numpy as np
from cuda.core import Device
from cuda.core._memory import VirtualMemoryResource

dev = Device(0)
dev.set_current()
stream = dev.create_stream()
mr = VirtualMemoryResource(dev)
buf = mr.allocate(1 << 20, stream=stream)
host = np.arange(1 << 18, dtype=np.float32)
src = np.empty_like(host)
dev_buf_ptr = int(buf.handle)
from cuda.bindings import driver as d  # noqa: E402

assert d.cuMemcpyHtoD(dev_buf_ptr, host, host.nbytes)[0] == d.CUresult.CUDA_SUCCESS
grown = mr.modify_allocation(buf, 8 << 20)
print("grown size", grown.size >= 8 << 20)
assert d.cuMemcpyDtoH(src, int(grown.handle), host.nbytes)[0] == d.CUresult.CUDA_SUCCESS
print("contents kept", bool((src == host).all()))
tail = int(grown.handle) + grown.size - host.nbytes
print("tail usable", d.cuMemcpyHtoD(tail, host, host.nbytes)[0].name)
grown.close()
print("done")
