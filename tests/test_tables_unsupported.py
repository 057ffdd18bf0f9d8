"""`pyshim tables stats --unsupported`: every driver and runtime entry point not counted as
mapped, exactly once, in a feature area, with the table's reason (issue #21 point 6)."""

from __future__ import annotations

import json
import subprocess
import sys

from pyshim.paths import REPO_DIR
from pyshim.tables.stats import area, load, not_mapped, stats, stub_only


def test_every_unmapped_entry_point_is_listed_once_with_a_reason() -> None:
    groups = not_mapped()
    s = stats()
    for key in ("driver", "runtime"):
        names = [n for rows in groups[key].values() for n, _why in rows]
        assert len(names) == len(set(names))
        assert len(names) == s[key]["entry_points"] - s[key]["mapped"]
        eps = load(key)["entry_points"]
        # not in the tables, or in them with nothing but a NOT_SUPPORTED stub behind them
        assert all(eps[n]["class"] == "unsupported" or eps[n]["target"] is None
                   or stub_only(eps[n], key) for n in names)
        stubbed = {n for rows in groups[key].values() for n, why in rows
                   if why.startswith("only a NOT_SUPPORTED stub")}
        assert stubbed == {n for n in names if stub_only(eps[n], key)}
        assert len(stubbed) == s[key]["stub_only"]
        assert all(why for rows in groups[key].values() for _n, why in rows)


def test_cooperative_launches_are_mapped_now() -> None:
    listed = {n for rows in not_mapped()["runtime"].values() for n, _ in rows}
    listed |= {n for rows in not_mapped()["driver"].values() for n, _ in rows}
    for name in ("cudaLaunchCooperativeKernel", "cuLaunchCooperativeKernel",
                 "cuStreamWaitValue32", "cuStreamWaitValue64", "cuMemcpyPeer", "cuCtxCreate"):
        assert name not in listed, name


def test_areas() -> None:
    assert area("cuTexRefCreate") == "arrays, textures, surfaces"
    assert area("cuGreenCtxCreate") == "green contexts and device resources"
    assert area("cuLaunchGrid") == "pre-CUDA-4.0 launches"
    assert area("cuGraphicsResourceSetMapFlags").startswith("interop")
    assert area("cuGraphAddNode") == "graphs"
    assert area("cuOccupancyMaxActiveClusters") == "thread-block clusters"


def test_command_prints_groups_and_json() -> None:
    env_cmd = [sys.executable, "-m", "pyshim", "tables", "stats", "--unsupported"]
    text = subprocess.run(env_cmd, cwd=REPO_DIR, capture_output=True, text=True, check=True)
    assert text.stdout.startswith("driver: ")
    assert "  arrays, textures, surfaces (" in text.stdout
    as_json = subprocess.run([*env_cmd, "--json"], cwd=REPO_DIR, capture_output=True, text=True,
                             check=True)
    assert json.loads(as_json.stdout) == not_mapped()
