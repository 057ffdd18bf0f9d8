"""The NVIDIA device pyshim presents to CUDA programs (compute capability, warp size,
limits). The facts live in shim/common/device_identity.inc, which the C libraries
compile in; this module reads the same file for the launcher's notice line and the
tests, and spells PYSHIM_DEVICE_CC the way the C side parses it."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache

from pyshim.paths import SHIM_DIR

TABLE = SHIM_DIR / "common" / "device_identity.inc"
ENV = "PYSHIM_DEVICE_CC"
_ROW = re.compile(r"^PYSHIM_IDENTITY\((\d+), (\d+), (\d+), (\d+), (\d+), (\d+), ([01]), \"([^\"]+)\"\)",
                  re.M)


@dataclass(frozen=True)
class Identity:
    major: int
    minor: int
    threads_per_sm: int
    blocks_per_sm: int
    shared_per_sm_kib: int
    shared_optin_kib: int
    clusters: bool
    architecture: str

    @property
    def cc(self) -> str:
        return f"{self.major}.{self.minor}"

    def describe(self) -> str:
        return f"an NVIDIA GPU of compute capability {self.cc} ({self.architecture}, warpSize 32)"


@cache
def identities() -> dict[tuple[int, int], Identity]:
    text = TABLE.read_text()
    rows = [Identity(*map(int, m.groups()[:6]), m.group(7) == "1", m.group(8))
            for m in _ROW.finditer(text)]
    return {(r.major, r.minor): r for r in rows}


@cache
def default() -> Identity:
    text = TABLE.read_text()
    major = int(re.search(r"PYSHIM_IDENTITY_DEFAULT_MAJOR (\d+)", text).group(1))  # type: ignore[union-attr]
    minor = int(re.search(r"PYSHIM_IDENTITY_DEFAULT_MINOR (\d+)", text).group(1))  # type: ignore[union-attr]
    return identities()[(major, minor)]


def parse_cc(value: str) -> tuple[int, int] | None:
    """"8.6", "86", "sm_86", "compute_86" -> (8, 6); None if none of those."""
    m = re.fullmatch(r"(?:sm_|compute_)?(\d+)\.(\d)", value) or None
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.fullmatch(r"(?:sm_|compute_)?(\d\d+)", value)
    if m:
        n = int(m.group(1))
        return n // 10, n % 10
    return None


def presented(env: dict[str, str] | None = None) -> tuple[Identity, str | None]:
    """The identity a program started with `env` sees, and a complaint about
    PYSHIM_DEVICE_CC when it names none (the libraries then present the default)."""
    value = (os.environ if env is None else env).get(ENV, "")
    if not value:
        return default(), None
    cc = parse_cc(value)
    if cc is not None and cc in identities():
        return identities()[cc], None
    known = " ".join(r.cc for r in identities().values())
    return default(), f"{ENV}={value} is not a compute capability pyshim presents ({known})"
