"""Differential check of the examples against NVIDIA's own stack, for a machine with an
NVIDIA GPU (`python3 -m pyshim.differential [--json]`).

For each kernel example it
  1. builds the program with nvcc for the GPU at hand and runs it natively (NVIDIA's driver
     and JIT): the reference output;
  2. runs the same binary under `pyshim run --backend cpu` (our fat-binary reader, PTX
     translator and CPU device) and compares its output line by line with the reference;
  3. translates the program's PTX with the `cuda` target and compiles that source with nvcc
     for the same GPU, so the translator's CUDA output is checked by NVIDIA's compiler.
Without a GPU, steps 1 and 3's native parts are skipped and said so: the script still
checks that the pyshim side runs, so CI keeps it working.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pyshim.paths import REPO_DIR

EXAMPLES = REPO_DIR / "examples"
# lines that legitimately differ between a GPU and the CPU device
VOLATILE = ("device 0:", "pyshim:", "GPU", "clock", "ms", "time")


def gpu_arch() -> str | None:
    """sm_XY of the first NVIDIA GPU, or None when there is none."""
    if shutil.which("nvidia-smi") is None:
        return None
    out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                         capture_output=True, text=True)
    cap = out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout else ""
    return "sm_" + cap.replace(".", "") if cap else None


def _run(cmd: list[str], timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def _stable(text: str) -> list[str]:
    return [line for line in text.splitlines() if not any(v in line for v in VOLATILE)]


def check_example(src: Path, work: Path, arch: str | None) -> dict:
    name = src.stem
    result: dict = {"example": name}
    exe = work / name
    build = ["nvcc", "-O2", "-o", str(exe), str(src)]
    if arch:
        # native code for this GPU plus compute_75 PTX for pyshim to translate
        build[1:1] = [f"-gencode=arch=compute_{arch[3:]},code={arch}",
                      "-gencode=arch=compute_75,code=compute_75"]
    proc = _run(build)
    if proc.returncode != 0:
        return {**result, "ok": False, "why": "build failed: " + proc.stderr[-400:]}
    shim = _run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe)])
    result["pyshim_rc"] = shim.returncode
    result["pyshim_pass"] = f"PASS {name}" in shim.stdout
    if arch:
        native = _run([str(exe)])
        result["native_rc"] = native.returncode
        diff = [(a, b) for a, b in zip(_stable(native.stdout), _stable(shim.stdout),
                                       strict=False) if a != b]
        result["differences"] = diff[:10]
        result["same_output"] = not diff and len(_stable(native.stdout)) == len(
            _stable(shim.stdout))
    # the cuda target: translate the program's PTX and let NVIDIA's compiler judge it
    ptx = work / f"{name}.ptx"
    proc = _run(["nvcc", "-ptx", "-arch=compute_75", "-o", str(ptx), str(src)])
    if proc.returncode == 0:
        from pyshim.ptx.translate import translate

        cu = work / f"{name}.translated.cu"
        try:
            cu.write_text(translate(ptx.read_text(), "cuda"))
        except Exception as exc:  # noqa: BLE001 - reported per example
            result["cuda_target"] = f"translation failed: {exc}"
        else:
            out = work / f"{name}.translated.o"
            cc = _run(["nvcc", "-c", f"-arch={arch or 'sm_75'}", "-o", str(out), str(cu)])
            result["cuda_target"] = "compiles" if cc.returncode == 0 else \
                "nvcc rejected it: " + cc.stderr[-400:]
    ok = result["pyshim_rc"] == 0 and result["pyshim_pass"]
    if arch:
        ok = ok and result["native_rc"] == 0 and result["same_output"]
    result["ok"] = ok and result.get("cuda_target") == "compiles"
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m pyshim.differential",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("examples", nargs="*", help="example names (default: every k_*.cu "
                        "and vector_add.cu)")
    args = parser.parse_args(argv)
    if shutil.which("nvcc") is None:
        print("differential: nvcc is not on PATH", file=sys.stderr)
        return 2
    names = args.examples or sorted(p.stem for p in EXAMPLES.glob("k_*.cu")) + ["vector_add"]
    arch = gpu_arch()
    if arch is None:
        print("differential: no NVIDIA GPU: checking the pyshim side and the cuda target's "
              "compile only", file=sys.stderr)
    results = []
    with tempfile.TemporaryDirectory(prefix="pyshim-diff-") as tmp:
        for name in names:
            results.append(check_example(EXAMPLES / f"{name}.cu", Path(tmp), arch))
    if args.json:
        print(json.dumps({"gpu": arch, "results": results}, indent=2))
    else:
        for r in results:
            mark = "ok  " if r["ok"] else "FAIL"
            extra = "" if r["ok"] else f"  {r.get('why') or r.get('differences') or r.get('cuda_target')}"
            print(f"{mark} {r['example']}{extra}")
        print(f"{sum(r['ok'] for r in results)} of {len(results)} agree"
              + ("" if arch else " (no GPU: pyshim side and cuda-target compile only)"))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
