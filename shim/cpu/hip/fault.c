/*
 * Faults in kernel code become launch errors, as on a GPU, instead of killing the program.
 * A thread about to run kernel code (or to copy through pageable host memory) arms a
 * guard: a sigjmp_buf in thread-local storage. SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGTRAP
 * are caught process-wide; on a thread with an armed guard the handler jumps back to it
 * (the faulting block is abandoned, the launch fails), on any other thread the program's own
 * handler (the one installed before ours) or the default action takes the signal, so the
 * program's faults stay its own. Each such thread gets an alternate signal stack: a kernel
 * that overflows its stack must still reach the handler.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP};
#define NUM_FAULT_SIGNALS (sizeof fault_signals / sizeof fault_signals[0])

static struct sigaction previous[NUM_FAULT_SIGNALS];
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static pthread_key_t altstack_key;
static _Thread_local cpu_guard *active_guard;
static _Thread_local bool altstack_done;

#define ALTSTACK_BYTES ((size_t)64 << 10)

static int signal_index(int sig)
{
    for (size_t i = 0; i < NUM_FAULT_SIGNALS; i++)
        if (fault_signals[i] == sig)
            return (int)i;
    return -1;
}

/* Not a fault of kernel code: as if we had never installed a handler. */
static void chain(int sig, siginfo_t *si, void *uc)
{
    int i = signal_index(sig);
    const struct sigaction *old = i >= 0 ? &previous[i] : NULL;
    if (old != NULL && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
        old->sa_sigaction(sig, si, uc);
        return;
    }
    if (old != NULL && old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
        return;
    }
    /* The default action: reset it and let the fault happen again (a hardware fault
     * re-executes the instruction), or send it again when it came from kill(). */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (si == NULL || si->si_code <= 0 || sig == SIGTRAP)
        raise(sig);
}

/* The watchdog's signal (grid.c): it ends the guarded code only when the guard's launch
 * ran out of time; anywhere else (the worker is between blocks, or already on another
 * launch) it is ignored, and the watchdog sends it again. */
static void on_timeout(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    cpu_guard *g = active_guard;
    if (g == NULL || g->abort == NULL || !atomic_load(g->abort))
        return;
    active_guard = NULL;
    g->sig = sig;
    g->addr = NULL;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    siglongjmp(g->env, 1);
}

int cpu_timeout_signal(void)
{
    return SIGRTMAX - 3;   /* glibc keeps the first real-time signals; programs rarely use these */
}

void cpu_timeout_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_timeout;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(cpu_timeout_signal(), &sa, NULL);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    cpu_guard *g = active_guard;
    if (g == NULL || (si != NULL && si->si_code <= 0)) {   /* kill()/tgkill(): not a fault */
        chain(sig, si, uc);
        return;
    }
    active_guard = NULL;
    g->sig = sig;
    g->addr = si != NULL ? si->si_addr : NULL;
    /* leaving by a jump, not sigreturn: unblock the signal ourselves */
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    siglongjmp(g->env, 1);
}

static void free_altstack(void *mem)
{
    stack_t off = {.ss_flags = SS_DISABLE};
    sigaltstack(&off, NULL);
    munmap(mem, ALTSTACK_BYTES);
}

static void install(void)
{
    pthread_key_create(&altstack_key, free_altstack);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NUM_FAULT_SIGNALS; i++)
        sigaction(fault_signals[i], &sa, &previous[i]);
}

void cpu_guard_prepare(void)
{
    pthread_once(&install_once, install);
    if (altstack_done)
        return;
    altstack_done = true;
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE))
        return;   /* the thread has one already (the program's) */
    void *mem = mmap(NULL, ALTSTACK_BYTES, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return;
    stack_t st = {.ss_sp = mem, .ss_size = ALTSTACK_BYTES, .ss_flags = 0};
    if (sigaltstack(&st, NULL) != 0) {
        munmap(mem, ALTSTACK_BYTES);
        return;
    }
    pthread_setspecific(altstack_key, mem);   /* unmapped when the thread exits */
}

void cpu_guard_push(cpu_guard *g)
{
    g->sig = 0;
    g->addr = NULL;
    g->abort = NULL;
    active_guard = g;
}

void cpu_guard_push_abortable(cpu_guard *g, _Atomic bool *abort)
{
    cpu_guard_push(g);
    g->abort = abort;
}

void cpu_guard_pop(void)
{
    active_guard = NULL;
}

hipError_t cpu_fault_error(int sig)
{
    if (sig == cpu_timeout_signal())
        return hipErrorLaunchTimeOut;
    switch (sig) {
    case SIGSEGV:
    case SIGBUS: return hipErrorIllegalAddress;
    case SIGILL: return CPU_ERROR_ILLEGAL_INSTRUCTION;
    default: return hipErrorLaunchFailure;   /* SIGFPE, SIGTRAP */
    }
}

const char *cpu_fault_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    default: return "signal";
    }
}
