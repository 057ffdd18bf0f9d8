"""Virtual memory management on the CPU device (issue 21 point 2): an nvcc-built driver API
program reserves address space, maps one physical allocation at two addresses and sees the
writes of a copy and of a kernel through both; exports and imports the allocation as a
POSIX fd; and each mistake (mapping into unreserved space, unmapping what is not mapped,
forged and released handles) is the CUDA error NVIDIA documents, not a crash."""

from __future__ import annotations

from pathlib import Path

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
                 "copy across abutting mappings: CUDA_SUCCESS"):
        assert f"PASS {case}" in proc.stdout, case
    # the refusals say why
    assert "is not inside one reserved address range" in proc.stderr
    assert "is not a live allocation handle" in proc.stderr
