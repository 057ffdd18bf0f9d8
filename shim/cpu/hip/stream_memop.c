/*
 * Stream memory operations: a stream writes a value to memory, or waits until a value in
 * memory satisfies a condition (another stream, the host or a kernel writes it). The wait
 * polls with short sleeps on the stream's own thread, so other streams keep running.
 */
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "internal.h"

typedef struct memop {
    void *ptr;
    uint64_t value, mask;
    unsigned flags;
    bool wide;   /* 64-bit */
} memop;

static uint64_t load(const memop *m)
{
    if (m->wide)
        return atomic_load((_Atomic uint64_t *)m->ptr);
    return atomic_load((_Atomic uint32_t *)m->ptr);
}

/* CUDA's conditions: Gte compares as a signed difference, so counters may wrap. */
static bool satisfied(const memop *m)
{
    uint64_t v = load(m) & m->mask;
    switch (m->flags) {
    case hipStreamWaitValueGte:
        return m->wide ? (int64_t)(v - m->value) >= 0 : (int32_t)(uint32_t)(v - m->value) >= 0;
    case hipStreamWaitValueEq: return v == m->value;
    case hipStreamWaitValueAnd: return (v & m->value) != 0;
    default: /* Nor */
        return m->wide ? ~(v | m->value) != 0 : (uint32_t)~(v | m->value) != 0;
    }
}

static void run_wait(cpu_cmd *c)
{
    const memop *m = (const memop *)c->payload;
    struct timespec pause = {0, 20000};
    while (!satisfied(m))
        nanosleep(&pause, NULL);
}

static void run_write(cpu_cmd *c)
{
    const memop *m = (const memop *)c->payload;
    if (m->wide)
        atomic_store((_Atomic uint64_t *)m->ptr, m->value);
    else
        atomic_store((_Atomic uint32_t *)m->ptr, (uint32_t)m->value);
}

static hipError_t enqueue(hipStream_t stream, cpu_cmd_fn run, memop op)
{
    struct ihipStream_t *s;
    if (op.ptr == NULL || ((uintptr_t)op.ptr & (op.wide ? 7u : 3u)) != 0)
        return hipErrorInvalidValue;
    hipError_t err = cpu_stream_resolve(stream, false, &s);
    if (err != hipSuccess)
        return err;
    cpu_cmd *c = cpu_cmd_new(run, sizeof op);
    if (c == NULL)
        return hipErrorOutOfMemory;
    memcpy(c->payload, &op, sizeof op);
    return cpu_stream_enqueue(s, c, NULL);
}

static bool valid_wait_flags(unsigned flags)
{
    return flags <= hipStreamWaitValueNor;
}

hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags,
                                uint32_t mask)
{
    if (!valid_wait_flags(flags))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(enqueue(stream, run_wait, (memop){ptr, value, mask, flags, false}));
}

hipError_t hipStreamWaitValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags,
                                uint64_t mask)
{
    if (!valid_wait_flags(flags))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(enqueue(stream, run_wait, (memop){ptr, value, mask, flags, true}));
}

hipError_t hipStreamWriteValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags)
{
    if (flags != 0)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(enqueue(stream, run_write, (memop){ptr, value, ~0ull, 0, false}));
}

hipError_t hipStreamWriteValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags)
{
    if (flags != 0)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(enqueue(stream, run_write, (memop){ptr, value, ~0ull, 0, true}));
}
