/* Shared by the C test programs: fail loudly, naming the call and HIP's error name. */
#ifndef PYSHIM_TEST_CHECK_H
#define PYSHIM_TEST_CHECK_H

#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                       \
    do {                                                                                  \
        hipError_t check_err_ = (call);                                                   \
        if (check_err_ != hipSuccess) {                                                   \
            fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call,              \
                    hipGetErrorName(check_err_));                                        \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

/* Prints "label=<error name>" so tests can assert on exact error codes. */
#define SHOW(label, call) printf("%s=%s\n", label, hipGetErrorName(call))

#define EXPECT(cond)                                                                      \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);          \
            exit(3);                                                                      \
        }                                                                                 \
    } while (0)

#endif
