"""pyshim.codegen.runtime: libcudart's generated C and version scripts, checked against the
tables and compiled with -Werror against the real CUDA 13.0 / 12.9 headers."""

from __future__ import annotations

import re
import subprocess

import pytest

from pyshim.codegen import runtime
from pyshim.codegen.common import load_table
from pyshim.paths import SHIM_DIR


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("rtgen")
    return {p.name: p for p in runtime.generate(out)}


def test_generation_is_deterministic(tmp_path, gen):
    again = {p.name: p for p in runtime.generate(tmp_path)}
    assert sorted(again) == sorted(gen)
    for name, path in again.items():
        assert path.read_bytes() == gen[name].read_bytes(), name


def _export_stubs(gen: dict, major: int) -> set[str]:
    """NVIDIA's exports the tables lack (tables/exports/libcudart.so.<major>.txt)."""
    text = gen[f"runtime_export_stubs_{major}.c"].read_text()
    return set(re.findall(r"^PYSHIM_EXPORT int (\w+)\(void\)$", text, re.M))


def _map_symbols(text: str) -> tuple[str, list[str]]:
    node = re.search(r"^(\S+) \{$", text, re.M)
    assert node is not None
    body = text.split("global:")[1].split("local:")[0]
    return node[1], [s.strip().rstrip(";") for s in body.split() if s.strip()]


@pytest.mark.parametrize("major", runtime.MAJORS)
def test_version_script_lists_every_symbol_under_the_soname_node(gen, major):
    node, syms = _map_symbols(gen[f"libcudart.so.{major}.map"].read_text())
    assert node == f"libcudart.so.{major}"
    assert len(syms) == len(set(syms))
    assert "local:\n    *;" in gen[f"libcudart.so.{major}.map"].read_text()
    doc = load_table("runtime")
    cuda12 = load_table("cuda12")
    every = {s for e in doc["entry_points"].values() for s in e["symbols"]}
    if major == 12:
        every = (every - set(cuda12["symbols_only_in_13"])) | set(cuda12["symbols_only_in_12"])
    assert every | set(runtime.HOOKS) | _export_stubs(gen, major) == set(syms)
    # the export-list stubs are only what neither the tables nor the hooks give
    assert not _export_stubs(gen, major) & (every | set(runtime.HOOKS))
    for hook in ("__cudaRegisterFatBinary", "__cudaGetKernel", "__cudaLaunchKernel_ptsz"):
        assert hook in syms


def test_major_12_has_its_own_symbols(gen):
    _n, syms12 = _map_symbols(gen["libcudart.so.12.map"].read_text())
    _n, syms13 = _map_symbols(gen["libcudart.so.13.map"].read_text())
    assert "cudaGetDeviceProperties_v2" in syms12 and "cudaGetDeviceProperties_v2" not in syms13
    assert "cudaThreadSynchronize" in syms12 and "cudaThreadSynchronize" not in syms13
    assert "cudaLogsCurrent" in syms13 and "cudaLogsCurrent" not in syms12


@pytest.mark.parametrize("major", runtime.MAJORS)
def test_every_symbol_has_one_weak_definition(gen, major):
    text = gen[f"runtime_thunks_{major}.c"].read_text()
    defined = re.findall(r"^PYSHIM_WEAK \S.*?\b(\w+)\(", text, re.M)
    _n, syms = _map_symbols(gen[f"libcudart.so.{major}.map"].read_text())
    assert sorted(defined) == sorted(set(syms) - set(runtime.HOOKS) - _export_stubs(gen, major))


def test_thunks_forward_mapped_entries_and_stub_the_rest(gen):
    text = gen["runtime_thunks_13.c"].read_text()

    def body(symbol: str) -> str:
        m = re.search(rf"^PYSHIM_WEAK [^\n]*\b{symbol}\(.*?\n\}}\n", text, re.M | re.S)
        assert m is not None, symbol
        return m[0]

    assert "hipMalloc(devPtr, size)" in body("cudaMalloc")
    # per-thread variants read NULL as the per-thread stream, the plain ones do not
    assert "pyshim_rt_stream(stream, 1)" in body("cudaMemcpyAsync_ptsz")
    assert "pyshim_rt_stream(stream, 0)" in body("cudaMemcpyAsync")
    # enum arguments go through the generated value map; a value with no HIP counterpart
    # is refused, never passed through (it would name another HIP enumerator)
    assert "pyshim_cudaDeviceAttr_to_hipDeviceAttribute_t" in body("cudaDeviceGetAttribute")
    assert 'pyshim_rt_unmapped("cudaDeviceSetLimit", "limit", (int)limit)' in body(
        "cudaDeviceSetLimit")
    # host identities (kernel stubs, symbols) never reach HIP
    assert "pyshim_rt_unsupported" in body("cudaOccupancyMaxActiveBlocksPerMultiprocessor")
    assert "hip" not in body("cudaMemcpyToSymbolAsync").split("{", 1)[1]
    # an unmapped entry point is a logged, counted cudaErrorNotSupported
    assert 'pyshim_rt_unsupported("cudaCtxResetPersistingL2Cache")' in body(
        "cudaCtxResetPersistingL2Cache")
    # every HIP target is a weak import, checked before the call
    assert "extern PYSHIM_WEAK_IMPORT int hipMalloc(void **a0, size_t a1);" in text
    assert "if (hipMalloc == NULL)" in body("cudaMalloc")


