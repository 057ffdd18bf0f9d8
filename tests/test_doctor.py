"""`pyshim doctor`: findings about this machine, each missing thing with its fix.

GPU discovery is exercised on KFD topology trees laid out as the amdgpu driver lays them
out in sysfs (this machine has no AMD GPU); everything else is checked against what is
really installed here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pyshim.cli import main as cli_main
from pyshim.commands import doctor
from pyshim.kernels import amd, cache


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYSHIM_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize("value,arch", [
    (90010, "gfx90a"), (90402, "gfx942"), (90008, "gfx908"), (100300, "gfx1030"),
    (110000, "gfx1100"), (110501, "gfx1151"), (120001, "gfx1201"), (0, None),
])
def test_gfx_from_kfd_target_version(value, arch):
    assert doctor.gfx_from_target_version(value) == arch


def _node(root: Path, n: int, version: int, name: str) -> None:
    d = root / str(n)
    d.mkdir(parents=True)
    (d / "properties").write_text(f"cpu_cores_count 0\nsimd_count 304\n"
                                  f"gfx_target_version {version}\nvendor_id 4098\n")
    (d / "name").write_text(name + "\n")


def _topology(root: Path) -> Path:
    _node(root, 0, 0, "")                  # the CPU agent
    _node(root, 1, 90402, "ip discovery")   # MI300X
    _node(root, 2, 110000, "navi31")
    (root / "3").mkdir()                   # a node without properties is skipped
    return root


def test_gpus_from_sysfs(tmp_path):
    gpus = doctor.gpus_from_sysfs(_topology(tmp_path / "nodes"))
    assert gpus == [{"node": 1, "arch": "gfx942", "name": "ip discovery"},
                    {"node": 2, "arch": "gfx1100", "name": "navi31"}]
    assert doctor.gpus_from_sysfs(tmp_path / "absent") == []


def test_check_gpus_with_a_kfd_device(tmp_path):
    kfd = tmp_path / "kfd"
    kfd.write_bytes(b"")
    found = doctor.check_gpus(kfd, _topology(tmp_path / "nodes"))
    assert [(f.status, f.detail) for f in found] == [
        ("ok", "AMD KFD device present"),
        ("ok", "gfx942 (wave64) ip discovery"),
        ("ok", "gfx1100 (wave32) navi31"),
    ]


def test_check_gpus_without_kfd_says_cpu_device(tmp_path):
    (f,) = doctor.check_gpus(tmp_path / "kfd", tmp_path / "nodes")
    assert f.status == "missing" and "CPU device" in f.detail and "amdgpu" in f.fix


ROCMINFO = textwrap.dedent("""\
    ROCk module version 6.8.5 is loaded
    =====================
    HSA System Attributes
    =====================
    Runtime Version:         1.18
    ==========
    HSA Agents
    ==========
    *******
    Agent 1
    *******
      Name:                    AMD EPYC 9454 48-Core Processor
      Marketing Name:          AMD EPYC 9454 48-Core Processor
      Device Type:             CPU
    *******
    Agent 2
    *******
      Name:                    gfx942
      Marketing Name:          AMD Instinct MI300X
      Device Type:             GPU
      ISA Info:
        ISA 1
          Name:                    amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-
    *******
    Agent 3
    *******
      Name:                    gfx1201
      Marketing Name:          AMD Radeon RX 9070 XT
      Device Type:             GPU
    *** Done ***
    """)


def test_gpus_from_rocminfo():
    assert doctor.gpus_from_rocminfo(ROCMINFO) == [
        {"node": 1, "arch": "gfx942", "name": "AMD Instinct MI300X"},
        {"node": 2, "arch": "gfx1201", "name": "AMD Radeon RX 9070 XT"},
    ]
    assert doctor.gpus_from_rocminfo("") == []


def _fake_rocm_lib(d: Path, real: str, soname: str) -> None:
    """A real shared object installed the way ROCm installs its libraries (versioned file,
    soname symlink)."""
    d.mkdir(parents=True, exist_ok=True)
    src = d / "x.c"
    src.write_text("int hipInit(unsigned f) { return (int)f; }\n")
    subprocess.run(["cc", "-shared", "-fPIC", str(src), "-o", str(d / real),
                    f"-Wl,-soname,{soname}"], check=True)
    os.symlink(real, d / soname)


def test_version_from_the_library_file_name(tmp_path):
    _fake_rocm_lib(tmp_path, "libamdhip64.so.7.2.70204", "libamdhip64.so.7")
    assert doctor.version_from_path(tmp_path / "libamdhip64.so.7") == "7.2.4"
    (tmp_path / "librocblas.so.5.1").write_bytes(b"")
    assert doctor.version_from_path(tmp_path / "librocblas.so.5.1") is None


def test_check_rocm_finds_libraries_and_flags_old_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "rocm"))
    lib = tmp_path / "lib"
    _fake_rocm_lib(lib, "libamdhip64.so.7.2.70204", "libamdhip64.so.7")
    _fake_rocm_lib(lib, "librocblas.so.4.4.60403", "librocblas.so.4")
    found = {f.name: f for f in doctor.check_rocm([lib])}
    assert found["version"].status == "ok" and found["version"].detail == "ROCm 7.2.4"
    assert found["libamdhip64.so.7"].status == "ok"
    assert str(lib / "libamdhip64.so.7.2.70204") in found["libamdhip64.so.7"].detail
    assert found["librocblas.so.5"].status == "warn"
    assert "only librocblas.so.4" in found["librocblas.so.5"].detail
    assert found["librocsolver.so.0"].status == "missing"
    assert "apt-get install -t experimental librocsolver0" in found["librocsolver.so.0"].fix
    # ROCm's own version file wins over the file name
    (tmp_path / "rocm/.info").mkdir(parents=True)
    (tmp_path / "rocm/.info/version").write_text("7.2.1-81\n")
    assert {f.name: f for f in doctor.check_rocm([lib])}["version"].detail == "ROCm 7.2.1-81"


def test_check_rocm_with_nothing_installed(tmp_path, monkeypatch):
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "rocm"))
    found = doctor.check_rocm([tmp_path])
    assert {f.status for f in found} == {"missing"}
    assert found[0].name == "version" and "libamdhip64-7" in found[0].fix


def test_check_builds(tmp_path):
    (f1, f2) = doctor.check_builds(tmp_path)
    assert (f1.status, f2.status) == ("missing", "missing")
    assert f1.fix == f2.fix == "pyshim build"
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib/libcuda.so.1").write_bytes(b"")
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu/libamdhip64.so.7").write_bytes(b"")
    (f1, f2) = doctor.check_builds(tmp_path)
    assert f1.status == "ok" and f2.status == "warn" and "librocblas.so.5" in f2.detail
    for name in doctor.CPU_LIBRARIES:
        (tmp_path / "cpu" / name).write_bytes(b"")
    assert doctor.check_builds(tmp_path)[1].status == "ok"


def test_check_cache_counts_entries():
    (f,) = doctor.check_cache()
    assert "0 entries" in f.detail and "not created yet" in f.detail
    cache.store(cache.cache_key("doctor-test"), ".co", b"x" * (3000 - cache.RECORD_BYTES))
    (f,) = doctor.check_cache()
    assert f"{cache.cache_root()}: 1 entries, 2.9 KiB" == f.detail


def test_headers(tmp_path, monkeypatch):
    from pyshim.tables import fetch
    from pyshim.tables.sources import SOURCES

    monkeypatch.setenv("PYSHIM_HEADERS", str(tmp_path / "headers"))
    (f,) = doctor.check_headers()
    assert f.status == "missing" and f"0 of {len(SOURCES)}" in f.detail
    assert f.fix == "python3 -m pyshim.tables.fetch"
    for s in SOURCES:  # the stamp fetch writes after a complete download
        fetch.source_dir(s).mkdir(parents=True)
        (fetch.source_dir(s) / fetch.STAMP).write_text(s.version + "\n")
    assert doctor.check_headers()[0].status == "ok"


def test_compilers_reflect_this_machine():
    found = {f.name: f for f in doctor.check_compilers()}
    have_clang = "clang" in amd.available_compilers()
    assert (found["clang (AMD kernels)"].status == "ok") == have_clang
    assert (found["nvcc (examples)"].status == "ok") == bool(
        shutil.which("nvcc") or shutil.which("/usr/local/cuda/bin/nvcc"))
    assert found["cc (CPU device kernels)"].status == "ok"  # the CPU device needs it


def test_missing_clang_gives_the_apt_line(monkeypatch):
    monkeypatch.setenv("PYSHIM_HIP_CLANG", "/nonexistent/clang++")
    amd.find_clang.cache_clear()
    try:
        found = {f.name: f for f in doctor.check_compilers()}
    finally:
        monkeypatch.undo()
        amd.find_clang.cache_clear()
    f = found["clang (AMD kernels)"]
    assert f.status == "missing"
    assert f.fix == "apt-get install -y --no-install-recommends clang-19 lld-19 llvm-19"


def test_backends():
    F = doctor.Finding
    base = [F("build", "CPU device", "ok"), F("compilers", "cc (CPU device kernels)", "ok")]
    assert doctor.backends(base) == {"cpu": True, "hip": False}
    hip = [F("rocm", "libamdhip64.so.7", "ok"), F("gpu", "/dev/kfd", "ok")]
    assert doctor.backends(hip) == {"cpu": False, "hip": True}
    assert doctor.backends([F("rocm", "libamdhip64.so.7", "ok"),
                            F("gpu", "/dev/kfd", "missing")])["hip"] is False


def test_text_report_through_the_cli(capsys):
    rc = cli_main(["doctor"])
    out = capsys.readouterr().out
    for title in doctor.AREA_TITLES.values():
        assert title in out
    assert "backends that can run programs now:" in out
    findings = doctor.collect()
    assert rc == (0 if any(doctor.backends(findings).values()) else 1)
    for f in findings:
        if f.status == "missing":
            assert f"fix: {f.fix}" in out


def test_json_report_in_a_subprocess(tmp_path):
    res = subprocess.run([sys.executable, "-m", "pyshim", "doctor", "--json"],
                         capture_output=True, text=True, timeout=120)
    doc = json.loads(res.stdout)
    assert set(doc["backends"]) == {"cpu", "hip"}
    areas = {f["area"] for f in doc["findings"]}
    assert areas == set(doctor.AREA_TITLES)
    for f in doc["findings"]:
        assert f["status"] in ("ok", "missing", "warn", "info")
        assert f["status"] != "missing" or f["fix"], f"{f['name']}: missing without a fix"
    assert res.returncode == (0 if any(doc["backends"].values()) else 1)
    assert doc["backends"]["hip"] is False or Path("/dev/kfd").exists()
