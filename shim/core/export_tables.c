/*
 * cuGetExportTable: the private ("dark") tables cudart and NVIDIA's libraries ask for by
 * UUID. Which tables exist, their UUIDs and slot counts come from tables/export_tables.toml
 * (through the generated export_tables.h), where the known slots are recorded as facts.
 * Tables are static, so their addresses are stable: the integrity hash covers them. Every
 * slot pyshim does not implement holds a function that logs its table and slot and fails,
 * so a new use shows up in the log instead of a crash. A table the spec gives no slots is
 * refused with CUDA_ERROR_NOT_FOUND, which callers check.
 */
#include <string.h>

#include "export_tables.h"
#include "internal.h"

CUresult pyshim_integrity_slot1(uint32_t version, uint64_t unix_time, uint8_t out[16]);

static CUresult unused_slot(const char *table, int slot)
{
    pyshim_log("export table %s slot %d called: not implemented", table, slot);
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* a logging stub for every slot of every table; the implemented slots replace theirs */
#define DEFINE_STUB(t, n) \
    static CUresult stub_##t##_##n(void) { return unused_slot(#t, n); }
#define STUB(t, n) [n] = (void *)stub_##t##_##n,
#define SIZE_WORD(t) [0] = (void *)(uintptr_t)(PYSHIM_ET_SLOTS_##t * sizeof(void *))

PYSHIM_ET_EACH_SLOT_CUDART_INTERFACE(DEFINE_STUB)
PYSHIM_ET_EACH_SLOT_TOOLS_RUNTIME_CALLBACK_HOOKS(DEFINE_STUB)
PYSHIM_ET_EACH_SLOT_TOOLS_TLS(DEFINE_STUB)
PYSHIM_ET_EACH_SLOT_CONTEXT_CHECKS(DEFINE_STUB)
PYSHIM_ET_EACH_SLOT_INTEGRITY_CHECK(DEFINE_STUB)
PYSHIM_ET_EACH_SLOT_TOOLS_CONTEXT(DEFINE_STUB)

/* the stubs come first in each initializer and the implemented slots override them */
#pragma GCC diagnostic ignored "-Woverride-init"

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

static void *const cudart_interface[PYSHIM_ET_SLOTS_CUDART_INTERFACE] = {
    SIZE_WORD(CUDART_INTERFACE),
    PYSHIM_ET_EACH_SLOT_CUDART_INTERFACE(STUB)
    [2] = (void *)cudart_get_primary_ctx,
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

static void *const hooks[PYSHIM_ET_SLOTS_TOOLS_RUNTIME_CALLBACK_HOOKS] = {
    SIZE_WORD(TOOLS_RUNTIME_CALLBACK_HOOKS),
    PYSHIM_ET_EACH_SLOT_TOOLS_RUNTIME_CALLBACK_HOOKS(STUB)
    [2] = (void *)hooks_slot2,
    [6] = (void *)hooks_slot6,
};

/* ---- TOOLS_TLS ---- */
static CUresult tls_current_ctx(CUcontext *pctx)
{
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = pyshim_current_ctx();
    return CUDA_SUCCESS;
}

static void *const tools_tls[PYSHIM_ET_SLOTS_TOOLS_TLS] = {
    SIZE_WORD(TOOLS_TLS),
    PYSHIM_ET_EACH_SLOT_TOOLS_TLS(STUB)
    [2] = (void *)tls_current_ctx,
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

static void *const context_local_storage[PYSHIM_ET_SLOTS_CONTEXT_LOCAL_STORAGE] = {
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

static void *const context_checks[PYSHIM_ET_SLOTS_CONTEXT_CHECKS] = {
    SIZE_WORD(CONTEXT_CHECKS),
    PYSHIM_ET_EACH_SLOT_CONTEXT_CHECKS(STUB)
    [2] = (void *)checks_slot2,
    [3] = (void *)checks_slot3,
};

/* ---- INTEGRITY_CHECK ---- */
static void *const integrity[PYSHIM_ET_SLOTS_INTEGRITY_CHECK] = {
    SIZE_WORD(INTEGRITY_CHECK),
    PYSHIM_ET_EACH_SLOT_INTEGRITY_CHECK(STUB)
    [1] = (void *)pyshim_integrity_slot1,
};

/* ---- TOOLS_CONTEXT: cudart needs it to exist; slot 4 is the context's id ---- */
static CUresult context_id(CUcontext ctx, unsigned long long *id)
{
    return cuCtxGetId(ctx, id);
}

static void *const tools_context[PYSHIM_ET_SLOTS_TOOLS_CONTEXT] = {
    SIZE_WORD(TOOLS_CONTEXT),
    PYSHIM_ET_EACH_SLOT_TOOLS_CONTEXT(STUB)
    [4] = (void *)context_id,
};

#pragma GCC diagnostic warning "-Woverride-init"

const void *pyshim_export_table_cudart_interface(void)
{
    return cudart_interface;
}

const void *pyshim_export_table_integrity(void)
{
    return integrity;
}

/* pyshim's table for a name of the spec; NULL: refused (CUDA_ERROR_NOT_FOUND) */
static const void *implementation(const char *name)
{
    static const struct {
        const char *name;
        const void *table;
    } impl[] = {
        {"CUDART_INTERFACE", cudart_interface},
        {"TOOLS_RUNTIME_CALLBACK_HOOKS", hooks},
        {"TOOLS_TLS", tools_tls},
        {"CONTEXT_LOCAL_STORAGE", context_local_storage},
        {"CONTEXT_CHECKS", context_checks},
        {"INTEGRITY_CHECK", integrity},
        {"TOOLS_CONTEXT", tools_context},
    };
    for (size_t i = 0; i < sizeof impl / sizeof impl[0]; i++)
        if (strcmp(impl[i].name, name) == 0)
            return impl[i].table;
    return NULL;
}

struct table_entry {
    uint8_t uuid[16];
    const char *name;
};

#define ENTRY(id, text, uuid, slots, sized, traced, why) {uuid, text},
static const struct table_entry tables[] = {PYSHIM_EXPORT_TABLES(ENTRY)};

CUresult CUDAAPI cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    if (ppExportTable == NULL || pExportTableId == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        if (memcmp(tables[i].uuid, pExportTableId->bytes, 16) != 0)
            continue;
        if (pyshim_trace_enabled())
            pyshim_log("cuGetExportTable(%s)", tables[i].name);
        const void *table = implementation(tables[i].name);
        *ppExportTable = table;
        return table != NULL ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
    }
    const uint8_t *u = (const uint8_t *)pExportTableId->bytes;
    pyshim_log("cuGetExportTable: unknown table %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
               "%02x%02x%02x%02x%02x%02x",
               u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
               u[13], u[14], u[15]);
    *ppExportTable = NULL;
    return CUDA_ERROR_NOT_FOUND;
}