def test_every_hip_target_exists_in_rocm_tables(gen):
    rocm = load_table("rocm")["functions"]
    for major in runtime.MAJORS:
        text = gen[f"runtime_thunks_{major}.c"].read_text()
        for name, nargs in re.findall(r"PYSHIM_WEAK_IMPORT int (\w+)\((.*?)\);", text):
            assert name in rocm, name
            count = 0 if nargs == "void" else nargs.count(",") + 1
            assert count == len(rocm[name]["params"]), name


def test_error_table_covers_cuda_error_t(gen):
    values = load_table("typedefs")["cuda_enums"]["cudaError_t"]
    rows = re.findall(r'PYSHIM_RT_ERROR\((\d+), "(\w+)", "([^"]+)"\)',
                      gen["runtime_errors.inc"].read_text())
    assert {name: int(v) for v, name, _t in rows} == values
    text = {name: t for _v, name, t in rows}
    assert text["cudaErrorMemoryAllocation"] == "out of memory"
    assert text["cudaErrorPeerAccessAlreadyEnabled"] == "peer access already enabled"


def test_device_prop_map_per_layout(gen):
    text = gen["runtime_devprop.inc"].read_text()
    blocks = dict(re.findall(r"#if PYSHIM_CUDART_MAJOR == (\d+)\n(.*?)#endif", text, re.S))
    assert set(blocks) == {"12", "13"}
    rows = {m: {f: (int(c), int(h), int(s)) for c, h, s, f in
                re.findall(r"PYSHIM_RT_PROP\((\d+), (\d+), (\d+), (\w+)\)", b)}
            for m, b in blocks.items()}
    layouts = load_table("cuda12")["structs"]["cudaDeviceProp"]
    for major, fields in rows.items():
        cuda = {f[0]: (f[2], f[3]) for f in layouts[major]["fields"]}
        for field, (coff, _hoff, size) in fields.items():
            assert cuda[field] == (coff, size), (major, field)
    # the same field sits at different CUDA offsets in the two layouts
    assert rows["12"]["multiProcessorCount"][0] != rows["13"]["multiProcessorCount"][0]
    assert "clockRate" in rows["12"] and "clockRate" not in rows["13"]
    assert "#define PYSHIM_RT_DEVPROP_SIZE 1008" in blocks["13"]


@pytest.mark.network
@pytest.mark.parametrize("major", runtime.MAJORS)
def test_generated_c_compiles_with_werror(gen, tmp_path, major):
    from pyshim.builders.runtime import cuda_includes

    gen_dir = gen["runtime_enums.h"].parent
    cmd = ["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fPIC",
           f"-DPYSHIM_CUDART_MAJOR={major}", *(f"-I{d}" for d in cuda_includes(major)),
           f"-I{gen_dir}", f"-I{SHIM_DIR / 'runtime'}", "-c",
           str(gen_dir / f"runtime_thunks_{major}.c"), "-o", str(tmp_path / "t.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    nm = subprocess.run(["nm", str(tmp_path / "t.o")], capture_output=True, text=True)
    weak_defs = [ln.split()[-1] for ln in nm.stdout.splitlines() if " W " in ln]
    weak_refs = [ln.split()[-1] for ln in nm.stdout.splitlines() if " w " in ln]
    _n, syms = _map_symbols(gen[f"libcudart.so.{major}.map"].read_text())
    assert sorted(weak_defs) == sorted(set(syms) - set(runtime.HOOKS) - _export_stubs(gen, major))
    assert weak_refs and all(r.startswith("hip") for r in weak_refs)


def test_enum_maps_refuse_unknown_values(gen):
    text = gen["runtime_enums.h"].read_text()
    forward = re.findall(r"static inline int (pyshim_\w+_to_\w+)\(int v\).*?default: (.*?);",
                         text, re.S)
    assert forward and all(d == "return PYSHIM_RT_UNMAPPED" for _f, d in forward)
    pair = load_table("enums")["pairs"]["cudaDeviceAttr->hipDeviceAttribute_t"]
    body = text.split("pyshim_cudaDeviceAttr_to_hipDeviceAttribute_t(int v)")[1].split("}")[0]
    for _cn, cv, _rn, rv in pair["values"]:
        assert f"case {cv}: return {rv};" in body
    # constants the tables left unmatched but whose exact HIP twin exists are mapped
    limits = text.split("pyshim_cudaLimit_to_hipLimit_t(int v)")[1].split("}")[0]
    assert "case 0: return 0;" in limits and "case 2: return 2;" in limits
    assert "case 5:" not in limits  # cudaLimitMaxL2FetchGranularity: no HIP limit
    # status codes go the other way, with CUDA's catch-all
    assert "pyshim_cudaError_t_from_hipError_t" in text and "default: return 999;" in text


def test_error_codes_header_has_every_cuda_error() -> None:
    typedefs = load_table("typedefs")
    text = runtime.error_codes_header(typedefs)
    for name, value in typedefs["cuda_enums"]["cudaError_t"].items():
        assert f"#define PYSHIM_RT_{name} {value}\n" in text


def test_no_cuda_error_number_is_typed_into_the_runtime() -> None:
    """cudaError_t values come from the tables (runtime_error_codes.h, or CUDA's enum where
    a file includes CUDA's headers), never a number with the name in a comment beside it."""
    typed = re.compile(r"\b\d+\s*,?\s*\}?,?\s*/\*\s*cuda(Error\w*|Success)\s*\*/")
    offenders = [f"{p.name}:{n}" for p in sorted((SHIM_DIR / "runtime").glob("*.[ch]"))
                 for n, line in enumerate(p.read_text().splitlines(), 1) if typed.search(line)]
    assert offenders == []
