/*
 * The shim's libcuda.so.1 as cudart sees it: loaded with dlopen, entered through
 * cuGetProcAddress_v2 and the export tables (notes/cuda-driver-contract.md).
 * Usage: test_driver_core /path/to/libcuda.so.1   (libamdhip64.so.7 on LD_LIBRARY_PATH)
 * Prints one "ok"/"FAIL" line per check; exit status 1 if any failed.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h" /* pyshim_integrity_hmac, compiled in from integrity.c */

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
                                CUdriverProcAddressQueryResult *);
typedef CUresult (*get_proc_v1_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*export_fn)(const void **, const CUuuid *);

static int failures;
static void *lib;
static get_proc_fn get_proc;

#define EXPECT(cond, ...)                                                                \
    do {                                                                                 \
        if (cond) {                                                                      \
            printf("ok ");                                                               \
        } else {                                                                         \
            failures++;                                                                  \
            printf("FAIL ");                                                             \
        }                                                                                \
        printf(__VA_ARGS__);                                                             \
        printf("\n");                                                                    \
    } while (0)

static void *proc(const char *name, int version, cuuint64_t flags, CUresult *rc,
                  CUdriverProcAddressQueryResult *st)
{
    void *fn = NULL;
    *rc = get_proc(name, &fn, version, flags, st);
    return fn;
}

static void check_proc(const char *name, int version, cuuint64_t flags, const char *symbol)
{
    CUresult rc;
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
    void *fn = proc(name, version, flags, &rc, &st);
    void *want = dlsym(lib, symbol);
    EXPECT(rc == CUDA_SUCCESS && st == CU_GET_PROC_ADDRESS_SUCCESS && want != NULL && fn == want,
           "cuGetProcAddress(%s, %d, %llu) -> %s", name, version, (unsigned long long)flags,
           symbol);
}

