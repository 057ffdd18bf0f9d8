"""`pyshim tables generate`: headers in, `tables/*.json` out, deterministically."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from pyshim.paths import TABLES_DIR
from pyshim.tables import cuda_api, enums, nccl_api, proc_address, rocm_api
from pyshim.tables.clang_parse import Struct, merge_headers, struct_json
from pyshim.tables.mapping import Converter, Mapper, status_of
from pyshim.tables.sources import SOURCES

OVERRIDES = "overrides.toml"
API_KEYS = ("driver", "runtime", "cublas", "cusolver", "curand", "cufft", "cusparse",
            "cublaslt")
FORMAT_VERSION = 1

# structure pairs whose layouts adapters convert (besides those found in signatures)
STRUCT_PAIRS = (
    ("cudaDeviceProp", "hipDeviceProp_tR0600"),
    ("cudaPointerAttributes", "hipPointerAttribute_t"),
    ("cudaFuncAttributes", "hipFuncAttributes"),
    ("CUDA_MEMCPY2D", "hip_Memcpy2D"),
    ("CUDA_MEMCPY3D", "HIP_MEMCPY3D"),
    ("cudaMemcpy3DParms", "hipMemcpy3DParms"),
    ("cudaResourceDesc", "hipResourceDesc"),
    ("cudaTextureDesc", "hipTextureDesc"),
    ("cudaChannelFormatDesc", "hipChannelFormatDesc"),
    ("cudaKernelNodeParams", "hipKernelNodeParams"),
    ("cudaMemsetParams", "hipMemsetParams"),
    ("CUDA_LAUNCH_PARAMS", "hipFunctionLaunchParams"),
)


def load_overrides(tables_dir: Path = TABLES_DIR) -> dict:
    with open(tables_dir / OVERRIDES, "rb") as f:
        return tomllib.load(f)


def _struct_pair(c: Struct, r: Struct) -> dict:
    rf = {f.name: f for f in r.fields if f.name}
    shared = [[f.name, f.offset, rf[f.name].offset, f.size, rf[f.name].size]
              for f in c.fields if f.name in rf]
    return {"cuda": c.name, "rocm": r.name, "cuda_size": c.size, "rocm_size": r.size,
            "shared": shared,
            "cuda_only": [f.name for f in c.fields if f.name and f.name not in rf],
            "identical": c.size == r.size and len(shared) == len(c.fields) == len(r.fields)
            and all(x[1] == x[2] and x[3] == x[4] for x in shared)}


def _enum_pair(cuda_name: str, cuda: dict[str, int], rocm_name: str, rocm: dict[str, int],
               synonyms: dict[str, str], default: str | None,
               reverse_extra: dict[str, str] | None = None) -> dict:
    names, missing = enums.match(cuda, rocm, synonyms)
    out = {"cuda": cuda_name, "rocm": rocm_name,
           "values": [[c, cuda[c], r, rocm[r]] for c, r in names.items()],
           "unmatched": missing,
           "identity": enums.is_identity(cuda, rocm, names)}
    if default is not None:
        # return codes travel ROCm -> CUDA: every ROCm value needs an answer
        back: dict[int, int] = {}
        for r, c in (reverse_extra or {}).items():
            back[rocm[r]] = cuda[c]
        for c, r in names.items():
            back.setdefault(rocm[r], cuda[c])
        out["reverse"] = [[rv, back.get(rv, cuda[default])] for rv in sorted(set(rocm.values()))]
        out["default"] = default
        out["default_value"] = cuda[default]
    return out


def _dumps(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=True) + "\n"


def build_tables(progress=print) -> dict[str, str]:
    """Every table file's name -> its exact text."""
    tables_dir = TABLES_DIR
    overrides = load_overrides(tables_dir)
    progress("parsing ROCm 7.2 headers")
    rocm = rocm_api.load()
    curated = rocm_api.curated_renames()
    pxd_functions = rocm_api.hip_python_functions()
    apis = {}
    for key in API_KEYS:
        progress(f"parsing CUDA {key} headers")
        apis[key] = getattr(cuda_api, key)()
    cuda_all = merge_headers([h for a in apis.values() for h in a.headers])
    rocm_all = merge_headers(rocm.headers())
    synonyms = overrides.get("enum_synonyms", {})
    conv = Converter(cuda_all.enums, rocm_all.enums, cuda_all.structs, rocm_all.structs,
                     synonyms)
    conv.set_typedefs(cuda_all.typedefs, rocm_all.typedefs)
    mapper = Mapper(rocm, curated, overrides, conv)
    pins = {s.key: f"{s.package}=={s.version}" for s in SOURCES}
    files: dict[str, str] = {}
    targets_used: set[str] = set()
    profiler = cuda_api.driver_profiler()

    def entries(key: str, api) -> dict:
        eps = {}
        for name, ep in api.entry_points.items():
            m = mapper.map(key, ep, status_of(ep.function, api))
            if m.target and m.cls != "unsupported":
                targets_used.add(m.target)
            eps[name] = {
                "primary": ep.primary,
                "symbols": {s: f.signature() for s, f in sorted(ep.symbols.items())},
                "deprecated": ep.function.deprecated,
                "cpp_only": ep.cpp_only,
                "class": m.cls,
                "target": m.target,
                "args": m.args,
                "returns": m.returns,
                "reason": m.reason,
                "extra": m.extra,
            }
        return eps

    for key, api in apis.items():
        progress(f"mapping {key}")
        doc = {"format": FORMAT_VERSION, "api": key, "header": api.header, "pins": pins,
               "entry_points": entries(key, api)}
        if key == "driver":
            # libcuda.so.1 also exports cudaProfiler.h's entry points; kept apart so the
            # driver's counts stay those of cuda.h
            doc["extra_entry_points"] = entries("driver", profiler)
            doc["proc_address"] = [list(r) for r in proc_address.build(api, profiler)]
        files[f"{key}.json"] = _dumps(doc)
    # side tables
    pairs = {(c, v[0]) for c, v in overrides.get("enum_pairs", {}).items()}
    pairs |= conv.enum_pairs_used
    defaults = overrides.get("status_default", {})
    enum_doc = {}
    for c, r in sorted(pairs):
        if c in cuda_all.enums and r in rocm_all.enums:
            enum_doc[f"{c}->{r}"] = _enum_pair(c, cuda_all.enums[c], r, rocm_all.enums[r],
                                               conv.synonyms_for(c), defaults.get(c),
                                               overrides.get("status_reverse", {}).get(c))
    files["enums.json"] = _dumps({"format": FORMAT_VERSION, "pairs": enum_doc})
    struct_doc = {}
    for c, r in sorted(set(STRUCT_PAIRS) | conv.struct_pairs_used):
        if c in cuda_all.structs and r in rocm_all.structs:
            struct_doc[c] = _struct_pair(cuda_all.structs[c], rocm_all.structs[r])
    files["structs.json"] = _dumps({"format": FORMAT_VERSION, "pairs": struct_doc})
    # HIP's per-thread-default-stream twins, for the _ptds/_ptsz entry points
    targets_used |= {f"{t}_spt" for t in targets_used if rocm.function(f"{t}_spt")}
    files["rocm.json"] = _dumps({
        "format": FORMAT_VERSION,
        "functions": {n: rocm.function(n).signature() for n in sorted(targets_used)},
        "names": {"hip": sorted(rocm.hip.functions), "rocblas": sorted(rocm.rocblas.functions),
                  "rocsolver": sorted(rocm.rocsolver.functions),
                  **{k: sorted(h.functions) for k, h in sorted(rocm.extra.items())}},
        # the HIP runtime's targets only (hipfft* is a library of its own, not in hip-python)
        "hip_python_missing": sorted(n for n in targets_used
                                     if n in rocm.hip.functions and n not in pxd_functions),
    })
    files["typedefs.json"] = _dumps({
        "format": FORMAT_VERSION,
        "cuda": dict(sorted(cuda_all.typedefs.items())),
        "rocm": dict(sorted(rocm_all.typedefs.items())),
        "cuda_enums": {k: dict(sorted(v.items(), key=lambda kv: (kv[1], kv[0])))
                       for k, v in sorted(cuda_all.enums.items())},
        "rocm_enums": {k: dict(sorted(v.items(), key=lambda kv: (kv[1], kv[0])))
                       for k, v in sorted(rocm_all.enums.items())},
        "cuda_structs": {k: struct_json(v) for k, v in sorted(cuda_all.structs.items())},
        "rocm_structs": {k: struct_json(v) for k, v in sorted(rocm_all.structs.items())},
    })
    progress("parsing nccl.h")
    files["nccl.json"] = _dumps(nccl_api.build(pins, FORMAT_VERSION))
    progress("comparing CUDA 12.9 with 13.0")
    from pyshim.tables import cuda12

    files["cuda12.json"] = _dumps(cuda12.differences(apis["runtime"], cuda_all))
    return files


def write(files: dict[str, str], out_dir: Path = TABLES_DIR) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in sorted(files.items()):
        path = out_dir / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
