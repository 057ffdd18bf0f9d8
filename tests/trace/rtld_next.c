/*
 * dlsym(RTLD_NEXT, ...) must stay relative to its caller when libpyshim_trace.so (which
 * wraps dlsym) is preloaded. From the main program, "the next cuInit" is the first one
 * after the program in the search order: the tracer's wrapper, the same one
 * dlsym(RTLD_DEFAULT) finds. Were the lookup made relative to the tracer itself, it would
 * skip the wrapper and return libcuda's. Prints "PASS rtld_next" or a FAIL line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
    void *next = dlsym(RTLD_NEXT, "cuInit");
    void *first = dlsym(RTLD_DEFAULT, "cuInit");
    Dl_info info;
    if (next == NULL || first == NULL || !dladdr(next, &info)) {
        printf("FAIL rtld_next: cuInit not found\n");
        return 1;
    }
    printf("cuInit via RTLD_NEXT is in %s\n", info.dli_fname);
    if (next != first) {
        printf("FAIL rtld_next: RTLD_NEXT %p, RTLD_DEFAULT %p\n", next, first);
        return 1;
    }
    printf("PASS rtld_next\n");
    return 0;
}
