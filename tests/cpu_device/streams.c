/* Streams and events: order, asynchrony, concurrency, cross-stream waits, callbacks, timing,
 * legacy NULL-stream semantics, per-thread streams and several host threads at once. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "check.h"

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- helpers run as host functions ---- */

typedef struct flag_job {
    atomic_int *flag;
    int value;
    int delay_ms;
} flag_job;

static void set_flag(void *p)
{
    flag_job *j = p;
    sleep_ms(j->delay_ms);
    atomic_store(j->flag, j->value);
}

/* A host function that holds its stream until the host opens the gate: checks of "still
 * busy" then depend on the program's order, not on timing. */
typedef struct gate {
    atomic_int open;
} gate;

static void wait_gate(void *p)
{
    gate *g = p;
    while (!atomic_load(&g->open))
        sleep_ms(1);
}

typedef struct read_job {
    atomic_int *flag;
    int seen;
} read_job;

static void read_flag(void *p)
{
    read_job *r = p;
    r->seen = atomic_load(r->flag);
}

static char log_buf[64];
static int log_len = 0;

static void log_host(void *p)
{
    log_buf[log_len++] = (char)(intptr_t)p;
}

static hipStream_t cb_stream_seen;
static hipError_t cb_status_seen = hipErrorUnknown;

static void log_callback(hipStream_t s, hipError_t status, void *p)
{
    cb_stream_seen = s;
    cb_status_seen = status;
    log_buf[log_len++] = (char)(intptr_t)p;
}

/* Two host functions on two streams that each wait for the other: only concurrent streams
 * get both to see their partner (each gives up after 2 s). */
typedef struct rendezvous {
    atomic_int *mine, *other;
    int met;
} rendezvous;

static void meet(void *p)
{
    rendezvous *r = p;
    atomic_store(r->mine, 1);
    for (int i = 0; i < 2000 && !atomic_load(r->other); i++)
        sleep_ms(1);
    r->met = atomic_load(r->other);
}

/* A callback that breaks CUDA's rule and waits for the device: it must get an error, not
 * wait for itself forever. */
static hipError_t from_callback[3];

static void forbidden_waits(void *p)
{
    from_callback[0] = hipDeviceSynchronize();
    from_callback[1] = hipStreamSynchronize((hipStream_t)p);
    from_callback[2] = hipFree(p);
}

/* ---- several host threads, each with its own streams ---- */

typedef struct thread_arg {
    int id;
    int ok;
} thread_arg;

static void *host_thread(void *p)
{
    thread_arg *a = p;
    enum { N = 4096 };
    static _Thread_local int src[N], dst[N];
    int *d = NULL;
    hipStream_t s;
    a->ok = 1;
    if (hipStreamCreate(&s) != hipSuccess || hipMalloc((void **)&d, sizeof src) != hipSuccess) {
        a->ok = 0;
        return NULL;
    }
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < N; i++)
            src[i] = a->id * 1000000 + round * 10000 + i;
        hipStream_t use = round % 2 ? s : hipStreamPerThread;
        if (hipMemcpyAsync(d, src, sizeof src, hipMemcpyHostToDevice, use) != hipSuccess ||
            hipMemsetD32Async((char *)d + 4, -1, 1, use) != hipSuccess ||
            hipMemcpyAsync(dst, d, sizeof dst, hipMemcpyDeviceToHost, use) != hipSuccess ||
            hipStreamSynchronize(use) != hipSuccess) {
            a->ok = 0;
            break;
        }
        for (int i = 0; i < N; i++)
            if (dst[i] != (i == 1 ? -1 : src[i]))
                a->ok = 0;
    }
    hipFree(d);
    hipStreamDestroy(s);
    return NULL;
}

