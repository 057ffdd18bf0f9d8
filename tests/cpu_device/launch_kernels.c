#define _POSIX_C_SOURCE 200809L
/*
 * Kernels for tests/test_cpu_device_launch.py (the grid executor, grid.c): each block
 * records which thread ran it, and some blocks can be made to take a while. A hand-written
 * module of pyshim_kernel_abi.h, as kernels.c is.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "pyshim_kernel_abi.h"

#ifndef TEST_ABI_VERSION
#define TEST_ABI_VERSION PYSHIM_KABI_VERSION
#endif

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* who(uint64_t *thread, long busy_us, unsigned cheap): block b writes the id of the thread
 * that ran it to thread[b]; blocks from index `cheap` on keep that thread busy `busy_us`. */
static int who(const pyshim_launch *l, const pyshim_block *b, void *const *params)
{
    uint64_t *thread = *(uint64_t *const *)params[0];
    long busy_us = *(const long *)params[1];
    unsigned cheap = *(const unsigned *)params[2];
    uint64_t idx = b->ctaid.x + (uint64_t)l->grid.x * (b->ctaid.y + (uint64_t)l->grid.y * b->ctaid.z);
    thread[idx] = (uint64_t)pthread_self();
    if (idx >= cheap && busy_us > 0) {
        uint64_t end = now_ns() + (uint64_t)busy_us * 1000u;
        while (now_ns() < end) {
        }
    }
    return 0;
}

static const pyshim_param_desc who_params[] = {{0, 8, 8, 0}, {8, 8, 8, 0}, {16, 4, 4, 0}};

/* fail_at(unsigned bad): block `bad` traps. */
static int fail_at(const pyshim_launch *l, const pyshim_block *b, void *const *params)
{
    (void)l;
    return b->ctaid.x == *(const unsigned *)params[0] ? (int)PYSHIM_TRAP_TRAP : 0;
}

static const pyshim_param_desc fail_params[] = {{0, 4, 4, 0}};

static int empty(const pyshim_launch *l, const pyshim_block *b, void *const *params)
{
    (void)l;
    (void)b;
    (void)params;
    return 0;
}

static const pyshim_kernel_desc kernels[] = {
    {"who", who, 3, 24, who_params, 0, 0, 0, {0, 0, 0}, 0, 8, {0, 0, 0}, 0},
    {"fail_at", fail_at, 1, 4, fail_params, 0, 0, 0, {0, 0, 0}, 0, 4, {0, 0, 0}, 0},
    {"empty", empty, 0, 0, NULL, 0, 0, 0, {0, 0, 0}, 0, 4, {0, 0, 0}, 0},
};

__attribute__((visibility("default"))) const pyshim_module_desc pyshim_module = {
    TEST_ABI_VERSION, sizeof kernels / sizeof kernels[0], kernels, 0, NULL, "cpu-wave64",
};
