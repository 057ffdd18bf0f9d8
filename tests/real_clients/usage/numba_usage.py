"""numba-cuda used where its own tests cannot run in the tier's venv (test_cooperative_groups
imports cffi, which the venv lacks on purpose): grid-wide sync through libcudadevrt, and
managed memory as NVIDIA's driver describes it. Run by the client's own Python under
`pyshim run` (tests/real_clients/run.py cuda-usage); results are checked against numpy."""

import numpy as np
import pytest
from cuda.bindings import driver
from numba import cuda


@cuda.jit
def _neighbour_rounds(a, b, rounds):
    # each round reads what other blocks wrote in the round before: wrong without grid sync
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = a.size
    for _ in range(rounds):
        b[i] = a[i] + a[(i + 1) % n]
        g.sync()
        a[i] = b[i]
        g.sync()


@pytest.mark.parametrize("blocks,threads", [(4, 64), (3, 32)])
def test_grid_sync_between_rounds(blocks, threads):
    """this_grid().sync() links numba's kernel with libcudadevrt, whose PTX calls the
    driver's __cuda_syscall_CGS_get_intrinsic_handle and __cuda_syscall_CGS_sync."""
    n = blocks * threads
    host = np.arange(n, dtype=np.int64)
    a = cuda.to_device(host)
    b = cuda.to_device(np.zeros(n, np.int64))
    _neighbour_rounds[blocks, threads](a, b, 6)
    want = host.copy()
    for _ in range(6):
        want = want + np.roll(want, -1)
    np.testing.assert_array_equal(a.copy_to_host(), want)
    assert _neighbour_rounds.overloads[_neighbour_rounds.signatures[0]].cooperative


@cuda.jit
def _scale(x, k):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= k


def test_managed_array_pointer_attributes_and_kernel():
    """A managed array is DEVICE memory to cuPointerGetAttribute, told apart by IS_MANAGED
    (NVIDIA's driver never answers UNIFIED); a kernel writes it, the host reads it."""
    m = cuda.managed_array(1000, dtype=np.float32)
    m[:] = np.arange(1000, dtype=np.float32)
    ptr = m.__cuda_array_interface__["data"][0]
    attr = driver.CUpointer_attribute
    err, kind = driver.cuPointerGetAttribute(attr.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr)
    assert err == driver.CUresult.CUDA_SUCCESS, err
    assert kind == driver.CUmemorytype.CU_MEMORYTYPE_DEVICE, kind
    err, managed = driver.cuPointerGetAttribute(attr.CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr)
    assert err == driver.CUresult.CUDA_SUCCESS and managed, (err, managed)
    _scale[4, 256](m, np.float32(3))
    cuda.synchronize()
    np.testing.assert_array_equal(np.asarray(m), np.arange(1000, dtype=np.float32) * 3)
