"""`pyshim cache`: show where the kernel cache is and what it holds, or clear it.

`pyshim cache info PATH...` also says, per binary, how many of its kernels the cache (the
user's or a system cache) holds for the target (`--target`, default the CPU device's)."""

from __future__ import annotations

import argparse
import json
import sys

from pyshim.kernels import cache


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    info = sub.add_parser("info", help="location, number of entries and total size")
    info.add_argument("--json", action="store_true", help="print a JSON object")
    info.add_argument("paths", nargs="*", metavar="PATH",
                      help="binaries (or directories) whose cached kernels to count")
    info.add_argument("--target", default=None, help="kernel target (default: cpu-wave64)")
    sub.add_parser("clear", help="remove every cached kernel")


def _info(as_json: bool, paths: list[str], target: str | None) -> int:
    entries = cache.iter_entries()
    size = sum(p.stat().st_size for p in entries)
    report: dict = {"location": str(cache.cache_root()), "entries": len(entries),
                    "bytes": size, "system": [str(p) for p in cache.system_roots()]}
    if paths:
        from pyshim.kernels import precompile

        target = target or precompile.default_target()
        try:
            modules = precompile.plan(paths, target)
        except FileNotFoundError as exc:
            print(f"pyshim cache: {exc}", file=sys.stderr)
            return 2
        per: dict[str, dict] = {}
        for m in modules:
            b = per.setdefault(m.file, {"path": m.file, "kernels": 0, "cached": 0,
                                        "modules": 0, "errors": []})
            b["modules"] += 1
            b["kernels"] += len(m.kernels)
            b["cached"] += len(m.cached)
            if m.error:
                b["errors"].append(m.error)
        report["target"] = target
        report["binaries"] = list(per.values())
    if as_json:
        print(json.dumps(report))
    else:
        print(f"location: {report['location']}")
        print(f"entries:  {len(entries)}")
        print(f"size:     {size} bytes ({size / 2**20:.1f} MiB)")
        print(f"system:   {', '.join(report['system']) or 'none'}")
        for b in report.get("binaries", []):
            print(f"{b['path']}: {b['cached']} of {b['kernels']} kernels cached for "
                  f"{report['target']} ({b['modules']} modules)")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.action == "info":
        return _info(args.json, getattr(args, "paths", []), getattr(args, "target", None))
    if args.action == "clear":
        removed = cache.clear()
        print(f"removed {removed} entries from {cache.cache_root()}")
        return 0
    print("pyshim cache: choose an action: info | clear")
    return 2
