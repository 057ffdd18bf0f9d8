"""`pyshim run`: run an unmodified CUDA program under the shim.

The program's dynamic loader is pointed at pyshim's libraries: build/lib (libcuda.so.1,
and libcudart when built) first, then the backend's libamdhip64.so.7: ROCm's when an AMD
GPU is visible, else the CPU device's. LD_PRELOAD binds programs whose RPATH names
another libcuda to ours; the LD_AUDIT module (build/lib/libpyshim_audit.so) redirects every
request for an NVIDIA soname, a dlopen by absolute path included, to pyshim's library or JIT
wrapper, and build/bin (pyshim's ptxas) goes first on PATH. The program then replaces this process (exec), so its exit
status and signals are its own.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from pyshim.paths import build_dir

ROCM_LIB_DIRS = ("/opt/rocm/lib", "/opt/rocm/lib64", "/usr/lib/x86_64-linux-gnu")
HIP_SONAME = "libamdhip64.so.7"
PRELOADED = ("libcuda.so.1", "libcudart.so.13", "libcudart.so.12")
STATIC_TLS = 8192
# pyshim's libraries that replace NVIDIA's wherever a program loads them from (LD_AUDIT)
REPLACED = ("libcublas.so.13", "libcublas.so.12", "libcublasLt.so.13", "libcusolver.so.12",
            "libcusolver.so.11", "libcusolverMg.so.12", "libcurand.so.10", "libcufft.so.12",
            "libcusparse.so.12", "libnccl.so.2")

class LaunchError(RuntimeError):
    pass


def rocm_lib_dir() -> Path | None:
    """The directory of ROCm's libamdhip64.so.7, if installed."""
    env = os.environ.get("PYSHIM_ROCM_LIB")
    candidates = [env] if env else []
    candidates += [d for d in ROCM_LIB_DIRS]
    for d in candidates:
        if d and (Path(d) / HIP_SONAME).exists():
            return Path(d)
    return None


def amd_gpu_visible() -> bool:
    return Path("/dev/kfd").exists() and rocm_lib_dir() is not None


def choose_backend(requested: str) -> tuple[str, Path | None]:
    """(backend, ROCm library dir or None) for a --backend value."""
    if requested == "hip" or (requested == "auto" and amd_gpu_visible()):
        lib = rocm_lib_dir()
        if lib is None:
            raise LaunchError(f"--backend hip: {HIP_SONAME} not found (set PYSHIM_ROCM_LIB)")
        if not Path("/dev/kfd").exists():
            raise LaunchError("--backend hip: no AMD GPU visible (/dev/kfd is missing)")
        return "hip", lib
    if requested == "auto":
        from pyshim.device.identity import presented

        identity, complaint = presented()
        if complaint:
            print(f"pyshim: {complaint}", file=sys.stderr)
        print(f"pyshim: no AMD GPU found; running on the CPU device, presented as "
              f"{identity.describe()}", file=sys.stderr)
    return "cpu", None


def ensure_built(backend: str) -> None:
    from pyshim.builders.jit import AUDIT

    root = build_dir()
    need_cpu = backend == "cpu" and not (root / "cpu" / HIP_SONAME).exists()
    # every library the run puts in front, not libcuda alone: a checkout whose tests built
    # libcuda but not libcublas would let NVIDIA's cuBLAS (loaded by path) run on our driver
    wanted = [*PRELOADED, *REPLACED, AUDIT]
    from pyshim.builders.randfft import fftw_available

    if not fftw_available():
        wanted.remove("libcufft.so.12")  # built only where FFTW 3 is installed
    if all((root / "lib" / name).exists() for name in wanted) and not need_cpu:
        return
    from pyshim.builders.components import ALL, build_all

    print("pyshim: building the shim libraries (first use)", file=sys.stderr)
    build_all(cpu=backend == "cpu", components=ALL)
    if backend == "cpu" and not (root / "cpu" / HIP_SONAME).exists():
        raise LaunchError("the CPU device could not be built (see the messages above)")


def libs_without_cudart(lib: Path) -> Path:
    """A directory of links to every library in `lib` except libcudart, so that a
    -cudart shared program finds its own libcudart but still pyshim's other libraries."""
    out = lib.parent / "lib-without-cudart"
    out.mkdir(parents=True, exist_ok=True)
    for entry in lib.iterdir():
        link = out / entry.name
        if entry.name.startswith("libcudart") or not entry.name.startswith("lib"):
            continue
        if not link.is_symlink():
            link.symlink_to(entry)
    for link in out.iterdir():
        if link.is_symlink() and not link.exists():
            link.unlink()  # the library was removed from lib
    return out


def program_env(backend: str, rocm_dir: Path | None, base: dict[str, str],
                own_cudart: bool = True) -> dict[str, str]:
    root = build_dir().resolve()  # absolute: the program may change directory
    lib = root / "lib"
    search = lib if own_cudart else libs_without_cudart(lib)
    backend_dir = rocm_dir if backend == "hip" else root / "cpu"
    env = dict(base)
    paths = [str(search), str(backend_dir)]
    if env.get("LD_LIBRARY_PATH"):
        paths.append(env["LD_LIBRARY_PATH"])
    env["LD_LIBRARY_PATH"] = ":".join(paths)
    names = PRELOADED if own_cudart else PRELOADED[:1]
    preload = [str(lib / name) for name in names if (lib / name).exists()]
    if env.get("LD_PRELOAD"):
        preload.append(env["LD_PRELOAD"])
    env["LD_PRELOAD"] = ":".join(preload)
    env["PYSHIM_BACKEND"] = backend
    _audit_environment(env, lib, names)
    return env


