"""NCCL communicators across processes on the CPU device (gloo underneath): a real nvcc-built
program (tests/nccl/prog_nccl_mp.cu) started twice under `pyshim run`, the unique id passed
through a file; every rank's result of every case is compared here with numpy. Two processes
of one device each, and two of two devices each (4 ranks, 2 in each process)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from nccl.programs import nccl_program

from pyshim.paths import REPO_DIR, build_dir

HERE = Path(__file__).parent / "nccl"
pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")

TYPES = ("int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
         "bfloat16", "fp8e4m3", "fp8e5m2")
NP = {"int8": np.int8, "uint8": np.uint8, "int32": np.int32, "uint32": np.uint32,
      "int64": np.int64, "uint64": np.uint64, "half": np.float16, "float": np.float32,
      "double": np.float64}
OPS = ("sum", "prod", "max", "min", "avg")
# each floating type's unit roundoff
EPS = {"half": 2.0 ** -11, "float": 2.0 ** -24, "double": 2.0 ** -53, "bfloat16": 2.0 ** -8,
       "fp8e4m3": 2.0 ** -4, "fp8e5m2": 2.0 ** -3}


def decode(raw: bytes, t: str) -> np.ndarray:
    """The bytes of a result as float64 (the element type's value)."""
    if t in NP:
        return np.frombuffer(raw, NP[t]).astype(np.float64)
    if t == "bfloat16":
        return (np.frombuffer(raw, np.uint16).astype(np.uint32) << 16).view(np.float32) \
            .astype(np.float64)
    b = np.frombuffer(raw, np.uint8).astype(np.int64)
    if t == "fp8e5m2":   # the high byte of a half
        return (b.astype(np.uint16) << 8).view(np.float16).astype(np.float64)
    sign = np.where(b & 0x80, -1.0, 1.0)
    e, m = (b >> 3) & 15, (b & 7).astype(np.float64)
    mag = np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7))
    return sign * mag


def inputs(rank: int, n: int, small: bool) -> np.ndarray:
    i = np.arange(n, dtype=np.int64)
    return (1 + (i + 3 * rank) % 2 if small else 1 + (i * 7 + rank * 3) % 9).astype(np.float64)


def reduced(t: str, op: str, n: int, world: int, small: bool) -> np.ndarray:
    """The reduction of every rank's input, wrapped to the type as NCCL's integers wrap."""
    xs = [inputs(r, n, small) for r in range(world)]
    if op in ("sum", "avg"):
        acc = np.sum(xs, axis=0)
    elif op == "prod":
        acc = np.prod(xs, axis=0)
    else:
        acc = (np.max if op == "max" else np.min)(xs, axis=0)
    if t in NP and np.issubdtype(NP[t], np.integer):
        acc = acc.astype(np.int64).astype(NP[t]).astype(np.float64)   # wraps
        if op == "avg":
            acc = np.floor(acc / world)
    elif op == "avg":
        acc = acc / world
    return acc


def is_small(t: str, op: str) -> bool:
    return t in ("fp8e4m3", "fp8e5m2") or op == "prod"


@pytest.fixture(scope="module")
def exe() -> Path:
    from pyshim.builders.nccl import have_gloo

    if not have_gloo():
        pytest.skip("gloo's headers (libgloo-dev) are not installed: no cross-process path")
    return nccl_program("prog_nccl_mp")


