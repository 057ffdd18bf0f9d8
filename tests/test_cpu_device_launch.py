"""The CPU device's launch path (grid.c, stream.c, spin.c): small grids run on the thread
that submits them, big ones on the pool, launches allocate nothing (issue #18)."""

from __future__ import annotations

import os

import pytest
from cpu_device.harness import module, run, values


@pytest.fixture(scope="module")
def kernels() -> str:
    return str(module("launch_kernels"))


def test_small_grid_runs_on_one_thread_big_grid_on_the_pool(kernels: str) -> None:
    # 64 trivial blocks: waking workers would cost more than the blocks. The choice is made
    # on the blocks' measured time, so a run the scheduler preempted (a loaded machine) may
    # rightly publish them: one of three runs must keep them on the stream's thread
    for _ in range(3):
        r = run("launch", kernels, "threads", env={"PYSHIM_CPU_WORKERS": "2"})
        assert r.returncode == 0, r.stderr
        v = values(r)
        if v["small_threads"] == "1":
            break
    assert v["small_threads"] == "1"
    assert v["small_on_submitter"] == "1"   # the stream's thread, no hand-off to the pool
    assert v["small_host"] == "0"          # still asynchronous: the stream's thread ran it
    # cheap first blocks, then 2 ms ones: published once the projection shows it is big
    assert int(v["big_threads"]) >= 2


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_big_grid_uses_every_worker(kernels: str) -> None:
    r = run("launch", kernels, "threads", env={"PYSHIM_CPU_WORKERS": "4"})
    assert r.returncode == 0, r.stderr
    assert int(values(r)["big_threads"]) >= 3


def test_launch_and_synchronize_allocate_nothing(kernels: str) -> None:
    r = run("launch", kernels, "mallocs")
    assert r.returncode == 0, r.stderr
    # a command, its argument copy and the waits come from free lists
    assert int(values(r)["mallocs"]) < 20


@pytest.mark.parametrize("spin", ["0", "50", "1000"])
def test_trap_in_a_small_grid_fails_the_launch(kernels: str, spin: str) -> None:
    r = run("launch", kernels, "trap", env={"PYSHIM_CPU_SPIN_US": spin})
    assert r.returncode == 0, r.stderr
    assert values(r)["small_trap"] == "hipErrorLaunchFailure"
    assert "block (5,0,0) trapped" in r.stderr


def test_bad_spin_setting_is_reported_and_ignored(kernels: str) -> None:
    # the launch still behaves as with the default spin: as above, one of three runs must
    # keep the small grid on one thread (a preempted run may rightly publish it)
    for _ in range(3):
        r = run("launch", kernels, "threads", env={"PYSHIM_CPU_SPIN_US": "lots"})
        assert r.returncode == 0, r.stderr
        assert "PYSHIM_CPU_SPIN_US=lots" in r.stderr
        if values(r)["small_threads"] == "1":
            break
    assert values(r)["small_threads"] == "1"
