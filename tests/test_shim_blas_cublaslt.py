"""cuBLASLt through pyshim's libcublasLt.so.13 on the CPU device's hipBLASLt: a real
nvcc-built program linked -lcublasLt (tests/shim_blas/prog_cublaslt.cu) runs matmuls in
f32, f64, f16/bf16 with f32 compute, TF32 and i8 -> i32, column and row order, strided
batches, padded leading dimensions and the bias/ReLU/GELU(+aux) epilogues, and a matrix
transform (order change with a transpose); numpy computes every result from the operands
the program printed. Then its error paths."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pyshim.paths import build_dir
from pyshim.tables.fetch import include_dir

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402

HERE = Path(__file__).parent / "shim_blas"
COL, ROW = 0, 1
BIAS, RELU, GELU, AUX = 4, 2, 32, 128
# cudaDataType of D -> (numpy type D is rounded to, tolerance)
D_TYPE = {0: (np.float32, 1e-5), 1: (np.float64, 1e-12), 2: (np.float16, 2e-3),
          10: (np.int64, 0)}
# cuBLAS statuses (cublas_api.h)
OK, NOT_INITIALIZED, INVALID_VALUE, NOT_SUPPORTED = 0, 1, 7, 15


def _cublaslt_header() -> Path | None:
    try:
        inc = include_dir("cublas13")
    except Exception:  # noqa: BLE001 - the pinned headers cannot be fetched here
        return None
    return inc if (inc / "cublasLt.h").is_file() else None


def cublaslt_program(name: str) -> str:
    """tests/shim_blas/<name>.cu built against NVIDIA's cublasLt.h and pyshim's libcublasLt,
    run on the CPU device; its output, which must end well and say PASS <name>."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    inc = _cublaslt_header()
    if inc is None:
        pytest.skip("cublasLt.h (PyPI nvidia-cublas, pinned in pyshim/tables/sources.py) "
                    "is not in the headers cache")
    from pyshim.builders.components import build_all

    lib, cpu = env.build()
    build_all(components=("cpu", "libcuda"))
    exe = lib.parent / "progs" / name
    exe.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["nvcc", "-O1", "-o", str(exe), str(HERE / f"{name}.cu"),
                           f"-I{inc}", f"-L{lib}", "-lcublasLt",
                           "-Xlinker", f"-rpath-link={cpu}"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    e = dict(os.environ, LD_LIBRARY_PATH=f"{lib}:{build_dir() / 'lib'}:{cpu}")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, env=e)
    assert proc.returncode == 0 and f"PASS {name}" in proc.stdout, \
        proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout + "\n" + proc.stderr


@pytest.fixture(scope="module")
def run_program() -> str:
    return cublaslt_program("prog_cublaslt")


def _cases(out: str) -> list[dict]:
    cases, cur = [], None
    for line in out.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "case":
            m, n, k, batch, ta, tb, order, lda, ldb, ldc, epi = map(int, words[2:13])
            cur = {"name": words[1], "m": m, "n": n, "k": k, "batch": batch, "ta": ta,
                   "tb": tb, "order": order, "lda": lda, "ldb": ldb, "ldc": ldc, "epi": epi,
                   "alpha": float(words[13]), "beta": float(words[14]), "dtype": int(words[15])}
            cases.append(cur)
        elif words[0] == "transform":
            cur = None  # its operands are test_matrix_transform's
        elif cur is not None and words[0] in ("A", "B", "C", "D", "bias", "aux"):
            cur[words[0]] = np.array([float(w) for w in words[1:]])
    return cases


def _matrix(flat: np.ndarray, rows: int, cols: int, ld: int, order: int, batch: int,
            b: int) -> np.ndarray:
    size = ld * (cols if order == COL else rows)
    inst = flat[b * size:(b + 1) * size]
    if order == COL:
        return inst.reshape(cols, ld).T[:rows, :]
    return inst.reshape(rows, ld)[:, :cols]


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def _expected(c: dict) -> tuple[np.ndarray, np.ndarray | None]:
    m, n, k = c["m"], c["n"], c["k"]
    ar, ac = (m, k) if c["ta"] == 0 else (k, m)
    br, bc = (k, n) if c["tb"] == 0 else (n, k)
    ds, auxs = [], []
    for b in range(c["batch"]):
        a = _matrix(c["A"], ar, ac, c["lda"], c["order"], c["batch"], b)
        bm = _matrix(c["B"], br, bc, c["ldb"], c["order"], c["batch"], b)
        cm = _matrix(c["C"], m, n, c["ldc"], c["order"], c["batch"], b)
        a = a if c["ta"] == 0 else a.T
        bm = bm if c["tb"] == 0 else bm.T
        x = c["alpha"] * (a @ bm) + c["beta"] * cm
        if c["epi"] & BIAS:
            x = x + c["bias"][:, None]
        auxs.append(x)
        if c["epi"] & RELU:
            x = np.maximum(x, 0)
        elif c["epi"] & GELU:
            x = _gelu(x)
        ds.append(x)
    return np.stack(ds), (np.stack(auxs) if c["epi"] & AUX else None)


