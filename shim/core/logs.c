/*
 * The driver's error log (cuLogs*, CUDA 12.9): pyshim's own log lines are libcuda's log.
 * Every line the library writes to stderr (shim/common/log.c hands it to
 * pyshim_common_log_sink) is kept in a buffer of NVIDIA's documented size (25600 bytes,
 * the oldest lines dropped first) and passed to the registered callbacks. An iterator is
 * the sequence number of a line: cuLogsCurrent gives the next one's, a dump starts at
 * the iterator and moves it past the last line. Every line is reported at
 * CU_LOG_LEVEL_ERROR: pyshim logs a line when it refuses or fails something.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "internal.h"

#define LOG_BYTES 25600 /* "The maximum size of the buffer is 25600 bytes" */
#define MAX_LINES 1024
#define MAX_CALLBACKS 64

struct CUlogsCallbackEntry_st {
    CUlogsCallback fn;
    void *data;
};

static struct {
    char *line[MAX_LINES]; /* ring of lines, each malloc'ed, no newline */
    size_t len[MAX_LINES];
    unsigned int first;    /* sequence number of the oldest line kept */
    unsigned int next;     /* sequence number of the next line */
    size_t bytes;          /* kept, newlines counted */
    struct CUlogsCallbackEntry_st *callbacks[MAX_CALLBACKS];
} logs;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int in_callback; /* a callback that logs does not call itself again */

static void drop_oldest(void)
{
    unsigned int slot = logs.first % MAX_LINES;
    logs.bytes -= logs.len[slot] + 1;
    free(logs.line[slot]);
    logs.line[slot] = NULL;
    logs.first++;
}

void pyshim_common_log_sink(const char *line, size_t length)
{
    if (length + 1 > LOG_BYTES)
        length = LOG_BYTES - 1;
    char *copy = malloc(length + 1);
    if (copy == NULL)
        return;
    memcpy(copy, line, length);
    copy[length] = '\0';
    struct CUlogsCallbackEntry_st calls[MAX_CALLBACKS];
    int ncalls = 0;
    pthread_mutex_lock(&lock);
    while (logs.next - logs.first == MAX_LINES || logs.bytes + length + 1 > LOG_BYTES)
        drop_oldest();
    unsigned int slot = logs.next % MAX_LINES;
    logs.line[slot] = copy;
    logs.len[slot] = length;
    logs.bytes += length + 1;
    logs.next++;
    for (int i = 0; i < MAX_CALLBACKS; i++)
        if (logs.callbacks[i] != NULL)
            calls[ncalls++] = *logs.callbacks[i];
    pthread_mutex_unlock(&lock);
    if (in_callback)
        return;
    /* outside the lock: a callback may call cuLogs* itself */
    in_callback = 1;
    for (int i = 0; i < ncalls; i++) {
        char message[1200];
        size_t n = length < sizeof message - 1 ? length : sizeof message - 1;
        memcpy(message, line, n);
        message[n] = '\0';
        calls[i].fn(calls[i].data, CU_LOG_LEVEL_ERROR, message, n);
    }
    in_callback = 0;
}

