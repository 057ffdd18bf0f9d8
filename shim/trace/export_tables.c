/*
 * cuGetExportTable wrapper: the private tables cudart asks for by UUID
 * (notes/cuda-driver-contract.md). For a table we may trace, cudart gets a copy whose
 * function slots are trampolines that call the real slot and log
 * `export:<table>[<slot>](<six argument registers>) = <rax>`; the slot-0 size word is kept.
 *
 * Two tables go through unchanged: INTEGRITY_CHECK hashes the addresses of the
 * CUDART_INTERFACE table, of itself and of its slot 1 as cudart received them, and the
 * driver hashes its own: a copy of either would make every later runtime call fail with
 * cudaErrorSoftwareValidityNotEstablished.
 *
 * The trampolines do not know the slot's signature. They take and pass six integer
 * registers and return rax, which on x86-64 SysV forwards any call of up to six integer or
 * pointer arguments that returns an integer, a pointer or nothing: every slot the notes
 * describe. A slot taking floating-point or stack arguments would not survive this.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <cuda.h>

#include "trace.h"
#include "trace_enums.h"

#define TRAMPS 24    /* slots with a trampoline: the tables cudart uses have <= 16 */
#define MAX_COPY 256 /* a larger size word: too odd to copy, pass it through */

enum mode { SIZED, UNSIZED, UNCHANGED };

struct table {
    uint8_t uuid[16];
    const char *name;
    enum mode mode;
    size_t unsized_slots; /* slots of an UNSIZED table (no size word) */
    const char *why;      /* for UNCHANGED */
    /* filled on first request */
    const void *real_table;
    void *copy[MAX_COPY];
    void *real[TRAMPS];
};

static struct table tables[] = {
    {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d,
      0xf9},
     "CUDART_INTERFACE", UNCHANGED, 0, "its address is hashed by INTEGRITY_CHECK", NULL, {0},
     {0}},
    {{0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a,
      0x66},
     "TOOLS_RUNTIME_CALLBACK_HOOKS", SIZED, 0, NULL, NULL, {0}, {0}},
    {{0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec,
      0xdc},
     "TOOLS_TLS", SIZED, 0, NULL, NULL, {0}, {0}},
    {{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95,
      0x93},
     "CONTEXT_LOCAL_STORAGE", UNSIZED, 3, NULL, NULL, {0}, {0}},
    {{0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa,
      0x7e},
     "CONTEXT_CHECKS", SIZED, 0, NULL, NULL, {0}, {0}},
    {{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1,
      0xf2},
     "INTEGRITY_CHECK", UNCHANGED, 0, "it hashes table addresses", NULL, {0}, {0}},
};
#define NTABLES (sizeof tables / sizeof tables[0])

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

typedef uintptr_t (*raw_slot)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
                              uintptr_t);

static uintptr_t call_slot(unsigned t, unsigned s, uintptr_t a, uintptr_t b, uintptr_t c,
                           uintptr_t d, uintptr_t e, uintptr_t f)
{
    raw_slot fn = (raw_slot)tables[t].real[s];
    uint64_t t0 = pt_now();
    uintptr_t r = fn(a, b, c, d, e, f);
    uint64_t t1 = pt_now();
    int saved = errno;
    char name[64];
    snprintf(name, sizeof name, "export:%s[%u]", tables[t].name, s);
    struct pt_line L;
    pt_begin(&L, name);
    pt_v_fmt(&L, "0x%lx, 0x%lx, 0x%lx, 0x%lx, 0x%lx, 0x%lx) = 0x%lx", (unsigned long)a,
             (unsigned long)b, (unsigned long)c, (unsigned long)d, (unsigned long)e,
             (unsigned long)f, (unsigned long)r);
    pt_finish(&L, t1 - t0);
    errno = saved;
    return r;
}

#define TRAMP(t, s)                                                                       \
    static uintptr_t tramp_##t##_##s(uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d,  \
                                     uintptr_t e, uintptr_t f)                            \
    {                                                                                     \
        return call_slot(t, s, a, b, c, d, e, f);                                         \
    }
#define TRAMPS_OF(t)                                                                      \
    TRAMP(t, 0) TRAMP(t, 1) TRAMP(t, 2) TRAMP(t, 3) TRAMP(t, 4) TRAMP(t, 5) TRAMP(t, 6)   \
    TRAMP(t, 7) TRAMP(t, 8) TRAMP(t, 9) TRAMP(t, 10) TRAMP(t, 11) TRAMP(t, 12)            \
    TRAMP(t, 13) TRAMP(t, 14) TRAMP(t, 15) TRAMP(t, 16) TRAMP(t, 17) TRAMP(t, 18)         \
    TRAMP(t, 19) TRAMP(t, 20) TRAMP(t, 21) TRAMP(t, 22) TRAMP(t, 23)
