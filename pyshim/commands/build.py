"""`pyshim build`: the CPU device and the shim libraries, into the build directory
(pyshim.builders.components says which library comes from where)."""

from __future__ import annotations

import argparse

from pyshim.builders.common import BuildError, log
from pyshim.builders.components import ALL, build_all


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true", help="rebuild even if nothing changed")
    parser.add_argument(
        "--no-cpu", action="store_true", help="do not build the CPU device (only the shim)"
    )
    parser.add_argument(
        "--only", action="append", choices=ALL, metavar="COMPONENT",
        help=f"build only this component (repeatable): {', '.join(ALL)}",
    )


def run(args: argparse.Namespace) -> int:
    components = tuple(args.only) if args.only else ALL
    try:
        build_all(force=args.force, cpu=not args.no_cpu, components=components)
    except BuildError as exc:
        log(str(exc))
        return 1
    return 0
