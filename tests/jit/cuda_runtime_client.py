"""Run under `pyshim run` with a Python that has cuda-bindings: its runtime module (a static
cudart inside) queries the device, copies memory, makes a stream and an event."""

import ctypes

from cuda.bindings import runtime as rt

err, n = rt.cudaGetDeviceCount()
print("count", err, n)
err, prop = rt.cudaGetDeviceProperties(0)
print("props", err, prop.name if err == 0 else None)
err, p = rt.cudaMalloc(1024)
print("malloc", err)
print(rt.cudaMemset(p, 1, 1024))
buf = (ctypes.c_ubyte * 1024)()
kind = rt.cudaMemcpyKind.cudaMemcpyDeviceToHost
print(rt.cudaMemcpy(ctypes.addressof(buf), p, 1024, kind), buf[0], buf[1023])
print(rt.cudaFree(p))
err, s = rt.cudaStreamCreate()
print("stream", err)
err, e = rt.cudaEventCreate()
print("event", err, rt.cudaEventRecord(e, s), rt.cudaEventSynchronize(e))
print(rt.cudaStreamSynchronize(s))