static const uint8_t UUID_CUDART[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                        0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
static const uint8_t UUID_HOOKS[16] = {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
                                       0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66};
static const uint8_t UUID_TLS[16] = {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47,
                                     0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc};
static const uint8_t UUID_CLS[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
                                     0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
static const uint8_t UUID_CHECKS[16] = {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43,
                                        0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e};
static const uint8_t UUID_INTEGRITY[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                                           0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};
/* cuda-bindings' static cudart refuses every runtime call without this one (issue 15) */
static const uint8_t UUID_TOOLS_CONTEXT[16] = {0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48,
                                               0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8, 0xf2};
static const uint8_t UUID_PROBE[16] = {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e,
                                       0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9};

static void *const *table(export_fn get, const uint8_t uuid[16], CUresult *rc)
{
    CUuuid id;
    memcpy(id.bytes, uuid, 16);
    const void *t = NULL;
    *rc = get(&t, &id);
    return (void *const *)t;
}

/* ---- context-local storage ---- */
typedef CUresult (*cls_insert_fn)(CUcontext, void *, void *, void (*)(CUcontext, void *, void *));
typedef CUresult (*cls_remove_fn)(CUcontext, void *);
typedef CUresult (*cls_get_fn)(void **, CUcontext, void *);

static int dtor_calls;
static void dtor(CUcontext ctx, void *key, void *value)
{
    (void)ctx;
    (void)key;
    (void)value;
    dtor_calls++;
}

struct thread_args {
    cls_get_fn get;
    CUresult rc;
};

static void *cls_from_other_thread(void *arg)
{
    struct thread_args *a = arg;
    void *v = NULL;
    a->rc = a->get(&v, NULL, (void *)0x1); /* no current context on a new thread */
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s libcuda.so.1\n", argv[0]);
        return 2;
    }
    lib = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL); /* as cudart does */
    if (lib == NULL) {
        printf("FAIL dlopen: %s\n", dlerror());
        return 1;
    }
    get_proc = (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2");
    EXPECT(get_proc != NULL, "cuGetProcAddress_v2 is exported");
    EXPECT(dlsym(lib, "cuMemAlloc_v2") != NULL, "versioned names are exported too");
    EXPECT(dlsym(lib, "pyshim_unsupported") == NULL, "internal symbols are not exported");
    if (get_proc == NULL)
        return 1;

    /* ---- cuGetProcAddress rules ---- */
    check_proc("cuMemAlloc", 3020, 0, "cuMemAlloc_v2");
    check_proc("cuMemAlloc", 12000, 0, "cuMemAlloc_v2");
    check_proc("cuCtxSynchronize", 2000, 0, "cuCtxSynchronize");
    check_proc("cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2");
    check_proc("cuCtxGetDevice", 13000, 0, "cuCtxGetDevice_v2");
    check_proc("cuEventElapsedTime", 12080, 0, "cuEventElapsedTime_v2");
    check_proc("cuLaunchKernel", 7000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
               "cuLaunchKernel_ptsz");
    check_proc("cuLaunchKernel", 7000, 0, "cuLaunchKernel");
    check_proc("cuMemcpyHtoD", 7000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
               "cuMemcpyHtoD_v2_ptds");
    /* no per-thread variant: the default one */
    check_proc("cuInit", 2000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuInit");
    check_proc("cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2");
    check_proc("cuGetProcAddress", 11030, 0, "cuGetProcAddress");

    CUresult rc;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
    void *fn = proc("cuNoSuchFunction", 13000, 0, &rc, &st);
    EXPECT(rc == CUDA_ERROR_NOT_FOUND && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND && fn == NULL,
           "unknown name -> CUDA_ERROR_NOT_FOUND, SYMBOL_NOT_FOUND");
    fn = proc("cuMemAlloc", 1000, 0, &rc, &st);
    EXPECT(rc == CUDA_ERROR_NOT_FOUND && st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
           "version older than any variant -> VERSION_NOT_SUFFICIENT");
    get_proc_v1_fn v1 = (get_proc_v1_fn)dlsym(lib, "cuGetProcAddress");
    fn = NULL;
    EXPECT(v1 != NULL && v1("cuMemFree", &fn, 3020, 0) == CUDA_SUCCESS &&
               fn == dlsym(lib, "cuMemFree_v2"),
           "cuGetProcAddress (11.3 ABI) works");

    /* ---- through the proc table, as cudart does ---- */
    CUresult (*init)(unsigned) = (CUresult (*)(unsigned))proc("cuInit", 2000, 0, &rc, &st);
    CUresult (*version)(int *) = (CUresult (*)(int *))proc("cuDriverGetVersion", 2020, 0, &rc, &st);
    int v = 0;
    EXPECT(version(&v) == CUDA_SUCCESS && v >= 13000, "cuDriverGetVersion reports %d", v);
    rc = init(0);
    EXPECT(rc == CUDA_SUCCESS, "cuInit(0) = %d", rc);
    if (rc != CUDA_SUCCESS)
        return 1;

    /* ---- all 111 attributes cudart asks for succeed ---- */
    static const int attrs[] = {
        75, 76, 40, 16, 18, 19, 21, 77, 22, 23, 73, 74, 70, 71, 72, 45, 46, 24, 25, 26, 47,
        48, 49, 52, 42, 43, 27, 28, 29, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65,
        66, 67, 68, 31, 32, 33, 34, 50, 35, 41, 37, 38, 108, 39, 30, 51, 8, 97, 81, 12, 82,
        10, 11, 1, 2, 3, 4, 5, 6, 7, 9, 14, 78, 79, 80, 83, 84, 85, 86, 88, 89, 90, 91, 95,
        100, 101, 106, 109, 111, 99, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 125,
        129, 130, 131, 133, 134, 139, 140, 143};
    CUresult (*attr)(int *, CUdevice_attribute, CUdevice) =
        (CUresult (*)(int *, CUdevice_attribute, CUdevice))dlsym(lib, "cuDeviceGetAttribute");
    int bad = 0, nattrs = (int)(sizeof attrs / sizeof attrs[0]);
    for (int i = 0; i < nattrs; i++) {
        int value = -12345;
        if (attr(&value, (CUdevice_attribute)attrs[i], 0) != CUDA_SUCCESS || value == -12345) {
            bad++;
            printf("  attribute %d failed\n", attrs[i]);
        }
    }
    EXPECT(nattrs == 111 && bad == 0, "%d device attributes answered", nattrs - bad);
    int warp = 0, threads = 0;
    attr(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0);
    attr(&threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0);
    EXPECT((warp == 32 || warp == 64) && threads >= 256, "warp %d, %d threads per block", warp,
           threads);
    EXPECT(attr(&warp, (CUdevice_attribute)100000, 0) == CUDA_ERROR_INVALID_VALUE,
           "an unknown attribute is CUDA_ERROR_INVALID_VALUE");
    EXPECT(attr(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 99) == CUDA_ERROR_INVALID_DEVICE,
           "a bad ordinal is CUDA_ERROR_INVALID_DEVICE");

    /* ---- export tables ---- */
    export_fn get_table = (export_fn)dlsym(lib, "cuGetExportTable");
    void *const *cudart = table(get_table, UUID_CUDART, &rc);
    EXPECT(rc == CUDA_SUCCESS && cudart != NULL, "CUDART_INTERFACE");
    void *const *again = table(get_table, UUID_CUDART, &rc);
    EXPECT(again == cudart, "export table addresses are stable");
    (void)table(get_table, UUID_PROBE, &rc);
    EXPECT(rc == CUDA_ERROR_NOT_FOUND, "the probe UUID is refused with NOT_FOUND");
    uint8_t unknown[16] = {1, 2, 3};
    (void)table(get_table, unknown, &rc);
    EXPECT(rc == CUDA_ERROR_NOT_FOUND, "an unknown UUID is refused with NOT_FOUND");

    CUcontext primary = NULL;
    CUresult (*get_primary)(CUcontext *, CUdevice) =
        (CUresult (*)(CUcontext *, CUdevice))cudart[2];
    EXPECT(get_primary(&primary, 0) == CUDA_SUCCESS && primary != NULL,
           "CUDART_INTERFACE[2] gives the primary context before any retain");

    void *const *hooks = table(get_table, UUID_HOOKS, &rc);
    EXPECT(rc == CUDA_SUCCESS && (uintptr_t)hooks[0] >= 56, "HOOKS size word %zu",
           (size_t)(uintptr_t)hooks[0]);
    void *buf = NULL;
    size_t n = 0;
    ((void (*)(void **, size_t *))hooks[2])(&buf, &n);
    int zeroed = buf != NULL && n >= 523;
    for (size_t i = 0; zeroed && i < n; i++)
        zeroed = ((void **)buf)[i] == NULL;
    EXPECT(zeroed, "HOOKS[2] gives %zu zeroed pointer slots", n);
    ((void (*)(void **, size_t *))hooks[6])(&buf, &n);
    EXPECT(buf != NULL && n >= 14, "HOOKS[6] gives %zu bytes", n);
    (void)table(get_table, UUID_TLS, &rc);
    EXPECT(rc == CUDA_SUCCESS, "TOOLS_TLS");

    void *const *tctx = table(get_table, UUID_TOOLS_CONTEXT, &rc);
    EXPECT(rc == CUDA_SUCCESS && tctx != NULL && (uintptr_t)tctx[0] >= 5 * sizeof(void *),
           "TOOLS_CONTEXT exists with a size word covering slot 4");
    unsigned long long id4 = 0, id_api = 1;
    CUresult (*get_id)(CUcontext, unsigned long long *) =
        (CUresult (*)(CUcontext, unsigned long long *))dlsym(lib, "cuCtxGetId");
    EXPECT(rc == CUDA_SUCCESS &&
               ((CUresult (*)(CUcontext, unsigned long long *))tctx[4])(primary, &id4) ==
                   CUDA_SUCCESS &&
               get_id(primary, &id_api) == CUDA_SUCCESS && id4 == id_api,
           "TOOLS_CONTEXT[4] is the context's id, as cuCtxGetId (%llu, %llu)", id4, id_api);
    EXPECT(rc == CUDA_SUCCESS && ((CUresult (*)(void))tctx[7])() == CUDA_ERROR_NOT_SUPPORTED,
           "an unimplemented TOOLS_CONTEXT slot fails instead of crashing");

    void *const *checks = table(get_table, UUID_CHECKS, &rc);
    uint32_t r1 = 77;
    void *r2 = NULL;
    EXPECT(rc == CUDA_SUCCESS && checks[3] != NULL &&
               ((CUresult (*)(CUcontext, uint32_t *, void **))checks[2])(primary, &r1, &r2) ==
                   CUDA_SUCCESS &&
               r1 == 0,
           "CONTEXT_CHECKS[2] writes 0, [3] exists");

    /* ---- context-local storage ---- */
    void *const *cls = table(get_table, UUID_CLS, &rc);
    EXPECT(rc == CUDA_SUCCESS, "CONTEXT_LOCAL_STORAGE");
    cls_insert_fn cls_insert = (cls_insert_fn)cls[0];
    cls_remove_fn cls_remove = (cls_remove_fn)cls[1];
    cls_get_fn cls_get = (cls_get_fn)cls[2];
    void *value = NULL;
    EXPECT(cls_get(&value, NULL, (void *)0x1) == CUDA_ERROR_INVALID_CONTEXT,
           "CLS get with no current context -> INVALID_CONTEXT");
    CUresult (*set_current)(CUcontext) = (CUresult (*)(CUcontext))dlsym(lib, "cuCtxSetCurrent");
    EXPECT(set_current(primary) == CUDA_SUCCESS, "cuCtxSetCurrent(primary) before retain");
    EXPECT(cls_get(&value, NULL, (void *)0x1) == CUDA_ERROR_INVALID_VALUE,
           "CLS get of an absent key -> INVALID_VALUE");
    EXPECT(cls_insert(NULL, (void *)0x1, (void *)0xabc, dtor) == CUDA_SUCCESS &&
               cls_get(&value, NULL, (void *)0x1) == CUDA_SUCCESS && value == (void *)0xabc,
           "CLS insert/get on the current context");
    value = NULL;
    EXPECT(cls_get(&value, primary, (void *)0x1) == CUDA_SUCCESS && value == (void *)0xabc,
           "CLS get naming the context");

    /* a second context has its own storage */
    CUresult (*ctx_create)(CUcontext *, unsigned, CUdevice) =
        (CUresult (*)(CUcontext *, unsigned, CUdevice))dlsym(lib, "cuCtxCreate_v2");
    CUresult (*ctx_destroy)(CUcontext) = (CUresult (*)(CUcontext))dlsym(lib, "cuCtxDestroy_v2");
    CUresult (*ctx_current)(CUcontext *) = (CUresult (*)(CUcontext *))dlsym(lib, "cuCtxGetCurrent");
    CUcontext other = NULL, cur = NULL;
    EXPECT(ctx_create(&other, 0, 0) == CUDA_SUCCESS && other != primary &&
               ctx_current(&cur) == CUDA_SUCCESS && cur == other,
           "cuCtxCreate makes a new current context");
    EXPECT(cls_get(&value, NULL, (void *)0x1) == CUDA_ERROR_INVALID_VALUE,
           "CLS is per context, not process-wide");
    EXPECT(cls_insert(other, (void *)0x1, (void *)0xdef, dtor) == CUDA_SUCCESS,
           "CLS insert on the second context");
    dtor_calls = 0;
    EXPECT(ctx_destroy(other) == CUDA_SUCCESS && dtor_calls == 1,
           "destroying a context runs its CLS destructors");
    EXPECT(ctx_current(&cur) == CUDA_SUCCESS && cur == primary,
           "the primary context is current again");
    value = NULL;
    EXPECT(cls_get(&value, NULL, (void *)0x1) == CUDA_SUCCESS && value == (void *)0xabc,
           "the primary context's CLS is intact");

    pthread_t th;
    struct thread_args targs = {cls_get, CUDA_SUCCESS};
    pthread_create(&th, NULL, cls_from_other_thread, &targs);
    pthread_join(th, NULL);
    EXPECT(targs.rc == CUDA_ERROR_INVALID_CONTEXT,
           "the current context is per thread (a new thread has none)");
    EXPECT(cls_remove(NULL, (void *)0x1) == CUDA_SUCCESS &&
               cls_get(&value, NULL, (void *)0x1) == CUDA_ERROR_INVALID_VALUE,
           "CLS remove");

    /* ---- integrity check ---- */
    void *const *integrity = table(get_table, UUID_INTEGRITY, &rc);
    typedef CUresult (*slot1_fn)(uint32_t, uint64_t, uint8_t *);
    slot1_fn slot1 = (slot1_fn)integrity[1];
    uint8_t out[16];
    static const uint8_t fixed[16] = {0x5c, 0x67, 0xcb, 0x03, 0x1c, 0x18, 0x41, 0x33,
                                      0xe8, 0xd1, 0x4c, 0x1f, 0xaa, 0x83, 0xd3, 0x8e};
    EXPECT(slot1(13000, 1, out) == CUDA_SUCCESS && memcmp(out, fixed, 16) == 0,
           "INTEGRITY[1] for version %% 10 == 0");
    EXPECT(slot1(13001, 1, out) == CUDA_SUCCESS && out[7] == 0x18 && memcmp(out, fixed, 7) == 0,
           "INTEGRITY[1] for version %% 10 == 1");

    uint64_t now = (uint64_t)time(NULL);
    EXPECT(slot1(13002, now, out) == CUDA_SUCCESS, "INTEGRITY[1](13002)");
    /* rebuild the message as cudart does, from what the driver told it */
    uint8_t msg[48 + 28], want[16];
    uint8_t *p = msg;
    uint32_t u32;
    uint64_t u64;
    CUuuid uuid;
    int domain = -1, bus = -1, devno = -1;
    CUresult (*get_uuid)(CUuuid *, CUdevice) =
        (CUresult (*)(CUuuid *, CUdevice))dlsym(lib, "cuDeviceGetUuid_v2");
    get_uuid(&uuid, 0);
    attr(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 0);
    attr(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0);
    attr(&devno, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 0);
    u32 = (uint32_t)v; memcpy(p, &u32, 4); p += 4;
    u32 = 13002; memcpy(p, &u32, 4); p += 4;
    u32 = (uint32_t)getpid(); memcpy(p, &u32, 4); p += 4;
    u32 = (uint32_t)pthread_self(); memcpy(p, &u32, 4); p += 4;
    u64 = (uint64_t)(uintptr_t)cudart; memcpy(p, &u64, 8); p += 8;
    u64 = (uint64_t)(uintptr_t)integrity; memcpy(p, &u64, 8); p += 8;
    u64 = (uint64_t)(uintptr_t)integrity[1]; memcpy(p, &u64, 8); p += 8;
    memcpy(p, &now, 8); p += 8;
    memcpy(p, uuid.bytes, 16); p += 16;
    u32 = (uint32_t)domain; memcpy(p, &u32, 4); p += 4;
    u32 = (uint32_t)bus; memcpy(p, &u32, 4); p += 4;
    u32 = (uint32_t)devno; memcpy(p, &u32, 4); p += 4;
    int ndev = 0;
    ((CUresult (*)(int *))dlsym(lib, "cuDeviceGetCount"))(&ndev);
    pyshim_integrity_hmac(msg, (size_t)(p - msg), want);
    EXPECT(ndev == 1 && memcmp(out, want, 16) == 0,
           "INTEGRITY[1](13002) hashes pid, tid, table addresses, time and the device");

    /* ---- error strings ---- */
    const char *s = NULL;
    CUresult (*err_name)(CUresult, const char **) =
        (CUresult (*)(CUresult, const char **))dlsym(lib, "cuGetErrorName");
    CUresult (*err_string)(CUresult, const char **) =
        (CUresult (*)(CUresult, const char **))dlsym(lib, "cuGetErrorString");
    EXPECT(err_name(CUDA_ERROR_NO_BINARY_FOR_GPU, &s) == CUDA_SUCCESS &&
               strcmp(s, "CUDA_ERROR_NO_BINARY_FOR_GPU") == 0,
           "cuGetErrorName");
    EXPECT(err_string(CUDA_ERROR_INVALID_VALUE, &s) == CUDA_SUCCESS &&
               strcmp(s, "invalid argument") == 0,
           "cuGetErrorString");
    EXPECT(err_name((CUresult)123456, &s) == CUDA_ERROR_INVALID_VALUE,
           "cuGetErrorName of a non-code");

    /* ---- an unsupported entry point refuses, without crashing ---- */
    void *gl = dlsym(lib, "cuGraphicsUnregisterResource");
    EXPECT(gl != NULL && ((CUresult (*)(void *))gl)(NULL) != CUDA_SUCCESS,
           "an unimplemented entry point returns an error");

    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures != 0;
}
