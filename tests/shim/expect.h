/*
 * The ok/FAIL lines of the C programs in tests/shim/ (run by driver_program.py): one line
 * per check, flushed at once so a crash still shows how far the program got; `failures`
 * is what each main() reports and returns.
 */
#ifndef PYSHIM_TESTS_SHIM_EXPECT_H
#define PYSHIM_TESTS_SHIM_EXPECT_H

#include <stdio.h>

static int failures;

/* `cond` is evaluated once: it usually makes the call under test */
#define EXPECT(cond, ...)                                                                \
    do {                                                                                 \
        int ok_ = (cond);                                                                \
        printf(ok_ ? "ok " : "FAIL ");                                                   \
        failures += !ok_;                                                                \
        printf(__VA_ARGS__);                                                             \
        printf("\n");                                                                    \
        fflush(stdout);                                                                  \
    } while (0)

#endif
