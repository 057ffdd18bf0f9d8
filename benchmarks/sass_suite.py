"""A lifted SASS kernel vs the same kernel translated from PTX, on the CPU device (DESIGN.md:
within 1.5x). The benchmark kernels (benchmarks/kernels/kernels.cu) are built twice by nvcc,
PTX-only (-ptx -arch=compute_80) and SASS-only (-cubin -arch=sm_80); the cubin's SASS is
lifted by pyshim.sass. Both modules run the same cases side by side, each checked against
the numpy reference first."""

from __future__ import annotations

import shutil

from benchmarks import build
from benchmarks.cases import all_cases
from benchmarks.context import Context
from benchmarks.items import BenchError, Item, interleaved, item
from benchmarks.kernels_suite import check
from benchmarks.variants import DeviceVariant, Prepared

ARCH = 80


def kernels_cubin():
    src = build.KERNELS_DIR / "kernels.cu"
    if shutil.which("nvcc") is None:
        raise BenchError("nvcc not found: the lifted kernels come from nvcc -cubin")
    out = build.out_dir() / f"kernels.sm_{ARCH}.cubin"
    return build._build(out, lambda tmp: ["nvcc", "-cubin", "-O3", f"-arch=sm_{ARCH}", "-o",
                                          str(tmp), str(src)],
                        f"nvcc -cubin -arch=sm_{ARCH} {src.name}", src)


def kernels_ptx():
    """The PTX of the same source for the same architecture as the cubin."""
    src = build.KERNELS_DIR / "kernels.cu"
    if shutil.which("nvcc") is None:
        raise BenchError("nvcc not found: the kernels come from nvcc -ptx")
    out = build.out_dir() / f"kernels.compute_{ARCH}.ptx"
    return build._build(out, lambda tmp: ["nvcc", "-ptx", "-O3", f"-arch=compute_{ARCH}",
                                          "-o", str(tmp), str(src)],
                        f"nvcc -ptx -arch=compute_{ARCH} {src.name}", src)


def run(ctx: Context) -> list[Item]:
    from pyshim.kernels.loader import load_module
    from pyshim.sass.decode import nvdisasm_path
    from pyshim.sass.lift import lift_cubin

    if nvdisasm_path() is None:
        raise BenchError("nvdisasm not found (pip install nvidia-cuda-nvdisasm)")
    ptx = kernels_ptx().read_text()
    lifted = lift_cubin(kernels_cubin().read_bytes(), partial=True)
    from_ptx = load_module(ptx.encode(), "cpu-wave64")
    from_sass = load_module(lifted.encode(), "cpu-wave64")
    variants = {"ptx": DeviceVariant(ctx.device, from_ptx.path),
                "sass": DeviceVariant(ctx.device, from_sass.path)}
    items: list[Item] = []
    try:
        for case in all_cases(ctx.quick):
            if case.name not in from_sass.kernels:
                continue
            prepared: dict[str, Prepared] = {}
            try:
                for key, v in variants.items():
                    prepared[key] = p = v.prepare(case)
                    p.run()
                    check(case, f"CPU device ({key})", p.results())
                t = interleaved({k: p.run for k, p in prepared.items()}, ctx.repeats)
            finally:
                for p in prepared.values():
                    p.close()
            sass_ms, ptx_ms = t["sass"] * 1e3, t["ptx"] * 1e3
            items.append(item(f"sass.{case.name}.vs_ptx", sass_ms, "ms", ptx_ms,
                              "the same kernel from PTX", budget="<= 1.5x",
                              ok=sass_ms <= 1.5 * ptx_ms, repeats=ctx.repeats,
                              note=f"{case.what}; SASS for sm_{ARCH} lifted by pyshim.sass, "
                                   f"PTX for compute_{ARCH}"))
    finally:
        for v in variants.values():
            v.close()
    return items
