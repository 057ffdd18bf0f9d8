"""pytest plugin for scripts/generated_c_digest.py --record: every PTX text the tests hand to
the translator (pyshim.ptx.translate.translate, whatever imports it) is written, once, to
$PYSHIM_PTX_CORPUS/<sha256>.ptx, so the tests' inline and generated PTX become a fixed
corpus that two commits' translators can be compared on."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def pytest_configure(config) -> None:
    out = Path(os.environ["PYSHIM_PTX_CORPUS"])
    out.mkdir(parents=True, exist_ok=True)
    from pyshim.ptx import translate as tr

    real = tr.parse

    def recording_parse(text, *args, **kwargs):
        data = text.encode() if isinstance(text, str) else bytes(text)
        path = out / f"{hashlib.sha256(data).hexdigest()[:20]}.ptx"
        if not path.exists():
            path.write_bytes(data)
        return real(text, *args, **kwargs)

    tr.parse = recording_parse
