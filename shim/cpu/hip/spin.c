/*
 * Brief spinning before sleeping. A launch hands work from the caller to a stream's thread
 * and from there to the pool, and hands completion back the same way; each hand-off to a
 * sleeping thread is a futex wake plus a trip through the scheduler (tens of microseconds
 * on a busy machine), which was most of an empty launch's cost (benchmarks/README.md,
 * Figures behind the code). A thread that runs
 * out of work, or waits for the device, first watches for the next event for a short while
 * (PYSHIM_CPU_SPIN_US, default 50 us), so back-to-back launches and a synchronize right
 * after a short kernel never sleep. The spin yields the CPU on every round: on a machine
 * with fewer cores than busy threads the thread it waits for may need this very core.
 * On a machine with many more runnable threads than cores (a shared CI machine) spinning
 * does harm: a yielding spinner waits its turn behind every other runnable thread, while
 * a sleeper woken by a futex is scheduled at once; there a thread sleeps right away (the
 * kernel's count of runnable threads, /proc/loadavg, read at most every 20 ms).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#include <stdatomic.h>

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

/* True when the machine has at most twice as many runnable threads as this process has
 * CPUs (unknown counts as not crowded). */
static _Atomic uint64_t crowd_checked_ns = 0;
static _Atomic bool crowded = false;
static int own_cpus = 0;

static bool machine_crowded(void)
{
    uint64_t now = cpu_now_ns(), last = crowd_checked_ns;
    if (now - last < 20000000u)
        return crowded;
    crowd_checked_ns = now;
    if (own_cpus == 0) {
        cpu_set_t set;
        own_cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    }
    char buf[128];
    int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return crowded = false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return crowded = false;
    buf[n] = 0;
    /* "0.50 0.40 0.30 3/412 1234": the fourth field is runnable/total */
    const char *p = buf;
    for (int field = 0; field < 3 && p != NULL; field++) {
        p = strchr(p, ' ');
        if (p != NULL)
            p++;
    }
    long runnable = p != NULL ? strtol(p, NULL, 10) : 0;
    return crowded = runnable > 2L * own_cpus;
}

bool cpu_spin_until(bool (*ready)(const void *arg), const void *arg)
{
    if (ready(arg))
        return true;
    uint64_t budget = cpu_spin_ns();
    if (budget == 0 || machine_crowded())
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
