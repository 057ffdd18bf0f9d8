"""Real clients' own test suites under `pyshim run`: numba-cuda, CuPy and cuda-python.

The clients come from PyPI into a virtualenv of their own (cached; no cffi and no pyshim in
it, as a user's venv); their tests come from what a registry carries: numba-cuda's wheel
(numba/cuda/tests), CuPy's source distribution (tests/cupy_tests). cuda-python's driver tests
(cuda_bindings/tests/test_cuda.py) are on no registry: a local file given with --tests.

Each test module runs in its own pytest process under `pyshim run` with a wall-clock limit,
so a test that aborts or hangs the process costs that module, never the rest; a plugin
(plugins/pyshim_clients_plugin.py) writes each outcome as it is known. `run.py` is the
command line; tests/test_real_clients.py is the CI tier.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
import tomllib
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pyshim.paths import REPO_DIR, cache_dir

HERE = Path(__file__).resolve().parent
PLUGINS = HERE / "plugins"
THRESHOLDS = HERE / "thresholds.toml"

# what a user installs; the versions the thresholds were measured with
PACKAGES = ["numba-cuda[cu13]==0.30.4", "cupy-cuda13x[ctk]==14.2.0", "cuda-python==13.4.4",
            "cuda-core==1.2.2",
            # the clients' own test requirements (numba.cuda.testing imports filecheck)
            "pytest>=8", "pytest-timeout", "filecheck", "ml_dtypes", "scipy"]
CUPY_SDIST = ("cupy", "14.2.0")


def venv_dir() -> Path:
    """$PYSHIM_CLIENTS_VENV (an existing venv with the clients), else a cached one whose name
    holds a digest of PACKAGES, so a change of pins builds a new one."""
    given = os.environ.get("PYSHIM_CLIENTS_VENV")
    if given:
        return Path(given)
    digest = hashlib.sha256("\n".join(PACKAGES).encode()).hexdigest()[:12]
    return cache_dir() / "clients" / f"venv-{digest}"


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


@contextlib.contextmanager
def _locked(name: str):
    """One builder at a time (pytest-xdist runs the tier's tests in two workers)."""
    lock = cache_dir() / "clients" / f".{name}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def ensure_venv(venv: Path | None = None) -> Path:
    with _locked("venv"):
        return _ensure_venv(venv or venv_dir())


def _ensure_venv(venv: Path) -> Path:
    python = venv_python(venv)
    done = venv / ".pyshim-installed"
    if python.exists() and (done.exists() or os.environ.get("PYSHIM_CLIENTS_VENV")):
        return python
    # the system Python's venv module, never this process's venv (which may hold pyshim)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    *PACKAGES], check=True)
    done.write_text("\n".join(PACKAGES) + "\n")
    return python


def site_packages(python: Path) -> Path:
    out = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                          "['purelib'])"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def _simple_index_sdist(name: str, version: str) -> tuple[str, str]:
    """(url, sha256) of a project's source distribution, from PyPI's simple index (PEP 691 JSON,
    what pip reads). pip itself cannot fetch CuPy's sdist: it builds its metadata first, which
    needs a CUDA toolkit."""
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    req = urllib.request.Request(f"{index}/{name}/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        files = json.load(resp)["files"]
    want = f"{name}-{version}.tar.gz"
    for f in files:
        if f["filename"] == want:
            return f["url"], f["hashes"]["sha256"]
    raise RuntimeError(f"{want} is not on {index}")


def cupy_tests() -> Path:
    """CuPy's tests/ from its sdist (hash-checked), extracted beside its pytest configuration
    but without the cupy/ source tree, so `import cupy` is the installed wheel."""
    with _locked("cupy-tests"):
        return _cupy_tests()


def _cupy_tests() -> Path:
    name, version = CUPY_SDIST
    root = cache_dir() / "clients" / f"cupy-tests-{version}"
    if (root / "tests" / "cupy_tests").is_dir():
        return root
    url, sha = _simple_index_sdist(name, version)
    with urllib.request.urlopen(url, timeout=300) as resp:
        data = resp.read()
    if hashlib.sha256(data).hexdigest() != sha:
        raise RuntimeError(f"{url}: sha256 differs from the index's")
    tmp = root.with_name(root.name + ".part")
    tmp.mkdir(parents=True, exist_ok=True)
    prefix = f"{name}-{version}/"
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = [m for m in tar.getmembers()
                   if m.name.startswith(prefix + "tests/") or m.name == prefix + "pyproject.toml"]
        for m in members:
            m.name = m.name[len(prefix):]
        tar.extractall(tmp, members=members, filter="data")
    tmp.rename(root)
    return root


@dataclass
class Module:
    suite: str
    name: str            # what the reports call it
    target: str          # what pytest is given (a dotted module with --pyargs, or a path)
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


def numba_modules(python: Path) -> list[Module]:
    base = site_packages(python) / "numba_cuda" / "numba" / "cuda" / "tests"
    out = []
    for group in ("cudadrv", "cudapy"):
        for path in sorted((base / group).glob("test_*.py")):
            dotted = f"numba.cuda.tests.{group}.{path.stem}"
            # the wheel's numba_cuda/numba has no __init__.py: the default import mode would
            # put it on sys.path and shadow cuda-python's `cuda` namespace
            out.append(Module("numba", f"{group}/{path.stem}", dotted,
                              ["--pyargs", "--import-mode=importlib"]))
    return out


def cupy_modules(root: Path) -> list[Module]:
    out = []
    # cupy_tests/<group> modules are named <group>/...; cupyx's keep their cupyx_tests/ prefix
    groups = ("cupy_tests/core_tests", "cupy_tests/creation_tests", "cupy_tests/linalg_tests",
              "cupy_tests/random_tests", "cupy_tests/fft_tests",
              "cupyx_tests/scipy_tests/sparse_tests")
    for group in groups:
        for path in sorted((root / "tests" / group).rglob("test_*.py")):
            rel = path.relative_to(root)
            name = str(rel.relative_to("tests"))
            name = name.removeprefix("cupy_tests/")
            # jitify preprocessing spins holding the GIL past any per-test timeout
            # one device: multi-GPU tests skip only when CUPY_TEST_GPU_LIMIT says so
            out.append(Module("cupy", name, str(rel),
                              ["-k", "not jitify"], {"CUPY_TEST_GPU_LIMIT": "1"}))
    return out


def file_modules(suite: str, paths: list[Path]) -> list[Module]:
    return [Module(suite, p.name, str(p.resolve())) for p in paths]


@dataclass
class Result:
    module: str
    outcomes: dict[str, str]            # nodeid -> passed/failed/error/skipped/xfailed/...
    messages: dict[str, str]            # nodeid -> the first line of its error
    seconds: float
    status: str                         # "ok", "timeout", "crash rc=N"
    tail: str = ""


def _outcome(records: list[dict]) -> tuple[str, str]:
    """One test's outcome from its reports: a failed call (or any failed subtest: each
    reports a call of its own) is "failed", a failed setup or teardown "error", else the
    call's outcome, else (skipped in setup) the setup's."""
    calls = [r for r in records if r.get("when") == "call"]
    failed = next((r for r in calls if r["outcome"] == "failed"), None)
    if failed is not None:
        return "failed", failed.get("message", "")
    bad = next((r for r in records if r["outcome"] in ("failed", "error")), None)
    if bad is not None:
        return "error", bad.get("message", "")
    first = calls[-1] if calls else records[0]
    return first["outcome"], first.get("message", "")


def run_module(mod: Module, python: Path, cwd: Path, out_dir: Path, env_extra: dict[str, str],
               timeout: float, per_test_timeout: int, sample: int = 0) -> Result:
    """`sample`: run at most that many of the module's tests, a fixed choice (the plugin's
    pytest_collection_modifyitems); 0 runs them all."""
    out_dir.mkdir(parents=True, exist_ok=True)
    results = out_dir / (mod.name.replace("/", "__") + ".jsonl")
    results.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(mod.env)
    env.update(env_extra)
    # the client's Python sees the plugin only: never this checkout's pyshim package
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env_extra.get("PYTHONPATH"), str(PLUGINS)]))
    env["PYSHIM_CLIENTS_RESULTS"] = str(results)
    if sample > 0:
        env["PYSHIM_CLIENTS_SAMPLE"] = str(sample)
    # the clients' own kernel caches start empty: a cubin cached by an earlier run (or
    # another pyshim) would hide what this one does
    env.setdefault("NUMBA_CACHE_DIR", str(out_dir / "numba-cache"))
    env.setdefault("CUPY_CACHE_DIR", str(out_dir / "cupy-cache"))
    launcher = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(REPO_DIR)!r}); "
                "from pyshim.cli import main; sys.exit(main())", "run", "--"]
    cmd = [*launcher, str(python), "-m", "pytest", "-q", "-p", "pyshim_clients_plugin",
           "-p", "no:cacheprovider", f"--timeout={per_test_timeout}", *mod.args, mod.target]
    start = time.monotonic()
    skip = out_dir / (mod.name.replace("/", "__") + ".done")
    skip.unlink(missing_ok=True)
    tails, statuses = [], []
    for _attempt in range(1 + RESUMES):
        status, out = _run_once(cmd, cwd, env, timeout - (time.monotonic() - start))
        tails.append(out)
        statuses.append(status)
        with open(results, "a", encoding="utf-8") as f:
            f.write(json.dumps({"ended": status}) + "\n")
        # a test that killed its process (SIGKILL from the OOM killer, a signal pyshim
        # could not turn into an error) takes only itself: the rest of the module runs in
        # a new process, after everything that already has an outcome or was running
        left = timeout - (time.monotonic() - start)
        if not status.startswith("crash") or left < 30:
            break
        partial = _collect(mod.name, results, 0.0, status, out)
        if "not run" not in partial.outcomes.values():
            break
        skip.write_text("\n".join(_raw_ids(results)) + "\n", encoding="utf-8")
        env = {**env, "PYSHIM_CLIENTS_SKIP": str(skip)}
    seconds = time.monotonic() - start
    if len(statuses) > 1:  # the first crash names the module's status; the resumes follow
        status = f"{statuses[0]}, resumed {len(statuses) - 1}x, last {status}"
    return _collect(mod.name, results, seconds, status, "\n".join(tails)[-3000:])


