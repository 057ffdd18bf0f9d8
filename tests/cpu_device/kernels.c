/*
 * A hand-written kernel module for the CPU device, implementing pyshim_kernel_abi.h the way
 * translated PTX does: each block function loops over the threads of its block, splitting
 * at barriers. A test fixture, not the translator.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pyshim_kernel_abi.h"

#define THREADS(b) ((b).x * (b).y * (b).z)

/* saxpy(int n, float a, const float *x, float *y): y[i] = a * x[i] + y[i] */
static int saxpy(const pyshim_launch *l, const pyshim_block *b, void *const *params)
{
    int n = *(const int *)params[0];
    float a = *(const float *)params[1];
    const float *x = *(const float *const *)params[2];
    float *y = *(float *const *)params[3];
    for (uint32_t t = 0; t < l->block.x; t++) {
        long i = (long)b->ctaid.x * l->block.x + t;
        if (i < n)
            y[i] = a * x[i] + y[i];
    }
    return 0;
}

static const pyshim_param_desc saxpy_params[] = {{0, 4, 4, 0}, {4, 4, 4, 0}, {8, 8, 8, 0},
                                                 {16, 8, 8, 0}};

/* Module globals, as .global variables are: storage in the shared object. */
static float g_scale = 1.0f;
static int g_table[4] = {1, 2, 3, 4};

/* scale_by_global(float *out, int n): out[i] = g_scale * i + g_table[i % 4] */
static int scale_by_global(const pyshim_launch *l, const pyshim_block *b, void *const *params)
{
    float *out = *(float *const *)params[0];
    int n = *(const int *)params[1];
    for (uint32_t t = 0; t < l->block.x; t++) {
        int i = (int)(b->ctaid.x * l->block.x + t);
        if (i < n)
            out[i] = g_scale * (float)i + (float)g_table[i % 4];
    }
    return 0;
}

static const pyshim_param_desc scale_params[] = {{0, 8, 8, 0}, {8, 4, 4, 0}};

/* reverse_block(int *data): reverses each block's chunk through dynamic shared memory;
 * the barrier between the two phases is the boundary between the two thread loops. */
static int reverse_block(const pyshim_launch *l, const pyshim_block *b, void *const *params)
{
    int *data = *(int *const *)params[0];
    int *sh = b->dyn_shared;
    uint32_t n = l->block.x;
    if (l->dyn_shared_bytes < n * sizeof(int) || ((uintptr_t)sh & 15) != 0)
        return 3;   /* the runtime broke its promise: fail the launch */
    for (uint32_t t = 0; t < n; t++)
        sh[t] = data[b->ctaid.x * n + t];
    /* __syncthreads() */
    for (uint32_t t = 0; t < n; t++)
        data[b->ctaid.x * n + t] = sh[n - 1 - t];
    return 0;
}

static const pyshim_param_desc reverse_params[] = {{0, 8, 8, 0}};

/* ids(int *out, int *info): out[global linear thread id] = ctaid.x + 100 ctaid.y +
 * 10000 ctaid.z; info = {warp_size, num_sms, smid within range} */
static int ids(const pyshim_launch *l, const pyshim_block *b, void *const *params)
{
    int *out = *(int *const *)params[0];
    int *info = *(int *const *)params[1];
    uint32_t nt = THREADS(l->block);
    uint64_t block_linear =
        b->ctaid.x + (uint64_t)l->grid.x * (b->ctaid.y + (uint64_t)l->grid.y * b->ctaid.z);
    for (uint32_t t = 0; t < nt; t++)
        out[block_linear * nt + t] = (int)(b->ctaid.x + 100 * b->ctaid.y + 10000 * b->ctaid.z);
    info[0] = (int)l->warp_size;
    info[1] = (int)l->num_sms;
    if (b->smid >= l->num_sms)
        info[2] = 0;
    return 0;
}

static const pyshim_param_desc ids_params[] = {{0, 8, 8, 0}, {8, 8, 8, 0}};

/* The packed argument buffer of PTX vprintf: each value at an offset aligned to its size. */
typedef struct packer {
    unsigned char buf[256];
    size_t off;
} packer;

static void pack(packer *p, const void *v, size_t size)
{
    p->off = (p->off + size - 1) / size * size;
    memcpy(p->buf + p->off, v, size);
    p->off += size;
}

#define PACK(p, type, value)        \
    do {                            \
        type v_ = (value);          \
        pack((p), &v_, sizeof v_);  \
    } while (0)

static const char hello_fmt[] =
    "block %d: %i %u %x %X %o %c %s %p|%f %e %g %a|%ld %lld %hd %hhu|%5.2f|%-4d|%%|%*d|%.*s|%s\n";
static const char word[] = "shared";

