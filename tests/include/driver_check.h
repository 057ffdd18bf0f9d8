/* What the driver-API test programs share: "case NAME" before each call (a crash stops the
 * output at the case that crashed), then "PASS|FAIL NAME: <CUresult name>"; `failures`
 * counts the FAILs for main's exit status. Runs unchanged against NVIDIA's driver. */
#ifndef PYSHIM_TEST_DRIVER_CHECK_H
#define PYSHIM_TEST_DRIVER_CHECK_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

static int failures = 0;

static const char *name_of(CUresult r)
{
    const char *s = NULL;
    cuGetErrorName(r, &s);
    return s ? s : "?";
}

#define EXPECT(name, got, want)                                                         \
    do {                                                                                \
        printf("case %s\n", name);                                                      \
        fflush(stdout);                                                                 \
        CUresult g_ = (got);                                                            \
        printf("%s %s: %s\n", g_ == (want) ? "PASS" : "FAIL", name, name_of(g_));       \
        fflush(stdout);                                                                 \
        failures += g_ != (want);                                                       \
    } while (0)

/* A whole file, NUL-terminated (a PTX module); NULL when it cannot be read. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = (char *)calloc(1, (size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    if (got != (size_t)n) {
        free(buf);
        return NULL;
    }
    return buf;
}

#endif
