"""Struct adapters generated from tables/structs.json and tables/cuda12.json.

Each adapter copies the fields a CUDA struct and its ROCm counterpart share, by byte offset
and size straight from the tables, so it needs neither vendor header (CUDA's and HIP's
runtime headers cannot share a translation unit) and stays correct when a layout changes:
regenerate the tables and the offsets follow. Fields present on one side only are zeroed
(or left to hand-written code, which the adapter's comment lists).
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyshim.codegen.common import STAMP, c_ident, load_table, write_changed


def _copy_fn(name: str, dst_size: int, moves: list[tuple[str, int, int, int]],
             skipped: list[str]) -> str:
    lines = [f"/* {len(moves)} fields copied"
             + (f"; left to hand-written code: {', '.join(skipped)}" if skipped else "")
             + " */",
             f"static inline void {name}(void *dst, const void *src)", "{",
             "    unsigned char *d = (unsigned char *)dst;",
             "    const unsigned char *s = (const unsigned char *)src;",
             f"    memset(d, 0, {dst_size});"]
    for field, doff, soff, size in moves:
        lines.append(f"    memcpy(d + {doff}, s + {soff}, {size}); /* {field} */")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _pair_fns(cuda: str, rocm: str, shared: list, cuda_size: int, rocm_size: int,
              cuda_only: list[str], suffix: str = "") -> str:
    same = [(f, co, ro, cs) for f, co, ro, cs, rs in shared if cs == rs]
    differ = [f for f, _co, _ro, cs, rs in shared if cs != rs]
    c, r = c_ident(cuda) + suffix, c_ident(rocm)
    to_rocm = _copy_fn(f"pyshim_{c}_to_{r}", rocm_size,
                       [(f, ro, co, n) for f, co, ro, n in same], differ)
    from_rocm = _copy_fn(f"pyshim_{c}_from_{r}", cuda_size,
                         [(f, co, ro, n) for f, co, ro, n in same], differ + cuda_only)
    return to_rocm + "\n" + from_rocm + "\n"


def _cuda12_pairs(structs: dict, cuda12: dict, typedefs: dict) -> list[tuple]:
    """CUDA 12.9 layouts that differ from 13.0, paired with 13.0's ROCm counterpart."""
    out = []
    rocm_structs = typedefs["rocm_structs"]
    for name, diff in sorted(cuda12["structs"].items()):
        pair = structs.get(name)
        if pair is None or diff["12"] is None:
            continue
        rocm = rocm_structs[pair["rocm"]]
        rf = {f[0]: f for f in rocm["fields"] if f[0] and len(f) == 4}
        shared = [[f[0], f[2], rf[f[0]][2], f[3], rf[f[0]][3]]
                  for f in diff["12"]["fields"] if f[0] in rf and len(f) == 4]
        cuda_only = [f[0] for f in diff["12"]["fields"] if f[0] and f[0] not in rf]
        out.append((name, pair["rocm"], shared, diff["12"]["size"], rocm["size"], cuda_only))
    return out


def generate_header() -> str:
    structs = load_table("structs")["pairs"]
    out = [STAMP, "#ifndef PYSHIM_GEN_STRUCT_ADAPTERS_H\n#define PYSHIM_GEN_STRUCT_ADAPTERS_H\n",
           "#include <string.h>\n\n"]
    for cuda, pair in sorted(structs.items()):
        out.append(f"/* ---- {cuda} ({pair['cuda_size']} bytes) <-> {pair['rocm']} "
                   f"({pair['rocm_size']} bytes) ---- */\n")
        out.append(_pair_fns(cuda, pair["rocm"], pair["shared"], pair["cuda_size"],
                             pair["rocm_size"], pair["cuda_only"]))
    out.append("/* ---- CUDA 12.9 layouts (the .12 libraries) ---- */\n")
    for cuda, rocm, shared, csize, rsize, cuda_only in _cuda12_pairs(
            structs, load_table("cuda12"), load_table("typedefs")):
        out.append(_pair_fns(cuda, rocm, shared, csize, rsize, cuda_only, suffix="_12"))
    out.append("#endif\n")
    return "".join(out)


def generate(out_dir: Path) -> list[Path]:
    return write_changed(out_dir, {"struct_adapters.h": generate_header()})


if __name__ == "__main__":
    for p in generate(Path(sys.argv[1] if len(sys.argv) > 1 else "build/gen")):
        print(p)
