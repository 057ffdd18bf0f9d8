/* What the runtime-API test programs share: "PASS NAME" or "FAIL NAME (line N)" per check,
 * a failing call's error name and text on the line before; `failures` counts the FAILs for
 * main's exit status. Runs unchanged against NVIDIA's libcudart. */
#ifndef PYSHIM_TEST_RUNTIME_CHECK_H
#define PYSHIM_TEST_RUNTIME_CHECK_H

#include <cuda_runtime.h>
#include <stdio.h>

static int failures = 0;

#define CHECK(name, cond)                                                          \
    do {                                                                           \
        if (cond) {                                                                \
            printf("PASS %s\n", name);                                             \
        } else {                                                                   \
            printf("FAIL %s (line %d)\n", name, __LINE__);                         \
            failures++;                                                            \
        }                                                                          \
    } while (0)

#define OK(name, call)                                                             \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess)                                                     \
            printf("  %s -> %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
        CHECK(name, e_ == cudaSuccess);                                            \
    } while (0)

#endif
