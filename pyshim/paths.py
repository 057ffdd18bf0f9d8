"""Where pyshim keeps things: the repository, the build directory, the caches."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent
TABLES_DIR = REPO_DIR / "tables"
SHIM_DIR = REPO_DIR / "shim"


def build_dir() -> Path:
    """Generated C and built libraries; never in git."""
    return Path(os.environ.get("PYSHIM_BUILD", REPO_DIR / "build"))


def cache_dir() -> Path:
    """Per-user cache root ($PYSHIM_CACHE, default ~/.cache/pyshim)."""
    env = os.environ.get("PYSHIM_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "pyshim"


def headers_dir() -> Path:
    """Vendor headers fetched from package registries (never committed)."""
    return Path(os.environ.get("PYSHIM_HEADERS", cache_dir() / "headers"))
