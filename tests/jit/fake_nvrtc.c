/* A stand-in for NVIDIA's libnvrtc.so.13 (the tests need no wheel): it records the options
 * it was compiled with and answers nvrtcGetPTX with PTX naming the arch it was given. */
#include <stdio.h>
#include <string.h>

typedef int nvrtcResult;
static char arch[64] = "none";
static char ptx[256];

nvrtcResult nvrtcVersion(int *major, int *minor)
{
    *major = 42;
    *minor = 7;
    return 0;
}

nvrtcResult nvrtcCompileProgram(void *prog, int n, const char *const *opts)
{
    (void)prog;
    for (int i = 0; i < n; i++)
        if (strncmp(opts[i], "-arch=", 6) == 0)
            snprintf(arch, sizeof arch, "%s", opts[i] + 6);
    snprintf(ptx, sizeof ptx,
             ".version 9.0\n.target %s\n.address_size 64\n.visible .entry k() { ret; }\n",
             arch);
    return strncmp(arch, "sm_", 3) == 0 ? 3 : 0; /* a real arch: no PTX-only program here */
}

nvrtcResult nvrtcGetPTXSize(void *prog, size_t *size)
{
    (void)prog;
    *size = strlen(ptx) + 1;
    return 0;
}

nvrtcResult nvrtcGetPTX(void *prog, char *out)
{
    (void)prog;
    strcpy(out, ptx);
    return 0;
}

nvrtcResult nvrtcGetCUBINSize(void *prog, size_t *size)
{
    (void)prog;
    (void)size;
    return 3; /* NVRTC_ERROR_INVALID_INPUT: this fake makes no SASS */
}

nvrtcResult nvrtcGetCUBIN(void *prog, char *out)
{
    (void)prog;
    (void)out;
    return 3;
}

nvrtcResult nvrtcDestroyProgram(void **prog)
{
    (void)prog;
    return 0;
}

const char *fake_arch(void)
{
    return arch;
}
