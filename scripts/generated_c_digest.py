"""Digests of the C the translator generates, to show a refactoring leaves it byte-identical.

    python3 scripts/generated_c_digest.py collect CORPUS [--record]   # gather the PTX inputs
    python3 scripts/generated_c_digest.py digest CORPUS OUT [--c]     # translate, digest
    python3 scripts/generated_c_digest.py compare A B                 # two digest folders

The corpus is a folder of .ptx files, gathered once and then read by both commits' runs:
nvcc -ptx of the examples', tests' and benchmarks' CUDA sources (CUDA 13's default target
and sm_80), the benchmark translator's generated modules, the PTX written inline in the
test files (every string constant holding an .entry or .func), and with --record every
PTX text the translator test files hand to the translator (scripts/ptx_corpus_plugin.py).

`digest` translates every input for every target (cpu in both wave modes, each also as
phases only and as fibers only, the lazy loader's bound-globals form, hip wave64/wave32,
cuda) in one process with PYTHONHASHSEED fixed, and writes OUT/digests.txt, one line per
(input, target): the SHA-256 of the C, or of the error's class and message when the
translator refuses the input (refusing the same way is part of "unchanged"). With --c the
C itself goes to OUT/c/<input>/<target>.c.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (name, target, keyword arguments of translate)
TARGETS: list[tuple[str, str, dict]] = [
    ("cpu-wave64", "cpu-wave64", {}),
    ("cpu-wave32", "cpu-wave32", {}),
    ("cpu-wave64+phases", "cpu-wave64+phases", {}),
    ("cpu-wave32+phases", "cpu-wave32+phases", {}),
    ("cpu-wave64+fibers", "cpu-wave64+fibers", {}),
    ("cpu-wave64.bound", "cpu-wave64", {"bind_globals": True}),
    ("hip-wave64", "hip-wave64:gfx942", {}),
    ("hip-wave32", "hip-wave32:gfx1100", {}),
    ("cuda", "cuda", {}),
]

CUDA_DIRS = ("examples", "tests", "benchmarks/kernels")
NVCC_ARCHS = ("default", "sm_80")
TEST_FILES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_ptx_*.py"))
TEST_FILES += ["tests/test_cpu_device_ptx.py", "tests/test_lazy_kernels.py"]


def _nvcc(src: Path, arch: str, out: Path) -> bool:
    flags = [] if arch == "default" else [f"-arch={arch}"]
    res = subprocess.run(["nvcc", "-ptx", *flags, "-o", str(out), str(src)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        out.unlink(missing_ok=True)
        print(f"  skip {src.relative_to(ROOT)} ({arch}): nvcc failed", file=sys.stderr)
    return res.returncode == 0


def _inline_ptx(path: Path) -> list[str]:
    """String constants of a test file that are PTX modules or functions."""
    try:
        tree = ast.parse(path.read_text())
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            s = node.value
            if (".entry" in s or ".func" in s) and "{" in s and ".version" in s:
                out.append(s)
    return out


def collect(corpus: Path, record: bool) -> None:
    corpus.mkdir(parents=True, exist_ok=True)
    if shutil.which("nvcc"):
        for d in CUDA_DIRS:
            for src in sorted((ROOT / d).rglob("*.cu")):
                stem = str(src.relative_to(ROOT)).replace("/", "__")[:-3]
                for arch in NVCC_ARCHS:
                    out = corpus / f"nvcc.{stem}.{arch}.ptx"
                    if not out.exists():
                        _nvcc(src, arch, out)
        sys.path.insert(0, str(ROOT))
        from benchmarks import gen_ptx, translator

        gens = {"bench.gen_ptx_48": gen_ptx.source(48),
                "bench.grid_stride_432": translator._GRID_STRIDE.format(
                    unroll=translator.GRID_STRIDE_UNROLL),
                "bench.grid_stride_16": translator._GRID_STRIDE.format(unroll=16)}
        for name, text in gens.items():
            out = corpus / f"{name}.ptx"
            if not out.exists():
                cu = corpus / f"{name}.cu"
                cu.write_text(text)
                _nvcc(cu, "default", out)
                cu.unlink()
    else:
        print("nvcc not found: the corpus has no nvcc-built PTX", file=sys.stderr)
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for s in _inline_ptx(path):
            h = hashlib.sha256(s.encode()).hexdigest()[:12]
            (corpus / f"inline.{path.stem}.{h}.ptx").write_text(s)
    if record:
        rec = corpus / "recorded"
        env = dict(os.environ, PYSHIM_PTX_CORPUS=str(rec), PYTHONPATH=str(ROOT))
        env["PYTHONPATH"] += os.pathsep + str(ROOT / "scripts")
        subprocess.run([sys.executable, "-m", "pytest", "-q", "--no-header",
                        "-p", "ptx_corpus_plugin", "-p", "no:cacheprovider", *TEST_FILES],
                       cwd=ROOT, env=env)
        for p in sorted(rec.glob("*.ptx")):
            p.rename(corpus / f"recorded.{p.name}")
        shutil.rmtree(rec, ignore_errors=True)
    print(f"{len(list(corpus.glob('*.ptx')))} PTX inputs in {corpus}")


def _digest(corpus: Path, out: Path, write_c: bool) -> None:
    from pyshim.ptx.targets import get_target
    from pyshim.ptx.translate import translate

    out.mkdir(parents=True, exist_ok=True)
    lines = []
    t0 = time.perf_counter()
    inputs = sorted(corpus.glob("*.ptx"))
    for path in inputs:
        text = path.read_text(errors="replace")
        for name, target, kwargs in TARGETS:
            try:
                c = translate(text, get_target(target), **kwargs)
                digest = hashlib.sha256(c.encode()).hexdigest()
            except Exception as e:  # the refusal is part of the behaviour compared
                c = None
                msg = f"{type(e).__name__}: {e}"
                digest = "error:" + hashlib.sha256(msg.encode()).hexdigest()[:32]
            lines.append(f"{path.name}\t{name}\t{digest}")
            if write_c and c is not None:
                d = out / "c" / path.stem
                d.mkdir(parents=True, exist_ok=True)
                (d / f"{name}.c").write_text(c)
    (out / "digests.txt").write_text("\n".join(lines) + "\n")
    errors = sum(1 for ln in lines if "\terror:" in ln)
    print(f"{len(inputs)} inputs x {len(TARGETS)} targets = {len(lines)} digests "
          f"({errors} refusals) in {time.perf_counter() - t0:.1f} s -> {out}/digests.txt")


def digest(corpus: Path, out: Path, write_c: bool) -> None:
    """In a child with a fixed hash seed, so set order cannot differ between runs."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import generated_c_digest as g; "
            "from pathlib import Path; g._digest(Path(sys.argv[2]), Path(sys.argv[3]), "
            "sys.argv[4] == '1')")
    subprocess.run([sys.executable, "-c", code, str(ROOT / "scripts"), str(corpus), str(out),
                    "1" if write_c else "0"], env=env, check=True)


