/* The NVIDIA device identity: the row of device_identity.inc PYSHIM_DEVICE_CC names. */
#define _POSIX_C_SOURCE 200809L
#include "device_identity.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

struct row {
    int major, minor, threads_sm, blocks_sm, smem_sm_kib, smem_optin_kib, clusters;
    const char *arch;
};

static const struct row rows[] = {
#define PYSHIM_IDENTITY(ma, mi, t, b, s, o, c, a) {ma, mi, t, b, s, o, c, a},
#include "device_identity.inc"
#undef PYSHIM_IDENTITY
};

static const struct row *chosen;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const struct row *find(int major, int minor)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].major == major && rows[i].minor == minor)
            return &rows[i];
    return NULL;
}

/* "8.6", "86", "sm_86", "compute_86": the forms CUDA's own tools spell a capability in */
static int parse_cc(const char *s, int *major, int *minor)
{
    if (strncmp(s, "sm_", 3) == 0)
        s += 3;
    else if (strncmp(s, "compute_", 8) == 0)
        s += 8;
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || a < 0)
        return 0;
    if (*end == '.') {
        const char *m = end + 1;
        long b = strtol(m, &end, 10);
        if (end == m || b < 0 || b > 9 || *end != '\0')
            return 0;
        *major = (int)a;
        *minor = (int)b;
        return 1;
    }
    if (*end != '\0' || a < 10)
        return 0;
    *major = (int)(a / 10);
    *minor = (int)(a % 10);
    return 1;
}

static void choose(void)
{
    chosen = find(PYSHIM_IDENTITY_DEFAULT_MAJOR, PYSHIM_IDENTITY_DEFAULT_MINOR);
    const char *env = getenv("PYSHIM_DEVICE_CC");
    if (env == NULL || env[0] == '\0')
        return;
    int major = 0, minor = 0;
    const struct row *r = parse_cc(env, &major, &minor) ? find(major, minor) : NULL;
    if (r != NULL) {
        chosen = r;
        return;
    }
    char known[160] = "";
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        size_t n = strlen(known);
        if (n + 8 < sizeof known)
            snprintf(known + n, sizeof known - n, "%s%d.%d", i ? " " : "", rows[i].major,
                     rows[i].minor);
    }
    pyshim_common_log("PYSHIM_DEVICE_CC=%s is not a compute capability pyshim presents (%s); "
                      "presenting %d.%d",
                      env, known, chosen->major, chosen->minor);
}

static const struct row *identity(void)
{
    pthread_once(&once, choose);
    return chosen;
}

int pyshim_identity_cc(void)
{
    const struct row *r = identity();
    return r->major * 10 + r->minor;
}

static long long cap(long long limit, long long backend)
{
    /* a backend that reports nothing (0) does not lower the identity's limit */
    return backend > 0 && backend < limit ? backend : limit;
}

long long pyshim_identity_value(int attr, long long backend)
{
    const struct row *r = identity();
    switch (attr) {
    case PYSHIM_ATTR_COMPUTE_CAPABILITY_MAJOR: return r->major;
    case PYSHIM_ATTR_COMPUTE_CAPABILITY_MINOR: return r->minor;
    /* CUDA's warps are 32 lanes on every capability; wave64 backends emulate them */
    case PYSHIM_ATTR_WARP_SIZE: return 32;
    case PYSHIM_ATTR_MAX_THREADS_PER_BLOCK: return cap(1024, backend);
    case PYSHIM_ATTR_MAX_BLOCK_DIM_X: return cap(1024, backend);
    case PYSHIM_ATTR_MAX_BLOCK_DIM_Y: return cap(1024, backend);
    case PYSHIM_ATTR_MAX_BLOCK_DIM_Z: return cap(64, backend);
    case PYSHIM_ATTR_MAX_GRID_DIM_X: return cap(2147483647, backend);
    case PYSHIM_ATTR_MAX_GRID_DIM_Y: return cap(65535, backend);
    case PYSHIM_ATTR_MAX_GRID_DIM_Z: return cap(65535, backend);
    /* statically sized shared memory stops at 48 KiB on every capability */
    case PYSHIM_ATTR_MAX_SHARED_MEMORY_PER_BLOCK: return cap(48 * 1024, backend);
    case PYSHIM_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
        return cap(r->smem_optin_kib * 1024LL, backend);
    case PYSHIM_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
        return cap(r->smem_sm_kib * 1024LL, backend);
    case PYSHIM_ATTR_TOTAL_CONSTANT_MEMORY: return cap(64 * 1024, backend);
    case PYSHIM_ATTR_MAX_REGISTERS_PER_BLOCK: return cap(65536, backend);
    case PYSHIM_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR: return cap(65536, backend);
    case PYSHIM_ATTR_MAX_THREADS_PER_MULTIPROCESSOR: return cap(r->threads_sm, backend);
    case PYSHIM_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR: return cap(r->blocks_sm, backend);
    /* clusters need both the capability and a backend that launches them */
    case PYSHIM_ATTR_CLUSTER_LAUNCH: return r->clusters && backend > 0;
    default: return backend;
    }
}
