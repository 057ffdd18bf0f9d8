"""Where CUDA 12.9's runtime ABI differs from 13.0's, so the `.12` libraries honour it."""

from __future__ import annotations

from pyshim.tables import cuda_api
from pyshim.tables.clang_parse import Header, merge_headers, struct_json

CUDA12_VERSION = 12090


def differences(rt13: cuda_api.Api, cuda13: Header) -> dict:
    rt12 = cuda_api.cuda12_runtime()
    h12 = merge_headers(rt12.headers)
    s12, s13 = rt12.all_symbols(), rt13.all_symbols()
    only12 = {s: f.signature() for s, f in sorted(s12.items()) if s not in s13}
    only13 = sorted(s for s in s13 if s not in s12)
    changed = {s: {"12": s12[s].signature(), "13": s13[s].signature()}
               for s in sorted(set(s12) & set(s13))
               if [p.canonical for p in s12[s].params] != [p.canonical for p in s13[s].params]
               or s12[s].ret_canonical != s13[s].ret_canonical}
    structs = {}
    for name, st in sorted(h12.structs.items()):
        other = cuda13.structs.get(name)
        if other is None or struct_json(other) != struct_json(st):
            structs[name] = {"12": struct_json(st),
                             "13": struct_json(other) if other else None}
    enum_diff = {}
    for name, vals in sorted(h12.enums.items()):
        other = cuda13.enums.get(name)
        if other is not None and other != vals:
            enum_diff[name] = {
                "only_12": {k: v for k, v in sorted(vals.items()) if k not in other},
                "changed": {k: [v, other[k]] for k, v in sorted(vals.items())
                            if k in other and other[k] != v},
            }
    return {"format": 1, "cuda_version": CUDA12_VERSION,
            "entry_points_12": len(rt12.entry_points), "symbols_12": len(s12),
            "symbols_only_in_12": only12, "symbols_only_in_13": only13,
            "signature_changed": changed, "structs": structs, "enums": enum_diff}
