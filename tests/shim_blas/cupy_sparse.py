"""CuPy's sparse matrices on pyshim's libcusparse (run by tests/test_shim_sparse.py in the
client venv under `pyshim run`): each operation against scipy, one line per check."""

import cupy as cp
import cupyx.scipy.sparse as cs
import cupyx.scipy.sparse.linalg as cla
import numpy as np
import scipy.sparse as ss
import scipy.sparse.linalg as sla
from cupyx import cusparse


def same(name, got, want, rtol=1e-6):
    np.testing.assert_allclose(got.toarray().get() if hasattr(got, "toarray") else got.get(),
                               want.toarray() if hasattr(want, "toarray") else want,
                               rtol=rtol, atol=1e-6)
    print("PASS", name)


for dt in (np.float32, np.complex128):
    a = ss.random(40, 30, density=0.15, format="csr", random_state=1).astype(dt)
    b = ss.random(30, 25, density=0.15, format="csr", random_state=2).astype(dt)
    if dt == np.complex128:
        a = (a + 1j * ss.random(40, 30, density=0.15, format="csr", random_state=3)).tocsr()
    ga, gb = cs.csr_matrix(a), cs.csr_matrix(b)
    t = dt.__name__
    same(f"spgemm {t}", ga @ gb, a @ b, 1e-4)
    same(f"tocsc {t}", ga.tocsc(), a.tocsc())
    same(f"add {t}", ga + 2 * ga, 3 * a)
    z = ga.copy()
    z.data[::2] = 0
    z.eliminate_zeros()
    assert int(z.nnz) == int(cp.count_nonzero(ga.data[1::2])), "eliminate_zeros"
    print("PASS", f"eliminate_zeros {t}")
    same(f"dense->csr {t}", cs.csr_matrix(cp.asarray(a.toarray())), a)
    c = ga.tocoo()
    r = cs.coo_matrix((c.data[::-1], (c.row[::-1], c.col[::-1])), shape=c.shape).tocsr()
    r.sort_indices()
    same(f"coo->csr sorted {t}", r, a)
    # spsolve_triangular is cusparseSpSM on CUDA 12: both triangles, both diagonals
    sq = ss.random(30, 30, density=0.2, format="csr", random_state=4).toarray().astype(dt)
    sq[np.diag_indices(30)] = 31
    rhs = np.random.default_rng(5).standard_normal((30, 2)).astype(dt)
    for lower in (True, False):
        for unit in (False, True):
            tri = np.tril(sq) if lower else np.triu(sq)
            got = cla.spsolve_triangular(cs.csr_matrix(cp.asarray(tri)), cp.asarray(rhs),
                                         lower=lower, unit_diagonal=unit)
            want = sla.spsolve_triangular(ss.csr_matrix(tri).astype(np.complex128),
                                          rhs.astype(np.complex128), lower=lower,
                                          unit_diagonal=unit)
            same(f"spsolve_triangular lower={lower} unit={unit} {t}", got, want, 1e-4)
    # op(A) = A, A^T, A^H (A^H of a complex A: A^T of conj(A), which the shim keeps)
    low = cs.csr_matrix(cp.asarray(np.tril(sq)))
    for transa, m in (("N", np.tril(sq)), ("T", np.tril(sq).T), ("H", np.tril(sq).conj().T)):
        want = np.linalg.solve(m.astype(np.complex128), rhs.astype(np.complex128))
        same(f"spsm transa={transa} {t}", cusparse.spsm(low, cp.asarray(rhs), lower=True,
                                                        transa=transa), want, 1e-4)
print("done")
