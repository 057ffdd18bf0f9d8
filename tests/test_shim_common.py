"""shim/common (the C shared by pyshim's shim libraries): each library that compiles it
keeps its functions local, so none exports them and libcuda.so.1 and libcudart, loaded
into one program, never bind to each other's copy."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from pyshim.builders.libcuda import build_libcuda
from pyshim.paths import SHIM_DIR, build_dir

COMMON = SHIM_DIR / "common"
# a function the headers declare hidden: a line "PYSHIM_COMMON_HIDDEN <type> <name>(", the
# name possibly on the next line after the return type
_DECLARED = re.compile(r"^PYSHIM_COMMON_HIDDEN\s[^;(]*?\b(\w+)\s*\(", re.M)


def common_functions() -> set[str]:
    return {m for h in COMMON.glob("*.h") for m in _DECLARED.findall(h.read_text())}


def _nm(lib: Path, *flags: str) -> dict[str, str]:
    out = subprocess.run(["nm", "--defined-only", *flags, str(lib)], capture_output=True,
                         text=True, check=True).stdout
    # "address type name[@version]"
    return {p[2].split("@")[0]: p[1] for line in out.splitlines() if len(p := line.split()) == 3}


@pytest.fixture(scope="module")
def embedding_libs() -> list[Path]:
    """libcuda.so.1 and libcudart.so.13/.12: both compile all of shim/common."""
    from pyshim.builders.runtime import build_runtime

    root = build_dir()
    lib, _ = build_libcuda(root / "lib", root / "driver")
    return [lib, *build_runtime(root / "lib")]


def test_headers_declare_the_shared_functions() -> None:
    names = common_functions()
    assert {"pyshim_embed_translate_image", "pyshim_common_image_extent",
            "pyshim_common_unsupported_note", "pyshim_common_vlog"} <= names


def test_shared_functions_are_local_in_each_library(embedding_libs: list[Path]) -> None:
    names = common_functions()
    for lib in embedding_libs:
        local = _nm(lib)
        exported = _nm(lib, "-D")
        # a library that calls none of a file's functions may drop them at link time
        # (elf_write.c serves libcuda's JIT images only): absent is fine, global is not
        assert {n: local[n] for n in names if n in local} == \
            dict.fromkeys((n for n in names if n in local), "t"), lib.name
        assert {"pyshim_embed_translate_image", "pyshim_common_image_extent"} <= set(local)
        assert not [n for n in exported if n.startswith("pyshim")], lib.name
