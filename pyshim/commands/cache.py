"""`pyshim cache`: show where the kernel cache is and what it holds, or clear it."""

from __future__ import annotations

import argparse
import json

from pyshim.kernels import cache


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    info = sub.add_parser("info", help="location, number of entries and total size")
    info.add_argument("--json", action="store_true", help="print a JSON object")
    sub.add_parser("clear", help="remove every cached kernel")


def _info(as_json: bool) -> int:
    entries = cache.iter_entries()
    size = sum(p.stat().st_size for p in entries)
    report = {"location": str(cache.cache_root()), "entries": len(entries), "bytes": size}
    if as_json:
        print(json.dumps(report))
    else:
        print(f"location: {report['location']}")
        print(f"entries:  {len(entries)}")
        print(f"size:     {size} bytes ({size / 2**20:.1f} MiB)")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.action == "info":
        return _info(args.json)
    if args.action == "clear":
        removed = cache.clear()
        print(f"removed {removed} entries from {cache.cache_root()}")
        return 0
    print("pyshim cache: choose an action: info | clear")
    return 2