# how many times a module's run resumes after a crash
RESUMES = 5


def _run_once(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[str, str]:
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=max(timeout, 1.0))
        status = "ok" if proc.returncode in (0, 1, 5) else f"crash rc={proc.returncode}"
    except subprocess.TimeoutExpired:
        status = "timeout"
        _kill_group(proc.pid)
        out, _ = proc.communicate()
    _kill_group(proc.pid)  # workers it spawned (multiprocessing) and left behind
    return status, out.decode(errors="replace")


def _raw_ids(results: Path) -> list[str]:
    """The test ids, as pytest spells them, that have a record or were started."""
    ids = []
    for line in results.read_text(errors="replace").splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "start" in r:
            ids.append(r["start"])
        elif "nodeid" in r:
            ids.append(r["nodeid"])
    return list(dict.fromkeys(ids))


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _collect(name: str, results: Path, seconds: float, status: str, tail: str) -> Result:
    collected: list[str] = []
    records: dict[str, list[dict]] = {}
    started: list[str] = []
    # the test running when a process of the module ended other than normally, per process
    # (a resumed module has several): it is the one that crashed or timed out
    stopped: list[tuple[str, str]] = []
    if results.exists():
        for line in results.read_text(errors="replace").splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "collected" in r:
                collected.extend(n for n in r["collected"] if n not in collected)
            elif "start" in r:
                started.append(r["start"])
            elif "ended" in r:
                if r["ended"] != "ok" and started:
                    stopped.append((started[-1], r["ended"]))
                started = []
            else:
                records.setdefault(r["nodeid"], []).append(r)
    if status != "ok" and started:
        stopped.append((started[-1], status))
    outcomes, messages = {}, {}
    # a module outside pytest's rootdir (an installed package) has ids "::Class::test"
    for recs in records.values():
        for r in recs:
            r["nodeid"] = _qualify(name, r["nodeid"])
    records = {_qualify(name, k): v for k, v in records.items()}
    collected = [_qualify(name, n) for n in collected]
    stopped = [(_qualify(name, n), why) for n, why in stopped]
    for nodeid in collected or list(records):
        if nodeid in records:
            outcomes[nodeid], messages[nodeid] = _outcome(records[nodeid])
        else:
            outcomes[nodeid] = "not run"
    # a collection error (nodeid of the module) stands for the whole module
    for nodeid, recs in records.items():
        if nodeid not in outcomes:
            outcomes[nodeid], messages[nodeid] = _outcome(recs)
    for last, why in stopped:
        if outcomes.get(last) == "not run":
            outcomes[last] = "crashed" if why.startswith("crash") else "timeout"
            messages[last] = f"{why}: " + tail.strip().splitlines()[-1][:300] if tail.strip() \
                else why
    if not outcomes:
        outcomes[name] = "error"
        messages[name] = f"{status}: no test ran: " + (tail.strip().splitlines() or [""])[-1][:300]
    return Result(name, outcomes, messages, seconds, status, tail)


def _qualify(module: str, nodeid: str) -> str:
    return module + nodeid if nodeid.startswith("::") or not nodeid else nodeid


def summarize(results: list[Result]) -> dict:
    counts: Counter[str] = Counter()
    for r in results:
        counts.update(r.outcomes.values())
    total = sum(counts.values())
    return {"total": total, "passed": counts["passed"], "counts": dict(counts),
            "pass_rate": round(counts["passed"] / total, 4) if total else 0.0,
            "seconds": round(sum(r.seconds for r in results), 1)}


def thresholds() -> dict[str, dict]:
    return tomllib.loads(THRESHOLDS.read_text())


def write_report(results: list[Result], path: Path, meta: dict) -> dict:
    summary = summarize(results)
    data = {"meta": meta, "summary": summary,
            "modules": [{"module": r.module, "status": r.status, "seconds": round(r.seconds, 1),
                         "counts": dict(Counter(r.outcomes.values())),
                         "failures": {n: r.messages.get(n, "") for n, o in r.outcomes.items()
                                      if o not in ("passed", "skipped", "xfailed")}}
                        for r in results]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
    return summary
