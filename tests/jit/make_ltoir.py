"""With a Python that has cuda-bindings: NVRTC compiles argv[1] to LTO-IR (-dlto) into argv[2]."""
import sys

from cuda.bindings import nvrtc

src = open(sys.argv[1]).read().encode()
err, prog = nvrtc.nvrtcCreateProgram(src, b"helper.cu", 0, [], [])
opts = [b"-arch=compute_75", b"-dlto", b"-rdc=true"]
(err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
assert err == 0, err
err, size = nvrtc.nvrtcGetLTOIRSize(prog)
buf = b" " * size
(err,) = nvrtc.nvrtcGetLTOIR(prog, buf)
open(sys.argv[2], "wb").write(buf)
print("ltoir", size)
