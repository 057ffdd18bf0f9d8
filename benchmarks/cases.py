"""The CPU-device kernel benchmarks: for each kernel of kernels/kernels.cu, its inputs, its
launch geometry and an independent numpy reference of its result. Inputs are small
integers (as floats where the kernel is float) wherever the result is a sum, so every
variant must match the reference exactly whatever order it adds in; the rest allow one
rounding of difference (OpenCL may contract a*x+y into an fma)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

BLOCK = 256   # kernels.cu's BLOCK
TILE = 16


@dataclass
class Arg:
    kind: str                   # "int" | "float" | "in" | "out"
    value: int | float | np.ndarray
    reset: bool = False         # an "out" the kernel accumulates into: zeroed before each run


@dataclass
class Case:
    name: str
    what: str
    args: list[Arg]
    grid: tuple[int, int]
    block: tuple[int, int]
    expected: dict[int, np.ndarray]       # index of an "out" arg -> its expected contents
    exact: bool = True
    rtol: float = 0.0
    sizes: dict[str, int] = field(default_factory=dict)


def _blocks(n: int) -> int:
    return (n + BLOCK - 1) // BLOCK


def saxpy(n: int, rng: np.random.Generator) -> Case:
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    a = np.float32(2.5)
    return Case("saxpy", f"z = a*x + y, n={n}",
                [Arg("int", n), Arg("float", float(a)), Arg("in", x), Arg("in", y),
                 Arg("out", np.zeros(n, np.float32))],
                (_blocks(n), 1), (BLOCK, 1), {4: a * x + y}, exact=False, rtol=1e-6,
                sizes={"n": n})


def reduce(n: int, rng: np.random.Generator) -> Case:
    x = rng.integers(0, 16, n).astype(np.float32)
    padded = np.zeros(_blocks(n) * BLOCK, np.float32)
    padded[:n] = x
    expected = padded.reshape(-1, BLOCK).astype(np.float64).sum(axis=1).astype(np.float32)
    return Case("reduce", f"shared-memory tree reduction, 256 per block, n={n}",
                [Arg("int", n), Arg("in", x), Arg("out", np.zeros(_blocks(n), np.float32))],
                (_blocks(n), 1), (BLOCK, 1), {2: expected}, sizes={"n": n})


def sgemm(n: int, rng: np.random.Generator) -> Case:
    if n % TILE:
        raise ValueError(f"sgemm size {n} is not a multiple of {TILE}")
    a = rng.integers(-2, 3, (n, n)).astype(np.float32)
    b = rng.integers(-2, 3, (n, n)).astype(np.float32)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return Case("sgemm", f"tiled sgemm, 16x16 shared tiles and barriers, n={n}",
                [Arg("int", n), Arg("in", a.ravel()), Arg("in", b.ravel()),
                 Arg("out", np.zeros(n * n, np.float32))],
                (n // TILE, n // TILE), (TILE, TILE), {3: expected.ravel()}, sizes={"n": n})


def histogram(n: int, rng: np.random.Generator, blocks: int) -> Case:
    data = rng.integers(0, 256, n, dtype=np.uint8)
    expected = np.bincount(data, minlength=256).astype(np.uint32)
    return Case("histogram", f"256 bins, shared then global atomics, n={n}, {blocks} blocks",
                [Arg("int", n), Arg("in", data), Arg("out", np.zeros(256, np.uint32), True)],
                (blocks, 1), (BLOCK, 1), {2: expected}, sizes={"n": n, "blocks": blocks})


def stencil(w: int, h: int, rng: np.random.Generator) -> Case:
    grid = rng.standard_normal((h, w), dtype=np.float32)
    out = grid.copy()
    c = grid[1:-1, 1:-1]
    s = (((c + grid[1:-1, :-2]) + grid[1:-1, 2:]) + grid[:-2, 1:-1]) + grid[2:, 1:-1]
    out[1:-1, 1:-1] = np.float32(0.2) * s
    bx, by = 32, 8
    return Case("stencil", f"5-point Jacobi step, {w}x{h}",
                [Arg("int", w), Arg("int", h), Arg("in", grid.ravel()),
                 Arg("out", np.zeros(w * h, np.float32))],
                ((w + bx - 1) // bx, (h + by - 1) // by), (bx, by), {3: out.ravel()},
                exact=False, rtol=1e-6, sizes={"w": w, "h": h})


def scan(n: int, rng: np.random.Generator) -> Case:
    x = rng.integers(-100, 100, n).astype(np.int32)
    padded = np.zeros(_blocks(n) * BLOCK, np.int32)
    padded[:n] = x
    expected = np.cumsum(padded.reshape(-1, BLOCK), axis=1, dtype=np.int32).ravel()[:n]
    return Case("scan", f"block inclusive scan with warp shuffles, n={n}",
                [Arg("int", n), Arg("in", x), Arg("out", np.zeros(n, np.int32))],
                (_blocks(n), 1), (BLOCK, 1), {2: expected}, sizes={"n": n})


# fixed sizes, chosen so that the CPU device takes 10-200 ms per run on a 2-core machine
# (the C loops are often faster than 10 ms at these sizes); quick sizes are tiny and
# deliberately not multiples of the block size
FULL: dict[str, Callable[[np.random.Generator], Case]] = {
    "saxpy": lambda rng: saxpy(1 << 24, rng),
    "reduce": lambda rng: reduce(1 << 22, rng),
    "sgemm": lambda rng: sgemm(384, rng),
    "histogram": lambda rng: histogram(1 << 24, rng, 1024),
    "stencil": lambda rng: stencil(4096, 4096, rng),
    "scan": lambda rng: scan(1 << 22, rng),
}
QUICK: dict[str, Callable[[np.random.Generator], Case]] = {
    "saxpy": lambda rng: saxpy(5003, rng),
    "reduce": lambda rng: reduce(5003, rng),
    "sgemm": lambda rng: sgemm(48, rng),
    "histogram": lambda rng: histogram(10007, rng, 8),
    "stencil": lambda rng: stencil(67, 45, rng),
    "scan": lambda rng: scan(3001, rng),
}
NAMES = tuple(FULL)


def one_case(name: str, quick: bool, seed: int = 1) -> Case:
    return (QUICK if quick else FULL)[name](np.random.default_rng(seed))


def all_cases(quick: bool, seed: int = 1) -> list[Case]:
    return [one_case(name, quick, seed + i) for i, name in enumerate(NAMES)]
