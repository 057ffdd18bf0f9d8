"""Fuzzing the C loader (issue 19): hypothesis mutates real nvcc-built images (a fat binary,
PTX text, an sm_80 cubin) and one C harness process feeds every mutant to the driver API
(cuModuleLoadData, cuModuleLoadFatBinary, cuLibraryLoadData, a v2 wrapper's aux list),
each placed right before an unmapped page. Zero crashes and zero hangs; every mutant gets a
CUresult. The normal suite runs 1,000 mutants, the slow tier 10,000 (about 15 s)."""

from __future__ import annotations

import os
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyshim.paths import REPO_DIR, build_dir

MISUSE = REPO_DIR / "tests" / "misuse"
CUDA_INCLUDE = Path("/usr/local/cuda/include")

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")

INTERESTING = [0, 1, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
               1 << 31, 1 << 32, 1 << 63, (1 << 64) - 1, 0x4141414141414141, 0x1234]

KINDS = ("byte", "word", "cut", "dup", "zero")


def mutate(rnd, seed: bytes) -> bytes:
    """One to six edits at random offsets: a byte, a 64-bit word from INTERESTING or random,
    a truncation, a duplicated run, a zeroed run."""
    b = bytearray(seed)
    for _ in range(rnd.randint(1, 6)):
        if not b:
            break
        kind = rnd.choice(KINDS)
        pos = rnd.randrange(len(b))
        if kind == "byte":
            b[pos] = rnd.randrange(256)
        elif kind == "word":
            value = rnd.choice(INTERESTING) if rnd.random() < 0.5 else rnd.getrandbits(64)
            b[pos:pos + 8] = struct.pack("<Q", value)[: len(b) - pos]
        elif kind == "cut":
            del b[pos:]
        elif kind == "dup":
            b[pos:pos] = b[pos:pos + rnd.randint(1, 64)]
        else:
            n = rnd.randint(1, 64)
            b[pos:pos + n] = bytes(len(b[pos:pos + n]))
    return bytes(b)


def _compile(args: list[str], out: Path) -> Path:
    if not out.exists():
        tmp = out.with_name(out.name + f".{os.getpid()}.tmp")
        proc = subprocess.run([*args, "-o", str(tmp)], capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        os.replace(tmp, out)
    return out


@pytest.fixture(scope="module")
def harness() -> tuple[Path, list[bytes]]:
    from pyshim.builders.components import build_all

    build_all()
    work = build_dir() / "fuzz"
    work.mkdir(parents=True, exist_ok=True)
    src = MISUSE / "scale.cu"
    seeds = [
        _compile(["nvcc", "-fatbin", str(src)], work / "scale.fatbin").read_bytes(),
        _compile(["nvcc", "-ptx", str(src)], work / "scale.ptx").read_bytes() + b"\0",
        _compile(["nvcc", "-cubin", "-arch=sm_80", str(src)], work / "scale.cubin").read_bytes(),
    ]
    exe = _compile(["cc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror",
                    f"-I{CUDA_INCLUDE}", str(MISUSE / "fuzz_loader.c"),
                    f"-L{build_dir() / 'lib'}", "-lcuda"],
                   work / f"fuzz_loader-{(MISUSE / 'fuzz_loader.c').stat().st_mtime_ns}")
    return exe, seeds


BATCH = 50   # mutants per hypothesis example: its per-example cost would dominate


def _mutants(seeds: list[bytes], count: int) -> list[tuple[int, bytes]]:
    """`count` distinct (mode, image) mutants, from hypothesis-seeded randomness (the
    examples are derandomized: the same mutants on every run)."""
    out: dict[tuple[int, bytes], None] = {}

    @settings(max_examples=2 * count // BATCH + 10, database=None, derandomize=True,
              deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.integers(0, (1 << 64) - 1))
    def collect(seed: int) -> None:
        rnd = random.Random(seed)
        for _ in range(BATCH):
            if len(out) < count:
                out[(rnd.randrange(4), mutate(rnd, rnd.choice(seeds)))] = None

    collect()
    return list(out)


def _run(harness: tuple[Path, list[bytes]], count: int, tmp_path: Path) -> None:
    exe, seeds = harness
    mutants = _mutants(seeds, count)
    assert len(mutants) == count
    records = tmp_path / "mutants.bin"
    with records.open("wb") as f:
        for mode, data in mutants:
            f.write(struct.pack("<II", mode, len(data)) + data)
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    env.update(LD_LIBRARY_PATH=f"{build_dir() / 'lib'}:{build_dir() / 'cpu'}",
               PYSHIM_BACKEND="cpu", PYSHIM_CACHE=str(tmp_path / "cache"))
    proc = subprocess.run([str(exe), str(records), "60"], capture_output=True, text=True,
                          timeout=900, env=env)
    crash = [line for line in proc.stderr.splitlines() if line.startswith(("CRASH", "HANG"))]
    assert proc.returncode == 0 and not crash, (proc.returncode, crash, proc.stderr[-2000:])
    assert f"records {len(mutants)}" in proc.stdout, proc.stdout
    results = dict(line.split()[1:] for line in proc.stdout.splitlines()
                   if line.startswith("result "))
    # the mutants exercise both ends: refused images and images that still load
    assert int(results.get("CUDA_ERROR_INVALID_IMAGE", 0)) > 0, results
    assert int(results.get("CUDA_SUCCESS", 0)) > 0, results


def test_mutated_images_through_the_c_loader(harness, tmp_path: Path) -> None:
    _run(harness, 1000, tmp_path)


@pytest.mark.slow
def test_ten_thousand_mutated_images_through_the_c_loader(harness, tmp_path: Path) -> None:
    _run(harness, 10000, tmp_path)
