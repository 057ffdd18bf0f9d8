/*
 * Brief spinning before sleeping. A launch hands work from the caller to a stream's thread
 * and from there to the pool, and hands completion back the same way; each hand-off to a
 * sleeping thread is a futex wake plus a trip through the scheduler (tens of microseconds
 * on a busy machine), which is what made an empty launch cost 70-80 us. A thread that runs
 * out of work, or waits for the device, first watches for the next event for a short while
 * (PYSHIM_CPU_SPIN_US, default 50 us), so back-to-back launches and a synchronize right
 * after a short kernel never sleep. The spin yields the CPU on every round: on a machine
 * with fewer cores than busy threads the thread it waits for may need this very core.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RELAX() _mm_pause()
#else
#define RELAX() ((void)0)
#endif

#define DEFAULT_SPIN_US 50

static uint64_t spin_budget_ns = DEFAULT_SPIN_US * 1000ull;
static pthread_once_t spin_once = PTHREAD_ONCE_INIT;

static void read_spin(void)
{
    const char *v = getenv("PYSHIM_CPU_SPIN_US");
    if (v == NULL || *v == 0)
        return;
    char *end;
    long us = strtol(v, &end, 10);
    if (*end != 0 || us < 0 || us > 1000000) {
        cpu_log("PYSHIM_CPU_SPIN_US=%s: not a number of microseconds in [0, 1000000], ignored",
                v);
        return;
    }
    spin_budget_ns = (uint64_t)us * 1000ull;
}

uint64_t cpu_spin_ns(void)
{
    pthread_once(&spin_once, read_spin);
    return spin_budget_ns;
}

bool cpu_spin_until(bool (*ready)(const void *arg), const void *arg)
{
    if (ready(arg))
        return true;
    uint64_t budget = cpu_spin_ns();
    if (budget == 0)
        return false;
    uint64_t start = cpu_now_ns();
    /* rounds are bounded too: on a machine with more runnable threads than cores each
     * yield can take a time slice, and the wall-clock budget alone would let the spin go on
     * being rescheduled (and taking CPU from the threads it waits for) for milliseconds */
    for (uint64_t round = 0;; round++) {
        for (int i = 0; i < 4; i++) {
            RELAX();
            if (ready(arg))
                return true;
        }
        if (cpu_now_ns() - start >= budget || round * 1000u >= budget)
            return ready(arg);
        sched_yield();
        if (ready(arg))
            return true;
    }
}
