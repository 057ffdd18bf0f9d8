"""The cost of one cuBLAS call forwarded by pyshim's libcublas.so.13 over the same rocBLAS
call made directly (DESIGN.md: a forwarded API call <= 5 ns over the backend).

    python3 benchmarks/blas_call.py [--quick]

A C program (built here with cc) calls cublasSscal_v2 / cublasSgemm_v2 through the shim and
rocblas_sscal / rocblas_sgemm directly, with empty problems (n = 0) so that only the call
path is timed, in alternating blocks; the median ns per call of each is reported. Prints a
JSON list of items {"name", "value", "unit", "baseline", "ratio", ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pyshim.paths import build_dir  # noqa: E402

BUDGET_NS = 5.0

# Declared here rather than through the vendor headers: the program is a timing loop.
SOURCE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
typedef void *handle_t;
int rocblas_create_handle(handle_t *);
int rocblas_sscal(handle_t, int, const float *, float *, int);
int rocblas_sgemm(handle_t, int, int, int, int, int, const float *, const float *, int,
                  const float *, int, const float *, float *, int);
int cublasSscal_v2(handle_t, int, const float *, float *, int);
int cublasSgemm_v2(handle_t, int, int, int, int, int, const float *, const float *, int,
                   const float *, int, const float *, float *, int);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long calls = atol(argv[1]);
    int repeats = atoi(argv[2]);
    handle_t h;
    if (rocblas_create_handle(&h) != 0)
        return 1;
    float a = 1.0f, x = 0.0f;
    double t[4][64];
    for (int r = 0; r < repeats; r++) {
        double t0 = now();
        for (long i = 0; i < calls; i++)
            if (cublasSscal_v2(h, 0, &a, &x, 1)) return 2;
        double t1 = now();
        for (long i = 0; i < calls; i++)
            if (rocblas_sscal(h, 0, &a, &x, 1)) return 3;
        double t2 = now();
        for (long i = 0; i < calls; i++)
            if (cublasSgemm_v2(h, 0, 0, 0, 0, 0, &a, &x, 1, &x, 1, &a, &x, 1)) return 4;
        double t3 = now();
        for (long i = 0; i < calls; i++)
            if (rocblas_sgemm(h, 111, 111, 0, 0, 0, &a, &x, 1, &x, 1, &a, &x, 1)) return 5;
        double t4 = now();
        t[0][r] = (t1 - t0) / calls; t[1][r] = (t2 - t1) / calls;
        t[2][r] = (t3 - t2) / calls; t[3][r] = (t4 - t3) / calls;
    }
    const char *names[] = {"shim_sscal", "direct_sscal", "shim_sgemm", "direct_sgemm"};
    for (int k = 0; k < 4; k++) {
        qsort(t[k], repeats, sizeof(double), cmp);
        printf("%s=%.3f\n", names[k], t[k][repeats / 2]);
    }
    return 0;
}
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    lib, cpu = build_dir() / "lib", build_dir() / "cpu"
    if not (lib / "libcublas.so.13").is_file():
        from pyshim.builders.blas import build_shim_blas

        build_shim_blas(lib)
    calls, repeats = (200_000, 5) if args.quick else (2_000_000, 11)
    with tempfile.TemporaryDirectory(prefix="pyshim-blas-call-") as tmp:
        src, exe = Path(tmp) / "call.c", Path(tmp) / "call"
        src.write_text(SOURCE)
        cc = os.environ.get("CC", "cc")
        subprocess.run([cc, "-O2", "-o", str(exe), str(src), f"-L{lib}", "-l:libcublas.so.13",
                        f"-L{cpu}", "-l:librocblas.so.5", f"-Wl,-rpath-link,{cpu}"], check=True)
        env = dict(os.environ, LD_LIBRARY_PATH=f"{lib}:{cpu}")
        res = subprocess.run([str(exe), str(calls), str(repeats)], capture_output=True,
                             text=True, env=env, timeout=600)
    if res.returncode != 0:
        print(f"blas_call: the timing program failed ({res.returncode}): {res.stderr}",
              file=sys.stderr)
        return 1
    ns = {k: float(v) for k, v in (ln.split("=") for ln in res.stdout.split())}
    items = []
    for routine in ("sscal", "sgemm"):
        value, baseline = ns[f"shim_{routine}"], ns[f"direct_{routine}"]
        items.append({"name": f"cublas{routine[0].upper()}{routine[1:]}_v2 call, empty problem",
                      "value": value, "unit": "ns/call", "baseline": baseline,
                      "ratio": value / baseline if baseline else None,
                      "baseline_name": f"rocblas_{routine} direct",
                      "budget": f"<= {BUDGET_NS:g} ns over direct",
                      "ok": value - baseline <= BUDGET_NS, "verified": True,
                      "repeats": repeats,
                      "note": f"overhead {value - baseline:.2f} ns; median of {repeats} blocks "
                              f"of {calls} calls"})
    json.dump(items, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
