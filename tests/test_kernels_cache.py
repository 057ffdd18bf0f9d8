"""The on-disk kernel cache: keys, atomic stores, refusal of unsafe entries, concurrency."""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing
import os
import stat

import pytest

from pyshim.cli import main as pyshim_main
from pyshim.kernels import cache

KEY = hashlib.sha256(b"some kernel").hexdigest()


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYSHIM_CACHE", str(tmp_path / "cache"))
    cache.forget_private()
    yield tmp_path / "cache" / "kernels"
    cache.forget_private()


def test_key_is_sha256_of_length_prefixed_parts():
    expected = hashlib.sha256(
        (2).to_bytes(8, "little") + b"ab" + (1).to_bytes(8, "little") + b"c").hexdigest()
    assert cache.cache_key(b"ab", "c") == expected
    assert cache.cache_key("ab", "c") != cache.cache_key("a", "bc")
    assert cache.cache_key("é") == cache.cache_key("é".encode())
    assert cache.cache_key() == hashlib.sha256(b"").hexdigest()


def test_key_rejects_other_types():
    with pytest.raises(cache.CacheError, match="int"):
        cache.cache_key(b"x", 3)  # type: ignore[arg-type]


@pytest.mark.parametrize("key,suffix", [
    ("abc", ".so"), (KEY.upper(), ".so"), ("../" + KEY[3:], ".so"),
    (KEY, "/x.so"), (KEY, "."), (KEY, ".so/.."), (KEY, "so"),
])
def test_bad_names_are_refused(key, suffix):
    with pytest.raises(cache.CacheError, match="invalid kernel cache"):
        cache.lookup(key, suffix)
    with pytest.raises(cache.CacheError):
        cache.store(key, suffix, b"x")


