"""Our own declarations of the CUDA ABI pyshim exports: every entry point of the driver,
runtime, cuBLAS and cuSOLVER tables with the types they need, one header per API,
generated from tables/ (the same emitter as the ROCm side, so the same static-assert test
checks both against the vendors' headers)."""

from __future__ import annotations

import sys
from pathlib import Path

from pyshim.codegen.common import load_table, write_changed
from pyshim.codegen.rocm_decls import Emitter, declarations

APIS = ("driver", "runtime", "cublas", "cusolver")


def functions(api: str) -> dict[str, dict]:
    doc = load_table(api)
    out = {}
    for entry in doc["entry_points"].values():
        if entry.get("cpp_only"):
            continue  # C++-only overloads (__half) have no C declaration to check
        out.update(entry["symbols"])
    return out


def generate_headers() -> dict[str, tuple[str, str]]:
    typedefs = load_table("typedefs")
    out = {}
    for api in APIS:
        em = Emitter(typedefs["cuda"], typedefs["cuda_enums"], typedefs["cuda_structs"])
        out[api] = declarations(functions(api), em, f"PYSHIM_CUDA_{api.upper()}")
    return out


def generate(out_dir: Path) -> list[Path]:
    files = {}
    for api, (header, checks) in generate_headers().items():
        files[f"pyshim_cuda_{api}.h"] = header
        files[f"pyshim_cuda_{api}_checks.inc"] = checks
    return write_changed(out_dir, files)


if __name__ == "__main__":
    for p in generate(Path(sys.argv[1] if len(sys.argv) > 1 else "build/gen")):
        print(p)
