"""The tracer's generated C: deterministic, a wrapper for every driver and runtime symbol,
arguments shown according to their types in the tables."""

from __future__ import annotations

import re

import pytest

from pyshim.codegen import trace
from pyshim.codegen.common import load_table


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("trace_gen")
    return {p.name: p.read_text() for p in trace.generate(out)}


@pytest.fixture(scope="module")
def types() -> trace.Types:
    return trace.Types(load_table("typedefs"))


def _body(text: str, symbol: str) -> str:
    m = re.search(rf"PT_API [^\n]* {re.escape(symbol)}\(", text)
    assert m is not None, symbol
    start = m.start()
    return text[start:text.index("\n}\n", start)]


def test_generation_is_deterministic(tmp_path) -> None:
    a = trace.generate(tmp_path / "a")
    b = trace.generate(tmp_path / "b")
    for pa, pb in zip(a, b, strict=True):
        assert pa.read_bytes() == pb.read_bytes()


@pytest.mark.parametrize("api", ["driver", "runtime"])
def test_every_symbol_has_a_wrapper(generated: dict[str, str], api: str) -> None:
    doc = load_table(api)
    every = {**doc["entry_points"], **doc.get("extra_entry_points", {})}
    symbols = {s for e in every.values() for s in e["symbols"]}
    if api == "runtime":
        symbols |= set(trace.RUNTIME_HOOKS)  # nvcc's hidden launch/registration hooks
        symbols |= set(load_table("cuda12")["symbols_only_in_12"])  # libcudart.so.12's
    text = generated[f"trace_{api}.c"]
    defined = set(re.findall(r"^PT_API [^\n]*?\b(\w+)\(", text, re.M))
    expected = symbols - set(trace.HANDWRITTEN)
    assert defined == expected
    # the dlsym map lists every symbol, hand-written ones included, sorted for bsearch
    rows = re.findall(r'^    \{"(\w+)", \(void \*\)', text, re.M)
    if api == "driver":
        rows = rows[:len(symbols)]
    assert rows == sorted(symbols)


def test_proc_rows_map_names_to_wrappers(generated: dict[str, str]) -> None:
    text = generated["trace_driver.c"]
    assert ('{"cuMemAlloc", 3020, 0, "cuMemAlloc_v2", (void *)cuMemAlloc_v2, '
            "&pyshim_tracer_real_cuMemAlloc_v2}") in text
    assert ('{"cuLaunchKernel", 7000, 2, "cuLaunchKernel_ptsz", (void *)cuLaunchKernel_ptsz'
            in text)
    assert '{"cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2"' in text
    count = int(re.search(r"pt_proc_table_count = (\d+);", text).group(1))
    assert count == len(load_table("driver")["proc_address"])


def test_argument_kinds(types: trace.Types) -> None:
    assert types.kind("CUdeviceptr", "dptr").name == "hex"
    assert types.kind("CUcontext", "ctx").name == "hex"
    assert types.kind("size_t", "bytesize").name == "uint"
    assert types.kind("unsigned int", "gridDimX").name == "uint"
    assert types.kind("unsigned int", "Flags").name == "hex"
    assert types.kind("int", "dev").name == "int"
    assert types.kind("const char *", "name").name == "cstr"
    assert types.kind("float", "ms").name == "float"
    k = types.kind("CUresult")
    assert (k.name, k.enum) == ("enum", "cudaError_enum")
    assert types.kind("enum cudaMemcpyKind", "kind").name == "enum"
    assert types.kind("dim3", "gridDim").name == "struct"
    assert types.kind("void (*)(void *)", "fn").name == "hex"


def test_out_parameters(types: trace.Types) -> None:
    assert types.out_kind("CUdeviceptr *", "dptr").name == "hex"
    assert types.out_kind("int *", "count").name == "int"
    assert types.out_kind("CUmoduleLoadingMode *", "mode").name == "enum"
    assert types.out_kind("const CUgraphNode *", "deps") is None
    assert types.out_kind("CUuuid *", "uuid") is None  # holds an array: only its address
    assert types.out_kind("dim3 *", "gridDim").name == "struct"
    assert types.out_kind("void **", "kernelParams") is None
    assert types.out_kind("void **", "pp").name == "hex"


def test_wrapper_shows_arguments_after_the_call(generated: dict[str, str]) -> None:
    body = _body(generated["trace_driver.c"], "cuMemAlloc_v2")
    call = body.index("pt__fn)(dptr, bytesize)")
    # the out-parameter is read only after a successful call
    assert body.index("if ((pt__r == 0) && dptr != NULL)") > call
    assert "pt_v_hex(&pt__L, (unsigned long long)(uintptr_t)(*dptr))" in body
    assert ("pt_tally(&pyshim_tracer_calls_cuMemAlloc_v2, \"cuMemAlloc_v2\", (long long)pt__r, "
            "pt__r ? pt_enum_cudaError_enum((long long)pt__r) : NULL)") \
        in body
    assert "pt_enum_cudaError_enum((long long)(pt__r))" in body


def test_input_arrays_are_not_dereferenced(generated: dict[str, str]) -> None:
    body = _body(generated["trace_driver.c"], "cuLibraryLoadData")
    assert "(*jitOptions)" not in body
    assert "(*libraryOptionValues)" not in body
    assert "(*library)" in body  # the handle it returns


def test_runtime_struct_and_enum_arguments(generated: dict[str, str]) -> None:
    body = _body(generated["trace_runtime.c"], "cudaLaunchKernel")
    assert 'pt_v_text(&pt__L, "x=")' in body and "(gridDim).z" in body
    body = _body(generated["trace_runtime.c"], "cudaMemcpy")
    assert "pt_enum_cudaMemcpyKind" in body
    enums = generated["trace_enums.h"]
    assert 'case 1LL: return "cudaMemcpyHostToDevice";' in enums
    assert 'case 2LL: return "CUDA_ERROR_OUT_OF_MEMORY";' in enums


def test_strings_handed_back_are_shown(generated: dict[str, str]) -> None:
    body = _body(generated["trace_driver.c"], "cuGetErrorName")
    assert "pt_v_cstr(&pt__L, *pStr)" in body
    assert body.index("if ((pt__r == 0) && pStr != NULL)") < body.index("pt_v_cstr(&pt__L, *pStr)")
    body = _body(generated["trace_driver.c"], "cuDeviceGetName")
    assert "pt_v_cstr(&pt__L, name)" in body
