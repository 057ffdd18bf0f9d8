"""The translator as a subprocess, for host processes that already run another Python
(a second interpreter cannot be embedded there). python_bridge.c runs

    <the Python pyshim was built with> -I -c '<sys.path setup>; worker.main()' TARGET

writes the module image to stdin and reads one line back: "0\\t<path>" or
"1\\t<CUresult name>\\t<message>" (the same answer translate.translate gives)."""

from __future__ import annotations

import sys

from pyshim.embed.translate import translate


def main() -> int:
    from pyshim.kernels import cache

    cache.memory_entries_allowed = False  # the parent loads the file after this process ends
    target = sys.argv[1] if len(sys.argv) > 1 else ""
    data = sys.stdin.buffer.read()
    code, text = translate(data, target)
    sys.stdout.write(f"{code}\t{text}")
    sys.stdout.flush()
    return 0
