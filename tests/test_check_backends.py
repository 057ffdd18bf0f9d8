"""`pyshim check` per backend: an entry point the tables forward to HIP (`direct`, ...) still
fails at run time on a backend that lacks its HIP target. The CPU device's list is computed
from shim/cpu's sources; these tests hold it to the built library's dynamic symbols."""

from __future__ import annotations

import json

import test_check as tc

from pyshim.builders.cpu import SONAME, build_cpu_device
from pyshim.check import backends, check_report
from pyshim.check.tables import load as load_tables
from pyshim.check.text import format_report

# CUDA arrays: the tables map them `direct` to hipMallocArray & co.
ARRAY_SOURCE = r"""
#include <cstdio>
int main() {
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t arr = nullptr;
    float *d = nullptr;
    if (cudaMalloc(&d, 64 * sizeof(float)) != cudaSuccess) { puts("no device"); return 1; }
    cudaError_t err = cudaMallocArray(&arr, &desc, 64, 64);
    printf("cudaMallocArray: %d\n", (int)err);
    if (err == cudaSuccess) cudaFreeArray(arr);
    cudaFree(d);
    return 0;
}
"""
ARRAY_CALLS = ("cudaCreateChannelDesc", "cudaMallocArray", "cudaFreeArray")


def built_exports() -> frozenset[str]:
    return backends.library_exports(build_cpu_device() / SONAME)


def test_sources_scan_is_the_built_libraries_exports():
    assert backends.cpu_exports_from_sources() == built_exports()


def test_gap_list_is_every_forwarded_target_the_built_cpu_device_lacks():
    have = built_exports()
    gaps = backends.table_gaps()
    for api in ("driver", "runtime"):
        with open(tc.paths.TABLES_DIR / f"{api}.json") as f:
            eps = json.load(f)["entry_points"]
        for name, ep in eps.items():
            target = ep.get("target")
            forwards = ep["class"] in backends.FORWARDING and backends.hip_owned(target)
            lacks = forwards and target not in have
            assert (backends.CPU in gaps[api].get(name, {})) == lacks, (api, name, target)
            if lacks:
                assert gaps[api][name][backends.CPU] == target
    # the build writes the same list (a generated file beside the library)
    written = json.loads((build_cpu_device() / f"{SONAME}.gaps.json").read_text())
    assert written == {api: {ep: g[backends.CPU] for ep, g in eps.items()
                             if backends.CPU in g} for api, eps in gaps.items()}


def test_definition_scan_skips_prototypes_and_static_helpers(tmp_path):
    # shim/cpu/<library>/: only the HIP runtime's folder is scanned, not rocBLAS's beside it
    hip, rocblas = tmp_path / "hip", tmp_path / "rocblas"
    hip.mkdir()
    rocblas.mkdir()
    (hip / "a.c").write_text(
        "hipError_t hipProto(int x);\n"
        "static hipError_t hipLocal(void) { return 0; }\n"
        "hipError_t\nhipSplit(int *p,\n          int q)\n{\n  return 0;\n}\n"
        "const char *hipName(hipError_t e) {\n  return 0;\n}\n"
        "int helper(void) { return hipProto(1); }\n")
    (rocblas / "x.c").write_text("int hipForeign(void) { return 0; }\n")
    assert backends.cpu_exports_from_sources(hip) == {"hipSplit", "hipName"}


def _array_program_checks(flags: list[str], name: str) -> None:
    have = built_exports()
    tables = load_tables()
    targets = {n: tables.lookup(n).target for n in ARRAY_CALLS}
    lacking = sorted(n for n, t in targets.items() if t not in have)
    if not lacking:
        import pytest
        pytest.skip(f"the CPU device now has {targets}: pick calls it lacks")
    doc = check_report([tc.build(name, ARRAY_SOURCE, flags)], deps=False)
    b = doc["binaries"][0]
    used = tc.used(b)
    for n in ARRAY_CALLS:
        assert used[n]["status"] == tables.lookup(n).status
        expect = {backends.CPU: targets[n]} if n in lacking else {}
        assert used[n]["backend_gaps"] == expect, n
    assert used["cudaMalloc"]["backend_gaps"] == {}
    assert b["backend_gaps"][backends.CPU] == sorted(n for n, e in used.items()
                                                     if backends.CPU in e["backend_gaps"])
    assert set(lacking) <= set(b["backend_gaps"][backends.CPU])
    assert b["verdict"] == "runs-with-gaps"
    reason = next(r for r in b["reasons"] if r.startswith("on the CPU device"))
    assert all(f"{n} ({targets[n]})" in reason for n in lacking)
    text = format_report(doc)
    assert f"not on the CPU device (no {targets[lacking[0]]})" in text


def test_static_cudart_program_using_arrays_reports_the_cpu_gap():
    _array_program_checks([], "arrays-static")


def test_shared_cudart_program_using_arrays_reports_the_cpu_gap():
    _array_program_checks(["-cudart", "shared"], "arrays-shared")


def test_tables_stats_counts_what_the_built_cpu_device_can_run():
    from pyshim.tables.stats import is_mapped, stats

    have = built_exports()
    s = stats()
    for api in ("driver", "runtime"):
        with open(tc.paths.TABLES_DIR / f"{api}.json") as f:
            eps = json.load(f)["entry_points"].values()
        runs = sum(1 for e in eps if is_mapped(e, api) and not (
            e["class"] in backends.FORWARDING and backends.hip_owned(e["target"])
            and e["target"] not in have))
        assert s[api]["cpu_device"] == runs < s[api]["mapped"]
    assert s["cublas"]["cpu_device"] is None


def test_hipfft_targets_are_not_the_hip_runtimes():
    """cuFFT forwards to hipFFT (libhipfft.so.0), not to libamdhip64: `pyshim check` of a
    cuFFT program must not report hipfftExecC2C as a HIP runtime function the device lacks."""
    assert backends.hip_owned("hipMalloc") and not backends.hip_owned("hipfftExecC2C")
    assert not backends.hip_owned("hiprtcCompileProgram")
