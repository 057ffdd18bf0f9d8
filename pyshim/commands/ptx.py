"""`pyshim ptx translate|stats|compile`: the translator from the command line.

`compile --arch gfxNNN` builds an AMD code object (clang, no vendor headers); `--arch cpu`
a CPU-device shared object.
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
    co = sub.add_parser("compile", help="translate and compile PTX: an AMD code object "
                                        "(--arch gfxNNN) or a CPU-device .so (--arch cpu)")
    co.add_argument("input")
    co.add_argument("-o", "--output", required=True)
    co.add_argument("--arch", required=True, help="gfx90a, gfx942, gfx1100, ... or cpu")
    co.add_argument("--wave", type=int, choices=(32, 64), default=None,
                    help="wavefront width (default: 32 for gfx10+, else 64)")


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def run(args: argparse.Namespace) -> int:
    from pyshim.ptx.translate import translate

    if args.ptx_command not in ("translate", "stats", "compile"):
        print("usage: pyshim ptx {translate,stats,compile} ...", file=sys.stderr)
        return 2
    try:
        text = _read(args.input)
    except OSError as exc:
        print(f"pyshim ptx: {exc}", file=sys.stderr)
        return 1
    if getattr(args, "dump_ir", None):
        os.environ["PYSHIM_DUMP_IR"] = args.dump_ir
    if args.ptx_command == "compile":
        return _compile(args, text)
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


def _compile(args: argparse.Namespace, text: str) -> int:
    from pyshim.kernels.compile import CompileError, compile_cpu
    from pyshim.ptx.translate import translate

    arch = args.arch
    try:
        if arch.startswith("cpu"):
            data = compile_cpu(translate(text, f"cpu-wave{args.wave or 64}"))
        else:
            wave = args.wave or (32 if arch.startswith(("gfx10", "gfx11", "gfx12")) else 64)
            from pyshim.kernels import amd  # the AMD toolchain wrapper (clang or hiprtc)

            data = amd.compile_hip(translate(text, f"hip-wave{wave}:{arch}"), arch)
    except (PtxError, CompileError) as exc:
        print(f"pyshim ptx: {args.input}: {exc}", file=sys.stderr)
        return 1
    with open(args.output, "wb") as f:
        f.write(data)
    return 0
