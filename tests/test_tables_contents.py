"""The committed tables against the facts the issue fixes (counts, traps, coverage)."""

import json

import pytest

from pyshim.paths import TABLES_DIR
from pyshim.tables.stats import API_KEYS, is_mapped, load, stats


@pytest.fixture(scope="module")
def tables():
    return {k: load(k) for k in API_KEYS}


@pytest.fixture(scope="module")
def rocm():
    return json.loads((TABLES_DIR / "rocm.json").read_text())


@pytest.fixture(scope="module")
def enum_pairs():
    return json.loads((TABLES_DIR / "enums.json").read_text())["pairs"]


# cusolver: cusolverDn.h's 379, cusolverSp.h's 62, cusolverSp_LOWLEVEL_PREVIEW.h's 110 and
# cusolverRf.h's 26 declarations
@pytest.mark.parametrize("api,entry_points,symbols", [
    ("driver", 449, 635), ("runtime", 310, 378), ("cublas", 530, 530), ("cusolver", 577, 577),
    ("curand", 29, 29), ("cufft", 56, 56), ("cublaslt", 45, 45)])
def test_counts_equal_the_real_headers(api, entry_points, symbols):
    s = stats()[api]
    assert (s["entry_points"], s["symbols"]) == (entry_points, symbols)


@pytest.mark.parametrize("api,minimum", [
    ("driver", 325), ("runtime", 250), ("cublas", 420), ("cusolver", 105), ("curand", 20),
    ("cufft", 45), ("cusparse", 120), ("cublaslt", 22)])
def test_mapped_coverage(api, minimum):
    assert stats()[api]["mapped"] >= minimum


def test_stats_json_shape():
    s = stats()
    assert set(s) == {"driver", "runtime", "cublas", "cusolver", "curand", "cufft", "cusparse",
                      "cublaslt"}
    for row in s.values():
        assert set(row) == {"entry_points", "symbols", "mapped", "unsupported", "by_class",
                            "cpu_device", "implemented", "stub_only"}
        assert sum(row["by_class"].values()) == row["entry_points"]
        assert row["unsupported"] == row["by_class"]["unsupported"]
        assert row["cpu_device"] is None or 0 <= row["cpu_device"] <= row["mapped"]


def test_every_target_exists_in_rocm(tables, rocm):
    names = set().union(*rocm["names"].values())
    for api, doc in tables.items():
        for name, e in doc["entry_points"].items():
            if e["target"]:
                assert e["target"] in names, (api, name, e["target"])
            if e["target"] and e["class"] != "unsupported":
                assert e["target"] in rocm["functions"], (api, name)


def test_every_unsupported_entry_point_has_a_reason(tables):
    for api, doc in tables.items():
        for name, e in doc["entry_points"].items():
            if e["class"] in ("unsupported", "shim"):
                assert e["reason"], (api, name)


def test_mapped_entries_convert_every_argument(tables):
    for api, doc in tables.items():
        for name, e in doc["entry_points"].items():
            if is_mapped(e, api) and e["class"] != "shim":
                params = e["symbols"][e["primary"]]["params"]
                assert len(e["args"]) == len(params), (api, name)


def test_cuLaunchKernel_goes_to_hipModuleLaunchKernel(tables):
    assert tables["driver"]["entry_points"]["cuLaunchKernel"]["target"] == \
        "hipModuleLaunchKernel"


def test_cublas_op_t_is_rocblas_transpose(enum_pairs):
    values = {c: (r, rv) for c, _cv, r, rv in enum_pairs["cublasOperation_t->rocblas_operation"]["values"]}
    assert values["CUBLAS_OP_T"] == ("rocblas_operation_transpose", 112)
    assert values["CUBLAS_OP_N"] == ("rocblas_operation_none", 111)


def test_sgemm_is_converted_through_the_operation_map(tables):
    e = tables["cublas"]["entry_points"]["cublasSgemm"]
    assert e["primary"] == "cublasSgemm_v2"
    assert e["target"] == "rocblas_sgemm"
    assert e["args"][1] == "enum:cublasOperation_t->rocblas_operation"


@pytest.mark.parametrize("name,version,variant,symbol", [
    ("cuMemAlloc", 3020, "", "cuMemAlloc_v2"),
    ("cuMemAlloc", 2000, "", "cuMemAlloc"),
    ("cuCtxSynchronize", 13000, "", "cuCtxSynchronize_v2"),
    ("cuCtxSynchronize", 2000, "", "cuCtxSynchronize"),
    ("cuLaunchKernel", 7000, "ptsz", "cuLaunchKernel_ptsz"),
    ("cuEventElapsedTime", 12080, "", "cuEventElapsedTime_v2"),
    ("cuGetProcAddress", 12000, "", "cuGetProcAddress_v2"),
])
def test_proc_address_map(tables, name, version, variant, symbol):
    rows = tables["driver"]["proc_address"]
    assert [name, version, variant, symbol] in rows


def test_proc_address_covers_every_symbol_and_is_sorted(tables):
    rows = tables["driver"]["proc_address"]
    assert rows == sorted(rows)
    every = [*tables["driver"]["entry_points"].values(),
             *tables["driver"]["extra_entry_points"].values()]
    symbols = {s for e in every for s in e["symbols"]}
    assert {r[3] for r in rows} <= symbols
    assert ["cuProfilerStart", 4000, "", "cuProfilerStart"] in rows
    # only cuGetProcAddress_v2_ptsz has no PFN typedef
    assert symbols - {r[3] for r in rows} == {"cuGetProcAddress_v2_ptsz"}


def test_device_prop_shared_fields_are_recorded():
    pairs = json.loads((TABLES_DIR / "structs.json").read_text())["pairs"]
    prop = pairs["cudaDeviceProp"]
    assert prop["rocm"] == "hipDeviceProp_tR0600"
    assert prop["cuda_size"] == 1008 and prop["rocm_size"] == 1472
    assert len(prop["shared"]) >= 60


def test_status_maps_cover_every_rocm_code(enum_pairs):
    typedefs = json.loads((TABLES_DIR / "typedefs.json").read_text())
    hip_codes = set(typedefs["rocm_enums"]["hipError_t"].values())
    reverse = {r for r, _c in enum_pairs["CUresult->hipError_t"]["reverse"]}
    assert hip_codes == reverse
    back = dict(enum_pairs["CUresult->hipError_t"]["reverse"])
    assert back[0] == 0 and back[1] == 1  # success, invalid value


def test_cuda12_differences_recorded():
    d = json.loads((TABLES_DIR / "cuda12.json").read_text())
    assert d["cuda_version"] == 12090
    # cudaDeviceProp lost fields in CUDA 13
    assert "cudaDeviceProp" in d["structs"]
    assert d["structs"]["cudaDeviceProp"]["12"]["size"] != \
        d["structs"]["cudaDeviceProp"]["13"]["size"]
