"""The prepared NVIDIA differential script keeps working without a GPU: every example runs
under pyshim, the cuda target's translation of its PTX compiles (NVRTC, else nvcc), the
program rebuilt around P' (that translation compiled back to PTX by NVRTC) gives the same
output on the CPU device, and the ctypes driver check agrees between P and P'."""

import json
import shutil
import subprocess
import sys

import pytest

from pyshim.differential import checks as differential
from pyshim.kernels import nvrtc

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
needs_nvrtc = pytest.mark.skipif(not nvrtc.available(),
                                 reason="NVRTC not found: pip install nvidia-cuda-nvrtc")


@pytest.mark.slow
@needs_nvcc
def test_differential_script_without_a_gpu():
    out = subprocess.run([sys.executable, "-m", "pyshim.differential", "--json",
                          "vector_add", "k_warp_vote", "k_printf"],
                         capture_output=True, text=True, timeout=600)
    doc = json.loads(out.stdout)
    assert [r["example"] for r in doc["results"]] == ["vector_add", "k_warp_vote", "k_printf"]
    for r in doc["results"]:
        assert r["pyshim_pass"] and r["cuda_target"].startswith("compiles"), r
        if doc["nvrtc"]:
            assert r["cuda_target"] == "compiles (NVRTC)" and r["roundtrip"] == "same", r
    if doc["nvrtc"]:
        assert doc["driver"]["ok"], doc["driver"]
        assert doc["driver"]["kernels"] == ["dk_math", "dk_warp", "dk_hist"]
    assert out.returncode == 0, out.stderr


@needs_nvcc
@needs_nvrtc
def test_round_trip_embeds_p_prime_and_catches_a_wrong_translation(tmp_path, monkeypatch):
    """The relinked program really runs P' (its fat binary holds NVRTC's PTX), and a cuda
    target that computed something else would be reported, not pass as 'same'."""
    src = differential.EXAMPLES / "vector_add.cu"
    good = differential.roundtrip_example(src, tmp_path / "good")
    assert good["differences"] == [] and "PASS vector_add" in good["out_p2"], good
    embedded = differential.embedded_ptx(good["exe_p2"])
    p2 = (tmp_path / "good" / "vector_add.keep" / "vector_add.ptx").read_text()
    assert [differential._ptx_tokens(t) for t in embedded] == [differential._ptx_tokens(p2)]
    assert "add.rn.f32" in embedded[0]  # P' from NVRTC --fmad=false; nvcc -O2 wrote add.f32
    assert "add.rn.f32" not in differential.embedded_ptx(good["exe_p"])[0]

    real = differential.cuda_target_ptx

    def subtracting(ptx: str, *args, **kw) -> str:
        assert "add.f32" in ptx
        return real(ptx.replace("add.f32", "sub.f32"), *args, **kw)

    monkeypatch.setattr(differential, "cuda_target_ptx", subtracting)
    bad = differential.roundtrip_example(src, tmp_path / "bad")
    assert bad["differences"] and "PASS vector_add" not in bad["out_p2"], bad


@needs_nvcc
@needs_nvrtc
def test_driver_check_on_the_cpu_device(tmp_path):
    """cuModuleLoadData + cuLaunchKernel through ctypes, under pyshim's libcuda: P and P'
    give the same bytes, and the kernels really computed (outputs are not all zero)."""
    result = differential.driver_check(tmp_path, gpu=False)
    assert result["ok"], result
    assert result["runs"] == ["cpu P", "cpu P'"]
    proc = differential.pyshim_run([sys.executable, "-m", "pyshim.differential",
                                    "--driver-run", str(tmp_path / "driver_kernels.rt.ptx")])
    outs = json.loads(proc.stdout)
    for name, arrays in outs.items():
        assert any(set(a) != {"0"} for a in arrays[1:]), name


def test_missing_nvrtc_is_a_clear_error(monkeypatch, tmp_path):
    """With no NVRTC anywhere, compile_to_ptx says what to install and where it looked."""
    fake = tmp_path / "libnvrtc.so.13"
    fake.write_bytes(b"not a library")
    monkeypatch.setenv("PYSHIM_NVRTC", str(fake))
    assert nvrtc.candidates()[0] == fake  # $PYSHIM_NVRTC comes first
    monkeypatch.setattr(nvrtc, "candidates", lambda: [fake])
    monkeypatch.setattr(nvrtc, "SONAMES", ("libnvrtc-pyshim-test-absent.so",))
    nvrtc._library.cache_clear()
    try:
        assert not nvrtc.available()
        with pytest.raises(nvrtc.NvrtcError, match="pip install nvidia-cuda-nvrtc") as err:
            nvrtc.compile_to_ptx("")
        assert str(fake) in str(err.value)
    finally:
        nvrtc._library.cache_clear()


@needs_nvcc
@needs_nvrtc
def test_a_prepared_folder_is_judged_against_recorded_native_runs(tmp_path):
    """The split for a GPU machine without pyshim's toolchain: --prepare builds here (native
    code for the GPU named, no GPU needed), --native records NVIDIA's runs there, --judge
    compares here. pyshim's own outputs stand in for the recorded runs: they agree, and a
    recorded line that differs is reported."""
    folder = tmp_path / "prep"
    manifest = differential.prepare(folder, ["vector_add"], "sm_90")
    entry = manifest["examples"][0]
    assert entry["cuda_target"] == "compiles (NVRTC)"
    assert not (folder / "vector_add" / "vector_add.keep").exists()  # it travels: kept small
    assert set(manifest["driver"]) == {"P", "P'"}
    out = differential.pyshim_run([str(folder / entry["exe"])]).stdout
    assert "PASS vector_add" in out
    drv = {k: differential.driver_child(folder / v, True) for k, v in manifest["driver"].items()}
    native = {"gpu": "sm_90", "driver": drv,
              "examples": {"vector_add": {"exe": {"rc": 0, "stdout": out},
                                          "exe_p2": {"rc": 0, "stdout": out}}}}
    results, driver = differential.judge_prepared(folder, native)
    assert results[0]["ok"] and results[0]["same_output"], results
    assert results[0]["native_roundtrip"] == "same" and results[0]["roundtrip"] == "same"
    assert driver["ok"] and driver["runs"] == ["cpu P", "cpu P'", "gpu P", "gpu P'"], driver
    native["examples"]["vector_add"]["exe_p2"]["stdout"] = "c[7] = 1.5\n" + out
    native["driver"]["P'"]["stdout"] = drv["P'"]["stdout"].replace('"', '"0', 1)
    results, driver = differential.judge_prepared(folder, native)
    assert not results[0]["ok"] and results[0]["native_roundtrip"]["differences"], results
    assert not driver["ok"] and driver["differences"], driver
