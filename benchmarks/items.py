"""One measured figure and the helpers every suite uses to produce it honestly."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass


class BenchError(RuntimeError):
    """A benchmark could not run (a build failed, a library is missing)."""


class VerificationError(BenchError):
    """A variant computed a wrong result: its timing would be meaningless."""


@dataclass
class Item:
    """`value` and `baseline` in the same `unit`, measured in the same run; ratio is
    value / baseline (lower is better for times, higher for rates: see `budget`)."""

    name: str
    value: float
    unit: str
    baseline: float
    ratio: float
    baseline_name: str          # what the baseline is: "hip direct", "C loop (OpenMP)", ...
    budget: str                 # DESIGN.md's budget for this figure, or "" if none
    ok: bool | None             # budget met; None when there is no budget
    verified: bool              # every variant's result was checked before timing
    repeats: int
    note: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def item(name: str, value: float, unit: str, baseline: float, baseline_name: str, *,
         budget: str = "", ok: bool | None = None, verified: bool = True, repeats: int = 1,
         note: str = "") -> Item:
    ratio = value / baseline if baseline else float("nan")
    return Item(name, value, unit, baseline, ratio, baseline_name, budget, ok, verified,
                repeats, note)


def median(values: list[float]) -> float:
    if not values:
        raise BenchError("no measurements")
    return statistics.median(values)


def time_once(fn: Callable[[], object]) -> float:
    """Seconds one call of fn takes (fn must finish its work before returning)."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def interleaved(variants: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median seconds per variant, timing them in turn within each repeat (and rotating the
    order) so that a noisy neighbour or frequency drift hits every variant alike."""
    names = list(variants)
    times: dict[str, list[float]] = {n: [] for n in names}
    for r in range(repeats):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            times[n].append(time_once(variants[n]))
    return {n: median(t) for n, t in times.items()}
