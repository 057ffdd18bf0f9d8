"""The first run (issue 23): compile tiers, system caches, `pyshim precompile` and `pyshim
cache info PATH`, and the cache keys' stability."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.kernels import cache, lazy, loader, precompile, tiers
from pyshim.kernels import compile as kcompile

ROOT = Path(__file__).resolve().parents[1]


def _ptx(kernels: int, tag: str = "") -> str:
    """A module of `kernels` small kernels (a global variable too: lazy modules keep it)."""
    out = [".version 7.5", ".target sm_75", ".address_size 64", "",
           ".global .align 4 .u32 hits;", ""]
    for i in range(kernels):
        out += [f".visible .entry k{tag}{i}(.param .u64 p)", "{", "\t.reg .b32 %r<3>;",
                "\t.reg .b64 %rd<3>;", "\tld.param.u64 %rd1, [p];",
                "\tcvta.to.global.u64 %rd2, %rd1;", "\tmov.u32 %r1, %tid.x;",
                f"\tadd.u32 %r2, %r1, {i};", "\tst.global.u32 [%rd2], %r2;",
                "\tret;", "}", ""]
    return "\n".join(out) + "\n"


@pytest.fixture
def user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYSHIM_CACHE", str(tmp_path / "user"))
    monkeypatch.setenv("PYSHIM_SYSTEM_CACHE", "")
    cache.forget_private()
    cache._verified.clear()
    yield tmp_path / "user"
    cache.forget_private()


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def test_jit_mode_parses_the_variable(monkeypatch):
    for raw, want in (("fast", "fast"), ("OPT", "opt"), (" tiered ", "tiered"), ("", "opt"),
                      ("turbo", "opt")):
        monkeypatch.setenv("PYSHIM_JIT", raw)
        assert kcompile.jit_mode() == want


def test_tiers_have_their_own_keys_and_opt_keeps_the_old_identity():
    assert kcompile.compiler_identity("opt") == kcompile.compiler_identity()
    assert kcompile.compiler_identity("fast") != kcompile.compiler_identity("opt")
    assert "-O1" in kcompile.compiler_identity("fast")


def test_fast_mode_builds_the_fast_tier(user_cache, monkeypatch):
    monkeypatch.setenv("PYSHIM_JIT", "fast")
    mod = loader.load_module(_ptx(2).encode(), "cpu-wave64")
    assert not mod.cached and mod.stats["tier"] == "fast"
    assert mod.stats["compile_seconds"] > 0 and mod.stats["translate_seconds"] > 0
    monkeypatch.setenv("PYSHIM_JIT", "opt")
    again = loader.load_module(_ptx(2).encode(), "cpu-wave64")
    assert not again.cached and again.stats["tier"] == "opt"  # fast code is not opt code
    assert again.path != mod.path


def test_tiered_serves_fast_then_opt_after_the_background_build(user_cache, monkeypatch):
    monkeypatch.setenv("PYSHIM_JIT", "tiered")
    data = _ptx(2, "t").encode()
    first = loader.load_module(data, "cpu-wave64")
    assert first.stats["tier"] == "fast"
    assert kcompile.wait_background(timeout=300)
    second = loader.load_module(data, "cpu-wave64")
    assert second.cached and second.stats["tier"] == "opt" and second.path != first.path


def test_tiered_lazy_kernel(user_cache, monkeypatch):
    monkeypatch.setenv("PYSHIM_JIT", "tiered")
    monkeypatch.setenv("PYSHIM_LAZY_MIN_KERNELS", "2")
    data = _ptx(3, "z").encode()
    mod = loader.load_module(data, "cpu-wave64")
    assert mod.lazy
    key = loader._lazy_module_key(data, "cpu-wave64")
    k = loader.load_module(lazy.encode_request(key, "kz1"), "cpu-wave64")
    assert k.stats["tier"] == "fast"
    assert kcompile.wait_background(timeout=300)
    k2 = loader.load_module(lazy.encode_request(key, "kz1"), "cpu-wave64")
    assert k2.cached and k2.stats["tier"] == "opt"


def test_background_runs_a_job_once_at_a_time():
    import threading

    gate = threading.Event()
    ran = []
    assert kcompile.background("job-a", lambda: (gate.wait(10), ran.append(1)))
    assert not kcompile.background("job-a", lambda: ran.append(2))  # queued already
    gate.set()
    assert kcompile.wait_background(timeout=10)
    assert ran == [1]


def test_tiers_build_reports_times(user_cache, monkeypatch):
    monkeypatch.setenv("PYSHIM_JIT", "opt")
    meta: dict = {}
    src = "int ps_dummy(void) { return 1; }\n"
    path, cached, tier = tiers.build(lambda t: cache.cache_key("t", t), lambda: (src, {}),
                                     meta)
    assert (cached, tier) == (False, "opt") and path.exists()
    assert set(meta["stats"]) >= {"translate_seconds", "compile_seconds", "tier"}


# ---- system caches ------------------------------------------------------------------------

def _fill(root: Path, key: str, data: bytes) -> Path:
    shard = root / "kernels" / key[:2]
    shard.mkdir(parents=True, exist_ok=True)
    p = shard / f"{key}.so"
    p.write_bytes(cache._seal(data))
    for d in (root / "kernels", shard):
        os.chmod(d, 0o755)
    os.chmod(p, 0o644)
    return p


def test_system_cache_is_consulted_first_and_never_written(user_cache, tmp_path,
                                                            monkeypatch):
    system = tmp_path / "system"
    key = cache.cache_key("sys")
    p = _fill(system, key, b"from the system cache")
    monkeypatch.setenv("PYSHIM_SYSTEM_CACHE", f"{tmp_path / 'absent'}:{system}")
    assert cache.lookup(key, ".so") == p
    # a store goes to the user's cache, never into the system one
    other = cache.cache_key("other")
    stored = cache.store(other, ".so", b"x")
    assert user_cache in stored.parents and not (system / "kernels" / other[:2]).exists()


def test_system_cache_entry_that_is_writable_by_others_is_skipped(user_cache, tmp_path,
                                                                   monkeypatch, caplog):
    system = tmp_path / "system"
    key = cache.cache_key("loose")
    p = _fill(system, key, b"data")
    os.chmod(p, 0o666)
    monkeypatch.setenv("PYSHIM_SYSTEM_CACHE", str(system))
    assert cache.lookup(key, ".so") is None
    assert p.exists()  # left alone: it is not ours to delete
    assert "group/world-writable" in caplog.text


def test_system_cache_entry_that_does_not_match_its_record_is_skipped(user_cache, tmp_path,
                                                                       monkeypatch):
    system = tmp_path / "system"
    key = cache.cache_key("altered")
    p = _fill(system, key, b"original bytes")
    raw = bytearray(p.read_bytes())
    raw[0] ^= 0xFF
    p.write_bytes(bytes(raw))
    monkeypatch.setenv("PYSHIM_SYSTEM_CACHE", str(system))
    assert cache.lookup(key, ".so") is None
    assert p.read_bytes() == bytes(raw)


def test_cache_key_does_not_depend_on_devices_clocks_or_time(tmp_path):
    """The same inputs give the same key in processes that differ in what must not matter."""
    code = ("from pyshim.kernels import cache; from pyshim.kernels.compile import "
            "compiler_identity; from pyshim.ptx.fingerprint import translator_fingerprint; "
            "print(cache.cache_key(b'.version 7.5', translator_fingerprint(), 'cpu-wave64', "
            "compiler_identity()))")
    keys = set()
    for extra in ({}, {"CUDA_VISIBLE_DEVICES": "1", "HIP_VISIBLE_DEVICES": "1",
                       "TZ": "Asia/Tokyo", "PYSHIM_CPU_WORKERS": "1"}):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=_env(**extra), cwd=tmp_path, timeout=120)
        assert out.returncode == 0, out.stderr
        keys.add(out.stdout.strip())
    assert len(keys) == 1


def test_cache_key_depends_on_the_cpu_features(monkeypatch):
    a = kcompile._identity_now(tuple(kcompile.cpu_compiler()))
    monkeypatch.setattr(kcompile, "_native", lambda cc: "another-cpu")
    b = kcompile._identity_now(tuple(kcompile.cpu_compiler()))
    assert a != b


def test_compiler_identity_memo_on_disk(user_cache, monkeypatch):
    cc = tuple(kcompile.cpu_compiler())
    first = kcompile._identity.__wrapped__(cc)
    monkeypatch.setattr(kcompile, "_identity_now", lambda cc: pytest.fail("recomputed"))
    assert kcompile._identity.__wrapped__(cc) == first
    # another CPU (its /proc/cpuinfo flags) is another memo entry
    real_open = open

    def other_cpu(path, *a, **kw):
        if path == "/proc/cpuinfo":
            import io

            return io.StringIO("vendor_id : Other\nflags : fpu\n")
        return real_open(path, *a, **kw)

    key = kcompile._memo_key(cc)
    monkeypatch.setattr("builtins.open", other_cpu)
    assert kcompile._memo_key(cc) != key
    monkeypatch.setattr(kcompile, "_identity_now", lambda cc: "computed again")
    assert kcompile._identity.__wrapped__(cc) == "computed again"


# ---- precompile and cache info ------------------------------------------------------------

def test_precompile_fills_the_cache_a_run_uses_and_resumes(user_cache, tmp_path,
                                                          monkeypatch):
    monkeypatch.setenv("PYSHIM_LAZY_MIN_KERNELS", "4")
    tmp_path = tmp_path / "inputs"
    tmp_path.mkdir()
    small = tmp_path / "small.ptx"
    small.write_text(_ptx(2, "s"))
    big = tmp_path / "big.ptx"
    big.write_text(_ptx(5, "b"))
    before = precompile.plan([small, big], "cpu-wave64")
    assert [(len(m.kernels), len(m.cached), m.lazy) for m in before] == [(2, 0, False),
                                                                        (5, 0, True)]
    # one kernel built as a run builds it: precompile resumes around it
    key = loader._lazy_module_key(big.read_bytes(), "cpu-wave64")
    loader.load_module(big.read_bytes(), "cpu-wave64")
    loader.load_module(lazy.encode_request(key, "kb2"), "cpu-wave64")
    summary = precompile.precompile([tmp_path], "cpu-wave64", jobs=2,
                                    bar=precompile.Bar(0, enabled=False))
    assert summary["failed"] == [] and summary["already_cached"] == 1
    assert summary["built"] == 6 and summary["kernels"] == 7
    assert summary["cache_bytes_added"] > 0
    after = precompile.plan([tmp_path], "cpu-wave64")
    assert all(len(m.cached) == len(m.kernels) for m in after)
    # a run after the precompile finds every kernel cached
    assert loader.load_module(small.read_bytes(), "cpu-wave64").cached
    assert loader.load_module(lazy.encode_request(key, "kb4"), "cpu-wave64").cached
    again = precompile.precompile([tmp_path], "cpu-wave64", jobs=2,
                                  bar=precompile.Bar(0, enabled=False))
    assert again["built"] == 0 and again["jobs"] == 0


def test_precompile_cli_fills_a_shareable_cache_and_cache_info_counts(tmp_path):
    ptx = tmp_path / "m.ptx"
    ptx.write_text(_ptx(3, "c"))
    bad = tmp_path / "bad.ptx"
    bad.write_text(_ptx(1, "d").replace("add.u32", "frobnicate.u32"))
    shared = tmp_path / "shared"
    env = _env(PYSHIM_CACHE=str(tmp_path / "user"), PYSHIM_SYSTEM_CACHE="")
    res = subprocess.run([sys.executable, "-m", "pyshim", "precompile", "--json", "--cache",
                          str(shared), str(ptx), str(bad)], capture_output=True, text=True,
                         env=env, timeout=600)
    assert res.returncode == 1, res.stderr  # the bad module failed, and said so
    summary = json.loads(res.stdout)
    assert summary["built"] == 3 and len(summary["failed"]) == 1
    assert "frobnicate" in summary["failed"][0]["error"]
    so = [p for p in (shared / "kernels").rglob("*.so")]
    assert so and all(stat.S_IMODE(p.stat().st_mode) == 0o644 for p in so)
    # the user's cache is empty; with the filled one as the system cache, all 3 are cached
    info = subprocess.run([sys.executable, "-m", "pyshim", "cache", "info", "--json",
                           str(ptx)], capture_output=True, text=True, env=env, timeout=300)
    assert json.loads(info.stdout)["binaries"][0]["cached"] == 0
    env["PYSHIM_SYSTEM_CACHE"] = str(shared)
    info = subprocess.run([sys.executable, "-m", "pyshim", "cache", "info", "--json",
                           str(ptx)], capture_output=True, text=True, env=env, timeout=300)
    b = json.loads(info.stdout)["binaries"][0]
    assert (b["kernels"], b["cached"]) == (3, 3)


def test_precompile_of_a_missing_path_is_an_error(tmp_path):
    res = subprocess.run([sys.executable, "-m", "pyshim", "precompile", str(tmp_path / "no")],
                         capture_output=True, text=True, env=_env(), timeout=120)
    assert res.returncode == 2 and "no such file" in res.stderr


# ---- run report and parser ---------------------------------------------------------------

def test_run_report_keeps_each_kernels_tier_and_times():
    from pyshim.report.run import format_text, parse_lines

    rep = parse_lines(["kernel k1 translated 12.5", "jit k1 fast 2.000 10.500",
                       "kernel k1 cached 0.2", "jit k1 opt cached", "jit k2 turbo 1 2",
                       "jit k3 opt 1"])
    k1 = next(k for k in rep["kernels"] if k["name"] == "k1")
    assert k1["jit"] == [{"tier": "fast", "translate_ms": 2.0, "compile_ms": 10.5},
                         {"tier": "opt", "cached": True}]
    assert [m["line"] for m in rep["malformed"]] == [5, 6]
    text = format_text(rep)
    assert "jit k1: tier fast, translate 2 ms, compile 10 ms" in text


def test_parse_leaves_the_collector_as_it_found_it():
    import gc

    from pyshim.ptx.errors import PtxError
    from pyshim.ptx.frontend.parser import parse

    assert gc.isenabled()
    parse(_ptx(2))
    assert gc.isenabled()
    with pytest.raises(PtxError):
        parse(".version 7.5\n.target sm_75\n.entry k() { add.u32 %r1 %r2; }\n")
    assert gc.isenabled()
    gc.disable()
    try:
        parse(_ptx(1))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_parser_operands_mixed_forms():
    """The one-token fast path hands over to the general operand parser mid-instruction."""
    from pyshim.ptx import ir
    from pyshim.ptx.frontend.parser import parse

    m = parse(".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n"
              "\t.reg .b32 %r<4>;\n\t.reg .pred %p<3>;\n"
              "\tadd.s32 %r1, %r2, -4;\n\tsetp.lt.s32 %p1|%p2, %r1, 3;\n"
              "\tselp.b32 %r3, 1, 0, !%p1;\n\tld.shared.v2.b32 {%r1, %r2}, [%r3+8];\n"
              "\tmov.b32 %r1, 0f3F800000;\n\tret;\n}\n")
    ins = [s for s in m.kernels[0].body if isinstance(s, ir.Instruction)]
    assert ins[0].operands == [ir.Reg("%r1"), ir.Reg("%r2"), ir.Imm(-4, "int")]
    assert ins[1].operands[0] == ir.PredPair(ir.Reg("%p1"), ir.Reg("%p2"))
    assert ins[2].operands[3] == ir.Neg(ir.Reg("%p1"))
    assert ins[3].operands == [ir.Vec([ir.Reg("%r1"), ir.Reg("%r2")]),
                               ir.Addr(ir.Reg("%r3"), 8)]
    assert ins[4].operands[1] == ir.Imm(0x3F800000, "f32", True)
    assert (ins[3].opcode, ins[3].mods) == ("ld", ("shared", "v2", "b32"))
