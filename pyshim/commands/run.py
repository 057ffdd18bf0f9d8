"""`pyshim run`: run a CUDA program under the shim (pyshim.runner.launcher)."""

from __future__ import annotations

import argparse
import os
import sys

from pyshim.runner.launcher import (
    LaunchError,
    choose_backend,
    ensure_built,
    program_env,
    resolve_program,
    restore_inherited_signals,
    run_with_report,
)

EPILOG = """\
backends:
  auto  ROCm when an AMD GPU is visible (/dev/kfd and libamdhip64.so.7 found),
        else the CPU device (one notice line on stderr)
  cpu   pyshim's CPU device: host memory as device memory, kernels compiled natively
  hip   ROCm; fails if no AMD GPU or no libamdhip64.so.7 is found

environment:
  PYSHIM_TRACE=1     log export-table and proc-address traffic
  PYSHIM_REPORT=F    append unsupported-call counts to F at exit
  PYSHIM_ROCM_LIB    where ROCm's libamdhip64.so.7 lives (default: /opt/rocm/lib ...)
  PYSHIM_DEVICE_CC=8.6
                     the NVIDIA compute capability the device presents itself as
                     (default 8.6; 7.5 8.0 8.6 8.7 8.9 9.0 10.0 12.0)
  PYSHIM_TRANSLATOR=subprocess
                     translate PTX in a separate Python process instead of one
                     embedded in the program (automatic when the program runs
                     another Python)

examples:
  pyshim run ./vector_add
  pyshim run --trace=calls.log ./vector_add
  pyshim run --backend cpu -- ./app --size 1024
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = (
        "Run an unmodified CUDA executable (nvcc-built, static or shared cudart) "
        "on an AMD GPU or on pyshim's CPU device."
    )
    parser.epilog = EPILOG
    parser.add_argument(
        "--backend", choices=("auto", "cpu", "hip"), default="auto", help="default: auto"
    )
    parser.add_argument(
        "--cudart", choices=("pyshim", "program"), default="pyshim",
        help="for -cudart shared programs: pyshim's libcudart (default, when built) or the "
        "one the program finds itself (e.g. NVIDIA's, which then drives pyshim's libcuda)",
    )
    parser.add_argument(
        "--report", metavar="FILE",
        help="write a run report to FILE (.json, .html, else text): calls per entry point, "
        "unsupported calls hit, kernels translated or loaded from cache (with times), errors "
        "returned; one line on stderr when anything unsupported was hit",
    )
    parser.add_argument(
        "--trace", nargs="?", const=True, default=False, metavar="FILE",
        help="log every CUDA driver and runtime call (arguments, result, time) to stderr, "
        "or to FILE with --trace=FILE (preloads libpyshim_trace.so; nothing when absent)",
    )
    parser.add_argument("program", help="the CUDA executable")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    _accept_bare_trace(parser)


def _accept_bare_trace(parser: argparse.ArgumentParser) -> None:
    """A bare `--trace` before the program is read as `--trace=-` (stderr), so argparse
    never takes the program's name for the optional FILE."""
    from pyshim.runner.tracing import normalize_trace_argv

    takes_value = {s for a in parser._actions if a.option_strings and a.nargs is None
                   for s in a.option_strings}
    parse = parser.parse_known_args

    def parse_known_args(args=None, namespace=None):  # type: ignore[no-untyped-def]
        argv = sys.argv[1:] if args is None else list(args)
        return parse(normalize_trace_argv(argv, takes_value), namespace)

    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]


def run(args: argparse.Namespace) -> int:
    argv = list(args.args)
    if argv and argv[0] == "--":
        argv = argv[1:]
    try:
        program = resolve_program(args.program)
        backend, rocm_dir = choose_backend(args.backend)
        ensure_built(backend)
    except LaunchError as exc:
        print(f"pyshim run: {exc}", file=sys.stderr)
        return 127
    env = program_env(backend, rocm_dir, dict(os.environ), own_cudart=args.cudart == "pyshim")
    # --report counts calls through the tracer too, writing its lines nowhere
    trace = args.trace or (os.devnull if args.report else False)
    if trace:
        from pyshim.runner.tracing import trace_environment

        try:
            env = trace_environment(trace, env)
        except (ValueError, OSError, RuntimeError) as exc:  # RuntimeError: a failed build
            print(f"pyshim run: --trace: {exc}", file=sys.stderr)
            return 127
    sys.stdout.flush()
    sys.stderr.flush()
    if args.report:
        return run_with_report(program, [args.program, *argv], env, args.report)
    restore_inherited_signals()
    try:
        os.execve(program, [args.program, *argv], env)
    except OSError as exc:
        print(f"pyshim run: cannot execute {program}: {exc.strerror}", file=sys.stderr)
        return 126
    return 0  # not reached
