"""Module translation as libcuda.so.1 asks for it: image bytes + target -> loadable file.

`translate` never raises: it returns (0, "path\\tptx=75\\tconst=80\\nkernel\\t0:8,8:4\\nkernel...") or
(1, "CUDA_ERROR_NAME\\tmessage"), the form python_bridge.c turns into a module path, the
module's kernel names, or a CUresult and one log line.
"""

from __future__ import annotations

import time
import traceback
from typing import Any

# translator absent or broken: CUDA's "no JIT compiler" code, so cudart reports
# cudaErrorJitCompilerNotFound instead of pretending the kernel ran
NO_TRANSLATOR = "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"


def translate(data: bytes, target: str) -> tuple[int, str]:
    try:
        from pyshim.kernels.loader import load_module
    except ImportError as exc:
        return 1, f"{NO_TRANSLATOR}\tkernel translation is not available: {exc}"
    start = time.perf_counter()
    try:
        loaded = load_module(data, target)
    except Exception as exc:  # noqa: BLE001 - every failure must become a CUresult
        name = getattr(exc, "cuda_error", None) or "CUDA_ERROR_INVALID_PTX"
        detail = str(exc) or type(exc).__name__
        if getattr(exc, "cuda_error", None) is None:
            detail += "\n" + traceback.format_exc(limit=4)
        _report([f"error module-load {name}"])
        return 1, f"{name}\tmodule load for {target}: {detail}"
    names = [str(k) for k in getattr(loaded, "kernels", []) or []]
    ms = (time.perf_counter() - start) * 1000.0
    how = "cached" if getattr(loaded, "cached", False) else "translated"
    if getattr(loaded, "lazy", False):  # kernels translated at first use, one by one
        how = "indexed"
    records = [f"kernel {k} {how} {ms:.3f}" for k in names]
    stats = getattr(loaded, "stats", None) or {}
    if "compile_seconds" in stats:  # built now: which tier, and where the time went
        records += [f"jit {k} {stats.get('tier', 'opt')} "
                    f"{stats.get('translate_seconds', 0.0) * 1e3:.3f} "
                    f"{stats['compile_seconds'] * 1e3:.3f}" for k in names]
    elif stats.get("tier"):
        records += [f"jit {k} {stats['tier']} cached" for k in names]
    _report(records)
    head = (f"{loaded.path}\tptx={int(getattr(loaded, 'ptx_target', 0) or 0)}"
            f"\tconst={int(getattr(loaded, 'const_bytes', 0) or 0)}")
    params = getattr(loaded, "params", None) or {}
    # "name\toffset:size,offset:size": each kernel's parameter layout after its name
    lines = [f"{k}\t{','.join(f'{o}:{z}' for o, z in params[k])}" if k in params else k
             for k in names]
    # a kernel that cannot be translated: "\tunsupported=why" (libcuda refuses its launch);
    # the message without the separators of this format
    bad = getattr(loaded, "unsupported", None) or {}
    for i, k in enumerate(names):
        if k in bad:
            why = " ".join(str(bad[k]).replace(",", ";").split())
            lines[i] = (lines[i] if "\t" in lines[i] else lines[i] + "\t") + f"\tunsupported={why}"
    return 0, "\n".join([head, *lines])


def _report(lines: list[str]) -> None:
    import os

    if not os.environ.get("PYSHIM_REPORT"):
        return  # no run report asked for: spare the translator subprocess its import
    try:
        from pyshim.report.run import append_raw

        append_raw(lines)
    except Exception:  # noqa: BLE001 - reporting never fails a module load
        pass


def write_c_string(ffi: Any, out: Any, out_len: int, text: str) -> None:
    """Copy text into a C buffer of out_len bytes, truncated and NUL-terminated."""
    raw = text.encode(errors="replace")[: max(out_len - 1, 0)]
    ffi.memmove(out, raw, len(raw))
    out[len(raw)] = b"\0"
