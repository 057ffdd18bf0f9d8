"""NCCL onto RCCL: tables/nccl.json from NVIDIA's nccl.h (nvidia-nccl-cu13) and RCCL's
declarations as hip-python 7.2 ships them (hip/crccl.pxd: no registry serves rccl.h).

RCCL keeps NCCL's API, names and enum values, so an entry point maps onto the RCCL
function of its name (or of RENAMES) when RCCL declares one with as many parameters; the
generator converts the two things that differ (CUDA streams, ncclConfig_t's layout).
Everything else nccl.h declares is refused by name.
"""

from __future__ import annotations

import re

from pyshim.tables.clang_parse import Header, parse_header
from pyshim.tables.fetch import include_dir

# NVIDIA spelling -> RCCL's
RENAMES = {"ncclAlltoAll": "ncclAllToAll"}

_PXD_DECL_RE = re.compile(r"^cdef\s+([^(\n]*?)\b(nccl\w+)\(([^)]*)\)\s*$", re.M)
_PXD_STRUCT_RE = re.compile(r"^    cdef struct (ncclConfig_v\d+):\n((?:        .*\n)+)", re.M)


def nccl_header() -> Header:
    from pyshim.tables.cuda_api import _cuda_includes

    inc = include_dir("nccl2")
    return parse_header(inc / "nccl.h", [inc, *_cuda_includes()], files=("/nccl.h",))


def rccl_declarations() -> dict[str, int]:
    """RCCL function -> its parameter count (hip/crccl.pxd)."""
    text = (include_dir("hip-python") / "crccl.pxd").read_text()
    out = {}
    for _ret, name, params in _PXD_DECL_RE.findall(text):
        out[name] = len([p for p in params.split(",") if p.strip()]) if params.strip() else 0
    return out


def rccl_config_fields() -> list[str]:
    text = (include_dir("hip-python") / "crccl.pxd").read_text()
    m = _PXD_STRUCT_RE.search(text)
    if m is None:
        raise ValueError("hip/crccl.pxd declares no ncclConfig_v* struct")
    return [line.split()[-1].lstrip("*") for line in m.group(2).splitlines() if line.strip()]


def build(pins: dict[str, str], fmt: int) -> dict:
    h = nccl_header()
    rccl = rccl_declarations()
    functions = {}
    for name, f in sorted(h.functions.items()):
        if name.startswith("pncclx") or name.startswith("pnccl"):
            continue   # the profiling aliases: same functions, exported beside ncclX
        target = RENAMES.get(name, name)
        entry = {"ret": f.ret, "params": [[p.name, p.type] for p in f.params],
                 "target": None, "reason": ""}
        if target not in rccl:
            entry["reason"] = "RCCL 7.2 has no such function"
        elif rccl[target] != len(f.params):
            entry["reason"] = (f"RCCL's {target} takes {rccl[target]} parameters, "
                               f"nccl.h's {len(f.params)}")
        else:
            entry["target"] = target
        functions[name] = entry
    cfg = h.structs["ncclConfig_t"]
    return {
        "format": fmt,
        "pins": {k: pins[k] for k in ("nccl2", "hip-python")},
        "functions": functions,
        "results": h.enums["ncclResult_t"],
        "config": {"nccl": [[fl.name, fl.offset, fl.size] for fl in cfg.fields],
                   "nccl_size": cfg.size, "rccl": rccl_config_fields()},
    }
