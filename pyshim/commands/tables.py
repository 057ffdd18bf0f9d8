"""`pyshim tables generate | check | stats [--json] | exports --from DIR`."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

from pyshim.paths import TABLES_DIR


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    gen = sub.add_parser("generate", help="fetch the pinned headers, parse them, write tables/")
    gen.add_argument("--out", type=Path, default=TABLES_DIR, help="output directory")
    sub.add_parser("check", help="regenerate and fail on any difference from tables/ "
                                 "(skipped, not failed, if a pinned package has vanished)")
    st = sub.add_parser("stats", help="coverage counts per API from the committed tables")
    st.add_argument("--json", action="store_true", help="machine-readable output")
    st.add_argument("--unsupported", action="store_true",
                    help="list the driver and runtime entry points not mapped, by feature "
                         "area, each with its reason")
    ex = sub.add_parser("exports", help="refresh tables/exports/<soname>.txt from NVIDIA's "
                                        "libraries (`nm -D`): what pyshim's must also export")
    ex.add_argument("--from", dest="lib_dir", type=Path, required=True,
                    help="a directory holding NVIDIA's libraries (a wheel's nvidia/cu13/lib)")
    ex.add_argument("--version", default=None,
                    help="the wheel's version, where DIR is not in an installed site-packages")


def _progress(msg: str) -> None:
    print(f"pyshim tables: {msg}", file=sys.stderr, flush=True)


def _generate() -> dict[str, str] | None:
    from pyshim.tables.fetch import SourceVanished, fetch_all
    from pyshim.tables.generate import build_tables

    try:
        fetch_all()
    except SourceVanished as exc:
        print(f"pyshim tables: SKIPPED: {exc}; the committed tables stay authoritative",
              file=sys.stderr)
        return None
    return build_tables(progress=_progress)


def run(args: argparse.Namespace) -> int:
    if args.action == "stats":
        from pyshim.tables.stats import export_stats, format_exports, format_text, stats

        if args.unsupported:
            from pyshim.tables.stats import format_not_mapped, not_mapped

            groups = not_mapped()
            print(json.dumps(groups, indent=2) if args.json else format_not_mapped(groups))
            return 0
        s = stats()
        if args.json:
            print(json.dumps(s, indent=2, sort_keys=True))
        else:
            print(format_text(s))
            print()
            print(format_exports(export_stats()))
        return 0
    if args.action == "exports":
        from pyshim.tables.exports import refresh

        written = refresh(args.lib_dir, version=args.version)
        for path in written:
            _progress(f"wrote {path}")
        if not written:
            _progress(f"no NVIDIA library of a replaced soname in {args.lib_dir}")
            return 1
        return 0
    files = _generate()
    if files is None:
        return 0
    if args.action == "generate":
        from pyshim.tables.generate import write

        write(files, args.out)
        _progress(f"wrote {len(files)} tables to {args.out}")
        return 0
    # check
    drift = []
    for name, text in sorted(files.items()):
        path = TABLES_DIR / name
        old = path.read_text() if path.exists() else ""
        if old != text:
            diff = difflib.unified_diff(old.splitlines(), text.splitlines(), f"tables/{name}",
                                        f"regenerated/{name}", lineterm="", n=1)
            drift.append("\n".join(list(diff)[:40]))
    if drift:
        print("pyshim tables: the committed tables differ from the pinned headers "
              "(run `make tables` and commit):", file=sys.stderr)
        for d in drift:
            print(d, file=sys.stderr)
        return 1
    _progress(f"{len(files)} tables match the pinned headers")
    return 0
