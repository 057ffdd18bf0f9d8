"""CuPy's eig/eigvals on pyshim's cusolverDnXgeev (run by tests/test_shim_blas_cusolver.py
in the client venv under `pyshim run`): each precision against numpy, one line per check."""

import cupy as cp
import numpy as np

rng = np.random.default_rng(5)
for dt in (np.float32, np.float64, np.complex64, np.complex128):
    a = rng.standard_normal((6, 6))
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal((6, 6))
    a = a.astype(dt)
    tol = 1e-4 if dt in (np.float32, np.complex64) else 1e-10
    w, v = cp.linalg.eig(cp.asarray(a))
    w, v = w.get(), v.get()
    np.testing.assert_allclose(a @ v, v * w, atol=tol * 10)
    np.testing.assert_allclose(np.sort_complex(w), np.sort_complex(np.linalg.eigvals(a)),
                               atol=tol * 10)
    print("PASS eig", np.dtype(dt).name)
    wb = cp.linalg.eigvals(cp.asarray(np.stack([a, a.T]))).get()  # batched
    np.testing.assert_allclose(np.sort_complex(wb[1]), np.sort_complex(w), atol=tol * 10)
    print("PASS eigvals batched", np.dtype(dt).name)
print("done")
