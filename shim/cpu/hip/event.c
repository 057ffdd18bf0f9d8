/*
 * Events: a record is a command on a stream that stamps CLOCK_MONOTONIC when it runs. The
 * event counts records enqueued and records run, so a query or a wait refers to the
 * latest record at the time of the call, as in CUDA.
 */
#include <stdlib.h>

#include "internal.h"

static pyshim_handle_set event_handles = PYSHIM_HANDLE_SET_INIT;

void cpu_event_release_locked(struct ihipEvent_t *e)
{
    if (--e->refs == 0) {
        cpu_ipc_event_free(e);
        free(e);
    }
}

static bool event_valid(hipEvent_t e)
{
    return e != NULL && pyshim_handles_contains(&event_handles, e);
}

bool cpu_event_valid(hipEvent_t e)
{
    return event_valid(e);
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)
{
    const unsigned known = hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess |
                           hipEventDisableSystemFence | hipEventReleaseToDevice |
                           hipEventReleaseToSystem;
    if (event == NULL || (flags & ~known))
        return cpu_ret(hipErrorInvalidValue);
    /* An interprocess event must disable timing (CUDA's and HIP's rule). */
    if ((flags & hipEventInterprocess) && !(flags & hipEventDisableTiming))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(cpu_event_new(event, flags, NULL));
}

hipError_t cpu_event_new(hipEvent_t *event, unsigned flags, struct cpu_ipc_event_ref *ipc)
{
    struct ihipEvent_t *e = calloc(1, sizeof *e);
    if (e == NULL)
        return hipErrorOutOfMemory;
    e->magic = CPU_MAGIC_EVENT;
    e->flags = flags;
    e->device = cpu_current_device();
    e->refs = 1;
    e->ipc = ipc;
    /* its counters live in a shared page, so that other processes can open it */
    if (ipc == NULL && (flags & hipEventInterprocess) && !cpu_ipc_event_init(e)) {
        free(e);
        return hipErrorOutOfMemory;
    }
    if (!pyshim_handles_add(&event_handles, e)) {
        e->ipc = NULL;   /* the caller still owns a passed-in one */
        cpu_ipc_event_free(e);
        free(e);
        return hipErrorOutOfMemory;
    }
    *event = e;
    return hipSuccess;
}

hipError_t hipEventCreate(hipEvent_t *event)
{
    return hipEventCreateWithFlags(event, hipEventDefault);
}

hipError_t hipEventDestroy(hipEvent_t event)
{
    if (event == NULL || !pyshim_handles_remove(&event_handles, event))
        return cpu_ret(hipErrorInvalidHandle);
    pthread_mutex_lock(&cpu_sched_lock);
    event->destroyed = true;
    event->magic = 0;
    cpu_event_release_locked(event);   /* pending records and waits keep it alive */
    pthread_mutex_unlock(&cpu_sched_lock);
    return hipSuccess;
}

typedef struct record_payload {
    struct ihipEvent_t *event;
    uint64_t gen;
    uint64_t ipc_gen;                /* its number among every process's records */
} record_payload;