/* hello(int tag): thread 0 of each block prints, through the runtime's vprintf */
static int hello(const pyshim_launch *l, const pyshim_block *b, void *const *params)
{
    int tag = *(const int *)params[0];
    for (uint32_t t = 0; t < l->block.x; t++) {
        if (t != 0)
            continue;
        packer p = {.off = 0};
        PACK(&p, int, (int)b->ctaid.x);
        PACK(&p, int, -tag);
        PACK(&p, unsigned, 4000000000u);
        PACK(&p, unsigned, 0xbeefu);
        PACK(&p, unsigned, 0xbeefu);
        PACK(&p, unsigned, 8u);
        PACK(&p, int, 'Z');
        PACK(&p, const char *, "str");
        PACK(&p, void *, (void *)0x1234);
        PACK(&p, double, 1.5);
        PACK(&p, double, 12345.678);
        PACK(&p, double, 0.0001);
        PACK(&p, double, 1.0);
        PACK(&p, long, -1234567890123L);
        PACK(&p, long long, 9000000000000000000LL);
        PACK(&p, int, 70000);   /* %hd prints it narrowed, as C does */
        PACK(&p, int, 300);     /* %hhu likewise */
        PACK(&p, double, 3.14159);
        PACK(&p, int, 7);
        PACK(&p, int, 6);       /* the * width */
        PACK(&p, int, 42);
        PACK(&p, int, 3);       /* the * precision */
        PACK(&p, const char *, word);
        PACK(&p, const char *, (const char *)0);
        l->vprintf(l, hello_fmt, p.buf);
        if (b->ctaid.x == 0) {   /* longer than any fixed buffer, and a wint_t */
            packer w = {.off = 0};
            PACK(&w, int, 42);
            PACK(&w, int, 'A');
            l->vprintf(l, "wide %300d %lc|%q|%", w.buf);
            l->vprintf(l, "\n", NULL);
        }
    }
    return 0;
}

static const pyshim_param_desc hello_params[] = {{0, 4, 4, 0}};

/* trap(int bad_block): the block with that index traps (PTX `trap`) */
static int trap(const pyshim_launch *l, const pyshim_block *b, void *const *params)
{
    (void)l;
    return (int)b->ctaid.x == *(const int *)params[0] ? 7 : 0;
}

static const pyshim_param_desc trap_params[] = {{0, 4, 4, 0}};

/* assert_fail(int bad_block): that block fails a device assert: it prints CUDA's message
 * and returns the assert trap code, as the translator's __assertfail does */
static int assert_fail(const pyshim_launch *l, const pyshim_block *b, void *const *params)
{
    (void)l;
    if ((int)b->ctaid.x != *(const int *)params[0])
        return 0;
    fprintf(stderr, "kernels.c:1: void assert_fail(): block: [%u,0,0], thread: [0,0,0] "
            "Assertion `ok` failed.\n", b->ctaid.x);
    return 710;
}

/* bounded: .maxntid 128, 60000 bytes of static shared memory, registers and local memory
 * for the function attribute queries */
static int bounded(const pyshim_launch *l, const pyshim_block *b, void *const *params)
{
    (void)params;
    unsigned char tile[60000];
    memset(tile, (int)b->ctaid.x, sizeof tile);
    volatile unsigned char sink = tile[l->block.x];
    (void)sink;
    return 0;
}

static const pyshim_kernel_desc kernels[] = {
    {"saxpy", saxpy, 4, 24, saxpy_params, 0, 0, 0, {0, 0, 0}, 0, 12, {0, 0, 0}, 0},
    {"scale_by_global", scale_by_global, 2, 12, scale_params, 0, 0, 0, {0, 0, 0}, 0, 8, {0, 0, 0}, 0},
    {"reverse_block", reverse_block, 1, 8, reverse_params, 0, 0, 0, {0, 0, 0}, 0, 8, {0, 0, 0}, 0},
    {"ids", ids, 2, 16, ids_params, 0, 0, 0, {0, 0, 0}, 0, 8, {0, 0, 0}, 0},
    {"hello", hello, 1, 4, hello_params, 0, 0, 0, {0, 0, 0}, 0, 16, {0, 0, 0}, 0},
    {"trap", trap, 1, 4, trap_params, 0, 0, 0, {0, 0, 0}, 0, 4, {0, 0, 0}, 0},
    {"assert_fail", assert_fail, 1, 4, trap_params, 0, 0, 0, {0, 0, 0}, 0, 4, {0, 0, 0}, 0},
    {"bounded", bounded, 0, 0, NULL, 60000, 16, 128, {0, 0, 0}, 2, 32, {0, 0, 0}, 0},
};

static const pyshim_global_desc globals[] = {
    {"g_scale", &g_scale, sizeof g_scale},
    {"g_table", g_table, sizeof g_table},
};

#ifndef TEST_ABI_VERSION
#define TEST_ABI_VERSION PYSHIM_KABI_VERSION
#endif

__attribute__((visibility("default"))) const pyshim_module_desc pyshim_module = {
    TEST_ABI_VERSION, sizeof kernels / sizeof kernels[0], kernels,
    sizeof globals / sizeof globals[0], globals, "cpu-wave64",
};
