"""The CPU device's rocRAND (librocrand.so.1) through its ROCm 7.2 ABI, called directly:
Sobol sequences against SciPy's independent implementation of the same Joe-Kuo direction
numbers, the quantile transform, the layouts and the refusals."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import norm, qmc

from pyshim.paths import build_dir

SOBOL32, SOBOL64, SCRAMBLED32, MTGP32, XORWOW, PHILOX = 501, 504, 502, 403, 401, 404
TYPE_ERROR, OUT_OF_RANGE, LENGTH_NOT_MULTIPLE = 103, 104, 105


@pytest.fixture(scope="module")
def rr():
    from pyshim.builders.randfft import build_randfft

    build_randfft()
    cpu = build_dir() / "cpu"
    ctypes.CDLL(str(cpu / "libamdhip64.so.7"), mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(str(cpu / "librocrand.so.1"))
    lib.rocrand_generate_normal_double.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                                   ctypes.c_size_t, ctypes.c_double,
                                                   ctypes.c_double]
    return lib


def gen(rr, kind: int, dims: int = 0) -> ctypes.c_void_p:
    g = ctypes.c_void_p()
    assert rr.rocrand_create_generator_host(ctypes.byref(g), kind) == 0
    if dims:
        assert rr.rocrand_set_quasi_random_generator_dimensions(g, dims) == 0
    return g


def u32(rr, g, n: int) -> np.ndarray:
    out = np.zeros(n, np.uint32)
    assert rr.rocrand_generate(g, out.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(n)) == 0
    return out


@pytest.mark.parametrize("dims", [1, 7, 300])
def test_sobol32_is_joe_kuo_sobol(rr, dims):
    n = 128
    ours = u32(rr, gen(rr, SOBOL32, dims), dims * n).reshape(dims, n)
    ref = qmc.Sobol(dims, scramble=False, bits=32).random(n) * 2.0**32
    np.testing.assert_array_equal(ours, ref.T.astype(np.uint64))


def test_sobol_offsets_continue_each_dimension(rr):
    g = gen(rr, SOBOL32, 3)
    first, second = u32(rr, g, 3 * 10).reshape(3, 10), u32(rr, g, 3 * 6).reshape(3, 6)
    whole = u32(rr, gen(rr, SOBOL32, 3), 3 * 16).reshape(3, 16)
    np.testing.assert_array_equal(np.concatenate([first, second], axis=1), whole)
    g = gen(rr, SOBOL32, 3)
    assert rr.rocrand_set_offset(g, ctypes.c_ulonglong(10)) == 0
    np.testing.assert_array_equal(u32(rr, g, 3 * 6).reshape(3, 6), whole[:, 10:])


def test_sobol64_extends_sobol32(rr):
    g = gen(rr, SOBOL64, 4)
    out = np.zeros(4 * 32, np.uint64)
    assert rr.rocrand_generate_long_long(g, out.ctypes.data_as(ctypes.c_void_p),
                                         ctypes.c_size_t(out.size)) == 0
    np.testing.assert_array_equal((out >> np.uint64(32)).astype(np.uint32),
                                  u32(rr, gen(rr, SOBOL32, 4), 4 * 32))


def test_quasi_normal_is_the_quantile_of_the_midpoint(rr):
    dims, n = 5, 200
    bits = u32(rr, gen(rr, SOBOL32, dims), dims * n)
    out = np.zeros(dims * n)
    assert rr.rocrand_generate_normal_double(gen(rr, SOBOL32, dims), out.ctypes.data,
                                             dims * n, 1.5, 2.0) == 0
    want = 1.5 + 2.0 * norm.ppf(bits * 2.0**-32 + 2.0**-33)
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-12)


def test_refusals_are_rocrand_statuses(rr):
    g = ctypes.c_void_p()
    assert rr.rocrand_create_generator_host(ctypes.byref(g), 406) == TYPE_ERROR  # LFSR113
    q = gen(rr, SOBOL32, 3)
    out = np.zeros(8, np.uint32)
    assert rr.rocrand_generate(q, out.ctypes.data_as(ctypes.c_void_p),
                               ctypes.c_size_t(8)) == LENGTH_NOT_MULTIPLE
    assert rr.rocrand_set_seed(q, ctypes.c_ulonglong(1)) == TYPE_ERROR
    assert rr.rocrand_set_quasi_random_generator_dimensions(q, 20001) == OUT_OF_RANGE
    p = gen(rr, XORWOW)
    assert rr.rocrand_set_quasi_random_generator_dimensions(p, 2) == TYPE_ERROR
    assert rr.rocrand_generate_long_long(p, out.ctypes.data_as(ctypes.c_void_p),
                                         ctypes.c_size_t(2)) == TYPE_ERROR


def test_pseudo_layout_is_one_state_per_result_column(rr):
    """Result n of a call is state n % 4096's (n // 4096)-th value: a call of 2 x 4096
    results is the first value of every state, then the second; the seed keeps the offset
    (rocrand.h), so starting over takes both."""
    g = gen(rr, PHILOX)
    assert rr.rocrand_set_seed(g, ctypes.c_ulonglong(99)) == 0
    a = u32(rr, g, 2 * 4096)
    assert rr.rocrand_set_seed(g, ctypes.c_ulonglong(99)) == 0
    assert not np.array_equal(u32(rr, g, 4096), a[:4096])  # the offset moved on
    assert rr.rocrand_set_offset(g, ctypes.c_ulonglong(0)) == 0
    b = np.concatenate([u32(rr, g, 4096), u32(rr, g, 4096)])
    np.testing.assert_array_equal(a, b)
    assert len(set(a[:4096].tolist())) > 4000


def test_mt19937_is_the_reference_mersenne_twister(rr):
    """One stream seeded by the reference init_by_array of the seed's two 32-bit words
    (numpy's MT19937 implements the same reference), continued across calls."""
    seed = 0x123456789ABCDEF0
    g = gen(rr, 407)
    assert rr.rocrand_set_seed(g, ctypes.c_ulonglong(seed)) == 0
    ours = np.concatenate([u32(rr, g, 1000), u32(rr, g, 1500)])
    bg = np.random.MT19937(0)
    bg._legacy_seeding(np.array([seed & 0xFFFFFFFF, seed >> 32], dtype=np.int64))
    np.testing.assert_array_equal(ours, bg.random_raw(2500).astype(np.uint32))


@pytest.mark.parametrize("kind", [XORWOW, PHILOX, 402, MTGP32])
def test_offset_is_a_position_in_the_sequence(rr, kind):
    """cuRAND: "if offset = 100, the first random number generated will be the 100th in
    the sequence"; successive calls continue it, whatever their sizes."""
    whole = u32(rr, gen(rr, kind), 3 * 4096 + 500)
    g = gen(rr, kind)
    assert rr.rocrand_set_offset(g, ctypes.c_ulonglong(100)) == 0
    np.testing.assert_array_equal(u32(rr, g, 10), whole[100:110])
    parts = [u32(rr, g, n) for n in (1, 1, 4095, 7000)]
    np.testing.assert_array_equal(np.concatenate(parts), whole[110:110 + 11097])
    assert rr.rocrand_set_offset(g, ctypes.c_ulonglong(3)) == 0  # back: the states start over
    np.testing.assert_array_equal(u32(rr, g, 300), whole[3:303])


def test_mtgp32_distributions_take_one_draw_each(rr):
    """MTGP32's device functions (curand_uniform, curand_normal_double by the inverse CDF,
    curand_poisson) take one curand() per value: result n is the n-th draw's transform, so
    odd counts are fine and the normals are the quantiles of the draws' midpoints."""
    bits = u32(rr, gen(rr, MTGP32), 16385)
    out = np.zeros(16385)
    assert rr.rocrand_generate_normal_double(gen(rr, MTGP32), out.ctypes.data, 16385, 1.5,
                                             2.0) == 0
    want = 1.5 + 2.0 * norm.ppf(bits * 2.0**-32 + 2.0**-33)
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-11)
    assert len(set(bits.tolist())) > 16000