CUresult CUDAAPI cuLogsRegisterCallback(CUlogsCallback callbackFunc, void *userData,
                                        CUlogsCallbackHandle *callback_out)
{
    if (callbackFunc == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUlogsCallbackEntry_st *e = malloc(sizeof *e);
    if (e == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->fn = callbackFunc;
    e->data = userData;
    int placed = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_CALLBACKS && !placed; i++)
        if (logs.callbacks[i] == NULL) {
            logs.callbacks[i] = e;
            placed = 1;
        }
    pthread_mutex_unlock(&lock);
    if (!placed) {
        free(e);
        pyshim_log("cuLogsRegisterCallback: %d callbacks are registered already",
                   MAX_CALLBACKS);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (callback_out != NULL)
        *callback_out = e;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLogsUnregisterCallback(CUlogsCallbackHandle callback)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_CALLBACKS && callback != NULL; i++)
        if (logs.callbacks[i] == callback) {
            logs.callbacks[i] = NULL;
            found = 1;
            break;
        }
    pthread_mutex_unlock(&lock);
    if (!found)
        return CUDA_ERROR_INVALID_VALUE;
    /* a log line on another thread may still be calling it from its copy: the entry is
     * kept (a few bytes per registration) rather than freed under it */
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLogsCurrent(CUlogIterator *iterator_out, unsigned int flags)
{
    if (iterator_out == NULL || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    *iterator_out = logs.next;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

/* The first kept line at or after `from`, and how many lines after `from` were dropped.
 * Under `lock`. Sequence numbers wrap: compared by distance from logs.next. */
static unsigned int start_at(const CUlogIterator *iterator, unsigned int *dropped)
{
    unsigned int from = iterator != NULL ? *iterator : 0; /* NULL: all, noting losses */
    unsigned int behind = logs.next - from, kept = logs.next - logs.first;
    if (behind > kept && behind <= logs.next) { /* lines since `from` were overwritten */
        *dropped = behind - kept;
        return logs.first;
    }
    *dropped = 0;
    return behind > kept ? logs.next : from; /* an iterator from the future: nothing */
}

static const char *line_at(unsigned int seq, size_t *len)
{
    unsigned int slot = seq % MAX_LINES;
    *len = logs.len[slot];
    return logs.line[slot];
}

CUresult CUDAAPI cuLogsDumpToFile(CUlogIterator *iterator, const char *pathToFile,
                                  unsigned int flags)
{
    if (pathToFile == NULL || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(pathToFile, "a");
    if (f == NULL) {
        pyshim_log("cuLogsDumpToFile: cannot open %s for writing", pathToFile);
        return CUDA_ERROR_INVALID_VALUE;
    }
    int ok = 1;
    pthread_mutex_lock(&lock);
    unsigned int dropped, seq = start_at(iterator, &dropped);
    if (dropped != 0)
        ok &= fprintf(f, "pyshim: logs truncated: %u earlier lines were overwritten\n",
                      dropped) > 0;
    for (; seq != logs.next; seq++) {
        size_t len;
        const char *l = line_at(seq, &len);
        ok &= fwrite(l, 1, len, f) == len && fputc('\n', f) != EOF;
    }
    if (iterator != NULL)
        *iterator = logs.next;
    pthread_mutex_unlock(&lock);
    ok &= fclose(f) == 0;
    if (!ok) {
        pyshim_log("cuLogsDumpToFile: writing %s failed", pathToFile);
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLogsDumpToMemory(CUlogIterator *iterator, char *buffer, size_t *size,
                                    unsigned int flags)
{
    if (buffer == NULL || size == NULL || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    size_t cap = *size;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&lock);
    unsigned int dropped, seq = start_at(iterator, &dropped);
    unsigned int total = logs.next - seq;
    size_t need = 0;
    for (unsigned int s = seq; s != logs.next; s++) {
        size_t len;
        line_at(s, &len);
        need += len + 1;
    }
    char note[160];
    size_t note_len = 0;
    if (dropped != 0)
        note_len = (size_t)snprintf(note, sizeof note,
                                    "pyshim: logs truncated: %u earlier lines were overwritten\n",
                                    dropped);
    unsigned int from = seq;
    if (total != 0 && note_len + need + 1 > cap) {
        /* the newest lines that fit after a note saying how many were left out */
        size_t fit = 0;
        unsigned int keep = 0;
        for (;;) {
            unsigned int s = logs.next - keep - 1;
            size_t len;
            line_at(s, &len);
            char probe[160];
            size_t probe_len = (size_t)snprintf(
                probe, sizeof probe, "pyshim: buffer too small: the last %u of %u lines\n",
                keep + 1, total);
            if (keep == total || probe_len + fit + len + 1 + 1 > cap)
                break;
            fit += len + 1;
            keep++;
            memcpy(note, probe, probe_len);
            note_len = probe_len;
            if (keep == total)
                break;
        }
        if (keep == 0) {
            rc = CUDA_ERROR_INVALID_VALUE;
            total = 0;
        }
        from = logs.next - keep;
    }
    size_t at = 0;
    if (total != 0) {
        memcpy(buffer, note, note_len);
        at = note_len;
        for (unsigned int s = from; s != logs.next; s++) {
            size_t len;
            const char *l = line_at(s, &len);
            memcpy(buffer + at, l, len);
            at += len;
            buffer[at++] = '\n';
        }
    }
    if (cap != 0)
        buffer[at] = '\0';
    *size = at;
    if (iterator != NULL && rc == CUDA_SUCCESS)
        *iterator = logs.next;
    pthread_mutex_unlock(&lock);
    return rc;
}