def compare(a: Path, b: Path) -> int:
    def load(d: Path) -> dict[tuple[str, str], str]:
        rows = (ln.split("\t") for ln in (d / "digests.txt").read_text().splitlines() if ln)
        return {(i, t): h for i, t, h in rows}

    da, db = load(a), load(b)
    same = [k for k in da if db.get(k) == da[k]]
    differ = sorted(k for k in da if k in db and db[k] != da[k])
    missing = sorted(set(da) ^ set(db))
    inputs = {i for i, _ in da}
    print(f"{len(same)} of {len(da)} (input, target) pairs identical "
          f"({len(inputs)} inputs x {len(da) // max(len(inputs), 1)} targets)")
    for i, t in differ:
        print(f"DIFFERS {i} {t}: {da[(i, t)][:16]} -> {db[(i, t)][:16]}")
    for k in missing:
        print(f"ONLY IN ONE {k}")
    return 0 if not differ and not missing else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("corpus", type=Path)
    c.add_argument("--record", action="store_true",
                   help="also run the translator test files and keep every PTX they translate")
    d = sub.add_parser("digest")
    d.add_argument("corpus", type=Path)
    d.add_argument("out", type=Path)
    d.add_argument("--c", action="store_true", help="write the C too")
    m = sub.add_parser("compare")
    m.add_argument("a", type=Path)
    m.add_argument("b", type=Path)
    args = ap.parse_args()
    if args.cmd == "collect":
        collect(args.corpus, args.record)
    elif args.cmd == "digest":
        digest(args.corpus, args.out, args.c)
    else:
        return compare(args.a, args.b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
