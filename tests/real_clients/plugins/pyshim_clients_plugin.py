"""pytest plugin loaded into a real client's own test run (`-p pyshim_clients_plugin`).

It provides what numba-cuda's repository conftest.py provides and its wheel lacks (the class
fixture `initialize_from_pytest_config`, the option `--dump-failed-filechecks`), and writes
every test's outcome to $PYSHIM_CLIENTS_RESULTS as one JSON line the moment it is known: a
test that aborts the process (an out-of-bounds store on the CPU device) still leaves every
earlier result, and the test that was running is named by its "start" line.
"""

from __future__ import annotations

import json
import os

import pytest

_OUT = os.environ.get("PYSHIM_CLIENTS_RESULTS")


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


def pytest_collection_finish(session):
    _write({"collected": [item.nodeid for item in session.items]})


def pytest_collectreport(report):
    if report.failed:
        _write({"nodeid": report.nodeid, "outcome": "error", "when": "collect",
                "message": _message(report)})


def pytest_runtest_logstart(nodeid, location):
    _write({"start": nodeid})


def _message(report) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message)[:400]
    return str(report.longrepr)[-400:]


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