def test_normals_come_in_pairs(rr):
    g = gen(rr, XORWOW)
    out = np.zeros(3)
    assert rr.rocrand_generate_normal_double(g, out.ctypes.data, 3, 0.0, 1.0) == \
        LENGTH_NOT_MULTIPLE


@pytest.mark.parametrize("kind, bits", [(SCRAMBLED32, 32), (505, 64)])
def test_scrambled_sobol_is_the_published_tables(rr, kind, bits):
    """A scrambled generator's dimension d is the Gray-code Sobol sequence of the
    SCRAMBLED_JOEKUO6 direction vectors shifted by scramble constant d (what a device
    program builds from the same tables), and still stratifies: the first 2^m values of a
    dimension fall one into each of 2^m equal intervals."""
    dims, n = 6, 1024
    word = np.uint32 if bits == 32 else np.uint64
    g = gen(rr, kind, dims)
    out = np.zeros(dims * n, word)
    fn = rr.rocrand_generate if bits == 32 else rr.rocrand_generate_long_long
    assert fn(g, out.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(dims * n)) == 0
    vp, cp = ctypes.c_void_p(), ctypes.c_void_p()
    get_v = rr.rocrand_get_direction_vectors32 if bits == 32 else rr.rocrand_get_direction_vectors64
    get_c = rr.rocrand_get_scramble_constants32 if bits == 32 else \
        rr.rocrand_get_scramble_constants64
    assert get_v(ctypes.byref(vp), 102 if bits == 32 else 104) == 0
    assert get_c(ctypes.byref(cp)) == 0
    ctype = ctypes.c_uint32 if bits == 32 else ctypes.c_uint64
    v = np.ctypeslib.as_array((ctype * (dims * bits)).from_address(vp.value)).reshape(dims, bits)
    c = np.ctypeslib.as_array((ctype * dims).from_address(cp.value))
    gray = np.arange(n) ^ (np.arange(n) >> 1)
    for d in range(dims):
        want = np.full(n, c[d], word)
        for b in range(11):
            want ^= np.where((gray >> b) & 1, v[d, b], 0).astype(word)
        np.testing.assert_array_equal(out[d * n:(d + 1) * n], want)
        cells = (out[d * n:(d + 1) * n] >> word(bits - 10)).astype(np.int64)
        assert sorted(cells.tolist()) == list(range(n))
    assert len(set(c.tolist())) == dims and len({int(x) for x in v[:, 0]}) > 1


