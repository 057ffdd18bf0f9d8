"""The embedded interpreter leaves the program's signals alone.

cffi starts the interpreter with Py_InitializeEx(0), which installs no handlers, but the
first `import signal` (subprocess, logging... import it) still puts Python's SIGINT handler
in place of a default one. In a CUDA program that handler only sets a flag for a Python
thread the program never runs: Ctrl-C stopped nothing, and a SIGINT during a translation
became a KeyboardInterrupt inside it (the module load then failed). Called first thing by
the init code of libcuda.so.1 and libcudart.so.N, before anything imports `signal`.
"""

from __future__ import annotations

import sys


def interpreter_is_ours() -> bool:
    """True when the interpreter was started by our library inside a non-Python program.
    Py_InitializeEx without argv leaves sys.orig_argv empty; a python executable (a host
    such as numba's, whose Ctrl-C handler is its own business) always has its argv there."""
    return not getattr(sys, "orig_argv", [""])


def release_sigint() -> bool:
    """Give SIGINT back its default disposition if Python's import of `signal` took it.
    Returns whether it did. Must run in the thread that started the interpreter (its
    "main" thread), which is the one running the init code."""
    import signal
    import threading

    if not interpreter_is_ours() or threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False  # the program's own handler (or SIG_IGN): not ours to change
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return True
