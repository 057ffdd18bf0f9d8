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

#include "export_tables.h"

#define TRAMPS 24    /* slots with a trampoline: the tables cudart uses have <= 16 */
#define MAX_COPY 256 /* a larger size word: too odd to copy, pass it through */

enum mode { SIZED, UNSIZED, UNCHANGED };

/* which tables exist and how each is traced: tables/export_tables.toml */
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

#define TABLE(id, text, uuid, slots, sized, traced, why)                                   \
    {uuid, text, !(traced) ? UNCHANGED : (sized) ? SIZED : UNSIZED, (sized) ? 0 : (slots), \
     why, NULL, {0}, {0}},
static struct table tables[] = {PYSHIM_EXPORT_TABLES(TABLE)};
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

#define MAX_TABLES 16 /* rows of trampolines; the spec may list up to this many tables */
TRAMPS_OF(0) TRAMPS_OF(1) TRAMPS_OF(2) TRAMPS_OF(3) TRAMPS_OF(4) TRAMPS_OF(5) TRAMPS_OF(6)
TRAMPS_OF(7) TRAMPS_OF(8) TRAMPS_OF(9) TRAMPS_OF(10) TRAMPS_OF(11) TRAMPS_OF(12)
TRAMPS_OF(13) TRAMPS_OF(14) TRAMPS_OF(15)

static const raw_slot trampolines[MAX_TABLES][TRAMPS] = {
    ROW(0), ROW(1), ROW(2),   ROW(3),   ROW(4),   ROW(5),   ROW(6),   ROW(7),
    ROW(8), ROW(9), ROW(10), ROW(11), ROW(12), ROW(13), ROW(14), ROW(15)};
_Static_assert(PYSHIM_EXPORT_TABLE_COUNT <= MAX_TABLES, "a row of trampolines per table");

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
