"""`pyshim precompile [--jobs N] [--cache DIR] [--target T] [--json] PATH...`: every kernel
of the given binaries into the kernel cache (pyshim.kernels.precompile)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from pyshim.kernels.precompile import _share, default_target, precompile


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="executable, shared library, PTX or fat binary file, or "
                             "directory (every ELF, .ptx and .fatbin file below it)")
    parser.add_argument("--jobs", "-j", type=int, default=0,
                        help="worker processes (default: one per usable core)")
    parser.add_argument("--cache", metavar="DIR",
                        help="fill this cache directory instead of the user's (e.g. a "
                             "system cache for $PYSHIM_SYSTEM_CACHE)")
    parser.add_argument("--target", default=None,
                        help="kernel target (default: the CPU device's, cpu-wave64)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    from pyshim.kernels import cache, loader

    if args.cache:
        os.environ["PYSHIM_CACHE"] = str(Path(args.cache).resolve())
        cache.forget_private()
    target = args.target or default_target()
    try:
        loader._check_target(target)  # noqa: SLF001
    except loader.UnsupportedTarget as exc:
        print(f"pyshim precompile: {exc}", file=sys.stderr)
        return 2
    jobs = args.jobs if args.jobs > 0 else max(1, len(os.sched_getaffinity(0)))
    try:
        summary = precompile(args.paths, target, jobs)
    except FileNotFoundError as exc:
        print(f"pyshim precompile: {exc}", file=sys.stderr)
        return 2
    if args.cache:
        _share(cache.cache_root())
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        s = summary
        print(f"pyshim precompile: {s['kernels']} kernels in {s['modules']} modules of "
              f"{s['files']} files for {target}: {s['built']} built, {s['already_cached']} "
              f"already cached, {len(s['failed'])} failed, in {s['seconds']:.1f} s "
              f"({s['kernels_per_s']:.2f} kernels/s), cache +{s['cache_bytes_added'] / 2**20:.1f}"
              f" MiB at {cache.cache_root()}")
        for f in s["failed"][:20]:
            where = f"{f['file']}" + (f" kernel {f['kernel']}" if f["kernel"] else "")
            print(f"  failed: {where}: {f['error']}")
        if len(s["failed"]) > 20:
            print(f"  ... and {len(s['failed']) - 20} more")
    if summary["interrupted"]:
        print("pyshim precompile: interrupted; run it again to resume (what was built is "
              "kept)", file=sys.stderr)
        return 130
    return 1 if summary["failed"] else 0
