"""Generated struct adapters move fields by name between the real CUDA and HIP layouts:
a program fills hipDeviceProp_tR0600 (HIP's header), adapts it, and reads cudaDeviceProp
(CUDA 13.0's header, and 12.9's for the .12 adapter) by field name."""

import subprocess

import pytest

from pyshim.codegen import structs

pytestmark = pytest.mark.network

FILL = r"""
#include <string.h>
#include <hip/hip_runtime_api.h>
#include "struct_adapters.h"
int check13(const void *p); int check12(const void *p);
int main(void) {
    hipDeviceProp_tR0600 h;
    memset(&h, 0xa5, sizeof h);
    strcpy(h.name, "pyshim test device");
    h.totalGlobalMem = 0x1122334455667788ull;
    h.multiProcessorCount = 77;
    h.maxThreadsDim[1] = 512;
    h.warpSize = 64;
    h.major = 9; h.minor = 4;
    h.l2CacheSize = 4 << 20;
    h.pciBusID = 0x42;
    unsigned char out13[4096], out12[4096];
    pyshim_cudaDeviceProp_from_hipDeviceProp_tR0600(out13, &h);
    pyshim_cudaDeviceProp_12_from_hipDeviceProp_tR0600(out12, &h);
    return check13(out13) * 10 + check12(out12);
}
"""

CHECK = r"""
#include <string.h>
#include <cuda_runtime_api.h>
int NAME(const void *p) {
    const struct cudaDeviceProp *c = p;
    if (strcmp(c->name, "pyshim test device")) return 1;
    if (c->totalGlobalMem != 0x1122334455667788ull) return 2;
    if (c->multiProcessorCount != 77 || c->maxThreadsDim[1] != 512) return 3;
    if (c->warpSize != 64 || c->major != 9 || c->minor != 4) return 4;
    if (c->l2CacheSize != 4 << 20 || c->pciBusID != 0x42) return 5;
    return 0;
}
"""


def test_device_prop_adapters_move_fields_by_name(tmp_path):
    from pyshim.tables.fetch import include_dir

    structs.generate(tmp_path)
    (tmp_path / "fill.c").write_text(FILL)
    (tmp_path / "c13.c").write_text(CHECK.replace("NAME", "check13"))
    (tmp_path / "c12.c").write_text(CHECK.replace("NAME", "check12"))
    flags = ["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-c"]
    units = [
        ("fill.c", ["-D__HIP_PLATFORM_AMD__", f"-I{include_dir('hip')}", f"-I{include_dir('hsa')}",
                    f"-I{tmp_path}"]),
        ("c13.c", [f"-I{include_dir('cuda13-runtime')}", f"-I{include_dir('cuda13-crt')}"]),
        ("c12.c", [f"-I{include_dir('cuda12-runtime')}", f"-I{include_dir('cuda13-crt')}"]),
    ]
    objs = []
    for src, incs in units:
        obj = tmp_path / (src + ".o")
        proc = subprocess.run([*flags, *incs, str(tmp_path / src), "-o", str(obj)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-2000:]
        objs.append(str(obj))
    exe = tmp_path / "adapt"
    subprocess.run(["gcc", *objs, "-o", str(exe)], check=True)
    assert subprocess.run([str(exe)]).returncode == 0


def test_adapters_cover_every_pair():
    text = structs.generate_header()
    for name in ("cudaDeviceProp", "cudaPointerAttributes", "cudaFuncAttributes",
                 "CUDA_MEMCPY2D", "cudaDeviceProp_12"):
        assert f"pyshim_{name}_from_" in text and f"pyshim_{name}_to_" in text
