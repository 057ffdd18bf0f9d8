"""`pyshim ptx translate|stats`: the translator from the command line.

`pyshim ptx compile --arch gfxNNN` (AMD code objects) plugs in here with the AMD work.
"""

from __future__ import annotations

import argparse
import os
import sys

from pyshim.ptx.errors import PtxError
from pyshim.ptx.targets import TARGET_NAMES


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="ptx_command", metavar="ACTION")
    tr = sub.add_parser("translate", help="translate PTX to C (cpu) or HIP/CUDA source")
    tr.add_argument("input", help="PTX file ('-' for stdin)")
    tr.add_argument("-o", "--output", help="output file (default: stdout)")
    tr.add_argument("--target", default="cpu", choices=TARGET_NAMES)
    tr.add_argument("--dump-ir", metavar="PASS", default=None,
                    help="print the IR after PASS (parse, a pass name, or all) to stderr")
    st = sub.add_parser("stats", help="parse and translate PTX; print counts and speed")
    st.add_argument("input")
    st.add_argument("--target", default="cpu", choices=TARGET_NAMES)


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def run(args: argparse.Namespace) -> int:
    from pyshim.ptx.translate import translate

    if args.ptx_command not in ("translate", "stats"):
        print("usage: pyshim ptx {translate,stats} ...", file=sys.stderr)
        return 2
    try:
        text = _read(args.input)
    except OSError as exc:
        print(f"pyshim ptx: {exc}", file=sys.stderr)
        return 1
    if getattr(args, "dump_ir", None):
        os.environ["PYSHIM_DUMP_IR"] = args.dump_ir
    stats: dict = {}
    try:
        out = translate(text, args.target, stats)
    except PtxError as exc:
        print(f"pyshim ptx: {args.input}: {exc}", file=sys.stderr)
        return 1
    if args.ptx_command == "stats":
        rate = stats["lines"] / stats["seconds"] if stats["seconds"] else 0.0
        print(f"lines {stats['lines']}  instructions {stats['instructions']}  "
              f"kernels {stats['kernels']}  functions {stats['functions']}")
        print(f"parse {stats['parse_seconds'] * 1e3:.1f} ms  total {stats['seconds'] * 1e3:.1f} ms"
              f"  ({rate:,.0f} lines/s)")
        for name, mode in stats["kernel_modes"].items():
            print(f"  {name}: {mode}")
        return 0
    if args.output:
        with open(args.output, "w") as f:
            f.write(out)
    else:
        sys.stdout.write(out)
    return 0
