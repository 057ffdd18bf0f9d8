/*
 * The device's memory: one reserved range of address space, outside the process heap, that
 * every hipMalloc/hipHostMalloc/pool/graph allocation comes from. Why not malloc: a kernel
 * that stores a little past its allocation (harmless on a GPU, whose allocations are rounded
 * up) would overwrite glibc's chunk headers and abort the process much later; and a
 * pointer the device once handed out stays recognisable as device memory after it is
 * freed (cpu_arena_contains), so a copy from freed memory is an error, not a silent read.
 *
 * Sizes are rounded up as a GPU driver's are: small ones to a power of two of at least
 * CPU_ALIGN (carved from slabs, freed slots reused per size class), large ones to 2 MiB
 * (their own range, made inaccessible again when freed, so a kernel touching freed large
 * memory faults and the launch fails with hipErrorIllegalAddress). All bookkeeping is kept
 * out of band: a kernel overwriting memory cannot corrupt the allocator.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

#define SMALL_MIN_SHIFT 8u                       /* CPU_ALIGN */
#define SMALL_MAX_SHIFT 20u                      /* 1 MiB */
#define NUM_CLASSES (SMALL_MAX_SHIFT - SMALL_MIN_SHIFT + 1u)
#define SLAB_BYTES ((size_t)4 << 20)
#define LARGE_GRAIN ((size_t)2 << 20)

typedef struct size_class {
    uintptr_t *free;   /* freed slots, reused last-in first-out */
    size_t nfree, capfree;
    uintptr_t slab_next, slab_end;
} size_class;

typedef struct hole {
    uintptr_t base;
    size_t size;
} hole;

static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;
static uintptr_t arena_base, arena_end, arena_bump;
static size_class classes[NUM_CLASSES];
static hole *holes;          /* freed large ranges, sorted by base, coalesced */
static size_t nholes, capholes;

static void reserve(void)
{
    /* Address space only (PROT_NONE, no swap reserved): try large first. */
    for (unsigned shift = 45; shift >= 34; shift--) {
        size_t len = (size_t)1 << shift;
        void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            continue;
        uintptr_t b = ((uintptr_t)p + LARGE_GRAIN - 1) & ~(uintptr_t)(LARGE_GRAIN - 1);
        arena_base = arena_bump = b;
        arena_end = (uintptr_t)p + len;
        return;
    }
    cpu_log("cannot reserve address space for device memory");
}

bool cpu_arena_contains(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    return a >= arena_base && a < arena_end;
}

static unsigned class_of(size_t size)
{
    unsigned s = SMALL_MIN_SHIFT;
    while (((size_t)1 << s) < size)
        s++;
    return s - SMALL_MIN_SHIFT;
}

static size_t round_large(size_t size)
{
    return (size + LARGE_GRAIN - 1) & ~(LARGE_GRAIN - 1);
}

/* Address space from the top of the used part. Lock held. */
static uintptr_t bump_locked(size_t len)
{
    if (arena_end - arena_bump < len)
        return 0;
    uintptr_t p = arena_bump;
    if (mprotect((void *)p, len, PROT_READ | PROT_WRITE) != 0)
        return 0;
    arena_bump += len;
    return p;
}

static uintptr_t small_alloc_locked(size_t size)
{
    size_class *c = &classes[class_of(size)];
    if (c->nfree > 0)
        return c->free[--c->nfree];
    size_t slot = (size_t)1 << (class_of(size) + SMALL_MIN_SHIFT);
    if (c->slab_end - c->slab_next < slot) {
        uintptr_t s = bump_locked(SLAB_BYTES);
        if (s == 0)
            return 0;
        c->slab_next = s;
        c->slab_end = s + SLAB_BYTES;
    }
    uintptr_t p = c->slab_next;
    c->slab_next += slot;
    return p;
}

static uintptr_t large_alloc_locked(size_t size)
{
    size_t len = round_large(size);
    for (size_t i = 0; i < nholes; i++) {
        if (holes[i].size < len)
            continue;
        uintptr_t p = holes[i].base;
        if (mprotect((void *)p, len, PROT_READ | PROT_WRITE) != 0)
            return 0;
        holes[i].base += len;
        holes[i].size -= len;
        if (holes[i].size == 0) {
            memmove(&holes[i], &holes[i + 1], (nholes - i - 1) * sizeof *holes);
            nholes--;
        }
        return p;
    }
    return bump_locked(len);
}

void *cpu_arena_alloc(size_t size)
{
    pthread_once(&arena_once, reserve);
    if (arena_base == 0 || size == 0 || size > arena_end - arena_base)
        return NULL;
    pthread_mutex_lock(&arena_lock);
    uintptr_t p = size <= ((size_t)1 << SMALL_MAX_SHIFT) ? small_alloc_locked(size)
                                                         : large_alloc_locked(size);
    pthread_mutex_unlock(&arena_lock);
    return (void *)p;
}

static void small_free_locked(uintptr_t p, size_t size)
{
    size_class *c = &classes[class_of(size)];
    if (c->nfree == c->capfree) {
        size_t cap = c->capfree ? c->capfree * 2 : 64;
        uintptr_t *n = realloc(c->free, cap * sizeof *n);
        if (n == NULL)
            return;   /* the slot is lost, nothing else */
        c->free = n;
        c->capfree = cap;
    }
    c->free[c->nfree++] = p;
}

