"""cuBLASLt's table (tables/cublaslt.json, from the real cublasLt.h and hipblaslt.h) and the
library built from it: the stats row, the hand-written entry points bound through the
table, every NVIDIA export defined at its version, and the hand-written hipBLASLt ABI
header against the values of hipBLASLt's real header."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.codegen import blaslt
from pyshim.codegen.common import load_table
from pyshim.paths import REPO_DIR, SHIM_DIR
from pyshim.tables import exports
from pyshim.tables.stats import format_text, is_mapped, stats

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402

ABI_HEADER = SHIM_DIR / "include" / "pyshim_hipblaslt_abi.h"


@pytest.fixture(scope="module")
def table() -> dict:
    return load_table("cublaslt")


def test_stats_have_a_cublaslt_row(table: dict) -> None:
    row = stats()["cublaslt"]
    eps = table["entry_points"]
    assert row["entry_points"] == len(eps) > 40
    assert row["mapped"] == sum(1 for e in eps.values() if is_mapped(e, "cublaslt"))
    # the matmul path PyTorch's libtorch_cuda.so calls is mapped onto hipBLASLt
    for name in ("cublasLtCreate", "cublasLtMatmul", "cublasLtMatmulAlgoGetHeuristic",
                 "cublasLtMatmulDescCreate", "cublasLtMatrixLayoutSetAttribute",
                 "cublasLtMatmulPreferenceSetAttribute"):
        assert is_mapped(eps[name], "cublaslt"), name
        assert eps[name]["target"] == "hipblasLt" + name[len("cublasLt"):]
    assert row["mapped"] >= 22
    assert row["mapped"] + row["unsupported"] <= row["entry_points"]
    line = next(ln for ln in format_text(stats()).splitlines() if ln.startswith("cublaslt "))
    assert line.split()[1:4] == [str(row["entry_points"]), str(row["symbols"]),
                                 str(row["mapped"])]
    out = subprocess.run([sys.executable, "-m", "pyshim", "tables", "stats"], cwd=REPO_DIR,
                         capture_output=True, text=True, check=True).stdout
    assert line in out.splitlines()


def test_static_inline_wrappers_are_not_entry_points(table: dict) -> None:
    """cublasLt.h's *Init are static inline calls of the exported *Init_internal."""
    eps = table["entry_points"]
    assert "cublasLtMatmulDescInit_internal" in eps
    assert "cublasLtMatmulDescInit" not in eps
    assert "cublasLtMatrixLayoutInit" not in eps


def test_hand_written_definitions_are_the_shim_entries(table: dict) -> None:
    shim = sorted(s for e in table["entry_points"].values() if e["class"] == "shim"
                  for s in e["symbols"])
    assert blaslt.hand_exports() == shim
    blaslt.check_hand(table, shim)
    with pytest.raises(ValueError, match="no hand-written definition: cublasLtMatmul\\b"):
        blaslt.check_hand(table, [s for s in shim if s != "cublasLtMatmul"])
    with pytest.raises(ValueError, match="not in \\[cublaslt.shim\\]: cublasLtLoggerSetLevel"):
        blaslt.check_hand(table, [*shim, "cublasLtLoggerSetLevel"])


def test_every_object_taking_entry_point_is_hand_written_or_refused(table: dict) -> None:
    """No generated thunk may hand hipBLASLt one of pyshim's own cuBLASLt objects."""
    for name, e in table["entry_points"].items():
        assert e["class"] in ("shim", "unsupported"), (name, e["class"])


def test_built_library_defines_every_export_at_its_version(table: dict) -> None:
    lib, _cpu = env.build()
    path = lib / blaslt.SONAME
    out = subprocess.run(["nm", "-D", "--defined-only", "--with-symbol-versions", str(path)],
                         capture_output=True, text=True, check=True).stdout
    kinds: dict[str, tuple[str, str]] = {}
    for ln in out.splitlines():
        m = re.match(r"^[0-9a-f]+ (\w) ([^@\s]+)@@?(\S+)$", ln.strip())
        if m:
            kinds[m.group(2)] = (m.group(1), m.group(3))
    want = exports.load(blaslt.SONAME)
    assert len(want) >= 200
    wrong = sorted(n for n, v in want.items() if kinds.get(n, ("", ""))[1] != v)
    assert not wrong, f"{len(wrong)} of {len(want)} missing or at another version: {wrong[:10]}"
    for e in table["entry_points"].values():
        for sym in e["symbols"]:
            kind, ver = kinds[sym]
            assert ver == blaslt.SONAME, sym
            # the hand-written definition, not the generated weak refusal, is what runs
            assert kind == ("T" if e["class"] == "shim" else "W"), (sym, kind, e["class"])


