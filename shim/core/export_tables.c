/*
 * cuGetExportTable: the private ("dark") tables cudart asks for by UUID
 * (notes/cuda-driver-contract.md). Tables are static, so their addresses are stable: the
 * integrity hash covers them. Slots cudart is not known to use hold a function that logs
 * its table and slot and fails, so a new use shows up in the log instead of a crash.
 */
#include <string.h>

#include "internal.h"

CUresult pyshim_integrity_slot1(uint32_t version, uint64_t unix_time, uint8_t out[16]);

#define SLOTS 16

/* ---- logging stubs for unused slots ---- */
#define UNUSED_SLOT(table, n)                                                   \
    __attribute__((unused)) static CUresult unused_##table##_##n(void)                                \
    {                                                                           \
        pyshim_log("export table %s slot %d called: not implemented", #table, n); \
        return CUDA_ERROR_NOT_SUPPORTED;                                        \
    }
#define UNUSED_SLOTS(table)                                                                 \
    UNUSED_SLOT(table, 1) UNUSED_SLOT(table, 2) UNUSED_SLOT(table, 3) UNUSED_SLOT(table, 4) \
    UNUSED_SLOT(table, 5) UNUSED_SLOT(table, 6) UNUSED_SLOT(table, 7) UNUSED_SLOT(table, 8) \
    UNUSED_SLOT(table, 9) UNUSED_SLOT(table, 10) UNUSED_SLOT(table, 11)                    \
    UNUSED_SLOT(table, 12) UNUSED_SLOT(table, 13) UNUSED_SLOT(table, 14)                   \
    UNUSED_SLOT(table, 15)
#define S(table, n) ((void *)unused_##table##_##n)
#define SIZE_WORD ((void *)(uintptr_t)(SLOTS * sizeof(void *)))

UNUSED_SLOTS(cudart)
UNUSED_SLOTS(hooks)
UNUSED_SLOTS(tls)
UNUSED_SLOTS(checks)
UNUSED_SLOTS(integrity)

/* ---- CUDART_INTERFACE ---- */
static CUresult cudart_get_primary_ctx(CUcontext *pctx, CUdevice dev)
{
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    CUcontext ctx = pyshim_primary_ctx(dev);
    if (ctx == NULL)
        return CUDA_ERROR_INVALID_DEVICE;
    *pctx = ctx;
    return CUDA_SUCCESS;
}

static void *const cudart_interface[SLOTS] = {
    SIZE_WORD, S(cudart, 1), (void *)cudart_get_primary_ctx, S(cudart, 3), S(cudart, 4),
    S(cudart, 5), S(cudart, 6), S(cudart, 7), S(cudart, 8), S(cudart, 9), S(cudart, 10),
    S(cudart, 11), S(cudart, 12), S(cudart, 13), S(cudart, 14), S(cudart, 15),
};

/* ---- TOOLS_RUNTIME_CALLBACK_HOOKS: two zeroed buffers cudart fills in ---- */
static void *hooks_buffer2[1024];
static uint8_t hooks_buffer6[256];

static void hooks_slot2(void **buf, size_t *n)
{
    if (buf != NULL)
        *buf = hooks_buffer2;
    if (n != NULL)
        *n = sizeof hooks_buffer2 / sizeof hooks_buffer2[0];
}

static void hooks_slot6(void **buf, size_t *n)
{
    if (buf != NULL)
        *buf = hooks_buffer6;
    if (n != NULL)
        *n = sizeof hooks_buffer6;
}

static void *const hooks[SLOTS] = {
    SIZE_WORD, S(hooks, 1), (void *)hooks_slot2, S(hooks, 3), S(hooks, 4), S(hooks, 5),
    (void *)hooks_slot6, S(hooks, 7), S(hooks, 8), S(hooks, 9), S(hooks, 10), S(hooks, 11),
    S(hooks, 12), S(hooks, 13), S(hooks, 14), S(hooks, 15),
};

/* ---- TOOLS_TLS: only has to exist ---- */
static void *const tools_tls[SLOTS] = {
    SIZE_WORD, S(tls, 1), S(tls, 2), S(tls, 3), S(tls, 4), S(tls, 5), S(tls, 6), S(tls, 7),
    S(tls, 8), S(tls, 9), S(tls, 10), S(tls, 11), S(tls, 12), S(tls, 13), S(tls, 14), S(tls, 15),
};

/* ---- CONTEXT_LOCAL_STORAGE: no size word ---- */
static CUresult cls_insert(CUcontext ctx, void *key, void *value,
                           void (*dtor)(CUcontext, void *, void *))
{
    return pyshim_cls_insert(ctx, key, value, dtor);
}

static CUresult cls_remove(CUcontext ctx, void *key)
{
    return pyshim_cls_remove(ctx, key);
}

static CUresult cls_get(void **value, CUcontext ctx, void *key)
{
    return pyshim_cls_get(value, ctx, key);
}

static void *const context_local_storage[4] = {
    (void *)cls_insert, (void *)cls_remove, (void *)cls_get, NULL,
};

/* ---- CONTEXT_CHECKS ---- */
static CUresult checks_slot2(CUcontext ctx, uint32_t *r1, void **r2)
{
    (void)ctx;
    (void)r2;
    if (r1 != NULL)
        *r1 = 0;
    return CUDA_SUCCESS;
}

static CUresult checks_slot3(void)
{
    return CUDA_SUCCESS;
}

static void *const context_checks[SLOTS] = {
    SIZE_WORD, S(checks, 1), (void *)checks_slot2, (void *)checks_slot3, S(checks, 4),
    S(checks, 5), S(checks, 6), S(checks, 7), S(checks, 8), S(checks, 9), S(checks, 10),
    S(checks, 11), S(checks, 12), S(checks, 13), S(checks, 14), S(checks, 15),
};

/* ---- INTEGRITY_CHECK ---- */
static void *const integrity[SLOTS] = {
    SIZE_WORD, (void *)pyshim_integrity_slot1, S(integrity, 2), S(integrity, 3),
    S(integrity, 4), S(integrity, 5), S(integrity, 6), S(integrity, 7), S(integrity, 8),
    S(integrity, 9), S(integrity, 10), S(integrity, 11), S(integrity, 12), S(integrity, 13),
    S(integrity, 14), S(integrity, 15),
};

const void *pyshim_export_table_cudart_interface(void)
{
    return cudart_interface;
}

const void *pyshim_export_table_integrity(void)
{
    return integrity;
}

struct table_entry {
    uint8_t uuid[16];
    const char *name;
    const void *table; /* NULL: answered with CUDA_ERROR_NOT_FOUND on purpose */
};

static const struct table_entry tables[] = {
    {{0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d,
      0xd9},
     "probe", NULL},
    {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d,
      0xf9},
     "CUDART_INTERFACE", cudart_interface},
    {{0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a,
      0x66},
     "TOOLS_RUNTIME_CALLBACK_HOOKS", hooks},
    {{0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec,
      0xdc},
     "TOOLS_TLS", tools_tls},
    {{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95,
      0x93},
     "CONTEXT_LOCAL_STORAGE", context_local_storage},
    {{0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa,
      0x7e},
     "CONTEXT_CHECKS", context_checks},
    {{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1,
      0xf2},
     "INTEGRITY_CHECK", integrity},
};

CUresult CUDAAPI cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    if (ppExportTable == NULL || pExportTableId == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        if (memcmp(tables[i].uuid, pExportTableId->bytes, 16) != 0)
            continue;
        if (pyshim_trace_enabled())
            pyshim_log("cuGetExportTable(%s)", tables[i].name);
        if (tables[i].table == NULL) {
            *ppExportTable = NULL;
            return CUDA_ERROR_NOT_FOUND;
        }
        *ppExportTable = tables[i].table;
        return CUDA_SUCCESS;
    }
    const uint8_t *u = (const uint8_t *)pExportTableId->bytes;
    pyshim_log("cuGetExportTable: unknown table %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
               "%02x%02x%02x%02x%02x%02x",
               u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
               u[13], u[14], u[15]);
    *ppExportTable = NULL;
    return CUDA_ERROR_NOT_FOUND;
}