static void run_record(cpu_cmd *c)
{
    record_payload *r = (record_payload *)c->payload;
    uint64_t now = cpu_now_ns();
    pthread_mutex_lock(&cpu_sched_lock);
    /* Records of one event may run on different streams out of order: keep the newest. */
    if (r->gen > r->event->gen_done) {
        r->event->time_ns = now;
        /* read unlocked by a spinning hipEventSynchronize */
        __atomic_store_n(&r->event->gen_done, r->gen, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&cpu_sched_lock);
    if (r->event->ipc != NULL)
        cpu_ipc_event_done(r->event, r->ipc_gen);
}

static void release_record(cpu_cmd *c)
{
    cpu_event_release_locked(((record_payload *)c->payload)->event);
}

static hipError_t event_record(hipEvent_t event, hipStream_t stream, bool spt)
{
    if (!event_valid(event))
        return hipErrorInvalidHandle;
    struct ihipStream_t *s;
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return err;
    pthread_mutex_lock(&cpu_sched_lock);
    if (s->capture != NULL) {
        /* Recorded in a capture: nothing runs (a graph replays its commands in the order
         * they were captured, which already follows every dependency); the event only
         * marks the capture, so that a stream waiting on it joins the capture. */
        event->capture_id = s->capture_id;
        event->capture_node = s->capture_last;
        pthread_mutex_unlock(&cpu_sched_lock);
        return hipSuccess;
    }
    event->capture_id = 0;
    pthread_mutex_unlock(&cpu_sched_lock);
    cpu_cmd *c = cpu_cmd_new(run_record, sizeof(record_payload));
    if (c == NULL)
        return hipErrorOutOfMemory;
    c->release = release_record;
    pthread_mutex_lock(&cpu_sched_lock);
    event->refs++;
    *(record_payload *)c->payload = (record_payload){
        event, ++event->gen_recorded, event->ipc != NULL ? cpu_ipc_event_record(event) : 0};
    pthread_mutex_unlock(&cpu_sched_lock);
    return cpu_stream_enqueue(s, c, NULL);
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
    return cpu_ret(event_record(event, stream, false));
}

hipError_t hipEventRecord_spt(hipEvent_t event, hipStream_t stream)
{
    return cpu_ret(event_record(event, stream, true));
}

hipError_t hipEventRecordWithFlags(hipEvent_t event, hipStream_t stream, unsigned int flags)
{
    if (flags & ~(unsigned)hipEventRecordExternal)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(event_record(event, stream, false));
}

typedef struct event_wait {
    const struct ihipEvent_t *e;
    uint64_t gen;
} event_wait;

static bool event_reached(const void *arg)
{
    const event_wait *w = arg;
    return __atomic_load_n(&w->e->gen_done, __ATOMIC_ACQUIRE) >= w->gen;
}

hipError_t hipEventSynchronize(hipEvent_t event)
{
    if (!event_valid(event))
        return cpu_ret(hipErrorInvalidHandle);
    if (event->ipc != NULL) {
        /* other processes record it too: their records are counted in the shared page */
        cpu_ipc_event_wait(event, cpu_ipc_event_target(event));
        cpu_printf_flush();
        return cpu_ret(cpu_sticky_error());
    }
    pthread_mutex_lock(&cpu_sched_lock);
    uint64_t target = event->gen_recorded;
    event->refs++;   /* alive while this thread spins on it unlocked */
    pthread_mutex_unlock(&cpu_sched_lock);
    if (cpu_expect_short_wait())
        cpu_spin_until(event_reached, &(event_wait){event, target});
    pthread_mutex_lock(&cpu_sched_lock);
    while (event->gen_done < target)
        pthread_cond_wait(&cpu_sched_cond, &cpu_sched_lock);
    cpu_event_release_locked(event);
    pthread_mutex_unlock(&cpu_sched_lock);
    cpu_printf_flush();
    return cpu_ret(cpu_sticky_error());
}

hipError_t hipEventQuery(hipEvent_t event)
{
    if (!event_valid(event))
        return cpu_ret(hipErrorInvalidHandle);
    if (event->ipc != NULL)
        return cpu_ipc_event_reached(event, cpu_ipc_event_target(event)) ? hipSuccess
                                                                          : hipErrorNotReady;
    pthread_mutex_lock(&cpu_sched_lock);
    bool done = event->gen_done >= event->gen_recorded;
    pthread_mutex_unlock(&cpu_sched_lock);
    return done ? hipSuccess : hipErrorNotReady;
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
    if (ms == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (!event_valid(start) || !event_valid(stop))
        return cpu_ret(hipErrorInvalidHandle);
    if ((start->flags | stop->flags) & hipEventDisableTiming)
        return cpu_ret(hipErrorInvalidHandle);
    pthread_mutex_lock(&cpu_sched_lock);
    bool recorded = start->gen_recorded > 0 && stop->gen_recorded > 0;
    bool done = start->gen_done >= start->gen_recorded && stop->gen_done >= stop->gen_recorded;
    double diff = (double)stop->time_ns - (double)start->time_ns;
    pthread_mutex_unlock(&cpu_sched_lock);
    if (!recorded)
        return cpu_ret(hipErrorInvalidHandle);
    if (!done)
        return cpu_ret(hipErrorNotReady);
    *ms = (float)(diff / 1e6);
    return hipSuccess;
}

/* A wait for an interprocess event: the stream's thread polls the shared page for the
 * record that was the latest when the wait was enqueued. */
static void run_ipc_wait(cpu_cmd *c)
{
    record_payload *r = (record_payload *)c->payload;
    cpu_ipc_event_wait(r->event, r->ipc_gen);
}

static hipError_t ipc_wait_cmd(struct ihipStream_t *s, struct ihipEvent_t *event)
{
    cpu_cmd *c = cpu_cmd_new(run_ipc_wait, sizeof(record_payload));
    if (c == NULL)
        return hipErrorOutOfMemory;
    c->release = release_record;
    pthread_mutex_lock(&cpu_sched_lock);
    event->refs++;
    *(record_payload *)c->payload = (record_payload){event, 0, cpu_ipc_event_target(event)};
    pthread_mutex_unlock(&cpu_sched_lock);
    return cpu_stream_enqueue(s, c, NULL);
}

static hipError_t stream_wait_event(hipStream_t stream, hipEvent_t event, unsigned flags,
                                    bool spt)
{
    if (flags & ~(unsigned)hipEventWaitExternal)
        return hipErrorInvalidValue;
    if (!event_valid(event))
        return hipErrorInvalidHandle;
    struct ihipStream_t *s;
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return err;
    pthread_mutex_lock(&cpu_sched_lock);
    if (event->capture_id != 0) {
        /* an event recorded in a capture: the waiting stream joins that capture (fork), or
         * already records into it (join); once the capture ended there is nothing to wait
         * for */
        struct ihipGraph *g = cpu_capture_graph_locked(event->capture_id);
        err = hipSuccess;
        if (g != NULL && s->capture == NULL && s->is_null)
            err = hipErrorStreamCaptureImplicit;   /* the legacy stream cannot be captured */
        else if (g != NULL && s->capture == NULL) {
            s->capture = g;
            s->capture_id = event->capture_id;
            s->capture_last = event->capture_node;   /* fork: continues after that node */
            s->num_joins = 0;
        } else if (g != NULL && s->capture_id != event->capture_id)
            err = hipErrorStreamCaptureIsolation;   /* two captures may not mix */
        else if (g != NULL && event->capture_node != NULL &&
                 event->capture_node != s->capture_last) {
            /* join: the stream's next node also depends on the event's */
            if (s->num_joins < (int)(sizeof s->capture_joins / sizeof s->capture_joins[0]))
                s->capture_joins[s->num_joins++] = event->capture_node;
            else
                cpu_log("stream capture: more than 8 joins before a node; edge dropped");
        }
        pthread_mutex_unlock(&cpu_sched_lock);
        return err;
    }
    bool capturing = s->capture != NULL;
    pthread_mutex_unlock(&cpu_sched_lock);
    if (capturing) {
        cpu_log("hipStreamWaitEvent: a capture cannot wait for an event recorded outside it "
                "on the CPU device");
        return hipErrorStreamCaptureIsolation;
    }
    if (event->ipc != NULL)
        return ipc_wait_cmd(s, event);
    cpu_cmd *c = cpu_cmd_new(NULL, 0);
    if (c == NULL)
        return hipErrorOutOfMemory;
    pthread_mutex_lock(&cpu_sched_lock);
    event->refs++;
    c->wait_event = event;
    c->wait_gen = event->gen_recorded;
    pthread_mutex_unlock(&cpu_sched_lock);
    return cpu_stream_enqueue(s, c, NULL);
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
    return cpu_ret(stream_wait_event(stream, event, flags, false));
}

hipError_t hipStreamWaitEvent_spt(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
    return cpu_ret(stream_wait_event(stream, event, flags, true));
}
