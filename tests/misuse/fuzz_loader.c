/*
 * Feeds mutated module images to the driver API's loader, one process for all of them, so
 * thousands cost seconds: argv[1] is a file of records (u32 mode, u32 length, bytes). The
 * image is placed at the end of its own mapping, right before an unmapped page, so a read
 * past the end of what the record holds faults instead of reading neighbours. Modes:
 *   0 cuModuleLoadData (eager: the C sizing, then the Python parser and translator)
 *   1 cuLibraryLoadData (lazy: only the C sizing and copy)
 *   2 cuModuleLoadFatBinary through a v1 __fatBinC_Wrapper_t pointing at the image
 *   3 cuLibraryLoadData through a v2 wrapper whose aux list holds the image twice
 * Prints one line per distinct result; a crash or a hang prints the record's index.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <cuda.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile sig_atomic_t current = -1;

static void say(const char *what)
{
    char buf[96];
    int n = snprintf(buf, sizeof buf, "%s at record %d\n", what, (int)current);
    if (write(2, buf, (size_t)n) < 0)
        _exit(5);
}

static void on_crash(int sig)
{
    say(sig == SIGALRM ? "HANG" : "CRASH");
    _exit(sig == SIGALRM ? 4 : 3);
}

struct wrapper {
    uint32_t magic, version;
    const void *data;
    const void *aux;
};

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int per_record_s = argc > 2 ? atoi(argv[2]) : 60;
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL)
        return 2;
    signal(SIGALRM, on_crash);
    CUcontext ctx;
    CUdevice dev;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        return 2;
    /* installed after cuInit: our handlers are the ones the library chains to */
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGABRT, on_crash);
    signal(SIGFPE, on_crash);
    long counts[1024] = {0};
    long records = 0;
    long page = sysconf(_SC_PAGESIZE);
    for (;;) {
        uint32_t hdr[2];
        if (fread(hdr, sizeof hdr, 1, f) != 1)
            break;
        uint32_t mode = hdr[0], len = hdr[1];
        size_t span = ((size_t)len + (size_t)page - 1) / (size_t)page * (size_t)page + (size_t)page;
        uint8_t *map = mmap(NULL, span + (size_t)page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED)
            return 2;
        munmap(map + span, (size_t)page);   /* the guard page after the image */
        uint8_t *img = map + span - len;
        if (len > 0 && fread(img, len, 1, f) != 1)
            return 2;
        current = (int)records;
        alarm((unsigned)per_record_s);
        CUresult rc;
        CUmodule mod = NULL;
        CUlibrary lib = NULL;
        struct wrapper w = {0x466243b1u, 1, img, NULL};
        const void *aux[3] = {img, img, NULL};
        switch (mode) {
        case 0:
            rc = cuModuleLoadData(&mod, img);
            break;
        case 1:
            rc = cuLibraryLoadData(&lib, img, NULL, NULL, 0, NULL, NULL, 0);
            break;
        case 2:
            rc = cuModuleLoadFatBinary(&mod, &w);
            break;
        default:
            w.version = 2;
            w.aux = aux;
            rc = cuLibraryLoadData(&lib, &w, NULL, NULL, 0, NULL, NULL, 0);
            break;
        }
        alarm(0);
        if (mod != NULL && rc == CUDA_SUCCESS)
            cuModuleUnload(mod);
        if (lib != NULL && rc == CUDA_SUCCESS)
            cuLibraryUnload(lib);
        counts[(unsigned)rc < 1024 ? (unsigned)rc : 1023]++;
        records++;
        munmap(map, span);
    }
    for (int i = 0; i < 1024; i++)
        if (counts[i]) {
            const char *name = NULL;
            cuGetErrorName((CUresult)i, &name);
            printf("result %s %ld\n", name ? name : "?", counts[i]);
        }
    printf("records %ld\n", records);
    return 0;
}