#define ROW(t)                                                                            \
    {tramp_##t##_0, tramp_##t##_1, tramp_##t##_2, tramp_##t##_3, tramp_##t##_4,           \
     tramp_##t##_5, tramp_##t##_6, tramp_##t##_7, tramp_##t##_8, tramp_##t##_9,           \
     tramp_##t##_10, tramp_##t##_11, tramp_##t##_12, tramp_##t##_13, tramp_##t##_14,      \
     tramp_##t##_15, tramp_##t##_16, tramp_##t##_17, tramp_##t##_18, tramp_##t##_19,      \
     tramp_##t##_20, tramp_##t##_21, tramp_##t##_22, tramp_##t##_23}

TRAMPS_OF(0) TRAMPS_OF(1) TRAMPS_OF(2) TRAMPS_OF(3) TRAMPS_OF(4) TRAMPS_OF(5)

static const raw_slot trampolines[][TRAMPS] = {ROW(0), ROW(1), ROW(2), ROW(3), ROW(4), ROW(5)};
_Static_assert(sizeof trampolines / sizeof trampolines[0] == NTABLES, "a row per table");

/* The traced copy of table t (real: what the driver returned), or NULL to pass it on. */
static const void *copy_of(unsigned t, const void *real, const char **why)
{
    struct table *tb = &tables[t];
    if (tb->mode == UNCHANGED) {
        *why = tb->why;
        return NULL;
    }
    pthread_mutex_lock(&lock);
    const void *out = NULL;
    if (tb->real_table == real) {
        out = tb->copy;
    } else if (tb->real_table != NULL) {
        *why = "the driver returned a different table than before";
    } else {
        void *const *slots = real;
        size_t n = tb->mode == SIZED ? (uintptr_t)slots[0] / sizeof(void *) : tb->unsized_slots;
        size_t first = tb->mode == SIZED ? 1 : 0;
        if (n == 0 || n > MAX_COPY) {
            *why = "its size word is out of range";
        } else {
            memcpy(tb->copy, slots, n * sizeof(void *));
            for (size_t s = first; s < n && s < TRAMPS; s++) {
                tb->real[s] = slots[s];
                if (slots[s] != NULL)
                    tb->copy[s] = (void *)trampolines[t][s];
            }
            tb->real_table = real;
            out = tb->copy;
        }
    }
    pthread_mutex_unlock(&lock);
    return out;
}

void *pyshim_tracer_real_cuGetExportTable;
unsigned long pyshim_tracer_calls_cuGetExportTable;

PT_API CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    void *fn = pt_resolve(&pyshim_tracer_real_cuGetExportTable, "cuGetExportTable");
    if (fn == NULL)
        return CUDA_ERROR_NOT_FOUND;
    uint64_t t0 = pt_now();
    CUresult r = ((CUresult(*)(const void **, const CUuuid *))fn)(ppExportTable,
                                                                  pExportTableId);
    uint64_t t1 = pt_now();
    int saved = errno;
    /* NOT_FOUND answers cudart's probe table: routine, not an error */
    pt_tally(&pyshim_tracer_calls_cuGetExportTable, "cuGetExportTable", 0, NULL);
    const struct table *known = NULL;
    unsigned t = 0;
    for (; pExportTableId != NULL && t < NTABLES; t++) {
        if (memcmp(tables[t].uuid, pExportTableId->bytes, 16) == 0) {
            known = &tables[t];
            break;
        }
    }
    const void *real = r == CUDA_SUCCESS && ppExportTable != NULL ? *ppExportTable : NULL;
    const char *why = "unknown table";
    const void *copy = NULL;
    if (known != NULL && real != NULL) {
        copy = copy_of(t, real, &why);
        if (copy != NULL)
            *ppExportTable = copy;
    }
    struct pt_line L;
    pt_begin(&L, "cuGetExportTable");
    pt_name(&L, "ppExportTable");
    pt_v_hex(&L, (unsigned long long)(uintptr_t)ppExportTable);
    if (real != NULL) {
        pt_v_text(&L, "->");
        pt_v_hex(&L, (unsigned long long)(uintptr_t)real);
    }
    pt_name(&L, "pExportTableId");
    if (known != NULL) {
        pt_v_text(&L, known->name);
    } else if (pExportTableId != NULL) {
        const unsigned char *u = (const unsigned char *)pExportTableId->bytes;
        pt_v_fmt(&L, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
                 u[12], u[13], u[14], u[15]);
    } else {
        pt_v_text(&L, "NULL");
    }
    pt_close(&L);
    pt_v_text(&L, " = ");
    pt_v_enum(&L, r, pt_enum_cudaError_enum(r));
    if (copy != NULL)
        pt_v_fmt(&L, " [traced copy at 0x%lx]", (unsigned long)(uintptr_t)copy);
    else if (real != NULL)
        pt_v_fmt(&L, " [passed through unchanged: %s]", why);
    pt_finish(&L, t1 - t0);
    errno = saved;
    return r;
}
