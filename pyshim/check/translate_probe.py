"""A dry run of the PTX translator: does this PTX translate, and if not, what stops it?

The translator (`pyshim.ptx`) is written in parallel with `pyshim check`, so its entry is
found at call time: `pyshim.ptx.translate.translate(text, target=...)` when it exists (the
whole front and middle end, no compiler), else `pyshim.ptx.frontend.parser.parse(text)` (parse
only: a failure is final, a success is not proof), else nothing (`translates: null`).
"""

from __future__ import annotations

import importlib
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

TARGET = "cpu"  # the CPU device's target: the one every machine can check


@dataclass(frozen=True)
class Outcome:
    translates: bool | None  # None: not known (no translator, or parse-only success)
    mode: str | None  # "translate" | "parse" | None
    error: str | None = None  # the translator's message (names instruction, line)
    function: str | None = None  # the kernel/function the error is in
    unsupported: bool = False  # an UnsupportedInstruction rather than malformed PTX
    note: str | None = None
    line: int = 0  # 1-based line of the error in the PTX text (0: unknown)


def _entry() -> tuple[str | None, Callable[[str], Any] | None, str]:
    """(mode, callable taking PTX text, why-not)"""
    why = []
    try:
        mod = importlib.import_module("pyshim.ptx.translate")
        fn = getattr(mod, "translate", None)
        if callable(fn):
            params = inspect.signature(fn).parameters
            if "target" in params:
                return "translate", lambda text: fn(text, target=TARGET), ""
            return "translate", fn, ""
        why.append("pyshim.ptx.translate has no translate()")
    except ImportError as exc:
        why.append(f"translator not importable ({exc})")
    try:
        parser = importlib.import_module("pyshim.ptx.frontend.parser")
        return "parse", parser.parse, "; ".join(why)
    except ImportError as exc:
        why.append(f"PTX parser not importable ({exc})")
    return None, None, "; ".join(why)


def dry_run(text: str) -> Outcome:
    mode, fn, why = _entry()
    if fn is None:
        return Outcome(translates=None, mode=None, note=f"not checked: {why}")
    try:
        from pyshim.ptx.errors import PtxError, UnsupportedInstruction
    except ImportError:  # pragma: no cover - the parser imports it too
        return Outcome(translates=None, mode=None, note="not checked: pyshim.ptx.errors missing")
    try:
        fn(text)
    except UnsupportedInstruction as exc:
        return Outcome(translates=False, mode=mode, error=str(exc),
                       function=getattr(exc, "function", None) or None, unsupported=True,
                       line=getattr(exc, "line", 0) or 0)
    except PtxError as exc:
        return Outcome(translates=False, mode=mode, error=str(exc),
                       function=getattr(exc, "function", None) or None,
                       line=getattr(exc, "line", 0) or 0)
    except RecursionError:
        return Outcome(translates=None, mode=mode,
                       note=f"not checked: the {mode} step ran out of recursion depth")
    except Exception as exc:  # a translator bug must not stop the check of other binaries
        return Outcome(translates=None, mode=mode,
                       note=f"not checked: the {mode} step failed ({type(exc).__name__}: {exc})")
    if mode == "translate":
        return Outcome(translates=True, mode=mode)
    return Outcome(translates=None, mode=mode,
                   note=f"parses; translation not checked ({why})")


def all_unsupported(text: str, first: Outcome, deadline: float,
                    max_rounds: int = 16) -> list[Outcome]:
    """Every unsupported instruction of a module, not just the first: the translator stops
    at the first, so the offending line is blanked and the module tried again, while the
    errors are unsupported instructions with a known line, up to `max_rounds` and the
    `deadline` (time.monotonic()). Blanking keeps line numbers, so each error names the
    line of the original text. Starts from `first`, the outcome of dry_run(text)."""
    found = [first]
    lines = text.split("\n")
    out = first
    while (out.unsupported and 0 < out.line <= len(lines) and len(found) < max_rounds
           and time.monotonic() < deadline):
        lines[out.line - 1] = ""
        out = dry_run("\n".join(lines))
        if out.translates is not False or not out.unsupported:
            break  # clean now, or an error that blanking cannot get past
        found.append(out)
    return found
