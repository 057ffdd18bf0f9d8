"""Real nvcc PTX through the whole path (parse -> translate -> cc -> run) in both wave modes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from ptx.harness import build

HERE = Path(__file__).parent / "ptx"
pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


@pytest.fixture(scope="module")
def ptx_text(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("nvcc") / "kernels.ptx"
    subprocess.run(["nvcc", "-ptx", "-O2", str(HERE / "kernels.cu"), "-o", str(out)],
                   check=True, capture_output=True)
    return out.read_text()


@pytest.fixture(scope="module", params=[(64, ""), (32, ""), (64, "+phases"), (64, "+fibers")],
                ids=["wave64", "wave32", "wave64-phases", "wave64-fibers"])
def mod(request, ptx_text, tmp_path_factory):
    """Both wave modes; barrier kernels as phases, and (wave64-fibers) all as fibers."""
    wave, option = request.param
    m = build(ptx_text, f"cpu-wave{wave}{option}", tmp_path_factory.mktemp(f"w{wave}"))
    m.wave = wave
    return m


def run(mod, name, grid, block, args, **kw):
    mod.launch(name, grid, block, args, warp_size=mod.wave, **kw)


def test_saxpy(mod):
    n = 1000
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    # nvcc contracts a * x + y into fma.rn.f32: one rounding (f64 holds the exact product)
    want = (2.5 * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)
    run(mod, "saxpy", (4,), (256,), [n, 2.5, x, y])
    np.testing.assert_array_equal(y, want)


def test_block_sum_with_barriers(mod):
    n = 3000
    x = np.arange(n, dtype=np.float32) % 17
    out = np.zeros(1, np.float32)
    run(mod, "block_sum", (12,), (256,), [x, out, n])
    assert out[0] == x.sum()


def test_warp_shuffles_and_votes(mod):
    n = 128
    v = np.random.default_rng(2).integers(0, 100, n).astype(np.int32)
    s, up, aa = (np.zeros(n, np.int32) for _ in range(3))
    bal = np.zeros(n, np.uint32)
    run(mod, "warp_ops", (2,), (64,), [v, s, bal, up, aa])
    for w in range(n // 32):
        lanes = v[w * 32:(w + 1) * 32]
        assert (s[w * 32:(w + 1) * 32] == lanes.sum()).all()
        want_ballot = sum(1 << i for i in range(32) if lanes[i] & 1)
        assert (bal[w * 32:(w + 1) * 32] == want_ballot).all()
        for i in range(32):
            u = lanes[i - 3] if i >= 3 else lanes[i]
            d = lanes[i + 5] if i + 5 < 32 else lanes[i]
            assert up[w * 32 + i] == u + d * 1000 + lanes[7] * 1000000, (w, i)
            assert aa[w * 32 + i] == int((lanes > 90).any()) * 2 + 1


def test_atomics_histogram(mod):
    n = 5000
    x = np.random.default_rng(3).integers(0, 1 << 20, n).astype(np.uint32)
    hist = np.zeros(16, np.uint32)
    mx = np.zeros(1, np.int32)
    counter = mod.global_array("d_counter", np.int32)
    counter[:] = 0
    run(mod, "histogram", ((n + 127) // 128,), (128,), [x, hist, n, mx])
    np.testing.assert_array_equal(hist, np.bincount(x % 16, minlength=16))
    assert mx[0] == x.max()
    assert counter[0] == n


def test_recursion_and_printf(mod):
    out = np.zeros(20, np.int64)
    mod.printed.clear()
    run(mod, "fib_kernel", (1,), (20,), [out])
    fib = [0, 1]
    while len(fib) < 20:
        fib.append(fib[-1] + fib[-2])
    assert out.tolist() == fib
    assert mod.printed == ["fib(3) = 2, scale 4.000000\n"]


def test_conditional_barrier_in_loop(mod):
    iters = np.array([0, 1, 5, 9], np.int32)
    out = np.zeros(4 * 128, np.int32)
    run(mod, "cond_barrier", (4,), (128,), [iters, out])
    for b, n in enumerate(iters):
        acc = np.zeros(128, np.int64)
        for k in range(n):
            acc[::2] += k
            prev = acc.copy()
            acc[1:] += prev[:-1] & 1
        np.testing.assert_array_equal(out[b * 128:(b + 1) * 128], acc)


def test_tiled_matmul_dynamic_shared(mod):
    n = 32
    rng = np.random.default_rng(4)
    a = rng.integers(-4, 5, (n, n)).astype(np.float32)
    b = rng.integers(-4, 5, (n, n)).astype(np.float32)
    c = np.zeros((n, n), np.float32)
    run(mod, "matmul", (n // 8, n // 8), (8, 8), [a, b, c, n], dyn_shared=2 * 64 * 4)
    np.testing.assert_array_equal(c, a @ b)


def test_math_and_conversions(mod):
    n = 300
    x = np.linspace(-3, 3, n).astype(np.float32)
    y = np.zeros(n, np.float32)
    iy = np.zeros(n, np.int32)
    dy = np.zeros(n, np.float64)
    run(mod, "mathk", (2,), (256,), [x, y, iy, dy, n])
    f = np.float32
    want = (np.sqrt(np.abs(x)) + np.minimum(x, f(0.5)) - np.maximum(x, f(-0.5))
            + x / f(3.0)).astype(np.float32)
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)
    idx = np.arange(n)
    ints = range(n)
    pop = np.array([bin(i).count("1") for i in ints])
    clz = np.array([32 - (i + 1).bit_length() for i in ints])
    want_i = np.rint(x * f(100)).astype(np.int64) + np.trunc(x * f(7)).astype(np.int64) \
        + pop + clz
    np.testing.assert_array_equal(iy, want_i)
    np.testing.assert_allclose(dy, x.astype(np.float64) * 1.5 + idx / 7.0, rtol=1e-15)


def test_syncthreads_count_and_or(mod):
    v = np.random.default_rng(5).integers(-10, 10, 96).astype(np.int32)
    out = np.zeros(96, np.int32)
    run(mod, "bar_red", (1,), (96,), [v, out])
    want = (v > 0).sum() * 100 + int((v > -5).all()) * 10 + int((v > 100).any())
    assert (out == want).all()


def test_local_array_across_barriers_with_early_exit(mod):
    n = 50
    v = np.random.default_rng(6).integers(0, 1000, 64).astype(np.int32)
    out = np.full(64, -7, np.int32)
    run(mod, "local_across_barrier", (1,), (64,), [v, out, n])
    priv = [[int(v[t]) * (k + 1) for k in range(8)] for t in range(n)]
    s = [priv[t][v[t] & 7] for t in range(n)]
    for t in range(n):
        acc = sum(priv[t][(k + s[(t + 1) % n]) & 7] for k in range(8))
        assert out[t] == acc + s[(t + 3) % n], t
    assert (out[n:] == -7).all()


@pytest.fixture(scope="module")
def ptx80(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("sm80")
    subprocess.run(["nvcc", "-ptx", "-arch=sm_80", str(HERE / "warp80.cu"), "-o",
                    str(tmp / "w.ptx")], check=True, capture_output=True)
    return (tmp / "w.ptx").read_text()


@pytest.fixture(scope="module", params=[(64, ""), (32, ""), (64, "+phases"), (64, "+fibers")],
                ids=["wave64", "wave32", "wave64-phases", "wave64-fibers"])
def mod80(request, ptx80, tmp_path_factory):
    wave, option = request.param
    m = build(ptx80, f"cpu-wave{wave}{option}", tmp_path_factory.mktemp("m80"))
    m.wave = wave
    return m


def test_match_and_redux(mod80):
    v = np.random.default_rng(7).integers(-50, 50, 64).astype(np.int32)
    out = np.zeros(64 * 6, np.int32)
    run(mod80, "collectives", (1,), (64,), [v, out])
    out = out.reshape(64, 6)
    for w in range(2):
        lanes = v[w * 32:(w + 1) * 32]
        rem = np.fmod(lanes, 4)  # C's % truncates
        for i in range(32):
            row = out[w * 32 + i]
            want_any = sum(1 << j for j in range(32) if rem[j] == rem[i])
            assert row[0] == np.int32(np.uint32(want_any))
            assert row[1] == -1 + 1  # all lanes agree: mask 0xffffffff (-1) plus pred 1
            assert row[2] == lanes.sum()
            assert row[3] == np.int32(lanes.astype(np.uint32).max())
            assert row[4] == lanes.min()
            x = 0
            for val in lanes.astype(np.uint32):
                x ^= int(val)
            assert row[5] == np.int32(np.uint32(x))


def test_divergent_collectives_and_activemask(mod80):
    v = np.arange(64, dtype=np.int32) * 3
    out = np.zeros(64, np.int32)
    run(mod80, "divergent", (1,), (64,), [v, out])
    for t in range(64):
        if t & 1:
            assert out[t] == 1 + 2 * v[t ^ 2], t
        else:
            assert out[t] == -1


def test_debug_build_ptx(tmp_path):
    """nvcc -G: .loc/.file lines, DWARF .section blocks, everything through .local."""
    ptx = tmp_path / "g.ptx"
    subprocess.run(["nvcc", "-ptx", "-G", str(HERE / "kernels.cu"), "-o", str(ptx)], check=True,
                   capture_output=True)
    m = build(ptx.read_text(), "cpu-wave64", tmp_path)
    m.wave = 64
    x = np.arange(3000, dtype=np.float32) % 17
    out = np.zeros(1, np.float32)
    run(m, "block_sum", (12,), (256,), [x, out, 3000])
    assert out[0] == x.sum()
    fib = np.zeros(12, np.int64)
    run(m, "fib_kernel", (1,), (12,), [fib])
    assert fib.tolist() == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89]


def test_sub_warp_shuffles(mod):
    v = np.random.default_rng(8).integers(-1000, 1000, 64).astype(np.int32)
    out = np.zeros(64 * 4, np.int32)
    run(mod, "shfl_width", (1,), (64,), [v, out])
    out = out.reshape(64, 4)
    for t in range(64):
        w0 = t & ~31
        lane = t & 31

        def at(src_lane, w0=w0):
            return v[w0 + src_lane]

        # CUDA Programming Guide, warp shuffle functions, width semantics
        seg = lane & ~7
        assert out[t, 0] == at(seg + (t * 3 + 1) % 8), t
        assert out[t, 1] == (at(lane - 3) if lane % 16 >= 3 else at(lane)), t
        assert out[t, 2] == (at(lane + 2) if lane % 4 + 2 < 4 else at(lane)), t
        x = lane ^ 5
        assert out[t, 3] == (at(x) if x < (lane & ~7) + 8 else at(lane)), t


@pytest.mark.parametrize("name", ["block_sum", "warp_ops"])
def test_blocks_run_concurrently_on_worker_threads(mod, name):
    """The runtime calls run_block from several worker threads at once (ctypes releases the
    GIL): per-block state (shared window, fibers, phase contexts) must be per thread."""
    import threading

    if name == "block_sum":
        n = 256 * 64
        x = np.arange(n, dtype=np.float32) % 5
        outs = [np.zeros(1, np.float32) for _ in range(4)]

        def work(k):
            for _ in range(3):
                mod.launch("block_sum", (64,), (256,), [x, outs[k], n], warp_size=mod.wave)

        want = 3 * x.sum()
    else:
        v = np.random.default_rng(9).integers(0, 100, 256).astype(np.int32)
        outs = [np.zeros(256, np.int32) for _ in range(4)]
        spare = [[np.zeros(256, t) for t in (np.uint32, np.int32, np.int32)] for _ in range(4)]

        def work(k):
            mod.launch("warp_ops", (4,), (64,), [v, outs[k], *spare[k]], warp_size=mod.wave)

        want = np.repeat(v.reshape(-1, 32).sum(axis=1), 32)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for out in outs:
        np.testing.assert_array_equal(out, want)


def test_barrier_in_a_device_function(mod):
    out = np.zeros(64, np.int32)
    run(mod, "callee_barrier", (1,), (64,), [out])
    np.testing.assert_array_equal(out, ((np.arange(64) + 7) % 64) * 5)
