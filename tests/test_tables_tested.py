"""tables/tested.toml: a shim implementation with no HIP target counts as mapped only when
it names the test that shows it (issue #21 point 6). Every line must name an entry point
the shim really defines and a test function that is there; one not listed stays out of
the count, with its reason in `tables stats --unsupported`."""

from __future__ import annotations

import tomllib

from pyshim.codegen import defined
from pyshim.tables import stats
from pyshim.tables.stats import (
    TESTED_FILE,
    is_mapped,
    listed_tests,
    load,
    names_a_test,
    not_mapped,
    shim_without_target,
)


def test_every_listed_entry_point_is_a_shim_implementation_with_its_test() -> None:
    with open(TESTED_FILE, "rb") as f:
        doc = tomllib.load(f)
    assert set(doc) <= set(defined.APIS)
    for api, rows in doc.items():
        eps = load(api)["entry_points"]
        for name, node in rows.items():
            assert name in eps, (api, name)
            e = eps[name]
            # a target would count it anyway; a stub or refusal must never be listed
            assert shim_without_target(e, api), (api, name, e["class"], e["target"])
            assert names_a_test(node), (api, name, node)
            assert is_mapped(e, api), (api, name)


def test_a_shim_implementation_without_a_listed_test_is_not_counted() -> None:
    eps = load("driver")["entry_points"]
    unlisted = [n for n, e in eps.items()
                if shim_without_target(e, "driver") and n not in listed_tests("driver")]
    # cuStreamGetCtx cannot tell two contexts of one device apart: implemented, not counted
    assert "cuStreamGetCtx" in unlisted
    rows = {n: why for group in not_mapped()["driver"].values() for n, why in group}
    for n in unlisted:
        assert not is_mapped(eps[n], "driver")
        assert "no test named in tables/tested.toml (not counted)" in rows[n], n


def test_a_name_without_its_test_function_counts_nothing(monkeypatch) -> None:
    assert names_a_test("tests/test_tables_tested.py::test_a_name_without_its_test_function_"
                       "counts_nothing")
    assert not names_a_test("tests/test_tables_tested.py::test_there_is_no_such_test")
    assert not names_a_test("tests/no_such_file.py::test_x")
    assert not names_a_test("pyshim/tables/stats.py::is_mapped")  # not a test
    e = load("driver")["entry_points"]["cuLaunchGrid"]
    assert is_mapped(e, "driver")
    stats._tested_primaries.cache_clear()
    monkeypatch.setattr(stats, "listed_tests", lambda api: {"cuLaunchGrid": "tests/x.py::test_gone"})
    try:
        assert not is_mapped(e, "driver")
    finally:
        monkeypatch.undo()
        stats._tested_primaries.cache_clear()
    assert is_mapped(e, "driver")


def test_driver_count_reaches_issue_21s_target() -> None:
    assert stats.stats()["driver"]["mapped"] >= 380
