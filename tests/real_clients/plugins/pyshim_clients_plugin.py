"""pytest plugin loaded into a real client's own test run (`-p pyshim_clients_plugin`).

It provides what numba-cuda's repository conftest.py provides and its wheel lacks (the class
fixture `initialize_from_pytest_config`, the option `--dump-failed-filechecks`), and writes
every test's outcome to $PYSHIM_CLIENTS_RESULTS as one JSON line the moment it is known: a
test that aborts the process (an out-of-bounds store on the CPU device) still leaves every
earlier result, and the test that was running is named by its "start" line.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from pathlib import Path

import pytest

_OUT = os.environ.get("PYSHIM_CLIENTS_RESULTS")
# at most this many of a module's tests (run.py --sample): the same ones every run, spread
# over the module (by a hash of each test id, not its position), so a sweep of a whole
# suite under another configuration (wave32, CuPy) fits its time and stays comparable
_SAMPLE = int(os.environ.get("PYSHIM_CLIENTS_SAMPLE", "0") or 0)
# a file of test ids already run by an earlier process of the same module, which a test
# killed (the OOM killer, a fault pyshim could not turn into an error): the run resumes
# after them instead of losing the rest of the module
_SKIP = os.environ.get("PYSHIM_CLIENTS_SKIP")


def _write(record: dict) -> None:
    if _OUT:
        with open(_OUT, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")


def pytest_addoption(parser):
    parser.addoption("--dump-failed-filechecks", action="store_true", default=False,
                     help="numba-cuda: write a reproducer for a failed FileCheck")


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    if request.cls is not None:
        request.cls._dump_failed_filechecks = request.config.getoption(
            "--dump-failed-filechecks")


_NUMBA_TESTS = ("numba_cuda", "numba", "cuda", "tests")


def _installed_name(path: Path) -> str | None:
    """numba.cuda.tests.X.Y for a test module of the installed numba-cuda wheel."""
    parts = path.with_suffix("").parts
    for i in range(len(parts) - len(_NUMBA_TESTS)):
        if parts[i:i + len(_NUMBA_TESTS)] == _NUMBA_TESTS:
            return ".".join(parts[i + 1:])
    return None


class _InstalledModule(pytest.Module):
    """A test module imported under its installed name: worker processes that tests spawn
    unpickle their functions by that name (pytest's importlib mode names them cuda.tests.*,
    which no other process can import)."""

    def _getobj(self):
        return importlib.import_module(_installed_name(self.path))


def pytest_pycollect_makemodule(module_path, parent):
    if module_path.name != "__init__.py" and _installed_name(module_path):
        return _InstalledModule.from_parent(parent, path=module_path)
    return None


def pytest_collection_modifyitems(session, config, items):
    keep = set(items)
    if 0 < _SAMPLE < len(items):
        def key(item) -> str:
            return hashlib.sha256(item.nodeid.encode()).hexdigest()

        keep = set(sorted(items, key=key)[:_SAMPLE])
    if _SKIP:
        done = set(Path(_SKIP).read_text(encoding="utf-8").splitlines())
        keep = {it for it in keep if it.nodeid not in done}
    if len(keep) == len(items):
        return
    dropped = [it for it in items if it not in keep]
    items[:] = [it for it in items if it in keep]
    config.hook.pytest_deselected(items=dropped)


def pytest_collection_finish(session):
    _write({"collected": [item.nodeid for item in session.items]})


def pytest_collectreport(report):
    if report.failed:
        _write({"nodeid": report.nodeid, "outcome": "error", "when": "collect",
                "message": _message(report)})


def pytest_runtest_logstart(nodeid, location):
    _write({"start": nodeid})


def _message(report) -> str:
    """The error's first line and, when it wraps another error (CuPy's "Only cupy raises
    error" holds the real one in a traceback), its last line."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = str(crash.message) if crash is not None else str(report.longrepr)
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    if len(lines) == 1:
        return lines[0][:400]
    return (lines[0][:200] + " ... " + lines[-1][:300])


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        outcome = report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        elif report.when != "call" and report.failed:
            outcome = "error"
        _write({"nodeid": report.nodeid, "outcome": outcome, "when": report.when,
                "duration": round(report.duration, 3),
                "message": _message(report) if report.outcome != "passed" else ""})