int main(void)
{
    hipStream_t s, s2, nb;
    CHECK(hipStreamCreate(&s));
    CHECK(hipStreamCreate(&s2));
    CHECK(hipStreamCreateWithFlags(&nb, hipStreamNonBlocking));

    /* in order, and asynchronous to the host */
    atomic_int a = 0;
    gate g0 = {0};
    flag_job slow = {&a, 1, 20};
    read_job r1 = {&a, -1};
    CHECK(hipLaunchHostFunc(s, wait_gate, &g0));
    CHECK(hipLaunchHostFunc(s, set_flag, &slow));
    CHECK(hipLaunchHostFunc(s, read_flag, &r1));
    SHOW("query_busy", hipStreamQuery(s));
    printf("host_not_blocked=%d\n", atomic_load(&a) == 0);
    atomic_store(&g0.open, 1);
    CHECK(hipStreamSynchronize(s));
    SHOW("query_idle", hipStreamQuery(s));
    printf("in_order_seen=%d\n", r1.seen);

    /* callbacks and host functions keep their order; callbacks see their stream */
    log_len = 0;
    CHECK(hipLaunchHostFunc(s, log_host, (void *)(intptr_t)'a'));
    CHECK(hipStreamAddCallback(s, log_callback, (void *)(intptr_t)'b', 0));
    CHECK(hipLaunchHostFunc(s, log_host, (void *)(intptr_t)'c'));
    CHECK(hipStreamAddCallback(s, log_callback, (void *)(intptr_t)'d', 0));
    CHECK(hipStreamSynchronize(s));
    log_buf[log_len] = '\0';
    printf("callback_order=%s\n", log_buf);
    printf("callback_stream=%d\n", cb_stream_seen == s);
    printf("callback_status=%s\n", hipGetErrorName(cb_status_seen));
    SHOW("callback_bad_flags", hipStreamAddCallback(s, log_callback, NULL, 1));

    /* concurrency between streams */
    atomic_int m1 = 0, m2 = 0;
    rendezvous ra = {&m1, &m2, 0}, rb = {&m2, &m1, 0};
    CHECK(hipLaunchHostFunc(s, meet, &ra));
    CHECK(hipLaunchHostFunc(nb, meet, &rb));
    CHECK(hipDeviceSynchronize());
    printf("concurrent=%d\n", ra.met && rb.met);

    /* a stream waits for an event recorded on another */
    hipEvent_t ev;
    CHECK(hipEventCreate(&ev));
    atomic_int b = 0;
    flag_job slow_b = {&b, 1, 150};
    read_job rb1 = {&b, -1};
    CHECK(hipLaunchHostFunc(nb, set_flag, &slow_b));
    CHECK(hipEventRecord(ev, nb));
    CHECK(hipStreamWaitEvent(s2, ev, 0));
    CHECK(hipLaunchHostFunc(s2, read_flag, &rb1));
    CHECK(hipStreamSynchronize(s2));
    printf("wait_event_seen=%d\n", rb1.seen);

    /* event timing */
    hipEvent_t start, stop, notime;
    CHECK(hipEventCreate(&start));
    CHECK(hipEventCreate(&stop));
    CHECK(hipEventCreateWithFlags(&notime, hipEventDisableTiming));
    float ms = -1;
    SHOW("elapsed_unrecorded", hipEventElapsedTime(&ms, start, stop));
    SHOW("query_unrecorded", hipEventQuery(start));
    atomic_int c = 0;
    gate g1 = {0};
    CHECK(hipEventRecord(start, s));
    CHECK(hipLaunchHostFunc(s, wait_gate, &g1));
    CHECK(hipEventRecord(stop, s));
    SHOW("elapsed_before_done", hipEventElapsedTime(&ms, start, stop));
    SHOW("query_before_done", hipEventQuery(stop));
    atomic_store(&g1.open, 1);
    CHECK(hipEventSynchronize(stop));
    SHOW("query_done", hipEventQuery(stop));
    flag_job wait50 = {&c, 1, 50};
    CHECK(hipEventRecord(start, s));
    CHECK(hipLaunchHostFunc(s, set_flag, &wait50));
    CHECK(hipEventRecord(stop, s));
    CHECK(hipEventSynchronize(stop));
    CHECK(hipEventElapsedTime(&ms, start, stop));
    printf("elapsed_plausible=%d\n", ms >= 45.0f && ms < 2000.0f);
    CHECK(hipEventRecord(notime, s));
    CHECK(hipEventSynchronize(notime));
    SHOW("elapsed_disable_timing", hipEventElapsedTime(&ms, start, notime));
    SHOW("event_create_bad_flags", hipEventCreateWithFlags(&ev, 0x100));

    /* legacy NULL stream: waits for blocking streams, not for non-blocking ones */
    atomic_int x = 0, y = 0, z = 0;
    gate gy = {0};
    flag_job fx = {&x, 1, 50}, fy = {&y, 1, 0}, fz = {&z, 1, 50};
    read_job rx = {&x, -1}, ry = {&y, -1}, rz = {&z, -1};
    CHECK(hipLaunchHostFunc(nb, wait_gate, &gy));
    CHECK(hipLaunchHostFunc(nb, set_flag, &fy));
    CHECK(hipLaunchHostFunc(s, set_flag, &fx));
    CHECK(hipLaunchHostFunc(NULL, read_flag, &rx));
    CHECK(hipLaunchHostFunc(hipStreamLegacy, read_flag, &ry));
    CHECK(hipStreamSynchronize(NULL));
    printf("null_waits_blocking=%d\n", rx.seen);
    printf("null_ignores_nonblocking=%d\n", ry.seen == 0);
    CHECK(hipLaunchHostFunc(NULL, set_flag, &fz));
    CHECK(hipLaunchHostFunc(s2, read_flag, &rz));
    CHECK(hipStreamSynchronize(s2));
    printf("blocking_waits_null=%d\n", rz.seen);
    atomic_store(&gy.open, 1);
    CHECK(hipDeviceSynchronize());
    printf("device_sync_drains_all=%d\n", atomic_load(&y));

    /* synchronising the legacy stream waits for blocking streams, not non-blocking ones */
    atomic_int p1 = 0, p2 = 0;
    gate gp1 = {0}, gp2 = {0};
    flag_job fp1 = {&p1, 1, 20}, fp2 = {&p2, 1, 0};
    CHECK(hipLaunchHostFunc(nb, wait_gate, &gp2));
    CHECK(hipLaunchHostFunc(nb, set_flag, &fp2));
    CHECK(hipLaunchHostFunc(s2, wait_gate, &gp1));
    CHECK(hipLaunchHostFunc(s2, set_flag, &fp1));
    SHOW("null_query_busy_blocking", hipStreamQuery(NULL));
    atomic_store(&gp1.open, 1);
    CHECK(hipStreamSynchronize(NULL));
    printf("null_sync=%d,%d\n", atomic_load(&p1), atomic_load(&p2));
    SHOW("null_query_idle", hipStreamQuery(NULL));
    atomic_store(&gp2.open, 1);
    CHECK(hipDeviceSynchronize());

    /* destroying a stream with pending work lets the work finish */
    hipStream_t tmp;
    atomic_int w = 0;
    flag_job fw = {&w, 7, 100};
    CHECK(hipStreamCreate(&tmp));
    CHECK(hipLaunchHostFunc(tmp, set_flag, &fw));
    CHECK(hipStreamDestroy(tmp));
    CHECK(hipDeviceSynchronize());
    printf("destroyed_stream_finished=%d\n", atomic_load(&w));

    /* stream properties and bad handles */
    unsigned flags = 99;
    int prio = 99, least = 99, greatest = 99;
    CHECK(hipStreamGetFlags(nb, &flags));
    printf("flags_nonblocking=%u\n", flags);
    SHOW("flags_null", hipStreamGetFlags(NULL, &flags));
    CHECK(hipStreamGetFlags(hipStreamPerThread, &flags));
    printf("flags_per_thread=%u\n", flags);
    CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
    hipStream_t hi;
    CHECK(hipStreamCreateWithPriority(&hi, 0, greatest - 5));
    CHECK(hipStreamGetPriority(hi, &prio));
    printf("priority=%d,%d,%d\n", least, greatest, prio);
    CHECK(hipStreamDestroy(hi));
    SHOW("sync_destroyed", hipStreamSynchronize(hi));
    SHOW("destroy_twice", hipStreamDestroy(hi));
    SHOW("garbage_stream", hipStreamQuery((hipStream_t)(uintptr_t)0x12345));
    hipLaunchAttributeValue av;
    av.priority = -1;
    CHECK(hipStreamSetAttribute(s2, hipLaunchAttributePriority, &av));
    CHECK(hipStreamCopyAttributes(s, s2));
    av.priority = 99;
    CHECK(hipStreamGetAttribute(s, hipLaunchAttributePriority, &av));
    printf("attr_priority=%d\n", av.priority);
    SHOW("attr_bad", hipStreamGetAttribute(s, hipLaunchAttributeMax, &av));
    SHOW("destroy_null", hipStreamDestroy(NULL));
    SHOW("create_bad_flags", hipStreamCreateWithFlags(&tmp, 8));

    /* per-thread default stream and _spt entry points */
    int hostv[4] = {1, 2, 3, 4}, outv[4] = {0};
    int *dv;
    CHECK(hipMalloc((void **)&dv, sizeof hostv));
    CHECK(hipMemcpy_spt(dv, hostv, sizeof hostv, hipMemcpyHostToDevice));
    CHECK(hipMemsetAsync_spt(dv, 0, 4, NULL));
    CHECK(hipMemcpyAsync_spt(outv, dv, sizeof outv, hipMemcpyDeviceToHost, hipStreamPerThread));
    CHECK(hipStreamSynchronize_spt(NULL));
    printf("spt=%d,%d,%d,%d\n", outv[0], outv[1], outv[2], outv[3]);
    SHOW("spt_query", hipStreamQuery(hipStreamPerThread));
    CHECK(hipFree(dv));

    /* stream memory operations: one stream waits for a value another stream writes */
    uint32_t *word;
    uint64_t *word64;
    CHECK(hipMalloc((void **)&word, 4));
    CHECK(hipMalloc((void **)&word64, 8));
    CHECK(hipMemset(word, 0, 4));
    CHECK(hipMemset(word64, 0, 8));
    atomic_int released = 0, released64 = 0;
    flag_job fr = {&released, 1, 0}, fr64 = {&released64, 1, 0};
    CHECK(hipStreamWaitValue32(s, word, 3, hipStreamWaitValueGte, 0xffffffffu));
    CHECK(hipLaunchHostFunc(s, set_flag, &fr));
    CHECK(hipStreamWaitValue64(s2, word64, 0x10, hipStreamWaitValueAnd, 0xf0));
    CHECK(hipLaunchHostFunc(s2, set_flag, &fr64));
    sleep_ms(50);
    printf("wait_value_blocks=%d,%d\n", atomic_load(&released) == 0, atomic_load(&released64) == 0);
    CHECK(hipStreamWriteValue32(nb, word, 2, 0));
    CHECK(hipStreamSynchronize(nb));
    sleep_ms(20);
    int still = atomic_load(&released) == 0;
    CHECK(hipStreamWriteValue32(nb, word, 5, 0));
    CHECK(hipStreamSynchronize(s));
    printf("wait_value_gte=%d,%d\n", still, atomic_load(&released));
    __atomic_store_n(word64, 0x31, __ATOMIC_SEQ_CST);   /* device memory is host memory */
    CHECK(hipStreamSynchronize(s2));
    printf("wait_value_and=%d\n", atomic_load(&released64));
    SHOW("wait_value_bad_flags", hipStreamWaitValue32(s, word, 1, 9, 0xffffffffu));
    SHOW("write_value_misaligned", hipStreamWriteValue64(s, (char *)word64 + 4, 1, 0));
    CHECK(hipFree(word));
    CHECK(hipFree(word64));

    hipStreamCaptureStatus cs = hipStreamCaptureStatusActive;
    unsigned long long cid = 99;
    CHECK(hipStreamIsCapturing(s, &cs));
    printf("capturing=%d\n", cs);
    CHECK(hipStreamGetCaptureInfo(NULL, &cs, &cid));
    printf("capture_info=%d,%llu\n", cs, cid);

    CHECK(hipLaunchHostFunc(s, forbidden_waits, s));
    CHECK(hipStreamSynchronize(s));
    printf("callback_waits=%s,%s,%s\n", hipGetErrorName(from_callback[0]),
           hipGetErrorName(from_callback[1]), hipGetErrorName(from_callback[2]));

    /* several host threads at once */
    enum { T = 4 };
    pthread_t th[T];
    thread_arg args[T];
    for (int i = 0; i < T; i++) {
        args[i] = (thread_arg){i, 0};
        pthread_create(&th[i], NULL, host_thread, &args[i]);
    }
    int all_ok = 1;
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        all_ok &= args[i].ok;
    }
    printf("threads_ok=%d\n", all_ok);

    CHECK(hipEventDestroy(ev));
    CHECK(hipEventDestroy(start));
    CHECK(hipEventDestroy(stop));
    CHECK(hipEventDestroy(notime));
    SHOW("event_destroy_twice", hipEventDestroy(notime));
    SHOW("event_record_destroyed", hipEventRecord(notime, NULL));
    SHOW("garbage_event", hipEventQuery((hipEvent_t)(uintptr_t)0x4242));
    CHECK(hipStreamDestroy(s));
    CHECK(hipStreamDestroy(s2));
    CHECK(hipStreamDestroy(nb));
    return 0;
}
