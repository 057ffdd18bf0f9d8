"""The translator's identity in kernel cache keys, importable without the translator: a
warm load (a cache hit) in a fresh process needs the key, not the import of translate.py
and everything it pulls in (benchmarks/README.md, Figures behind the code)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

# Bump when the generated code changes meaning (it is part of the kernel cache key, together
# with a hash of the translator's own files: see translator_fingerprint).
TRANSLATOR_VERSION = "1"


@functools.cache
def translator_fingerprint() -> str:
    """TRANSLATOR_VERSION plus a hash of the translator's sources and preludes, so a changed
    translator never reuses kernels another version built."""
    h = hashlib.sha256(TRANSLATOR_VERSION.encode())
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".h") and "__pycache__" not in path.parts:
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return f"{TRANSLATOR_VERSION}-{h.hexdigest()[:16]}"