def _poisson(rr, kind: int, seed: int, lam: float, n: int) -> np.ndarray:
    g = gen(rr, kind)
    assert rr.rocrand_set_seed(g, ctypes.c_ulonglong(seed)) == 0
    out = np.zeros(n, np.uint32)
    rr.rocrand_generate_poisson.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                            ctypes.c_double]
    assert rr.rocrand_generate_poisson(g, out.ctypes.data, n, lam) == 0
    assert rr.rocrand_destroy_generator(g) == 0
    return out


def _chi2_pvalue(sample: np.ndarray, lam: float) -> float:
    """Pearson's chi-square of the sample's histogram against Poisson(lam), cells merged
    from both tails until each expects at least 20."""
    from scipy.stats import chi2, poisson

    n = sample.size
    lo, hi = int(poisson.ppf(1e-9, lam)), int(poisson.isf(1e-9, lam)) + 1
    edges = [lo]
    for k in range(lo + 1, hi + 1):
        if n * (poisson.cdf(k - 1, lam) - poisson.cdf(edges[-1] - 1, lam)) >= 20:
            edges.append(k)
    edges[-1] = hi + 1
    obs = np.histogram(sample, bins=[-0.5] + [e - 0.5 for e in edges[1:-1]] + [np.inf])[0]
    cdf = poisson.cdf(np.array(edges[1:-1]) - 1, lam)
    exp = n * np.diff(np.concatenate([[0.0], cdf, [1.0]]))
    return float(chi2.sf(((obs - exp) ** 2 / exp).sum(), len(obs) - 1))


@settings(max_examples=12, deadline=None)
@given(lam=st.one_of(st.floats(0.05, 64.0), st.floats(64.0, 999.0),
                     st.floats(1000.0, 50000.0)),
       kind=st.sampled_from([XORWOW, PHILOX, 402, MTGP32]), seed=st.integers(0, 2**40))
@example(lam=63.9, kind=XORWOW, seed=1)
@example(lam=64.0, kind=PHILOX, seed=2)
@example(lam=999.5, kind=402, seed=3)
@example(lam=1000.0, kind=MTGP32, seed=4)
def test_poisson_follows_the_distribution(rr, lam, kind, seed):
    """The host Poisson (_curand_poisson of one draw: inversion below lambda 1000, the
    rounded inverse-CDF normal above) against Poisson(lambda): 60,000 values, chi-square."""
    sample = _poisson(rr, kind, seed, lam, 60_000)
    assert _chi2_pvalue(sample, lam) > 1e-5, (lam, kind, seed)
    assert abs(sample.mean() - lam) < 6 * np.sqrt(lam / sample.size)


def test_poisson_chi_square_can_fail(rr):
    """The test above rejects a near miss: lambda 5.5's values against Poisson(5.7)."""
    assert _chi2_pvalue(_poisson(rr, XORWOW, 9, 5.5, 60_000), 5.7) < 1e-6
