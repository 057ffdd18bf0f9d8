"""The kernel cache verifies what it hands out, and a cache it cannot use costs one warning,
never the program: entries carry their size and sha256; unsafe or unwritable caches give
way to a private stand-in (pyshim/kernels/cache.py)."""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import stat
import tempfile

import pytest

from pyshim.kernels import cache

KEY = hashlib.sha256(b"integrity").hexdigest()
DATA = b"\x7fELF" + bytes(range(256)) * 8


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYSHIM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    cache.forget_private()
    cache._verified.clear()
    yield tmp_path / "cache" / "kernels"
    cache.forget_private()


def damage_truncate(p):
    os.truncate(p, 100)


def damage_empty(p):
    os.truncate(p, 0)


def damage_flip(p):
    blob = bytearray(p.read_bytes())
    blob[50] ^= 0x40
    p.write_bytes(bytes(blob))


def damage_unrecorded(p):
    p.write_bytes(DATA)  # the data alone, as an older pyshim (or someone else) wrote it


@pytest.mark.parametrize("damage", [damage_truncate, damage_empty, damage_flip,
                                    damage_unrecorded])
def test_a_damaged_entry_is_removed_logged_and_rebuilt(caplog, damage):
    path = cache.store(KEY, ".so", DATA)
    damage(path)
    os.utime(path, ns=(1, 1))  # whatever the clock: a different file than was hashed
    with caplog.at_level(logging.WARNING, logger="pyshim"):
        assert cache.lookup(KEY, ".so") is None
    assert not path.exists()
    assert path.name in caplog.text and "rebuilding" in caplog.text
    again, cached = cache.get_or_build(KEY, ".so", lambda: DATA)
    assert (again, cached, cache.read_entry(again)) == (path, False, DATA)


def test_an_entry_changed_after_it_was_verified_is_verified_again():
    path = cache.store(KEY, ".so", DATA)
    assert cache.lookup(KEY, ".so") == path  # hashed once, remembered
    damage_flip(path)
    assert cache.lookup(KEY, ".so") is None


def test_the_record_makes_no_difference_to_the_data():
    path = cache.store(KEY, ".so", DATA)
    assert path.read_bytes()[:len(DATA)] == DATA  # an ELF loader sees the image first
    assert cache.read_entry(path) == DATA


def _private_entry_works(caplog, root) -> None:
    with caplog.at_level(logging.WARNING, logger="pyshim"):
        assert cache.lookup(KEY, ".so") is None
        path = cache.store(KEY, ".so", DATA)
        assert cache.lookup(KEY, ".so") == path
        cache.store(KEY, ".json", b"{}")
    assert cache.read_entry(path) == DATA
    assert not str(path).startswith(str(root)), path
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, caplog.text  # one line, however many entries
    assert "private temporary directory" in warnings[0].getMessage()
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_symlinked_cache_directory_is_refused(own_cache, tmp_path, caplog):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    own_cache.parent.mkdir()
    own_cache.symlink_to(elsewhere)
    _private_entry_works(caplog, own_cache)
    assert "symbolic link" in caplog.text
    assert list(elsewhere.iterdir()) == []


@pytest.mark.skipif(os.getuid() != 0, reason="chown to another uid needs root")
def test_a_cache_directory_of_another_user_is_refused(own_cache, caplog):
    own_cache.mkdir(parents=True, mode=0o700)
    os.chown(own_cache, 12345, -1)
    _private_entry_works(caplog, own_cache)
    assert "owned by uid 12345" in caplog.text


def test_a_cache_that_is_a_file_is_refused(own_cache, caplog, monkeypatch):
    monkeypatch.setenv("PYSHIM_CACHE", str(own_cache.parent.parent / "a-file"))
    (own_cache.parent.parent / "a-file").write_text("not a directory")
    _private_entry_works(caplog, own_cache.parent.parent / "a-file")


def test_a_world_writable_cache_root_is_refused(own_cache, caplog):
    own_cache.parent.mkdir()
    os.chmod(own_cache.parent, 0o777)
    _private_entry_works(caplog, own_cache)
    assert "world-writable" in caplog.text


def test_a_world_writable_sticky_cache_root_is_fine(own_cache):
    own_cache.parent.mkdir()
    os.chmod(own_cache.parent, 0o1777)  # as /tmp: nobody can swap our kernels/ there
    path = cache.store(KEY, ".so", DATA)
    assert path.parent.parent == own_cache


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_a_cache_that_cannot_be_written_degrades(own_cache, caplog, monkeypatch, err):
    real = tempfile.mkstemp

    def mkstemp(*args, **kwargs):
        if str(own_cache) in str(kwargs.get("dir", "")):
            raise OSError(err, os.strerror(err))
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    _private_entry_works(caplog, own_cache)
    assert os.strerror(err) in caplog.text


def test_with_no_temporary_directory_either_entries_live_in_memory(own_cache, caplog,
                                                                   monkeypatch):
    own_cache.parent.parent.joinpath("file").write_text("x")
    monkeypatch.setenv("PYSHIM_CACHE", str(own_cache.parent.parent / "file"))
    monkeypatch.setattr(cache, "_make_private_dir", lambda: None)
    with caplog.at_level(logging.WARNING, logger="pyshim"):
        path = cache.store(KEY, ".so", DATA)
    assert str(path).startswith("/proc/self/fd/")
    assert cache.lookup(KEY, ".so") == path and cache.read_entry(path) == DATA
    assert "kept in memory" in caplog.text


def test_the_subprocess_translator_never_answers_a_memory_path(own_cache, monkeypatch):
    own_cache.parent.parent.joinpath("file").write_text("x")
    monkeypatch.setenv("PYSHIM_CACHE", str(own_cache.parent.parent / "file"))
    monkeypatch.setattr(cache, "_make_private_dir", lambda: None)
    monkeypatch.setattr(cache, "memory_entries_allowed", False)
    with pytest.raises(cache.CacheError, match="no private temporary directory"):
        cache.store(KEY, ".so", DATA)


def test_private_directories_of_dead_processes_are_swept(tmp_path):
    tmp = tmp_path / "tmp"
    dead = tmp / f"{cache._PRIVATE_PREFIX}999999999-abc"
    alive = tmp / f"{cache._PRIVATE_PREFIX}{os.getpid()}-abc"
    fresh = tmp / f"{cache._PRIVATE_PREFIX}999999998-abc"
    for d in (dead, alive, fresh):
        d.mkdir()
    os.utime(dead, (0, 0))
    os.utime(alive, (0, 0))
    cache._sweep_private_dirs(tmp)
    assert not dead.exists() and alive.exists() and fresh.exists()
