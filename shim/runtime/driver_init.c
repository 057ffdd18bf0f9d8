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
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_driver(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (lib != NULL) {
        int (*cu_init)(unsigned int) = (int (*)(unsigned int))dlsym(lib, "cuInit");
        int rc = cu_init != NULL ? cu_init(0) : -1;
        if (rc != 0)
            pyshim_rt_log("the driver did not initialise (cuInit: %d)", rc);
    }
    __atomic_store_n(&pyshim_rt_driver_ready, 1, __ATOMIC_RELEASE);
}

void pyshim_rt_driver_init(void)
{
    pthread_once(&once, init_driver);
}