@pytest.fixture()
def store() -> Iterator[Path]:
    """The rendezvous directory's parent: short, as the unique id holds its path"""
    d = Path(tempfile.mkdtemp(prefix="pyshim-mp-", dir="/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def launch(exe: Path, tmp_path: Path, store: Path, nprocs: int,
           ndev: int) -> tuple[Path, str]:
    outdir = tmp_path / "out"
    outdir.mkdir()
    idfile = tmp_path / "nccl.id"
    env = dict(os.environ, PYTHONPATH=str(REPO_DIR), PYSHIM_CPU_DEVICES=str(ndev),
               PYSHIM_NCCL_STORE_DIR=str(store), PYSHIM_NCCL_TIMEOUT_S="120")
    procs = [subprocess.Popen([sys.executable, "-m", "pyshim", "run", str(exe), str(p),
                               str(nprocs), str(ndev), str(idfile), str(outdir)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for p in range(nprocs)]
    results = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, out[-3000:] + err[-3000:]
        assert "mp passed=" in out and "FAIL" not in out, out[-3000:]
    # rank 0 removed the rendezvous directory once every rank had connected
    assert not list(store.iterdir())
    return outdir, "".join(out for out, _ in results)


def check(outdir: Path, world: int) -> set[str]:
    """The result files compared; a non-root rank's reduce result is NCCL's to leave."""
    checked: set[str] = set()

    def got(name: str, rank: int, t: str) -> np.ndarray:
        return decode((outdir / f"{name}.r{rank}").read_bytes(), t)

    def same(name: str, rank: int, t: str, want: np.ndarray) -> None:
        have = got(name, rank, t)
        assert have.shape == want.shape, name
        err = np.abs(have - want)
        if "-avg-" in name and t in EPS and world & (world - 1):
            # NCCL's floating avg sums x * (1/n rounded to the type), rounding at each step
            # of the ring: exact only where 1/n is (n a power of two)
            err = np.where(err <= 4 * EPS[t] * np.abs(want), 0, err)
        bad = np.flatnonzero(err)
        assert bad.size == 0, f"{name} rank {rank}: [{bad[0]}] = {have[bad[0]]}, " \
                              f"want {want[bad[0]]} ({bad.size} differ)"
        checked.add(f"{name}.r{rank}")

    for t in TYPES:
        for op in OPS:
            want = reduced(t, op, 1000, world, is_small(t, op))
            for r in range(world):
                same(f"allreduce-{t}-{op}-n1000", r, t, want)
    big = (1 << 20) + 3
    for r in range(world):
        same(f"allreduce-float-sum-n{big}", r, "float", reduced("float", "sum", big, world, False))
        same("allreduce-float-sum-n4099-inplace", r, "float",
             reduced("float", "sum", 4099, world, False))
    for t in ("float", "int32", "half", "bfloat16", "uint64"):
        for op in ("sum", "max", "avg"):
            full = reduced(t, op, 777 * world, world, False)
            for r in range(world):
                same(f"reducescatter-{t}-{op}-n777", r, t, full[r * 777:(r + 1) * 777])
    full = reduced("double", "sum", 500 * world, world, False)
    for r in range(world):
        same("reducescatter-double-sum-n500-inplace", r, "double", full[r * 500:(r + 1) * 500])
    for t, op, root in (("float", "sum", world - 1), ("int64", "max", 0),
                        ("half", "avg", 1 % world), ("fp8e4m3", "sum", world - 1)):
        same(f"reduce-{t}-{op}-n1001", root, t, reduced(t, op, 1001, world, is_small(t, op)))
    for t in ("int8", "float", "double", "bfloat16"):
        for r in range(world):
            same(f"broadcast-{t}-x-n3001", r, t, inputs(1 % world, 3001, False))
    for r in range(world):
        same("broadcast-int32-x-n3001-inplace", r, "int32", inputs(world - 1, 3001, False))
    for t in ("float", "uint8", "half"):
        want = np.concatenate([inputs(k, 999, False) for k in range(world)])
        for r in range(world):
            same(f"allgather-{t}-x-n999", r, t, want)
    # in place: rank r's block of its receive buffer was its input
    want = np.concatenate([inputs(k, 999, False)[:999] for k in range(world)])
    for r in range(world):
        same("allgather-int32-x-n999-inplace", r, "int32", want)
    for t in ("float", "int64", "fp8e5m2"):
        for r in range(world):
            same(f"sendrecv-{t}-x-n12345", r, t,
                 inputs((r + world - 1) % world, 12345, t == "fp8e5m2"))
    for r in range(world):
        want = np.concatenate([inputs(k, 333 * world, False)[r * 333:(r + 1) * 333]
                               for k in range(world)])
        same("alltoall-int32-x-n333", r, "int32", want)
    same("gather-double-x-n555", world - 1, "double",
         np.concatenate([inputs(k, 555, False) for k in range(world)]))
    for r in range(world):
        same("scatter-uint32-x-n555", r, "uint32",
             inputs(1 % world, 555 * world, False)[r * 555:(r + 1) * 555])
    want = np.sum([inputs(k, 1000, False) * (k + 1) for k in range(world)], axis=0)
    for r in range(world):
        same("premulsum-float-sum-n1000", r, "float", want)
    return checked


@pytest.mark.parametrize("nprocs,ndev", [(1, 2), (2, 1), (2, 2), (3, 1)])
def test_collectives_across_processes(exe: Path, tmp_path: Path, store: Path, nprocs: int,
                                      ndev: int) -> None:
    outdir, out = launch(exe, tmp_path, store, nprocs, ndev)
    world = nprocs * ndev
    checked = check(outdir, world)
    # ncclCommSplit: by rank % 2 with the ranks reversed (key -rank), then by process
    splits = {(int(m), int(g)): (int(r), int(n)) for m, g, r, n in
              (ln.split()[1:] for ln in out.splitlines() if ln.startswith("SPLIT "))}
    assert len(splits) == 2 * world
    for mode in (0, 1):
        color = [g % 2 if mode == 0 else g // ndev for g in range(world)]
        for g in range(world):
            members = [k for k in range(world) if color[k] == color[g]]
            assert splits[mode, g] == (sorted(members, reverse=True).index(g), len(members))
            name = f"split{mode}-allreduce-float-sum-n2049.r{g}"
            want = np.sum([inputs(k, 2049, False) for k in members], axis=0)
            have = decode((outdir / name).read_bytes(), "float")
            assert np.array_equal(have, want), name
            checked.add(name)
    written = {f.name for f in outdir.iterdir()
               if not f.name.startswith(("reduce-", "gather-"))}
    assert written <= checked and len(checked) > 80 * world


def test_errors_across_processes(exe: Path, tmp_path: Path, store: Path) -> None:
    """A rank whose peers never come gets ncclRemoteError once PYSHIM_NCCL_TIMEOUT_S has
    passed, with a log line naming the rendezvous; an id ncclGetUniqueId did not make is
    ncclInvalidArgument."""
    idfile = tmp_path / "nccl.id"
    env = dict(os.environ, PYTHONPATH=str(REPO_DIR), PYSHIM_CPU_DEVICES="1",
               PYSHIM_NCCL_STORE_DIR=str(store), PYSHIM_NCCL_TIMEOUT_S="2")

    def rank1() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pyshim", "run", str(exe), "1", "2", "1",
                               str(idfile), str(tmp_path)], capture_output=True, text=True,
                              env=env, timeout=300)

    made = subprocess.run([sys.executable, "-m", "pyshim", "run", str(exe), "-1", "2", "1",
                           str(idfile), str(tmp_path)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert made.returncode == 0 and idfile.stat().st_size == 128, made.stdout + made.stderr
    lone = rank1()
    assert lone.returncode == 1
    assert "a rank of the communicator aborted" in lone.stdout, lone.stdout   # ncclRemoteError
    assert "ncclCommInitRank: rank 1 of 2: joining the other processes' ranks through " \
        f"{store}/pyshim-nccl-" in lone.stderr, lone.stderr
    idfile.write_bytes(b"not an id".ljust(128, b"\0"))
    bad = rank1()
    assert bad.returncode == 1 and "invalid argument" in bad.stdout, bad.stdout
    assert "did not come from ncclGetUniqueId" in bad.stderr, bad.stderr


def test_built_without_gloo_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No gloo headers at build time: librccl.so.1 still builds (no libgloo needed), and its
    refusal of a cross-process id names the missing package."""
    from pyshim.builders import nccl
    from pyshim.builders.components import build_all

    build_all(components=("cpu",))
    hip = build_dir() / "cpu" / "libamdhip64.so.7"
    (tmp_path / hip.name).symlink_to(hip)
    monkeypatch.setattr(nccl, "GLOO_HEADER", tmp_path / "no-gloo" / "config.h")
    lib = nccl.build_cpu_rccl(tmp_path)
    needed = subprocess.run(["readelf", "-d", str(lib)], capture_output=True, text=True,
                            check=True).stdout
    assert "libgloo" not in needed
    assert b"install libgloo-dev and rebuild" in lib.read_bytes()
