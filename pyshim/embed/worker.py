"""The translator as a subprocess, for host processes that cannot host the embedded one
(another Python, a Python without cffi or without our package). embed_bridge.c starts

    <the Python pyshim was built with> -I -c '<sys.path setup>; worker.serve()'

once and keeps it: each request is "TARGET\tSIZE\n" and SIZE bytes of module image on
stdin; each answer "LEN\n" and LEN bytes: "0\t<path>..." or "1\t<CUresult name>\t<message>"
(what translate.translate gives). `main` answers one image (TARGET in argv, the image until
EOF), for use by hand."""

from __future__ import annotations

import os
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


def serve() -> int:
    # answers go to a private copy of stdout; anything else written to fd 1 (a compiler, a
    # stray print) goes to stderr and cannot break the framing
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    inp = sys.stdin.buffer
    while True:
        head = inp.readline()
        if not head:
            return 0  # the program closed its end: it is done (or gone)
        try:
            target, size_text = head.decode().rstrip("\n").split("\t")
            size = int(size_text)
        except ValueError:
            return 1
        data = inp.read(size)
        if len(data) != size:
            return 1
        code, text = translate(data, target)
        body = f"{code}\t{text}".encode(errors="replace")
        out.write(b"%d\n" % len(body) + body)
        out.flush()
