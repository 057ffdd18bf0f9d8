"""Run by tests/test_nvidia_exports.py in the client venv, under `pyshim run`: CuPy's
cuSOLVER module links cusolverSp* (no pyshim mapping), so with pyshim's libcusolver in
NVIDIA's place it must still import; the sparse call is refused with cuSOLVER's own
status, the dense solve works."""

import cupy
import numpy as np
from cupy_backends.cuda.libs import cusolver

try:
    cusolver.spCreate()
    print("spCreate succeeded")
except cusolver.CUSOLVERError as exc:
    print("spCreate refused:", exc)

a = np.array([[4.0, 1.0], [1.0, 3.0]])
b = np.array([1.0, 2.0])
x = cupy.linalg.solve(cupy.asarray(a), cupy.asarray(b)).get()
print("dense solve ok" if np.allclose(x, np.linalg.solve(a, b)) else f"dense solve wrong {x}")
