"""The JSON layout of `pyshim check --json` is an interface: these are its keys and types.
Adding a key is allowed (add it here and to the documentation); renaming or retyping one
breaks users and must fail this test."""

from __future__ import annotations

import json

import test_check as tc

from pyshim.check import SCHEMA_VERSION, check_report
from pyshim.check.analyse import VERDICTS
from pyshim.cli import main as cli_main

NULLABLE = type(None)
TOP = {"schema": int, "binaries": list, "summary": dict}
SUMMARY = {"files": int, "verdicts": dict, "skipped_no_cuda": int, "seconds": float}
BINARY = {"path": str, "verdict": str, "reasons": list, "notes": list, "cuda_access": list,
          "cuda_libraries": list, "dependencies": list, "static_cudart": (dict, NULLABLE),
          "entry_points": list, "kernels": list, "needed_by": (str, NULLABLE), "stats": dict,
          "backend_gaps": dict}
STATIC_CUDART = {"version": (str, NULLABLE), "driver_abi": (int, NULLABLE), "evidence": str,
                 "calls_visible": bool}
DEPENDENCY = {"soname": str, "family": str, "replaced": bool, "path": (str, NULLABLE)}
ENTRY_POINT = {"name": str, "library": str, "status": str, "via": str,
               "reason": (str, NULLABLE), "backend_gaps": dict}
BACKENDS = {"cpu", "rocm"}
KERNEL = {"name": str, "ptx": list, "ptx_archs": list, "sass": list,
          "translates": (bool, NULLABLE), "unsupported_instructions": list, "notes": list}
STATUSES = {"direct", "converted", "adapter", "shim", "unsupported", "unknown", "not-replaced"}
VIAS = {"import", "call", "cuGetProcAddress"}


def _shape(obj: dict, schema: dict, what: str) -> None:
    assert set(obj) == set(schema), f"{what}: keys {sorted(obj)} != {sorted(schema)}"
    for key, types in schema.items():
        assert isinstance(obj[key], types), f"{what}.{key} = {obj[key]!r}"


def _check(doc: dict) -> None:
    _shape(doc, TOP, "report")
    assert doc["schema"] == SCHEMA_VERSION == 1
    _shape(doc["summary"], SUMMARY, "summary")
    assert set(doc["summary"]["verdicts"]) == set(VERDICTS)
    for b in doc["binaries"]:
        _shape(b, BINARY, "binary")
        assert b["verdict"] in VERDICTS
        assert all(isinstance(x, str) for k in ("reasons", "notes", "cuda_access",
                                                 "cuda_libraries") for x in b[k])
        if b["static_cudart"] is not None:
            _shape(b["static_cudart"], STATIC_CUDART, "static_cudart")
        for d in b["dependencies"]:
            _shape(d, DEPENDENCY, "dependency")
        for e in b["entry_points"]:
            _shape(e, ENTRY_POINT, "entry point")
            assert e["status"] in STATUSES and e["via"] in VIAS
            assert set(e["backend_gaps"]) <= BACKENDS
            assert all(isinstance(t, str) for t in e["backend_gaps"].values())
        assert set(b["backend_gaps"]) <= BACKENDS
        assert all(isinstance(n, str) for ns in b["backend_gaps"].values() for n in ns)
        for k in b["kernels"]:
            _shape(k, KERNEL, "kernel")
            assert all(x.startswith("compute_") for x in k["ptx_archs"])
            assert all(x.startswith("sm_") for x in k["sass"])
            assert all(x.count(".") == 1 for x in k["ptx"])


def test_schema_of_every_kind_of_file(capsys):
    paths = [tc.example([], "matmul-static"), tc.example(["-cudart", "shared"], "matmul-shared"),
             tc.example(["-gencode", "arch=compute_120,code=sm_120"], "matmul-sass120"),
             tc.build("brkpt", tc.BRKPT_SOURCE, []), tc.library_dir()]
    doc = check_report(paths)
    # brkpt: one of its kernels fails alone (the others run), a gap
    assert {b["verdict"] for b in doc["binaries"]} == {"runs", "runs-with-gaps", "cannot-run"}
    _check(doc)
    # what the command prints is the same document, and plain JSON
    assert cli_main(["check", "--json", *map(str, paths)]) == 0
    printed = json.loads(capsys.readouterr().out)
    _check(printed)
    drop = {"seconds"}
    assert {k: v for k, v in printed["summary"].items() if k not in drop} == \
        {k: v for k, v in doc["summary"].items() if k not in drop}
    assert printed["binaries"] == doc["binaries"]
