# (named numba_suite, not numba_cuda: the client script beside it would import it as numba-cuda)
"""numba.cuda under pyshim vs numba's own simulator (NUMBA_ENABLE_CUDASIM=1, what numba users
without a GPU run today): the same kernels (benchmarks/numba_client.py) in the clients'
virtualenv (tests/real_clients/harness.py: numba-cuda from PyPI), each result checked against
numpy by the client script before it is timed.

Rows per kernel: `numba.K.vs_cudasim` (a warm launch + synchronize), `numba.K.first_call`
(the first launch: numba's compile, pyshim's translation with an empty kernel cache, the run)
and `numba.K.translate` (pyshim's translation alone, from `pyshim run --report`, beside that
first call). $PYSHIM_CLIENTS_ENV ("K=V K=V") is added to the client's environment: a way to
measure with a workaround, said in every row's note."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.context import Context
from benchmarks.items import BenchError, Item, item
from pyshim.paths import REPO_DIR

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "numba_client.py"


def _client_python() -> Path:
    sys.path.insert(0, str(REPO_DIR / "tests"))
    from real_clients import harness

    return harness.ensure_venv()


def _client_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_PRELOAD")}
    env.update(extra)
    for kv in os.environ.get("PYSHIM_CLIENTS_ENV", "").split():
        k, _, v = kv.partition("=")
        env[k] = v
    return env


def _run(cmd: list[str], env: dict[str, str], what: str) -> dict:
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    if res.returncode != 0:
        raise BenchError(f"numba kernels {what} failed (exit {res.returncode}):\n"
                         f"{res.stderr.strip()[-3000:]}")
    try:
        return json.loads(res.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError) as exc:
        raise BenchError(f"numba kernels {what}: no JSON result ({exc}): "
                         f"{res.stdout[-500:]}") from None


def run(ctx: Context) -> list[Item]:
    python = str(_client_python())
    args = [str(SCRIPT), "--quick" if ctx.quick else f"--repeats={ctx.repeats}"]
    sim = _run([python, *args], _client_env({"NUMBA_ENABLE_CUDASIM": "1"}), "in the simulator")
    launcher = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(REPO_DIR)!r}); "
                "from pyshim.cli import main; sys.exit(main())", "run"]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        # an empty kernel cache: the first call pays the translation, as a new user's does
        env = _client_env({"PYSHIM_CACHE": str(Path(tmp) / "cache")})
        shim = _run([*launcher, "--report", str(report), "--", python, *args], env,
                    "under pyshim")
        kernels = json.loads(report.read_text())["kernels"]
    extra = os.environ.get("PYSHIM_CLIENTS_ENV", "")
    note = f"with {extra}" if extra else "no environment variables"
    items = []
    for name, s in shim.items():
        b = sim[name]
        tr = [k for k in kernels if f"{name}B" in k["name"] or k["name"].endswith(name)]
        items.append(item(f"numba.{name}.vs_cudasim", s["warm_s"] * 1e3, "ms",
                          b["warm_s"] * 1e3, "numba CUDA simulator", repeats=ctx.repeats,
                          note=f"n={s['n']}, warm; {note}"))
        items.append(item(f"numba.{name}.first_call", s["first_s"] * 1e3, "ms",
                          b["first_s"] * 1e3, "simulator's first call", repeats=1,
                          note=f"numba compile + pyshim translate (cold cache) + run; {note}"))
        if tr:
            items.append(item(f"numba.{name}.translate", sum(k["ms_total"] for k in tr), "ms",
                              s["first_s"] * 1e3, "the first call", repeats=1,
                              note=f"pyshim's translation, from run --report; {note}"))
    return items