def test_store_then_lookup(private_cache):
    assert cache.lookup(KEY, ".so") is None
    path = cache.store(KEY, ".so", b"\x7fELF payload")
    assert path == private_cache / KEY[:2] / f"{KEY}.so"
    assert cache.lookup(KEY, ".so") == path
    assert cache.read_entry(path) == b"\x7fELF payload"
    assert cache.lookup(KEY, ".c") is None  # the suffix is part of the name
    assert stat.S_IMODE(private_cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left


def test_get_or_build_builds_once():
    calls = []

    def build() -> bytes:
        calls.append(1)
        return b"built"

    path, cached = cache.get_or_build(KEY, ".so", build)
    assert (cached, cache.read_entry(path), len(calls)) == (False, b"built", 1)
    path2, cached2 = cache.get_or_build(KEY, ".so", build)
    assert (path2, cached2, len(calls)) == (path, True, 1)


def test_failed_build_leaves_nothing(private_cache):
    def build() -> bytes:
        raise RuntimeError("compiler exploded")

    with pytest.raises(RuntimeError, match="exploded"):
        cache.get_or_build(KEY, ".so", build)
    assert cache.iter_entries() == []


def test_build_must_return_bytes():
    with pytest.raises(cache.CacheError, match="str, not bytes"):
        cache.get_or_build(KEY, ".so", lambda: "text")  # type: ignore[arg-type,return-value]


def test_loose_root_is_tightened(private_cache):
    private_cache.mkdir(parents=True)
    os.chmod(private_cache, 0o777)
    cache.store(KEY, ".so", b"x")
    assert stat.S_IMODE(private_cache.stat().st_mode) == 0o700


def test_world_writable_entry_is_refused_removed_and_rebuilt(caplog):
    path = cache.store(KEY, ".so", b"good")
    path.write_bytes(b"tampered")
    os.chmod(path, 0o666)
    with caplog.at_level(logging.WARNING, logger="pyshim"):
        assert cache.lookup(KEY, ".so") is None
    assert not path.exists()
    assert "group/world-writable" in caplog.text and path.name in caplog.text
    path2, cached = cache.get_or_build(KEY, ".so", lambda: b"good")
    assert (path2, cached, cache.read_entry(path2)) == (path, False, b"good")


def test_group_writable_shard_directory_is_refused(caplog):
    path = cache.store(KEY, ".so", b"good")
    os.chmod(path.parent, 0o775)
    with caplog.at_level(logging.WARNING, logger="pyshim"):
        assert cache.lookup(KEY, ".so") is None
    assert not path.parent.exists()
    assert "refusing directory" in caplog.text
    path2, cached = cache.get_or_build(KEY, ".so", lambda: b"good")
    assert not cached and stat.S_IMODE(path2.parent.stat().st_mode) == 0o700


def test_symlink_entry_is_refused(tmp_path):
    target = tmp_path / "evil.so"
    target.write_bytes(b"evil")
    path = cache.store(KEY, ".so", b"good")
    path.unlink()
    path.symlink_to(target)
    assert cache.lookup(KEY, ".so") is None
    assert not path.is_symlink() and target.read_bytes() == b"evil"


def test_directory_in_place_of_entry_is_refused():
    path = cache.store(KEY, ".so", b"good")
    path.unlink()
    path.mkdir()
    assert cache.lookup(KEY, ".so") is None
    assert cache.read_entry(cache.get_or_build(KEY, ".so", lambda: b"new")[0]) == b"new"


@pytest.mark.skipif(os.getuid() != 0, reason="chown to another uid needs root")
def test_entry_owned_by_another_uid_is_refused(caplog):
    path = cache.store(KEY, ".so", b"good")
    os.chown(path, 12345, -1)
    with caplog.at_level(logging.WARNING, logger="pyshim"):
        assert cache.lookup(KEY, ".so") is None
    assert "owned by uid 12345" in caplog.text
    assert not path.exists()


def _hammer(root: str, worker: int, rounds: int) -> None:
    os.environ["PYSHIM_CACHE"] = root
    payload = bytes([worker]) * 1 + b"x" * 200_000  # same length for everyone
    for i in range(rounds):
        key = cache.cache_key("concurrent", str(i % 3))
        cache.store(key, ".so", payload)
        found = cache.lookup(key, ".so")
        assert found is not None
        data = cache.read_entry(found)
        assert len(data) == len(payload) and data[1:] == payload[1:], "torn entry"


def test_concurrent_writers_never_expose_partial_entries(tmp_path):
    ctx = multiprocessing.get_context("fork")
    root = str(tmp_path / "cache")
    procs = [ctx.Process(target=_hammer, args=(root, w, 40)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    assert len(cache.iter_entries()) == 3
    leftovers = [p for p in (tmp_path / "cache" / "kernels").rglob(cache.TMP_PREFIX + "*")]
    assert leftovers == []


def test_clear_removes_entries_only(private_cache):
    for i in range(3):
        cache.store(cache.cache_key(str(i)), ".so", b"x")
    (private_cache / "README").write_text("not ours")
    shard = cache.iter_entries()[0].parent
    (shard / "notes.txt").write_text("not ours either")
    assert cache.clear() == 3
    assert cache.iter_entries() == []
    assert (private_cache / "README").exists() and (shard / "notes.txt").exists()


def test_cli_info_and_clear(private_cache, capsys):
    cache.store(KEY, ".so", b"12345")
    assert pyshim_main(["cache", "info", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {"location": str(private_cache), "entries": 1,
                      "bytes": 5 + cache.RECORD_BYTES,
                      "system": [str(p) for p in cache.system_roots()]}
    assert pyshim_main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert str(private_cache) in out and "entries:  1" in out
    assert pyshim_main(["cache", "clear"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out
    assert cache.iter_entries() == []


def test_cli_without_action_is_an_error(capsys):
    assert pyshim_main(["cache"]) == 2
    assert "info | clear" in capsys.readouterr().out


def test_file_in_place_of_shard_directory_is_replaced(private_cache, caplog):
    private_cache.mkdir(parents=True)
    (private_cache / KEY[:2]).write_bytes(b"not a directory")
    with caplog.at_level(logging.WARNING, logger="pyshim"):
        assert cache.lookup(KEY, ".so") is None
        path, cached = cache.get_or_build(KEY, ".so", lambda: b"ok")
    assert not cached and cache.read_entry(path) == b"ok" and path.parent.is_dir()
    assert "not a directory" in caplog.text
