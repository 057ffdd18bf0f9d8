"""`tables stats` counts an entry point as mapped only when the shim really defines it
(pyshim/codegen/defined.py): a table row whose symbol is only the generated NOT_SUPPORTED
stub is not a feature. The source reading is checked against the built libraries' own
symbol tables (a hand-written definition is a strong symbol, `T`; generated ones are weak,
`W`), and a counted thunk is checked to forward, in the generated C."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from pyshim.codegen import defined
from pyshim.paths import build_dir
from pyshim.tables.stats import is_mapped, listed_tests, load, stats, stub_only

LIBS = {("driver", None): "libcuda.so.1", ("runtime", 13): "libcudart.so.13",
        ("runtime", 12): "libcudart.so.12"}


@pytest.fixture(scope="module")
def built() -> Path:
    from pyshim.builders.components import build_all

    # up to date with the sources being read (a no-op when the stamps match)
    build_all(components=("libcuda", "cudart"))
    return build_dir() / "lib"


def _kinds(path: Path) -> dict[str, str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(path)], capture_output=True,
                         text=True, check=True).stdout
    kinds = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            kinds[parts[2].split("@")[0]] = parts[1]
    return kinds


def _defs(api: str, major: int | None) -> defined.Definitions:
    return defined.driver() if api == "driver" else defined.runtime(major)


@pytest.mark.parametrize("api,major", list(LIBS))
def test_hand_written_definitions_are_the_libraries_strong_symbols(built, api, major):
    kinds = _kinds(built / LIBS[(api, major)])
    d = _defs(api, major)
    strong = {s for s, k in kinds.items() if k == "T"}
    ours = d.strong | d.strong_stubs
    exported = set(kinds)
    assert ours <= exported
    # every strong symbol of an entry point the tables know was read from the sources
    table_syms = {s for e in load(api)["entry_points"].values() for s in e["symbols"]}
    assert (strong & table_syms) == (ours & table_syms)


def test_counted_thunks_forward_in_the_generated_c(built):
    gen = (build_dir() / "driver" / "gen" / "driver_stubs.c").read_text()
    d = defined.driver()
    for name, e in load("driver")["entry_points"].items():
        sym = e["primary"]
        if not is_mapped(e, "driver") or sym in d.strong:
            continue
        body = re.search(rf"CUresult {re.escape(sym)}\([^{{]*\{{(.*?)\n\}}", gen, re.S)
        assert body is not None, sym
        assert "pyshim_unsupported" not in body.group(1), (name, body.group(1))


def test_a_stub_only_entry_point_is_not_counted():
    # cuModuleGetTexRef has a HIP target, but shim/core defines it as a refusing stub
    e = load("driver")["entry_points"]["cuModuleGetTexRef"]
    assert e["target"] is not None and e["class"] != "unsupported"
    assert "cuModuleGetTexRef" in defined.driver().strong_stubs
    assert stub_only(e, "driver") and not is_mapped(e, "driver")


def test_stub_only_entries_are_excluded_from_the_counts():
    s = stats()
    for api in defined.APIS:
        eps = load(api)["entry_points"].values()
        table_mapped = sum(1 for e in eps if e["target"] is not None
                           and e["class"] in ("direct", "converted", "adapter", "shim"))
        # plus the shim implementations with no HIP target that tables/tested.toml names a
        # test for (every line there is one: tests/test_tables_tested.py)
        assert s[api]["mapped"] + s[api]["stub_only"] == table_mapped + len(listed_tests(api))
        assert s[api]["mapped"] <= s[api]["implemented"]


def test_reading_c_handles_macros_conditionals_and_stubs():
    text = defined.preprocess(
        "#define TWO(n, p) int n p { return 1; } int n##_ptds p { return 2; }\n"
        "TWO(cuA, (int x))\n"
        "#if PYSHIM_CUDART_MAJOR == 12\nint cuOld(void) { return 0; }\n#else\n"
        "int cuNew(void) { return 0; }\n#endif\n"
        "static int hidden(void) { return 0; }\n"
        "struct s { int a; };\n"
        "CUresult cuStub(int a)\n{\n    (void)a; /* why */\n"
        '    pyshim_unsupported("cuStub; really");\n    return CUDA_ERROR_NOT_SUPPORTED;\n}\n',
        {"PYSHIM_CUDART_MAJOR": 13})
    fns = defined.functions(text)
    assert set(fns) == {"cuA", "cuA_ptds", "cuNew", "cuStub"}
    assert defined.only_refuses(fns["cuStub"]) and not defined.only_refuses(fns["cuA"])
