"""A real nvcc-built NCCL program (tests/nccl/prog_nccl.cu: NVIDIA's nccl.h, -lnccl against
pyshim's libnccl.so.2) under `pyshim run` on 2 and 4 CPU devices: every collective, every
ncclDataType_t and ncclRedOp_t, PreMulSum, in place, send/recv, InitRank across threads, Split,
checked against the host reference the program computes; misuse gets NCCL's codes and a
log line naming the function."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nccl.programs import nccl_program

from pyshim.paths import REPO_DIR, build_dir

HERE = Path(__file__).parent / "nccl"
pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")

TYPES = ("int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
         "bfloat16", "fp8e4m3", "fp8e5m2")
# NCCL's codes (nccl.h): misuse case -> the code it must get
CODES = {"null_comm": 4, "bad_datatype": 4, "bad_op": 4, "bad_root": 4, "bad_peer": 4,
         "null_buffer": 4, "group_end_without_start": 5, "unsupported_commgrow": 5,
         "register": 0, "deregister": 0, "deregister_twice": 4, "async_clean": 0, "mismatched_counts": 5, "destroyed_comm": 4}


@pytest.fixture(scope="module")
def exe() -> Path:
    return nccl_program("prog_nccl")


@pytest.mark.parametrize("devices", [2, 4])
def test_collectives_match_the_host_reference(exe: Path, devices: int) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO_DIR), PYSHIM_CPU_DEVICES=str(devices))
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", str(exe)],
                          capture_output=True, text=True, timeout=600, env=env)
    out, err = proc.stdout, proc.stderr
    assert proc.returncode == 0, out[-3000:] + err[-3000:]
    assert f"devices {devices} " in out
    passes = [ln.split()[1] for ln in out.splitlines() if ln.startswith("PASS ")]
    assert not [ln for ln in out.splitlines() if ln.startswith("FAIL")]
    # every type through every reducing collective and op, and the moving ones
    for t in TYPES:
        for op in ("sum", "prod", "max", "min", "avg"):
            for coll in ("allreduce", "reducescatter", "reduce"):
                assert f"{coll}/{t}/{op}/n{devices}" in passes
        for coll in ("broadcast", "allgather", "sendrecv"):
            assert f"{coll}/{t}/-/n{devices}" in passes
    for case in ("allreduce/float/sum/n{d}/inplace", "allgather/int32/-/n{d}/inplace",
                 "reducescatter/double/max/n{d}/inplace", "allreduce/float/premulsum/n{d}",
                 "allreduce/double/premulsum/n{d}/devscalar", "reducescatter/int32/premulsum/n{d}",
                 "threaded_initrank/n{d}", "split/n{d}"):
        assert case.format(d=devices) in passes
    codes = {ln.split()[1]: int(ln.split()[2]) for ln in out.splitlines() if ln.startswith("CODE ")}
    assert codes == CODES
    assert f"nccl passed={len(passes) + len(codes)} failed=0" in out
    # each misuse is logged by the function it names
    for line in ("ncclAllReduce: comm is NULL", "ncclAllReduce: datatype 12 is not",
                 "ncclBroadcast: root", "ncclSend: peer -1", "ncclGroupEnd: no ncclGroupStart",
                 "ncclCommGrow is not supported on RCCL", "ncclAllReduce: collective #",
                 "ncclCommCount: comm 0x", "ncclCommDeregister: handle 0x"):
        assert line in err, line


DLOPEN_BY_PATH = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) { printf("dlopen failed: %s\n", dlerror()); return 1; }
    int (*get)(int *) = (int (*)(int *))dlsym(h, "ncclGetVersion");
    if (!get) { printf("no ncclGetVersion\n"); return 1; }
    int v = 0, r = get(&v);
    Dl_info info;
    dladdr((void *)get, &info);
    printf("rc=%d version=%d from=%s\n", r, v, info.dli_fname);
    return 0;
}
"""


def test_libnccl_loaded_by_path_is_pyshims(exe: Path, tmp_path: Path) -> None:
    """A framework dlopens NVIDIA's libnccl.so.2 out of its wheel by absolute path: LD_AUDIT
    hands it pyshim's. The file there is not NCCL at all (libm under NCCL's name), so only
    the redirect can make ncclGetVersion answer."""
    wheel = tmp_path / "site" / "nvidia" / "nccl" / "lib"
    wheel.mkdir(parents=True)
    libm = Path(subprocess.run(["gcc", "-print-file-name=libm.so.6"], capture_output=True,
                               text=True, check=True).stdout.strip())
    shutil.copy(libm, wheel / "libnccl.so.2")
    (tmp_path / "probe.c").write_text(DLOPEN_BY_PATH)
    subprocess.run(["gcc", "-o", str(tmp_path / "probe"), str(tmp_path / "probe.c"), "-ldl"],
                   check=True)
    env = dict(os.environ, PYTHONPATH=str(REPO_DIR))
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", str(tmp_path / "probe"),
                           str(wheel / "libnccl.so.2")], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"from={build_dir() / 'lib' / 'libnccl.so.2'}" in proc.stdout
    # RCCL's version (the CPU device's speaks RCCL 2.27.7), not nccl.h's 2.32
    assert "rc=0 version=22707" in proc.stdout