def _audit_environment(env: dict[str, str], lib: Path, preloaded: tuple[str, ...]) -> None:
    """LD_AUDIT: pyshim's libraries (and JIT wrappers) are the ones loaded whatever path the
    program asks for (a dlopen by absolute path into a wheel escapes LD_PRELOAD); ptxas:
    pyshim's first on PATH. Nothing when the jit component is not built."""
    from pyshim.builders.jit import AUDIT, audit_map

    audit = lib / AUDIT
    if not audit.exists():
        return
    replaced = [*preloaded, *REPLACED]
    env["PYSHIM_AUDIT_MAP"] = audit_map(lib, replaced)
    env["LD_AUDIT"] = ":".join([str(audit), *([env["LD_AUDIT"]] if env.get("LD_AUDIT") else [])])
    from pyshim.builders.jit import load_spec

    if any(lib.own_namespace for lib in load_spec()):
        # a wrapper loads NVIDIA's library into a namespace of its own, whose libc needs
        # static TLS beyond the 512 bytes glibc keeps spare (2048 was enough for NVRTC 13.5)
        tunables = [t for t in env.get("GLIBC_TUNABLES", "").split(":") if t]
        if not any(t.startswith("glibc.rtld.optional_static_tls=") for t in tunables):
            env["GLIBC_TUNABLES"] = ":".join(
                [*tunables, f"glibc.rtld.optional_static_tls={STATIC_TLS}"])
    ptxas_dir = lib.parent / "bin"
    if (ptxas_dir / "ptxas").exists():
        env["PATH"] = os.pathsep.join([str(ptxas_dir), *([env["PATH"]] if env.get("PATH") else [])])


def resolve_program(program: str) -> str:
    if os.sep in program:
        if not os.access(program, os.X_OK):
            raise LaunchError(f"{program}: not an executable file")
        return program
    found = shutil.which(program)
    if found is None:
        raise LaunchError(f"{program}: command not found")
    return found


# Python ignores these at start-up (so a closed pipe is an exception, not death) and an
# exec'd program would inherit that: `pyshim run yes | head -1` exited 1, not 141. Every
# signal Python *handles* reverts to its default at exec by itself; dispositions the
# launcher inherited from its own parent (nohup's SIGHUP, a shell's background SIGINT)
# are kept, as the program would get them natively.
PYTHON_IGNORED = ("SIGPIPE", "SIGXFSZ", "SIGXFZ")
# what the launcher passes on to the program while it waits for it with --report
# (job control signals are not among them: Ctrl-Z must stop the launcher with the program,
# or the shell would wait on a launcher that still runs)
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM",
             "SIGWINCH")
SI_KERNEL = 0x80  # si_code of a signal the terminal sent to the whole foreground group


def restore_inherited_signals() -> None:
    import signal

    for name in PYTHON_IGNORED:
        num = getattr(signal, name, None)
        if num is not None:
            signal.signal(num, signal.SIG_DFL)


def run_with_report(program: str, argv: list[str], env: dict[str, str], report: str) -> int:
    """Run as a child, wait for it while forwarding the signals the launcher gets, write
    the report when it ends (however it ends), then pass its exit status or the signal
    that killed it through. The program never outlives a launcher that is told to stop:
    a SIGTERM/SIGHUP goes to it, and the report is written once it has exited."""
    import signal
    import subprocess

    from pyshim.runner.tracing import finish_report, report_environment

    env = report_environment(report, env)
    forwarded = {getattr(signal, n) for n in FORWARDED if hasattr(signal, n)}
    waited = forwarded | {signal.SIGCHLD}
    # blocked before the child exists, so no signal can kill the launcher in between
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, waited)

    die_with_parent = _die_with_parent()

    def in_child() -> None:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        die_with_parent()

    try:
        # restore_signals (the default) gives the child SIGPIPE/SIGXFSZ back
        proc = subprocess.Popen(argv, executable=program, env=env, preexec_fn=in_child)
    except OSError as exc:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        print(f"pyshim run: cannot execute {program}: {exc.strerror}", file=sys.stderr)
        return 126
    try:
        while proc.poll() is None:
            info = signal.sigtimedwait(waited, 1.0)
            if info is None or info.si_signo == signal.SIGCHLD:
                continue
            # a terminal's Ctrl-C, Ctrl-\ or hang-up reached the program already
            if info.si_code != SI_KERNEL:
                try:
                    os.kill(proc.pid, info.si_signo)
                except ProcessLookupError:
                    pass
    finally:
        if proc.poll() is None:  # an exception in the launcher itself: never orphan
            proc.kill()
            proc.wait()
        try:
            finish_report(env, report)  # before the mask goes: a late signal must wait
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    if proc.returncode < 0:
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(-proc.returncode, signal.SIG_DFL)
        os.kill(os.getpid(), -proc.returncode)
    return proc.returncode


def _die_with_parent() -> Callable[[], None]:
    """What the child runs before exec so that a SIGKILLed launcher (which can forward
    nothing) takes the program with it instead of leaving it running unseen. Made in the
    parent: the child between fork and exec should only make the call."""
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return lambda: None
    pr_set_pdeathsig, sigkill = 1, 9
    return lambda: prctl(pr_set_pdeathsig, sigkill, 0, 0, 0) and None
