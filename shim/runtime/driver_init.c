/*
 * NVIDIA's runtime initialises the driver on its first call (it opens libcuda.so.1 and
 * calls cuInit), so a program that calls cudaGetDeviceCount and then the driver API
 * directly (cuDeviceGet, as ggml does) never calls cuInit itself and relies on that.
 * pyshim's runtime drives HIP, not libcuda, but does the same for the driver's sake:
 * on the first runtime call, once. Without a libcuda.so.1 (none on the library path) the
 * runtime still works: the driver API is then simply absent.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>

#include "internal.h"

volatile int pyshim_rt_driver_ready;
struct pyshim_rt_driver pyshim_rt_driver;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The entry points context.c makes contexts current with; all of them, or none. */
static void find_context_calls(void *lib)
{
    struct pyshim_rt_driver d = {0};
    *(void **)&d.primary_retain = dlsym(lib, "cuDevicePrimaryCtxRetain");
    *(void **)&d.primary_release = dlsym(lib, "cuDevicePrimaryCtxRelease_v2");
    *(void **)&d.ctx_get_current = dlsym(lib, "cuCtxGetCurrent");
    *(void **)&d.ctx_set_current = dlsym(lib, "cuCtxSetCurrent");
    if (d.primary_retain == NULL || d.primary_release == NULL || d.ctx_get_current == NULL ||
        d.ctx_set_current == NULL) {
        pyshim_rt_log("libcuda.so.1 lacks the context calls: the driver API will see no "
                      "current context from the runtime");
        return;
    }
    d.present = 1;
    *(void **)&d.module_load_data = dlsym(lib, "cuModuleLoadData");
    *(void **)&d.module_get_function = dlsym(lib, "cuModuleGetFunction");
    *(void **)&d.module_unload = dlsym(lib, "cuModuleUnload");
    *(void **)&d.logs_register = dlsym(lib, "cuLogsRegisterCallback");
    *(void **)&d.logs_unregister = dlsym(lib, "cuLogsUnregisterCallback");
    *(void **)&d.logs_current = dlsym(lib, "cuLogsCurrent");
    *(void **)&d.logs_to_file = dlsym(lib, "cuLogsDumpToFile");
    *(void **)&d.logs_to_memory = dlsym(lib, "cuLogsDumpToMemory");
    pyshim_rt_driver = d;
}

static void init_driver(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (lib != NULL) {
        int (*cu_init)(unsigned int) = (int (*)(unsigned int))dlsym(lib, "cuInit");
        int rc = cu_init != NULL ? cu_init(0) : -1;
        if (rc != 0)
            pyshim_rt_log("the driver did not initialise (cuInit: %d)", rc);
        else
            find_context_calls(lib);
    }
    __atomic_store_n(&pyshim_rt_driver_ready, 1, __ATOMIC_RELEASE);
}

void pyshim_rt_driver_init(void)
{
    pthread_once(&once, init_driver);
}
