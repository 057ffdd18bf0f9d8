"""Hypothesis: random bytes, truncations and single-byte mutations of real containers make
the fatbin reader raise FatbinError or nothing, and always finish quickly."""

from __future__ import annotations

import functools
import os
import struct
import time

import test_binary_nvcc as nv
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyshim.binary import fatbin
from pyshim.binary.contents import kernels_in_binary
from pyshim.binary.elf import HostElf
from pyshim.binary.errors import BinaryError, FatbinError

FLAVOURS = ("default", "lz4", "compress_all", "plain", "rdc")
# PYSHIM_FUZZ_EXAMPLES=5000 PYSHIM_FUZZ_RANDOM=1 for a longer, non-derandomized hunt
FUZZ = settings(max_examples=int(os.environ.get("PYSHIM_FUZZ_EXAMPLES", "300")),
                deadline=None, derandomize=os.environ.get("PYSHIM_FUZZ_RANDOM") is None,
                suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def containers() -> list[bytes]:
    found = []
    for flavour in FLAVOURS:
        with HostElf(nv.program(flavour)) as elf:
            found += [c.data for c in elf.embedded_containers()]
    return found


def _cubin_kernels(entry: fatbin.Entry) -> list[str]:
    return fatbin.cubin_kernels(entry.data())


def exercise(data: bytes) -> None:
    """Everything a caller may do with a container; only FatbinError may come out."""
    started = time.monotonic()
    steps = 0
    try:
        items = fatbin.entries(data)
    except FatbinError:
        items = []
    for step in [*(e.data for e in items), *(e.ptx for e in items if e.is_ptx),
                 *(functools.partial(_cubin_kernels, e) for e in items if e.is_elf),
                 functools.partial(fatbin.choose_ptx, items),
                 functools.partial(fatbin.container_size, data[:16])]:
        try:
            step()
        except FatbinError as exc:
            assert str(exc)
        steps += 1
    assert time.monotonic() - started < 2.0, f"{steps} steps took too long"


def test_real_containers_pass_cleanly():
    for data in containers():
        items = fatbin.entries(data)
        assert items
        for e in items:
            assert e.data()


@FUZZ
@given(st.binary(max_size=4096))
def test_random_bytes(data):
    exercise(data)


@FUZZ
@given(st.binary(max_size=4096))
def test_random_bytes_behind_a_valid_header(tail):
    exercise(struct.pack("<IHHQ", fatbin.CONTAINER_MAGIC, 1, 16, len(tail)) + tail)


@FUZZ
@given(st.data())
def test_truncations(draw):
    data = draw.draw(st.sampled_from(containers()))
    exercise(data[:draw.draw(st.integers(0, len(data)))])


@FUZZ
@given(st.data())
def test_single_byte_mutations(draw):
    data = bytearray(draw.draw(st.sampled_from(containers())))
    # bias towards headers, where a mutation changes sizes and flags rather than payload
    limit = draw.draw(st.sampled_from([len(data), 400]))
    pos = draw.draw(st.integers(0, min(limit, len(data)) - 1))
    data[pos] = draw.draw(st.integers(0, 255))
    exercise(bytes(data))


@functools.cache
def executable() -> tuple[bytes, list[tuple[int, int]]]:
    """A real executable and the file ranges worth mutating: the ELF header, the program
    and section header tables, and the fatbin wrapper and container sections."""
    path = nv.program("default")
    data = path.read_bytes()
    e_phoff, e_shoff = struct.unpack_from("<QQ", data, 0x20)
    phnum, shentsize, shnum = struct.unpack_from("<H2xHH", data, 0x38)
    ranges = [(0, 64), (e_phoff, e_phoff + 56 * phnum), (e_shoff, e_shoff + shentsize * shnum)]
    with HostElf(path) as elf:
        for name in (".nvFatBinSegment", ".nv_fatbin", ".dynamic", ".dynsym"):
            s = elf.section(name)
            ranges.append((s.offset, s.offset + min(s.size, 2048)))
    return data, ranges


@settings(max_examples=int(os.environ.get("PYSHIM_FUZZ_EXAMPLES", "300")) // 3,
          deadline=None, derandomize=os.environ.get("PYSHIM_FUZZ_RANDOM") is None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.data())
def test_mutated_executables_raise_only_binary_errors(tmp_path, draw):
    data, ranges = executable()
    lo, hi = draw.draw(st.sampled_from(ranges))
    mutated = bytearray(data)
    for _ in range(draw.draw(st.integers(1, 3))):
        mutated[draw.draw(st.integers(lo, hi - 1))] = draw.draw(st.integers(0, 255))
    path = tmp_path / "mutant"
    path.write_bytes(bytes(mutated))
    started = time.monotonic()
    try:
        kernels_in_binary(path)
    except BinaryError as exc:
        assert str(exc)
    try:
        with HostElf(path) as elf:
            elf.needed()
            elf.runpath()
            elf.dynamic_symbols()
    except BinaryError as exc:
        assert str(exc)
    assert time.monotonic() - started < 5.0
