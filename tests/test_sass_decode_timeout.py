"""A cubin that makes nvdisasm loop forever fails its lift (LiftError, so the load gets a CUDA
error) instead of hanging the program's module load: the C loader's fuzzing found such a
mutant, on which nvdisasm 13 spins without end."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pyshim.sass import decode
from pyshim.sass.errors import LiftError


def test_a_hanging_nvdisasm_fails_the_lift_not_the_load(tmp_path: Path, monkeypatch) -> None:
    fake = tmp_path / "nvdisasm"
    fake.write_text('#!/bin/sh\n[ "$1" = --version ] && { echo "fake nvdisasm"; exit 0; }\n'
                    "exec sleep 600\n")
    fake.chmod(0o755)
    # (nvdisasm_path is cached per process: an earlier test may have found the real one)
    monkeypatch.setattr(decode, "nvdisasm_path", lambda: str(fake))
    monkeypatch.setattr(decode, "decode_seconds", lambda size: 1.0)
    decode.nvdisasm_version.cache_clear()
    try:
        start = time.monotonic()
        with pytest.raises(LiftError, match="did not finish decoding"):
            decode.disassemble(b"\x7fELF" + os.urandom(60))  # (random: never a cache hit)
        assert time.monotonic() - start < 30
    finally:
        decode.nvdisasm_version.cache_clear()


def test_the_decode_limit_grows_with_the_cubin() -> None:
    assert decode.decode_seconds(1 << 20) > decode.decode_seconds(4096) >= 20
