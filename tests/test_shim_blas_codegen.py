"""pyshim.codegen.blas and pyshim.builders.blas: what is generated from the tables, and
what the built libraries export (names, version nodes, dependencies)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

from pyshim.builders.blas import build_shim_blas
from pyshim.builders.common import BuildError
from pyshim.codegen import blas
from pyshim.codegen.common import STAMP, load_table
from pyshim.tables import exports as nvidia_exports

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402

LIBS = ("cublas", "cusolver")


@pytest.fixture(scope="module")
def gen(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gen")
    blas.generate(out)
    return out


def symbols(lib: str) -> dict[str, dict]:
    return {s: e for e in load_table(lib)["entry_points"].values() for s in e["symbols"]}


def test_generation_is_deterministic(gen: Path, tmp_path: Path) -> None:
    blas.generate(tmp_path)
    for path in sorted(gen.iterdir()):
        assert (tmp_path / path.name).read_text() == path.read_text(), path.name


@pytest.mark.parametrize("lib", LIBS)
def test_every_symbol_is_defined_once_and_exported(gen: Path, lib: str) -> None:
    text = (gen / f"{lib}_thunks.c").read_text()
    assert text.startswith(STAMP)
    defined = re.findall(r"^PYSHIM_WEAK .*?\b(\w+)\(", text, re.M)
    syms = symbols(lib)
    assert sorted(defined) == sorted(syms)
    exports = (gen / f"{lib}_exports.txt").read_text().split()
    assert set(syms) <= set(exports)
    for soname in blas.SONAMES[lib]:
        script = (gen / f"{soname}.map").read_text()
        assert re.search(rf"^{re.escape(soname)} {{", script, re.M)
        assert set(re.findall(r"^    (\w+);", script, re.M)) == set(exports)


@pytest.mark.parametrize("lib", LIBS)
def test_unsupported_entries_are_stubs(gen: Path, lib: str) -> None:
    text = (gen / f"{lib}_thunks.c").read_text()
    status = blas.STATUS[lib][1]
    for symbol, entry in symbols(lib).items():
        body = text[text.index(f" {symbol}("):]
        body = body[: body.index("\n}\n")]
        if entry["class"] == "unsupported":
            assert f'pyshim_blas_unsupported("{symbol}")' in body, symbol
            if entry["returns"] == blas.STATUS[lib][0]:
                assert f"return {status};" in body, symbol


def test_counts_add_up() -> None:
    for lib, c in blas.counts().items():
        assert c.thunks + c.adapters + c.stubs + c.hand == len(symbols(lib))
    c = blas.counts()["cublas"]
    assert c.thunks + c.adapters >= 400


def test_thunk_converts_enums_and_status(gen: Path) -> None:
    text = (gen / "cublas_thunks.c").read_text()
    body = text[text.index(" cublasSgemm_v2("):]
    body = body[: body.index("\n}\n")]
    assert "pyshim_cublasOperation_t_to_rocblas_operation(transa)" in body
    assert "pyshim_cublasStatus_t_from_rocblas_status(rocblas_sgemm(" in body
    enums = (gen / "cublas_enums.h").read_text()
    pair = load_table("enums")["pairs"]["cublasOperation_t->rocblas_operation"]
    for _cn, cv, _rn, rv in pair["values"]:
        assert f"case {cv}: return {rv};" in enums


@pytest.fixture(scope="module")
def built() -> tuple[Path, Path]:
    return env.build()


def _dynamic(path: Path) -> tuple[list[str], dict[str, str]]:
    """(DT_NEEDED list, {symbol: version}) of a shared library's exports."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        dyn = next(s for s in elf.iter_sections() if isinstance(s, DynamicSection))
        needed = [t.needed for t in dyn.iter_tags() if t.entry.d_tag == "DT_NEEDED"]
        assert not [t for t in dyn.iter_tags() if t.entry.d_tag in ("DT_RPATH", "DT_RUNPATH")]
        verdef = elf.get_section_by_name(".gnu.version_d")
        names = {v.entry["vd_ndx"]: next(aux).name for v, aux in verdef.iter_versions()}
        versym = elf.get_section_by_name(".gnu.version")
        out = {}
        for i, sym in enumerate(elf.get_section_by_name(".dynsym").iter_symbols()):
            if sym.entry["st_shndx"] != "SHN_UNDEF" and sym.name:
                out[sym.name] = names.get(versym.get_symbol(i).entry["ndx"] & 0x7FFF, "")
        return needed, out


@pytest.mark.parametrize("lib", LIBS)
def test_built_libraries_export_the_tables(built, lib: str) -> None:
    libdir, _cpu = built
    for soname in blas.SONAMES[lib]:
        needed, exports = _dynamic(libdir / soname)
        assert "librocblas.so.5" in needed and "libamdhip64.so.7" in needed
        if lib == "cusolver":
            assert "librocsolver.so.0" in needed
        for symbol in symbols(lib):
            assert exports.get(symbol) == soname, symbol
        # beyond the tables: only what NVIDIA's library of the soname exports too
        nvidia = set(nvidia_exports.load(blas.SONAMES[lib][0]))
        assert not [s for s in exports
                    if not s.startswith((lib, "pyshim_", soname)) and s not in nvidia]


def test_build_skips_when_unchanged(built) -> None:
    libdir, cpu = built
    before = {p: p.stat().st_mtime_ns for p in libdir.glob("lib*.so.*")}
    build_shim_blas(libdir, cpu)
    assert {p: p.stat().st_mtime_ns for p in libdir.glob("lib*.so.*")} == before


def test_missing_backend_is_named(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="librocblas.so.5"):
        build_shim_blas(tmp_path / "lib", tmp_path)