def _abi_constants() -> dict[str, int]:
    text = ABI_HEADER.read_text()
    return {n: int(v) for n, v in re.findall(r"\bPS_(HIP\w+)\s*=\s*(\d+)", text)}


# hipBLASLt epilogues pyshim passes on that ROCm 7.2.4's hipblaslt.h does not declare yet
# (its later headers have them, with cuBLASLt's numbers)
NEWER_THAN_PINNED = {"HIPBLASLT_EPILOGUE_DRELU": "CUBLASLT_EPILOGUE_DRELU",
                     "HIPBLASLT_EPILOGUE_DRELU_BGRAD": "CUBLASLT_EPILOGUE_DRELU_BGRAD"}


def test_abi_header_values_are_hipblaslts() -> None:
    typedefs = load_table("typedefs")
    rocm = {n: v for values in typedefs["rocm_enums"].values() for n, v in values.items()}
    cuda = {n: v for values in typedefs["cuda_enums"].values() for n, v in values.items()}
    consts = _abi_constants()
    assert len(consts) > 50
    for name, value in consts.items():
        if name in NEWER_THAN_PINNED:
            assert name not in rocm
            assert value == cuda[NEWER_THAN_PINNED[name]], name
            continue
        assert rocm.get(name) == value, (name, value, rocm.get(name))


def test_abi_header_layouts_and_arities_are_hipblaslts(tmp_path: Path) -> None:
    typedefs, rocm = load_table("typedefs"), load_table("rocm")
    sizes = {s: typedefs["rocm_structs"][s]["size"]
             for s in ("hipblasLtMatmulAlgo_t", "hipblasLtMatmulHeuristicResult_t")}
    text = ABI_HEADER.read_text()
    calls = dict(re.findall(r"X\((hipblasLt\w+),\s*\(([^)]*)\)\)", text.replace("\\\n", " ")))
    assert len(calls) >= 15
    for name, params in calls.items():
        assert len(params.split(",")) == len(rocm["functions"][name]["params"]), name
    src = tmp_path / "abi.c"
    src.write_text(f'#include "{ABI_HEADER}"\n' + "".join(
        f"_Static_assert(sizeof(pyshim_{s}) == {n}, \"{s}\");\n" for s, n in sizes.items()))
    subprocess.run(["gcc", "-std=c11", "-fsyntax-only", "-Wall", "-Werror", str(src)],
                   check=True)


CHECKED = r"""
/* what a program linked -lcublasLt imports: one hand-written entry point, one the tables
 * refuse, one with no hipBLASLt counterpart (declared loosely: only the imports matter) */
int cublasLtCreate(void *handle);
int cublasLtMatmulAlgoInit(void);
int cublasLtLoggerSetLevel(int level);
int main(void)
{
    void *h = 0;
    return cublasLtCreate(&h) + cublasLtMatmulAlgoInit() + cublasLtLoggerSetLevel(0);
}
"""


def test_check_reads_cublaslt_imports_from_the_table(table: dict, tmp_path: Path) -> None:
    from pyshim.check import check_report

    lib, _cpu = env.build()
    src = tmp_path / "uses_lt.c"
    src.write_text(CHECKED)
    exe = tmp_path / "uses_lt"
    subprocess.run(["gcc", "-o", str(exe), str(src), f"-L{lib}", f"-l:{blaslt.SONAME}",
                    f"-Wl,-rpath-link,{lib}", "-Wl,--allow-shlib-undefined"], check=True)
    report = check_report([exe], translate=False, deps=False)
    eps = {e["name"]: e for b in report["binaries"] for e in b["entry_points"]}
    for name in ("cublasLtCreate", "cublasLtMatmulAlgoInit", "cublasLtLoggerSetLevel"):
        e, want = eps[name], table["entry_points"][name]
        assert e["library"] == blaslt.SONAME, e
        assert e["status"] == want["class"], (name, e, want["class"])
        assert e["reason"] == want["reason"] != "not in the dispatch tables"
    assert eps["cublasLtCreate"]["status"] == "shim"
    assert eps["cublasLtMatmulAlgoInit"]["status"] == "unsupported"
