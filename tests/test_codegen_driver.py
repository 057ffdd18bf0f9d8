"""Generated libcuda C compiles warning-free against the real headers and covers every
exported symbol."""

import json
import subprocess

import pytest

from pyshim.codegen import driver
from pyshim.paths import TABLES_DIR


def test_generation_is_deterministic(tmp_path):
    a = driver.generate(tmp_path / "a")
    b = driver.generate(tmp_path / "b")
    for pa, pb in zip(a, b, strict=True):
        assert pa.read_bytes() == pb.read_bytes()


def test_every_symbol_gets_a_weak_definition(tmp_path):
    paths = {p.name: p for p in driver.generate(tmp_path)}
    text = paths["driver_stubs.c"].read_text()
    doc = json.loads((TABLES_DIR / "driver.json").read_text())
    symbols = {s for e in doc["entry_points"].values() for s in e["symbols"]}
    for s in symbols:
        assert f" {s}(" in text, s
    table = paths["driver_proc_table.inc"].read_text()
    assert 'PYSHIM_PROC("cuMemAlloc", 3020, PYSHIM_PROC_DEFAULT, cuMemAlloc_v2)' in table
    assert 'PYSHIM_PROC("cuLaunchKernel", 7000, PYSHIM_PROC_PTSZ, cuLaunchKernel_ptsz)' in table


@pytest.mark.network
def test_generated_c_compiles_with_werror(tmp_path):
    from pyshim.tables.fetch import include_dir

    driver.generate(tmp_path)
    incs = [include_dir(k) for k in ("cuda13-runtime", "cuda13-crt", "cuda13-profiler", "hip",
                                     "hsa")]
    cmd = ["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fPIC", "-D__HIP_PLATFORM_AMD__",
           *(f"-I{d}" for d in incs), f"-I{tmp_path}", "-c", str(tmp_path / "driver_stubs.c"),
           "-o", str(tmp_path / "stubs.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    nm = subprocess.run(["nm", str(tmp_path / "stubs.o")], capture_output=True, text=True)
    weak = [line.split()[-1] for line in nm.stdout.splitlines() if " W " in line]
    assert len(weak) == 635 + 3  # cuda.h's symbols and cudaProfiler.h's three
