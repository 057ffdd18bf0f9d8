/*
 * The rate of the counter that kernels read as %clock/%clock64. The translator's CPU
 * prelude reads the x86 time-stamp counter, whose rate is the machine's, not a constant:
 * programs that spin for `clockRate * ms` cycles (the usual clock_block idiom) see time pass
 * at the advertised rate only if the device advertises the counter's real rate. It is
 * measured once against CLOCK_MONOTONIC_RAW.
 */
#include <time.h>

#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One (counter, time) pair taken with the counter read on both sides of the clock read, so
 * a preemption in between shows up as a wide bracket and the sample is taken again. */
static void sample(unsigned long long *tsc, double *ns)
{
    unsigned long long best = ~0ull;
    for (int i = 0; i < 16; i++) {
        unsigned long long a = __rdtsc();
        double t = now_ns();
        unsigned long long b = __rdtsc();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = t;
        }
    }
}

int cpu_counter_khz(int fallback_khz)
{
    unsigned long long c0, c1;
    double t0, t1;
    sample(&c0, &t0);
    /* 2 ms: the bracket error (tens of ns) is then well under 0.1% of the interval. */
    struct timespec pause = {0, 2000000};
    nanosleep(&pause, NULL);
    sample(&c1, &t1);
    if (c1 <= c0 || t1 <= t0)
        return fallback_khz;
    double khz = (double)(c1 - c0) / (t1 - t0) * 1e6;
    if (khz < 1e3 || khz > 2e7)   /* below 1 MHz or above 20 GHz: not a usable counter */
        return fallback_khz;
    return (int)(khz + 0.5);
}
#else
int cpu_counter_khz(int fallback_khz) { return fallback_khz; }
#endif
