"""The CUDA side: entry points and exported symbols of each API, from the real headers.

An *entry point* is a function as an application names it (`cuMemAlloc`); its *symbols*
are what a library exports for it (`cuMemAlloc`, `cuMemAlloc_v2`, `cuMemcpyHtoD_v2_ptds`).
The default parse gives one primary symbol per entry point; extra parses (per-thread
default stream, internal version) reveal the other exported variants.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pyshim.tables.clang_parse import Function, Header, parse_header
from pyshim.tables.fetch import include_dir

_VARIANT_RE = re.compile(r"(_v\d+)?(_ptds|_ptsz)?$")


def base_name(symbol: str) -> str:
    return _VARIANT_RE.sub("", symbol)


@dataclass
class EntryPoint:
    name: str
    primary: str
    symbols: dict[str, Function] = field(default_factory=dict)
    cpp_only: bool = False

    @property
    def function(self) -> Function:
        return self.symbols[self.primary]


@dataclass
class Api:
    key: str
    header: str
    entry_points: dict[str, EntryPoint]
    headers: list[Header]      # every parse, default first (enums, structs, typedefs)

    def all_symbols(self) -> dict[str, Function]:
        return {s: f for ep in self.entry_points.values() for s, f in ep.symbols.items()}


def _api_names(primary: Header) -> dict[str, str]:
    """primary symbol -> entry-point name, following `#define name symbol` chains."""
    out: dict[str, str] = {}
    for alias, target in primary.renames.items():
        if target in primary.functions and alias != target:
            # the shortest alias wins: cuMemcpyHtoD, not an intermediate _v2 spelling
            if target not in out or len(alias) < len(out[target]):
                out[target] = alias
    return out


def build_api(key: str, header: Path, includes: list[Path], files: tuple[str, ...],
              variant_defines: tuple[tuple[str, ...], ...] = (), cpp: bool = False,
              prefix: str = "", skip_inline: bool = False) -> Api:
    """skip_inline: leave out the functions the header defines (static inline), which no
    library exports (cublasLt.h's *Init wrappers of the exported *Init_internal)."""
    default = parse_header(header, includes, files=files)
    if skip_inline:
        default.functions = {n: f for n, f in default.functions.items() if not f.inline}
    parses = [default]
    parses += [parse_header(header, includes, files=files, defines=d) for d in variant_defines]
    cpp_parse = None
    if cpp:
        cpp_parse = parse_header(header, includes, files=files, lang="c++")
        parses.append(cpp_parse)
    primaries = {n: f for n, f in default.functions.items() if n.startswith(prefix)}
    cpp_only: set[str] = set()
    if cpp_parse:
        for name, fn in cpp_parse.functions.items():
            if name not in primaries and name.startswith(prefix):
                primaries[name] = fn
                cpp_only.add(name)
    renames = _api_names(default)
    eps: dict[str, EntryPoint] = {}
    by_primary: dict[str, EntryPoint] = {}
    for sym in sorted(primaries):
        name = renames.get(sym, sym)
        ep = EntryPoint(name, sym, {sym: primaries[sym]}, sym in cpp_only)
        eps[name] = ep
        by_primary[sym] = ep
    by_base: dict[str, EntryPoint] = {}
    for ep in eps.values():
        by_base.setdefault(base_name(ep.name), ep)
    for parse in parses[1:]:
        for sym, fn in sorted(parse.functions.items()):
            if not sym.startswith(prefix):
                continue
            if sym in by_primary:
                continue
            owner = by_primary.get(sym) or by_primary.get(re.sub(r"_pt(ds|sz)$", "", sym)) \
                or eps.get(base_name(sym)) or by_base.get(base_name(sym))
            if owner is None:
                owner = EntryPoint(sym, sym, {}, False)
                eps[sym] = owner
            owner.symbols.setdefault(sym, fn)
    return Api(key, header.name, dict(sorted(eps.items())), parses)


def _cuda_includes() -> list[Path]:
    return [include_dir("cuda13-runtime"), include_dir("cuda13-crt"), include_dir("cuda13-cccl")]


def driver() -> Api:
    inc = _cuda_includes()
    return build_api("driver", inc[0] / "cuda.h", inc, ("/cuda.h",),
                     (("CUDA_API_PER_THREAD_DEFAULT_STREAM",), ("__CUDA_API_VERSION_INTERNAL",)))


def driver_profiler() -> Api:
    """cudaProfiler.h: exported by libcuda.so.1 and asked for through cuGetProcAddress
    (cudaProfilerStart), but outside cuda.h and so outside the driver's 449."""
    inc = [include_dir("cuda13-profiler"), *_cuda_includes()]
    return build_api("driver-profiler", inc[0] / "cudaProfiler.h", inc, ("/cudaProfiler.h",),
                     prefix="cu")


def runtime() -> Api:
    inc = _cuda_includes()
    return build_api("runtime", inc[0] / "cuda_runtime_api.h", inc,
                     ("/cuda_runtime_api.h", "/driver_types.h", "/vector_types.h",
                      "/surface_types.h", "/texture_types.h", "/library_types.h"),
                     (("CUDA_API_PER_THREAD_DEFAULT_STREAM",),))


def cublas() -> Api:
    inc = [include_dir("cublas13"), *_cuda_includes()]
    return build_api("cublas", inc[0] / "cublas_v2.h", inc,
                     ("/cublas_api.h", "/cublas_v2.h", "/library_types.h", "/cuComplex.h",
                      "/cuda_fp16.h", "/cuda_bf16.h"),
                     cpp=True, prefix="cublas")


def cusolver() -> Api:
    """libcusolver.so.12's declared API: dense (cusolverDn.h), sparse (cusolverSp.h and
    its low-level cusolverSp_LOWLEVEL_PREVIEW.h; cusparse.h only for their types) and
    refactorization (cusolverRf.h). cusolverMg.h is libcusolverMg.so.12's, a library
    pyshim does not replace."""
    inc = [include_dir("cusolver12"), include_dir("cusparse12"), include_dir("cublas13"),
           *_cuda_includes()]
    dense = build_api("cusolver", inc[0] / "cusolverDn.h", inc,
                      ("/cusolverDn.h", "/cusolver_common.h"), prefix="cusolver")
    sparse = build_api("cusolver", inc[0] / "cusolverSp_LOWLEVEL_PREVIEW.h", inc,
                       ("/cusolverSp.h", "/cusolverSp_LOWLEVEL_PREVIEW.h", "/cusparse.h"),
                       prefix="cusolverSp")
    rf = build_api("cusolver", inc[0] / "cusolverRf.h", inc, ("/cusolverRf.h",),
                   prefix="cusolverRf")
    eps = dict(sorted({**dense.entry_points, **sparse.entry_points,
                       **rf.entry_points}.items()))
    return Api("cusolver", dense.header, eps, dense.headers + sparse.headers + rf.headers)


def cuda12_runtime() -> Api:
    # the 12.9 runtime wheel ships no crt/: 13.0's host_defines.h (attribute macros only)
    # stands in, after 12.9's own directory so every declaration comes from 12.9
    inc = [include_dir("cuda12-runtime"), include_dir("cuda13-crt")]
    return build_api("runtime12", inc[0] / "cuda_runtime_api.h", inc,
                     ("/cuda_runtime_api.h", "/driver_types.h", "/vector_types.h",
                      "/surface_types.h", "/texture_types.h", "/library_types.h"),
                     (("CUDA_API_PER_THREAD_DEFAULT_STREAM",),))


def curand() -> Api:
    """libcurand.so.10's host API (curand.h)."""
    inc = [include_dir("curand10"), *_cuda_includes()]
    return build_api("curand", inc[0] / "curand.h", inc, ("/curand.h",), prefix="curand")


def cufft() -> Api:
    """libcufft.so.12: cufft.h and cufftXt.h (multi-GPU descriptors, callbacks)."""
    inc = [include_dir("cufft12"), *_cuda_includes()]
    return build_api("cufft", inc[0] / "cufftXt.h", inc,
                     ("/cufft.h", "/cufftXt.h", "/cudalibxt.h"), prefix="cufft")


def cusparse() -> Api:
    """libcusparse.so.12 (cusparse.h: the generic API, the legacy BSR/CSR routines, helpers)."""
    inc = [include_dir("cusparse12"), *_cuda_includes()]
    return build_api("cusparse", inc[0] / "cusparse.h", inc, ("/cusparse.h",),
                     prefix="cusparse")


def cublaslt() -> Api:
    """libcublasLt.so.13's declared API (cublasLt.h, in the same wheel as cuBLAS; its
    cublasStatus_t and cudaDataType come from cublas_api.h and library_types.h)."""
    inc = [include_dir("cublas13"), *_cuda_includes()]
    return build_api("cublaslt", inc[0] / "cublasLt.h", inc, ("/cublasLt.h",),
                     prefix="cublasLt", skip_inline=True)
