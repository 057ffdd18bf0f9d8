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
    _report([f"kernel {k} {how} {ms:.3f}" for k in names])
    head = (f"{loaded.path}\tptx={int(getattr(loaded, 'ptx_target', 0) or 0)}"
            f"\tconst={int(getattr(loaded, 'const_bytes', 0) or 0)}")
    params = getattr(loaded, "params", None) or {}
    # "name\toffset:size,offset:size": each kernel's parameter layout after its name
    lines = [f"{k}\t{','.join(f'{o}:{z}' for o, z in params[k])}" if k in params else k
             for k in names]
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