static void large_free_locked(uintptr_t p, size_t size)
{
    size_t len = round_large(size);
    /* drops the pages and makes the range fault on access, in one call */
    if (mmap((void *)p, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
             -1, 0) == MAP_FAILED)
        return;
    size_t i = 0;
    while (i < nholes && holes[i].base < p)
        i++;
    bool join_prev = i > 0 && holes[i - 1].base + holes[i - 1].size == p;
    bool join_next = i < nholes && p + len == holes[i].base;
    if (join_prev && join_next) {
        holes[i - 1].size += len + holes[i].size;
        memmove(&holes[i], &holes[i + 1], (nholes - i - 1) * sizeof *holes);
        nholes--;
    } else if (join_prev) {
        holes[i - 1].size += len;
    } else if (join_next) {
        holes[i].base = p;
        holes[i].size += len;
    } else {
        if (nholes == capholes) {
            size_t cap = capholes ? capholes * 2 : 32;
            hole *n = realloc(holes, cap * sizeof *n);
            if (n == NULL)
                return;   /* the range stays reserved, unused */
            holes = n;
            capholes = cap;
        }
        memmove(&holes[i + 1], &holes[i], (nholes - i) * sizeof *holes);
        holes[i] = (hole){p, len};
        nholes++;
    }
}

void cpu_arena_free(void *ptr, size_t size)
{
    if (ptr == NULL || !cpu_arena_contains(ptr))
        return;
    pthread_mutex_lock(&arena_lock);
    if (size <= ((size_t)1 << SMALL_MAX_SHIFT))
        small_free_locked((uintptr_t)ptr, size);
    else
        large_free_locked((uintptr_t)ptr, size);
    pthread_mutex_unlock(&arena_lock);
}

/* ---- address space for virtual memory management (vmm.c) ---- */

/* Held address space, still inaccessible. Fresh address space first, holes only when it
 * runs out: a reservation is then followed by free space, so the next one can be placed at
 * its end (a range grown in place, as CUDA allows), whatever the device's allocations have
 * freed meanwhile. Lock held. */
static uintptr_t reserve_locked(size_t len)
{
    if (arena_end - arena_bump >= len) {
        uintptr_t p = arena_bump;
        arena_bump += len;
        return p;
    }
    for (size_t i = 0; i < nholes; i++) {
        if (holes[i].size < len)
            continue;
        uintptr_t p = holes[i].base;
        holes[i].base += len;
        holes[i].size -= len;
        if (holes[i].size == 0) {
            memmove(&holes[i], &holes[i + 1], (nholes - i - 1) * sizeof *holes);
            nholes--;
        }
        return p;
    }
    return 0;
}

void *cpu_arena_reserve(size_t len, size_t align)
{
    pthread_once(&arena_once, reserve);
    if (arena_base == 0 || len == 0 || len % LARGE_GRAIN != 0 || len > arena_end - arena_base)
        return NULL;
    if (align < LARGE_GRAIN)
        align = LARGE_GRAIN;
    size_t extra = align - LARGE_GRAIN;   /* every range starts on a 2 MiB boundary */
    pthread_mutex_lock(&arena_lock);
    uintptr_t p = len + extra >= len ? reserve_locked(len + extra) : 0;
    if (p != 0 && extra != 0) {
        /* keep the aligned part; the head and tail go back to the holes */
        uintptr_t q = (p + align - 1) & ~(uintptr_t)(align - 1);
        if (q > p)
            large_free_locked(p, q - p);
        if (p + len + extra > q + len)
            large_free_locked(q + len, p + len + extra - (q + len));
        p = q;
    }
    pthread_mutex_unlock(&arena_lock);
    return (void *)p;
}

void cpu_arena_unreserve(void *ptr, size_t len)
{
    if (ptr == NULL || !cpu_arena_contains(ptr))
        return;
    pthread_mutex_lock(&arena_lock);
    large_free_locked((uintptr_t)ptr, len);
    pthread_mutex_unlock(&arena_lock);
}

void *cpu_arena_reserve_at(void *addr, size_t len)
{
    pthread_once(&arena_once, reserve);
    uintptr_t a = (uintptr_t)addr;
    if (arena_base == 0 || len == 0 || len % LARGE_GRAIN != 0 || a % LARGE_GRAIN != 0 ||
        a < arena_base || a >= arena_end || len > arena_end - a)
        return NULL;
    uintptr_t got = 0;
    pthread_mutex_lock(&arena_lock);
    if (a >= arena_bump) {
        /* beyond the used part: what lies between goes to the holes */
        if (a > arena_bump)
            large_free_locked(arena_bump, a - arena_bump);
        arena_bump = a + len;
        got = a;
    } else {
        for (size_t i = 0; i < nholes && got == 0; i++) {
            hole h = holes[i];
            if (a < h.base || a - h.base > h.size || len > h.size - (a - h.base))
                continue;
            /* split the hole around [a, a + len) */
            size_t head = a - h.base, tail = h.size - head - len;
            memmove(&holes[i], &holes[i + 1], (nholes - i - 1) * sizeof *holes);
            nholes--;
            if (head)
                large_free_locked(h.base, head);
            if (tail)
                large_free_locked(a + len, tail);
            got = a;
        }
    }
    pthread_mutex_unlock(&arena_lock);
    return (void *)got;
}
