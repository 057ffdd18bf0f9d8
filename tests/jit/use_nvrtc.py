"""Run under `pyshim run`: loads the NVRTC at argv[1] by absolute path (as cuda-pathfinder
does), asks for a cubin for sm_86, writes what nvrtcGetCUBIN gave to argv[2], and prints
which libnvrtc files the process mapped and the arch the NVRTC behind the wrapper saw."""

import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
major, minor = ctypes.c_int(), ctypes.c_int()
assert lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) == 0
opts = (ctypes.c_char_p * 1)(b"-arch=sm_86")
prog = ctypes.c_void_p(0x1234)
assert lib.nvrtcCompileProgram(prog, 1, opts) == 0, "compile"
size = ctypes.c_size_t()
assert lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)) == 0, "cubin size"
buf = ctypes.create_string_buffer(size.value)
assert lib.nvrtcGetCUBIN(prog, buf) == 0, "cubin"
open(sys.argv[2], "wb").write(buf.raw)
maps = {line.split()[-1] for line in open("/proc/self/maps") if "libnvrtc" in line}
print("version", major.value, minor.value)
print("maps", " ".join(sorted(maps)))
