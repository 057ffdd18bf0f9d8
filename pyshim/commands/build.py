"""`pyshim build`: the CPU device and the shim libraries, into the build directory
(pyshim.builders.components says which library comes from where)."""

from __future__ import annotations

import argparse

from pyshim.builders.components import ALL, _log, build_all
from pyshim.builders.libcuda import BuildError


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
        results = build_all(force=args.force, cpu=not args.no_cpu, components=components)
    except BuildError as exc:
        _log(str(exc))
        return 1
    if results.get("cpu") is not None:
        _log(f"CPU device: {results['cpu']}")
    return 0