def test_matmul_cases_against_numpy(run_program: str) -> None:
    cases = _cases(run_program)
    names = [c["name"] for c in cases]
    assert names == ["f32", "f64_tn_row_batched", "f16_relu_bias", "bf16_gelu_bias_f32out",
                     "f32_gelu_aux_bias", "f32_relu", "tf32", "i8_i32"]
    for c in cases:
        want, want_aux = _expected(c)
        rtype, tol = D_TYPE[c["dtype"]]
        got = np.stack([_matrix(c["D"], c["m"], c["n"], c["ldc"], c["order"], c["batch"], b)
                        for b in range(c["batch"])])
        if tol == 0:
            np.testing.assert_array_equal(got, want, err_msg=c["name"])
        else:
            scale = max(1.0, float(np.abs(want).max()))
            np.testing.assert_allclose(got, want.astype(rtype), rtol=tol, atol=tol * scale,
                                       err_msg=c["name"])
        if want_aux is not None:  # pre-activation, column-major m x n, ld m
            aux = c["aux"].reshape(c["batch"], c["n"], c["m"]).transpose(0, 2, 1)
            np.testing.assert_allclose(aux, want_aux, rtol=1e-5, atol=1e-5, err_msg=c["name"])
        # D outside op's rows (the padding of ld) is untouched: still zero
        assert np.count_nonzero(c["D"]) <= c["m"] * c["n"] * c["batch"], c["name"]
    # the ReLU cases really clip (a test whose inputs are all positive would not notice)
    relu = next(c for c in cases if c["name"] == "f32_relu")
    assert (relu["D"] == 0).sum() > relu["D"].size // 4


def test_matrix_transform(run_program: str) -> None:
    lines = run_program.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("transform "))
    m, n, lda, ldb, ldc = map(int, lines[at].split()[1:6])
    alpha, beta = map(float, lines[at].split()[6:8])
    arr = {ln.split()[0]: np.array([float(w) for w in ln.split()[1:]])
           for ln in lines[at + 1:at + 4]}
    a = _matrix(arr["A"], m, n, lda, COL, 1, 0)
    b = _matrix(arr["B"], n, m, ldb, COL, 1, 0)
    c = _matrix(arr["C"], m, n, ldc, ROW, 1, 0)
    np.testing.assert_allclose(c, alpha * a + beta * b.T, rtol=1e-6, atol=1e-6)
    assert not arr["C"].reshape(m, ldc)[:, n:].any()  # the row padding is not written


def test_error_paths(run_program: str) -> None:
    errs = {ln.split()[1]: [int(w) for w in ln.split()[2:]]
            for ln in run_program.splitlines() if ln.startswith("ERR ")}
    assert errs == {
        "good": [OK], "forged_handle": [NOT_INITIALIZED], "forged_desc": [INVALID_VALUE],
        "bad_ld": [INVALID_VALUE], "shape_mismatch": [INVALID_VALUE],
        "foreign_algo": [INVALID_VALUE], "workspace_null": [INVALID_VALUE],
        "epilogue_dgelu_no_aux": [INVALID_VALUE], "epilogue_unknown": [NOT_SUPPORTED],
        "bias_null": [INVALID_VALUE],
        "attr_wrong_size": [INVALID_VALUE], "attr_unknown": [INVALID_VALUE],
        "size_query": [OK, 4], "get_epilogue": [OK, 4],  # CUBLASLT_EPILOGUE_BIAS
        "order_col32": [NOT_SUPPORTED], "destroyed_layout": [INVALID_VALUE],
        "double_destroy": [INVALID_VALUE], "unsupported_export": [NOT_SUPPORTED],
        "destroyed_handle": [NOT_INITIALIZED],
        "transform_forged_desc": [INVALID_VALUE], "transform_bad_shape": [INVALID_VALUE]}
    # each refusal names its function and what was refused, once
    assert "cublasLtMatmul: this CUBLASLT_MATMUL_DESC_EPILOGUE is not supported" in run_program
    assert "cublasLtLoggerSetLevel is not supported" in run_program


def test_every_nvidia_symbol_is_exported() -> None:
    from pyshim.tables import exports

    lib, _ = env.build()
    ours = exports.nm_exports(lib / "libcublasLt.so.13")
    want = exports.load("libcublasLt.so.13")
    assert len(want) > 200
    wrong = sorted(n for n, v in want.items() if ours.get(n) != v)
    assert not wrong, wrong[:10]


def test_loaded_by_absolute_path_is_ours(tmp_path: Path) -> None:
    """A program that dlopens some libcublasLt.so.13 by its path (PyTorch through its RPATH,
    cuda-pathfinder into a wheel) gets pyshim's under `pyshim run` (LD_AUDIT)."""
    from pyshim.builders.common import CC
    from pyshim.builders.components import ALL, build_all

    build_all(components=ALL)  # what `pyshim run` loads: the whole build directory
    src = tmp_path / "stand_in.c"
    src.write_text("int not_pyshims(void) { return 1; }\n")
    stand_in = tmp_path / "wheel" / "libcublasLt.so.13"
    stand_in.parent.mkdir()
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(stand_in), str(src),
                    "-Wl,-soname,libcublasLt.so.13"], check=True)
    probe = ("import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); "
             "print('ours', hasattr(lib, 'pyshim_cublaslt_unsupported_count'), "
             "'stand-in', hasattr(lib, 'not_pyshims'))")
    e = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", "--", sys.executable, "-c",
                           probe, str(stand_in)], capture_output=True, text=True, timeout=300,
                          env=e)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ours True stand-in False" in proc.stdout, proc.stdout + proc.stderr
