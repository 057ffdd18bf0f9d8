"""The `pyshim` command: one subcommand per module, imported only when used."""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module implementing configure(parser) and run(args) -> int, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("pyshim.commands.run", "run a CUDA program under the shim"),
    "check": ("pyshim.commands.check", "report what a CUDA binary needs and whether it will run"),
    "build": ("pyshim.commands.build", "build the shim libraries and the CPU device"),
    "tables": ("pyshim.commands.tables", "generate, check and summarise the dispatch tables"),
    "ptx": ("pyshim.commands.ptx", "translate and compile PTX"),
    "cache": ("pyshim.commands.cache", "inspect or clear the kernel cache"),
    "doctor": ("pyshim.commands.doctor",
               "show what pyshim finds on this machine and what is missing"),
}


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser = argparse.ArgumentParser(
        prog="pyshim",
        description="Run unmodified CUDA executables on AMD GPUs or on the CPU device.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers = {}
    for name, (_module, help_text) in COMMANDS.items():
        subparsers[name] = sub.add_parser(name, help=help_text, description=help_text)
    return parser, subparsers


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, subparsers = _parser()
    if not argv or argv[0] not in COMMANDS:
        if argv and not argv[0].startswith("-"):
            parser.error(f"unknown command {argv[0]!r}")
        parser.parse_args(argv)  # handles --help
        parser.print_help()
        return 2
    name = argv[0]
    module_name, _ = COMMANDS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            print(f"pyshim {name}: not available in this build", file=sys.stderr)
            return 2
        raise
    module.configure(subparsers[name])
    args = subparsers[name].parse_args(argv[1:])
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
