/*
 * The grid executor's launch path (grid.c, stream.c): usage `launch <launch_kernels.so> <mode>`.
 *   threads  which threads run a small grid and a big one: `small_threads`, `small_host`
 *            (a small grid ran on the caller's thread), `small_on_submitter` (on the
 *            thread that ran a one-block grid: the stream's), `big_threads`
 *   mallocs  allocations made by 1000 launch + synchronize pairs after a warm-up
 *   trap     a block of a small grid and of a big grid traps
 * This program defines malloc & co (forwarding to glibc's) to count them.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"

/* ---- counting allocations: every library in the process calls these ---- */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static atomic_long allocs = 0;

void *malloc(size_t n)
{
    atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
    atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
    return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
    atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
    return __libc_realloc(p, n);
}

void *aligned_alloc(size_t a, size_t n)
{
    atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
    return __libc_memalign(a, n);
}

int posix_memalign(void **out, size_t a, size_t n)
{
    atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
    *out = __libc_memalign(a, n);
    return *out == NULL ? 12 : 0;
}

static hipFunction_t who, fail_at, empty;

/* distinct thread ids among n */
static int distinct(const uint64_t *ids, int n)
{
    int count = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int k = 0; k < i && !seen; k++)
            seen = ids[k] == ids[i];
        count += !seen;
    }
    return count;
}

static void run_who(unsigned grid, long busy_us, unsigned cheap, uint64_t *out)
{
    uint64_t *d;
    CHECK(hipMalloc((void **)&d, grid * sizeof *d));
    CHECK(hipMemset(d, 0, grid * sizeof *d));
    void *args[] = {&d, &busy_us, &cheap};
    CHECK(hipModuleLaunchKernel(who, grid, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    CHECK(hipDeviceSynchronize());
    CHECK(hipMemcpy(out, d, grid * sizeof *d, hipMemcpyDeviceToHost));
    CHECK(hipFree(d));
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    hipModule_t mod;
    CHECK(hipModuleLoad(&mod, argv[1]));
    CHECK(hipModuleGetFunction(&who, mod, "who"));
    CHECK(hipModuleGetFunction(&fail_at, mod, "fail_at"));
    CHECK(hipModuleGetFunction(&empty, mod, "empty"));
    const char *mode = argv[2];
    if (strcmp(mode, "threads") == 0) {
        static uint64_t ids[256], one;
        run_who(1, 0, 0, &one);   /* a one-block grid: the stream's own thread runs it */
        run_who(64, 0, 0, ids);
        printf("small_threads=%d\n", distinct(ids, 64));
        printf("small_on_submitter=%d\n", ids[0] == one);
        printf("small_host=%d\n", ids[0] == (uint64_t)pthread_self());
        /* 8 cheap blocks, then 56 of 2 ms each: the projection must publish it */
        run_who(64, 2000, 8, ids);
        printf("big_threads=%d\n", distinct(ids, 64));
    } else if (strcmp(mode, "mallocs") == 0) {
        hipStream_t s;
        CHECK(hipStreamCreate(&s));
        for (int i = 0; i < 100; i++) {
            CHECK(hipModuleLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
            CHECK(hipStreamSynchronize(s));
        }
        long before = atomic_load(&allocs);
        for (int i = 0; i < 1000; i++) {
            CHECK(hipModuleLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
            CHECK(hipStreamSynchronize(s));
        }
        printf("mallocs=%ld\n", atomic_load(&allocs) - before);
        CHECK(hipStreamDestroy(s));
    } else if (strcmp(mode, "trap") == 0) {
        unsigned bad = 5;
        void *args[] = {&bad};
        CHECK(hipModuleLaunchKernel(fail_at, 16, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
        SHOW("small_trap", hipDeviceSynchronize());
    } else {
        return 2;
    }
    return 0;
}
