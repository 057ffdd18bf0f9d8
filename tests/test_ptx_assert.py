"""Device assert (`__assertfail`) on the CPU device: CUDA's message on stderr and the launch
fails with cudaErrorAssert (trap code 710), the context usable for the next launch; in a
kernel with a barrier (a phase kernel) the failing thread leaves the kernel the way the
phase form spells it."""

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from ptx.harness import build

from pyshim.ptx import passes
from pyshim.ptx.frontend.parser import parse

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
SRC = Path(__file__).parent / "ptx" / "device_assert.cu"


@needs_nvcc
@pytest.mark.parametrize("wave", ["64", "32"])
def test_device_assert_reports_like_cuda(tmp_path: Path, wave: str) -> None:
    exe = tmp_path / "device_assert"
    subprocess.run(["nvcc", "-O2", "-o", str(exe), str(SRC)], check=True)
    import os

    env = dict(os.environ, PYSHIM_CPU_WAVE=wave)
    out = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ok=cudaSuccess assert=cudaErrorAssert" in out.stdout
    # CUDA's format: file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `e` failed.
    assert ("device_assert.cu:3: void check(int): block: [0,0,0], thread: [5,0,0] "
            "Assertion `threadIdx.x < n` failed.") in out.stderr, out.stderr
    assert "thread: [4,0,0]" not in out.stderr


# assert(threadIdx.x < n) after a barrier, each thread storing 1 before it and 2 after it
PHASE = """.version 8.0
.target sm_80
.address_size 64
.extern .func __assertfail (.param .b64 a0, .param .b64 a1, .param .b32 a2, .param .b64 a3,
                            .param .b64 a4);
.global .align 1 .b8 msg[6] = {116, 105, 100, 60, 110, 0};
.global .align 1 .b8 file[5] = {107, 46, 99, 117, 0};
.global .align 1 .b8 func[7] = {118, 111, 105, 100, 32, 107, 0};
.visible .entry k(.param .u32 n, .param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<8>;
  ld.param.u32 %r1, [n];
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], 1;
  bar.sync 0;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  mov.u64 %rd4, msg; cvta.global.u64 %rd4, %rd4;
  mov.u64 %rd5, file; cvta.global.u64 %rd5, %rd5;
  mov.u64 %rd6, func; cvta.global.u64 %rd6, %rd6;
  {
  .param .b64 param0; st.param.b64 [param0], %rd4;
  .param .b64 param1; st.param.b64 [param1], %rd5;
  .param .b32 param2; st.param.b32 [param2], 3;
  .param .b64 param3; st.param.b64 [param3], %rd6;
  .param .b64 param4; st.param.b64 [param4], 1;
  call.uni __assertfail, (param0, param1, param2, param3, param4);
  }
DONE:
  st.global.u32 [%rd3], 2;
  ret;
}
"""


@pytest.mark.parametrize("target", ["cpu-wave64", "cpu-wave32", "cpu-wave64+phases",
                                     "cpu-wave64+fibers"])
def test_device_assert_in_a_phase_kernel(tmp_path: Path, target: str, capfd) -> None:
    assert passes.run(parse(PHASE), target).kernels[0].info.mode == "phase"
    m = build(PHASE, target, tmp_path)
    out = np.zeros(64, np.uint32)
    m.launch("k", (1,), (64,), [64, out])
    assert out.tolist() == [2] * 64
    out[:] = 0
    with pytest.raises(RuntimeError, match="returned 710"):
        m.launch("k", (1,), (64,), [5, out])
    # the failing threads stopped at the assert (the store after it not done)
    assert out[5:].tolist() == [1] * 59
    assert "k.cu:3: void k: block: [0,0,0], thread: [5,0,0] Assertion `tid<n` failed." \
        in capfd.readouterr().err
