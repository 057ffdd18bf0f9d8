"""Virtual memory management on the CPU device (issue 21 point 2): an nvcc-built driver API
program reserves address space, maps one physical allocation at two addresses and sees the
writes of a copy and of a kernel through both; exports and imports the allocation as a
POSIX fd; and each mistake (mapping into unreserved space, unmapping what is not mapped,
forged and released handles) is the CUDA error NVIDIA documents, not a crash."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_misuse import MISUSE, assert_all_passed, nvcc, root, run  # noqa: F401

from pyshim.paths import REPO_DIR

VMM = REPO_DIR / "tests" / "vmm"


def test_one_allocation_mapped_twice_aliases(root: Path) -> None:  # noqa: F811
    ptx = nvcc(MISUSE / "scale.cu", "-ptx")
    exe = nvcc(VMM / "drv_vmm.cu", f"-L{root / 'lib'}", "-lcuda")
    proc = run(exe, root, str(ptx))
    assert_all_passed(proc)
    for case in ("attribute VMM supported",
                 "va sees the kernel's writes through va2",
                 "va2 sees the copy's writes through va",
                 "import aliases",
                 "map into unreserved: CUDA_ERROR_INVALID_VALUE",
                 "unmap unmapped: CUDA_ERROR_INVALID_VALUE",
                 "map bad handle: CUDA_ERROR_INVALID_VALUE",
                 "copy across abutting mappings: CUDA_SUCCESS",
                 "the hint is honoured",
                 "unmap across reservations: CUDA_SUCCESS",
                 "copy to a mapping the reset dropped: CUDA_ERROR_INVALID_VALUE",
                 "release after reset: CUDA_ERROR_INVALID_VALUE"):
        assert f"PASS {case}" in proc.stdout, case
    # the refusals say why
    assert "is not reserved address space" in proc.stderr
    assert "is not a live allocation handle" in proc.stderr


CLIENT_PYTHON = Path(os.environ.get("PYSHIM_CLIENTS_PYTHON", "/work/venvs/clients/bin/python"))


@pytest.mark.skipif(not CLIENT_PYTHON.exists(), reason="no client venv with cuda-bindings")
def test_cuda_bindings_maps_one_allocation_twice(root: Path) -> None:  # noqa: F811
    e = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    e.update(LD_LIBRARY_PATH=f"{root / 'lib'}:{root / 'cpu'}", PYSHIM_BACKEND="cpu")
    proc = subprocess.run([str(CLIENT_PYTHON), str(VMM / "bindings_vmm.py")], env=e,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert "vmm 1" in lines
    assert "alias 7856341278563412" in lines   # 0x12345678 little-endian, twice
    assert "grown in place True" in lines
    assert lines[-1] == "done"


@pytest.mark.skipif(not CLIENT_PYTHON.exists(), reason="no client venv with cuda-core")
def test_cuda_core_virtual_memory_resource_grows_in_place(root: Path) -> None:  # noqa: F811
    e = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    e.update(LD_LIBRARY_PATH=f"{root / 'lib'}:{root / 'cpu'}", PYSHIM_BACKEND="cpu")
    proc = subprocess.run([str(CLIENT_PYTHON), str(VMM / "core_vmm.py")], env=e,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines == ["grown size True", "contents kept True", "tail usable CUDA_SUCCESS",
                     "done"], proc.stdout
    # (cuda.core 1.2.2 then deallocates the replaced buffer once more, whose address range
    # modify_allocation freed: cuMemRetainAllocationHandle answers INVALID_VALUE, as on CUDA)
