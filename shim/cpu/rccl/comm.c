/*
 * Communicators: unique ids, the cliques their ranks join, queries and errors.
 *
 * A unique id names a clique of this process (a random tag plus a counter, so ids from
 * ncclGetUniqueId never repeat); ncclCommInitRank joins it, and like NCCL's waits until
 * every rank has joined, except inside a group, where ncclGroupEnd waits. A clique lives
 * until its last communicator and the last task that names one are gone.
 *
 * Ranks in other processes: the id also names a rendezvous directory (gloo's file store,
 * under PYSHIM_NCCL_STORE_DIR, TMPDIR or /tmp; a shared file system for several machines).
 * A process other than the id's maker knows at once that the communicator spans processes:
 * it marks the directory; the maker's ranks, waiting for local ranks that will never come,
 * see the mark. Then every local rank makes its own gloo context (a thread each, so ranks
 * of one thread's group connect together) and its calls run through gloo (coll_gloo.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rccl_internal.h"
#include "reduce.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static rc_clique *pending = NULL;          /* cliques that still wait for ranks */
static atomic_ullong next_id = 1;
static _Thread_local char last_error[640];

#define ID_TAG "pyshim-cpu-rccl"
#define REMOTE_MARK "pyshim-remote"
#define POLL_NS 2000000L           /* the maker's ranks look for the mark this often */

void rc_log(const char *fn, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(last_error, sizeof last_error, "%s: %s", fn, msg);
    fprintf(stderr, "pyshim cpu device: rccl: %s: %s\n", fn, msg);
}

ncclResult_t rc_fail(const char *fn, ncclResult_t r, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rc_log(fn, "%s", msg);
    return r;
}

/* Communicators the user holds: a destroyed or forged one is refused before it is read */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ncclComm **live;
static size_t live_len, live_cap;

static bool live_add(struct ncclComm *c)
{
    pthread_mutex_lock(&live_lock);
    bool ok = true;
    if (live_len == live_cap) {
        size_t cap = live_cap ? live_cap * 2 : 16;
        struct ncclComm **p = realloc(live, cap * sizeof *p);
        if (p == NULL)
            ok = false;
        else {
            live = p;
            live_cap = cap;
        }
    }
    if (ok)
        live[live_len++] = c;
    pthread_mutex_unlock(&live_lock);
    return ok;
}

static bool live_remove(struct ncclComm *c)
{
    pthread_mutex_lock(&live_lock);
    bool found = false;
    for (size_t i = 0; i < live_len && !found; i++)
        if (live[i] == c) {
            live[i] = live[--live_len];
            found = true;
        }
    pthread_mutex_unlock(&live_lock);
    return found;
}

static bool live_has(const struct ncclComm *c)
{
    pthread_mutex_lock(&live_lock);
    bool found = false;
    for (size_t i = 0; i < live_len && !found; i++)
        found = live[i] == c;
    pthread_mutex_unlock(&live_lock);
    return found;
}

ncclResult_t rc_check_comm(const char *fn, ncclComm_t comm)
{
    if (comm == NULL)
        return rc_fail(fn, ncclInvalidArgument, "comm is NULL");
    if (!live_has(comm))
        return rc_fail(fn, ncclInvalidArgument, "comm %p is not a live communicator",
                       (void *)comm);
    return ncclSuccess;
}

void rc_set_async(rc_clique *q, ncclResult_t r)
{
    /* the caller holds q->lock */
    if (q->error == ncclSuccess)
        q->error = r;
}

static void clique_free(rc_clique *q)
{
    for (int i = 0; i < q->nranks * q->nranks; i++)
        for (rc_send *s = q->chan_head[i], *n; s != NULL; s = n) {
            n = s->next;
            free(s);
        }
    for (int i = 0; i < RC_SLOTS; i++)
        free(q->slots[i].args);
    free(q->chan_head);
    free(q->chan_tail);
    free(q->comms);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->cond);
    free(q);
}

static rc_clique *clique_new(const ncclUniqueId *id, int nranks)
{
    rc_clique *q = calloc(1, sizeof *q);
    if (q == NULL)
        return NULL;
    memcpy(q->id, id->internal, sizeof q->id);
    q->connect_error = ncclSuccess;
    q->nranks = nranks;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->cond, NULL);
    q->comms = calloc((size_t)nranks, sizeof *q->comms);
    q->chan_head = calloc((size_t)nranks * (size_t)nranks, sizeof *q->chan_head);
    q->chan_tail = calloc((size_t)nranks * (size_t)nranks, sizeof *q->chan_tail);
    bool ok = q->comms && q->chan_head && q->chan_tail;
    for (int i = 0; i < RC_SLOTS && ok; i++) {
        q->slots[i].seq = (uint64_t)i;
        ok = (q->slots[i].args = calloc((size_t)nranks, sizeof(rc_task))) != NULL;
    }
    if (!ok) {
        clique_free(q);
        return NULL;
    }
    return q;
}

void rc_comm_release(struct ncclComm *c)
{
    rc_clique *q = c->clique;
    /* a cross-process clique stays pending (its other ranks join elsewhere): unlinked here,
     * under the registry's lock, which only such a clique needs (a clique leaves the list
     * once and never comes back) */
    pthread_mutex_lock(&q->lock);
    bool pend = q->in_pending;
    pthread_mutex_unlock(&q->lock);
    if (pend)
        pthread_mutex_lock(&registry_lock);
    pthread_mutex_lock(&q->lock);
    bool last_of_comm = --c->refs == 0;
    bool last_of_clique = last_of_comm && --q->refs == 0;
    if (last_of_comm)
        q->comms[c->rank] = NULL;
    else
        pthread_cond_broadcast(&q->cond);   /* a cross-process split waits for the tasks */
    if (last_of_clique && q->in_pending) {
        rc_clique **link = &pending;
        while (*link != q)
            link = &(*link)->next_pending;
        *link = q->next_pending;
    }
    pthread_mutex_unlock(&q->lock);
    if (pend)
        pthread_mutex_unlock(&registry_lock);
    if (last_of_comm) {
        for (rc_reg *g = c->regs, *n; g != NULL; g = n) {
            n = g->next;
            free(g);
        }
        rc_gloo_free(c->gloo);
        pthread_mutex_destroy(&c->gloo_lock);
        c->magic = 0;
        free(c);
    }
    if (last_of_clique)
        clique_free(q);
}

RC_API ncclResult_t ncclGetVersion(int *version)
{
    if (version == NULL)
        return rc_fail("ncclGetVersion", ncclInvalidArgument, "version is NULL");
    *version = RCCL_VERSION_CODE;
    return ncclSuccess;
}

RC_API ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    if (uniqueId == NULL)
        return rc_fail("ncclGetUniqueId", ncclInvalidArgument, "uniqueId is NULL");
    memset(uniqueId, 0, sizeof *uniqueId);
    unsigned long long n = atomic_fetch_add(&next_id, 1);
    const char *base = getenv("PYSHIM_NCCL_STORE_DIR");
    if (base == NULL || *base == '\0')
        base = getenv("TMPDIR");
    if (base == NULL || *base == '\0')
        base = "/tmp";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char store[RC_STORE_MAX + 1];
    int len = snprintf(store, sizeof store, "%s/pyshim-nccl-%ld-%llu-%lx", base,
                       (long)getpid(), n, (unsigned long)(ts.tv_sec * 1000000000L + ts.tv_nsec));
    if (len < 0 || len >= RC_STORE_MAX)
        return rc_fail("ncclGetUniqueId", ncclInvalidArgument, "the rendezvous directory "
                       "%s/... is longer than the unique id holds (%d bytes): set "
                       "PYSHIM_NCCL_STORE_DIR to a shorter path", base, RC_STORE_MAX - 1);
    snprintf(uniqueId->internal, sizeof uniqueId->internal, "%s %ld %llu %s", ID_TAG,
             (long)getpid(), n, store);
    return ncclSuccess;
}

/* the id's maker and rendezvous directory; false for an id ncclGetUniqueId did not make */
static bool id_parse(const ncclUniqueId *id, long *pid, char store[RC_STORE_MAX])
{
    char buf[RCCL_UNIQUE_ID_BYTES + 1];
    memcpy(buf, id->internal, RCCL_UNIQUE_ID_BYTES);
    buf[RCCL_UNIQUE_ID_BYTES] = '\0';
    size_t tag = strlen(ID_TAG);
    unsigned long long n;
    int at = 0;
    if (strncmp(buf, ID_TAG, tag) != 0 || buf[tag] != ' '
        || sscanf(buf + tag, " %ld %llu %n", pid, &n, &at) != 2 || at == 0)
        return false;
    const char *path = buf + tag + at;
    size_t len = strlen(path);
    if (len == 0 || len >= RC_STORE_MAX || path[0] != '/')
        return false;
    memcpy(store, path, len + 1);
    return true;
}

/* ---- ranks in other processes ---- */

static int gloo_timeout_ms(void)
{
    const char *s = getenv("PYSHIM_NCCL_TIMEOUT_S");
    long v = s != NULL ? strtol(s, NULL, 10) : 0;
    return v > 0 && v < 86400 ? (int)(v * 1000) : 600 * 1000;
}

static bool mark_remote(const char *store)
{
    if (mkdir(store, 0700) != 0 && errno != EEXIST)
        return false;
    char path[RC_STORE_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", store, REMOTE_MARK);
    FILE *f = fopen(path, "w");
    if (f != NULL)
        fclose(f);
    return f != NULL;
}

static bool marked_remote(const char *store)
{
    char path[RC_STORE_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", store, REMOTE_MARK);
    return access(path, F_OK) == 0;
}

/* once every rank is connected the store's files are no longer read: rank 0 removes them */
static void store_remove(const char *store)
{
    DIR *d = opendir(store);
    if (d == NULL)
        return;
    char path[RC_STORE_MAX + 300];
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(path, sizeof path, "%s/%s", store, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(store);
}

static void *connect_rank(void *arg)
{
    struct ncclComm *c = arg;
    rc_clique *q = c->clique;
    char err[RC_GLOO_ERR] = "";
    ncclResult_t r = ncclSuccess;
    rc_gloo *g = NULL;
    if (mkdir(q->store, 0700) != 0 && errno != EEXIST) {
        rc_log("ncclCommInitRank", "rank %d: cannot make the rendezvous directory %s: %s",
               c->rank, q->store, strerror(errno));
        r = ncclSystemError;
    } else if ((g = rc_gloo_connect(q->store, c->rank, c->nranks, gloo_timeout_ms(),
                                    err)) == NULL) {
        rc_log("ncclCommInitRank", "rank %d of %d: joining the other processes' ranks "
               "through %s failed: %s", c->rank, c->nranks, q->store, err);
        r = rc_gloo_available() ? ncclRemoteError : ncclSystemError;
    } else if (rc_gloo_barrier(g, 0, err) != 0) {
        rc_log("ncclCommInitRank", "rank %d: the first barrier failed: %s", c->rank, err);
        r = ncclRemoteError;
    } else if (c->rank == 0) {
        store_remove(q->store);
    }
    pthread_mutex_lock(&q->lock);
    if (r == ncclSuccess)
        c->gloo = g;
    else {
        rc_gloo_free(g);
        if (q->connect_error == ncclSuccess)
            q->connect_error = r;
    }
    q->connecting--;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
    rc_comm_release(c);
    return NULL;
}

/* with q->lock held: every local rank not yet connecting starts */
static void start_connects(rc_clique *q)
{
    for (int k = 0; k < q->nranks; k++) {
        struct ncclComm *c = q->comms[k];
        if (c == NULL || c->connect_started)
            continue;
        c->connect_started = true;
        c->refs++;
        q->connecting++;
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, connect_rank, c) != 0) {
            c->refs--;
            q->connecting--;
            if (q->connect_error == ncclSuccess)
                q->connect_error = ncclSystemError;
            rc_log("ncclCommInitRank", "rank %d: no thread to connect with", k);
        }
        pthread_attr_destroy(&attr);
    }
}


ncclResult_t rc_wait_joined(rc_clique *q)
{
    pthread_mutex_lock(&q->lock);
    while (!q->complete && !q->aborted && !q->remote) {
        if (q->store[0] == '\0') {
            pthread_cond_wait(&q->cond, &q->lock);
            continue;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += POLL_NS;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&q->cond, &q->lock, &ts);
        if (!q->complete && !q->remote && marked_remote(q->store)) {
            q->remote = true;
            pthread_cond_broadcast(&q->cond);
        }
    }
    if (q->remote && !q->aborted) {
        start_connects(q);
        while (q->connecting > 0 && !q->aborted)
            pthread_cond_wait(&q->cond, &q->lock);
    }
    ncclResult_t r = q->aborted ? ncclRemoteError
        : q->remote ? q->connect_error : ncclSuccess;
    pthread_mutex_unlock(&q->lock);
    return r;
}

static struct ncclComm *comm_new(rc_clique *q, int rank, int device)
{
    struct ncclComm *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->magic = RC_COMM_MAGIC;
    c->clique = q;
    c->rank = rank;
    c->nranks = q->nranks;
    c->device = device;
    c->refs = 1;
    pthread_mutex_init(&c->gloo_lock, NULL);
    return c;
}

/* `caller_waits`: ncclCommInitAll joins every rank first, then waits once */
static ncclResult_t join(const char *fn, ncclComm_t *out, int nranks, ncclUniqueId id,
                         int rank, int device, bool caller_waits)
{
    if (out == NULL)
        return rc_fail(fn, ncclInvalidArgument, "comm is NULL");
    if (nranks < 1)
        return rc_fail(fn, ncclInvalidArgument, "nranks %d is not positive", nranks);
    if (rank < 0 || rank >= nranks)
        return rc_fail(fn, ncclInvalidArgument, "rank %d is not in [0, %d)", rank, nranks);
    long maker;
    char store[RC_STORE_MAX];
    if (!id_parse(&id, &maker, store))
        return rc_fail(fn, ncclInvalidArgument,
                       "the unique id did not come from ncclGetUniqueId of pyshim's CPU device");
    bool other_process = maker != (long)getpid();
    if (other_process && !rc_gloo_available())
        return rc_fail(fn, ncclInvalidUsage, "the unique id comes from process %ld: "
                       "communicators across processes need gloo, and this librccl.so.1 was "
                       "built without its headers (install libgloo-dev and rebuild)", maker);
    if (other_process && !mark_remote(store))
        return rc_fail(fn, ncclSystemError, "cannot mark the rendezvous directory %s: %s",
                       store, strerror(errno));
    pthread_mutex_lock(&registry_lock);
    rc_clique *q = pending, **link = &pending;
    for (; q != NULL; link = &q->next_pending, q = q->next_pending)
        if (memcmp(q->id, id.internal, sizeof q->id) == 0)
            break;
    if (q == NULL) {
        q = clique_new(&id, nranks);
        if (q == NULL) {
            pthread_mutex_unlock(&registry_lock);
            return rc_fail(fn, ncclSystemError, "out of memory");
        }
        memcpy(q->store, store, sizeof q->store);
        q->remote = other_process;
        q->next_pending = pending;
        q->in_pending = true;
        pending = q;
        link = &pending;
    }
    pthread_mutex_lock(&q->lock);
    ncclResult_t r = ncclSuccess;
    if (q->nranks != nranks)
        r = rc_fail(fn, ncclInvalidUsage, "nranks %d differs from the %d of rank(s) already "
                    "joined", nranks, q->nranks);
    else if (q->comms[rank] != NULL)
        r = rc_fail(fn, ncclInvalidUsage, "rank %d has already joined this unique id", rank);
    struct ncclComm *c = NULL;
    for (int k = 0; k < nranks && r == ncclSuccess; k++)
        if (q->comms[k] != NULL && q->comms[k]->device == device)
            r = rc_fail(fn, ncclInvalidUsage, "ranks %d and %d are both on device %d "
                        "(NCCL's duplicate GPU)", k, rank, device);
    if (r == ncclSuccess && (c = comm_new(q, rank, device)) == NULL)
        r = rc_fail(fn, ncclSystemError, "out of memory");
    if (r == ncclSuccess && !live_add(c)) {
        free(c);
        r = rc_fail(fn, ncclSystemError, "out of memory");
    }
    if (r == ncclSuccess) {
        q->comms[rank] = c;
        q->refs++;
        if (++q->joined == nranks) {
            q->complete = true;
            *link = q->next_pending;     /* ids are single-use */
            q->in_pending = false;
            pthread_cond_broadcast(&q->cond);
        }
    }
    pthread_mutex_unlock(&q->lock);
    pthread_mutex_unlock(&registry_lock);
    if (r != ncclSuccess)
        return r;
    *out = c;
    if (caller_waits)
        return ncclSuccess;
    if (rc_group_active()) {
        rc_group_defer_join(q);
        return ncclSuccess;
    }
    return rc_wait_joined(q);
}

static int current_device(void)
{
    int d = 0;
    if (hipGetDevice(&d) != hipSuccess)
        d = 0;
    return d;
}

RC_API ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                                     int rank)
{
    return join("ncclCommInitRank", comm, nranks, commId, rank, current_device(), false);
}

RC_API ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                                           int rank, ncclConfig_t *config)
{
    if (config != NULL && (config->magic != RCCL_API_MAGIC || config->size < 16))
        return rc_fail("ncclCommInitRankConfig", ncclInvalidArgument,
                       "config was not made by NCCL_CONFIG_INITIALIZER");
    /* blocking = 0 asks for ncclInProgress while ranks join; joining here always completes
     * (inside a group, at ncclGroupEnd), so every call is a blocking one */
    return join("ncclCommInitRankConfig", comm, nranks, commId, rank, current_device(), false);
}

RC_API ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    const char *fn = "ncclCommInitAll";
    if (comms == NULL)
        return rc_fail(fn, ncclInvalidArgument, "comms is NULL");
    if (ndev < 1)
        return rc_fail(fn, ncclInvalidArgument, "ndev %d is not positive", ndev);
    int count = 0;
    if (hipGetDeviceCount(&count) != hipSuccess)
        count = 1;
    for (int i = 0; devlist != NULL && i < ndev; i++)
        if (devlist[i] < 0 || devlist[i] >= count)
            return rc_fail(fn, ncclInvalidArgument, "devlist[%d] = %d is not a device "
                           "(%d present)", i, devlist[i], count);
    if (devlist == NULL && ndev > count)
        return rc_fail(fn, ncclInvalidArgument, "ndev %d exceeds the %d devices present",
                       ndev, count);
    ncclUniqueId id;
    ncclGetUniqueId(&id);
    /* every rank joins before any waits: no thread per rank is needed */
    ncclResult_t r = ncclSuccess;
    for (int i = 0; i < ndev && r == ncclSuccess; i++)
        r = join(fn, &comms[i], ndev, id, i, devlist != NULL ? devlist[i] : i, true);
    return r == ncclSuccess ? rc_wait_joined(comms[0]->clique) : r;
}

static void split_free(rc_split *s)
{
    free(s->color);
    free(s->key);
    free(s->device);
    free(s->out);
    free(s);
}

ncclResult_t rc_wait_split(rc_clique *q, rc_split *s)
{
    pthread_mutex_lock(&q->lock);
    while (!s->done && !q->aborted)
        pthread_cond_wait(&q->cond, &q->lock);
    bool done = s->done, last = --s->waiters == 0;
    if (last) {
        rc_split **link = &q->splits;
        while (*link != s)
            link = &(*link)->next;
        *link = s->next;
    }
    pthread_mutex_unlock(&q->lock);
    if (last)
        split_free(s);
    return done ? ncclSuccess : ncclRemoteError;
}

/* the last rank's arrival: every color's clique, its ranks ordered by key, then old rank */
static ncclResult_t split_make(rc_clique *parent, rc_split *s)
{
    int n = parent->nranks;
    ncclResult_t r = ncclSuccess;
    for (int i = 0; i < n; i++)
        *s->out[i] = NULL;
    for (int i = 0; i < n; i++) {
        if (s->color[i] < 0 || *s->out[i] != NULL)
            continue;
        int members[RC_REDUCE_MAX_SRC], m = 0;
        for (int j = 0; j < n; j++)
            if (s->color[j] == s->color[i])
                members[m++] = j;
        for (int a = 1; a < m; a++)   /* insertion sort by (key, parent rank) */
            for (int b = a; b > 0 && s->key[members[b - 1]] > s->key[members[b]]; b--) {
                int t = members[b];
                members[b] = members[b - 1];
                members[b - 1] = t;
            }
        ncclUniqueId id;
        ncclGetUniqueId(&id);
        rc_clique *q = clique_new(&id, m);
        if (q == NULL)
            return ncclSystemError;
        for (int k = 0; k < m; k++) {
            struct ncclComm *c = comm_new(q, k, s->device[members[k]]);
            if (c == NULL || !live_add(c)) {
                free(c);
                r = ncclSystemError;
                continue;
            }
            q->comms[k] = c;
            q->refs++;
            q->joined++;
            *s->out[members[k]] = c;
        }
        q->complete = true;
    }
    return r;
}

/* ---- ncclCommSplit of a cross-process communicator ----
 * Every rank's color, key and a unique id of its own process go round the parent's gloo
 * context (one allgather); each color's communicator then joins by the id of its first
 * member in (key, parent rank) order, as ncclCommInitRank does: all in one process, it is
 * an in-process communicator. The parent's tasks on its streams finish first, so the
 * exchange never waits behind a collective another rank runs later. In a group each split
 * runs in a thread of its own, waited for at ncclGroupEnd (ranks of one thread meet). */

typedef struct {
    int32_t color, key;
    ncclUniqueId id;
} split_entry;

struct rc_remote_split {
    struct ncclComm *parent;
    int color, key;
    uint32_t tag;
    ncclComm_t *out;
    ncclResult_t result;
    pthread_t thread;
};

static void *remote_split_run(void *arg)
{
    const char *fn = "ncclCommSplit";
    rc_remote_split *rs = arg;
    struct ncclComm *c = rs->parent;
    rc_clique *q = c->clique;
    int n = c->nranks;
    char err[RC_GLOO_ERR] = "";
    split_entry *e = calloc((size_t)n, sizeof *e);
    if (e == NULL) {
        rs->result = rc_fail(fn, ncclSystemError, "out of memory");
        return NULL;
    }
    e[c->rank].color = rs->color;
    e[c->rank].key = rs->key;
    ncclGetUniqueId(&e[c->rank].id);
    pthread_mutex_lock(&q->lock);
    while (c->refs > 1)
        pthread_cond_wait(&q->cond, &q->lock);
    pthread_mutex_unlock(&q->lock);
    pthread_mutex_lock(&c->gloo_lock);
    int g = rc_gloo_allgather(c->gloo, e, sizeof *e, rs->tag, err);
    pthread_mutex_unlock(&c->gloo_lock);
    if (g != 0) {
        rs->result = rc_fail(fn, ncclRemoteError, "rank %d: exchanging colors with the other "
                             "processes failed: %s", c->rank, err);
    } else if (rs->color < 0) {
        *rs->out = NULL;
        rs->result = ncclSuccess;
    } else {
        int m = 0, me = 0, first = -1;
        for (int j = 0; j < n; j++) {
            if (e[j].color != rs->color)
                continue;
            m++;
            if (e[j].key < rs->key || (e[j].key == rs->key && j < c->rank))
                me++;
            if (first < 0 || e[j].key < e[first].key)
                first = j;
        }
        rs->result = join(fn, rs->out, m, e[first].id, me, c->device, false);
    }
    free(e);
    return NULL;
}

ncclResult_t rc_remote_split_wait(rc_remote_split *rs)
{
    pthread_join(rs->thread, NULL);
    ncclResult_t r = rs->result;
    free(rs);
    return r;
}

static ncclResult_t remote_split(ncclComm_t comm, int color, int key, ncclComm_t *newcomm)
{
    const char *fn = "ncclCommSplit";
    if (comm->gloo == NULL)
        return rc_fail(fn, ncclInvalidUsage, "rank %d's communicator spans processes and its "
                       "connection failed", comm->rank);
    rc_remote_split *rs = calloc(1, sizeof *rs);
    if (rs == NULL)
        return rc_fail(fn, ncclSystemError, "out of memory");
    pthread_mutex_lock(&comm->clique->lock);
    /* tags above the collectives' (their call numbers) */
    rs->tag = 0x80000000u | (uint32_t)comm->next_split++;
    pthread_mutex_unlock(&comm->clique->lock);
    rs->parent = comm;
    rs->color = color;
    rs->key = key;
    rs->out = newcomm;
    if (!rc_group_active()) {
        remote_split_run(rs);
        ncclResult_t r = rs->result;
        free(rs);
        return r;
    }
    if (pthread_create(&rs->thread, NULL, remote_split_run, rs) != 0) {
        free(rs);
        return rc_fail(fn, ncclSystemError, "no thread for the split");
    }
    rc_group_defer_remote_split(rs);
    return ncclSuccess;
}

RC_API ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                                  ncclConfig_t *config)
{
    const char *fn = "ncclCommSplit";
    ncclResult_t r = rc_check_comm(fn, comm);
    if (r != ncclSuccess)
        return r;
    if (newcomm == NULL)
        return rc_fail(fn, ncclInvalidArgument, "newcomm is NULL");
    if (color < 0 && color != -1)
        return rc_fail(fn, ncclInvalidArgument, "color %d is negative and not "
                       "NCCL_SPLIT_NOCOLOR", color);
    (void)config;   /* the new communicators are blocking, as every one here */
    rc_clique *q = comm->clique;
    if (q->remote)
        return remote_split(comm, color, key, newcomm);
    pthread_mutex_lock(&q->lock);
    uint64_t seq = comm->next_split++;
    rc_split *s = q->splits;
    while (s != NULL && s->seq != seq)
        s = s->next;
    if (s == NULL) {
        s = calloc(1, sizeof *s);
        int n = q->nranks;
        if (s != NULL) {
            s->color = calloc((size_t)n, sizeof *s->color);
            s->key = calloc((size_t)n, sizeof *s->key);
            s->device = calloc((size_t)n, sizeof *s->device);
            s->out = calloc((size_t)n, sizeof *s->out);
        }
        if (s == NULL || !s->color || !s->key || !s->device || !s->out) {
            if (s != NULL)
                split_free(s);
            pthread_mutex_unlock(&q->lock);
            return rc_fail(fn, ncclSystemError, "out of memory");
        }
        s->seq = seq;
        s->waiters = n;
        s->next = q->splits;
        q->splits = s;
    }
    s->color[comm->rank] = color;
    s->key[comm->rank] = key;
    s->device[comm->rank] = comm->device;
    s->out[comm->rank] = newcomm;
    if (++s->arrived == q->nranks) {
        r = split_make(q, s);
        if (r != ncclSuccess)
            rc_log(fn, "out of memory making the new communicators");
        s->done = true;
        pthread_cond_broadcast(&q->cond);
    }
    pthread_mutex_unlock(&q->lock);
    if (rc_group_active()) {
        rc_group_defer_split(q, s);
        return r;
    }
    ncclResult_t w = rc_wait_split(q, s);
    return r != ncclSuccess ? r : w;
}

RC_API ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    /* tasks already run in stream order; nothing is left to flush */
    return rc_check_comm("ncclCommFinalize", comm);
}

static ncclResult_t drop(const char *fn, ncclComm_t comm, bool abort)
{
    if (comm == NULL)
        return rc_fail(fn, ncclInvalidArgument, "comm is NULL");
    if (!live_remove(comm))   /* one call wins a race to destroy it */
        return rc_fail(fn, ncclInvalidArgument, "comm %p is not a live communicator",
                       (void *)comm);
    rc_clique *q = comm->clique;
    pthread_mutex_lock(&q->lock);
    comm->destroyed = true;
    if (abort) {
        /* ranks waiting for this one give up with ncclRemoteError */
        q->aborted = true;
        rc_set_async(q, ncclRemoteError);
        pthread_cond_broadcast(&q->cond);
    }
    pthread_mutex_unlock(&q->lock);
    rc_comm_release(comm);
    return ncclSuccess;
}

RC_API ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    return drop("ncclCommDestroy", comm, false);
}

RC_API ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    return drop("ncclCommAbort", comm, true);
}

RC_API ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    ncclResult_t r = rc_check_comm("ncclCommGetAsyncError", comm);
    if (r != ncclSuccess)
        return r;
    if (asyncError == NULL)
        return rc_fail("ncclCommGetAsyncError", ncclInvalidArgument, "asyncError is NULL");
    pthread_mutex_lock(&comm->clique->lock);
    *asyncError = comm->clique->error;
    pthread_mutex_unlock(&comm->clique->lock);
    return ncclSuccess;
}

#define QUERY(NAME, FIELD)                                                              \
    RC_API ncclResult_t NAME(ncclComm_t comm, int *out)                                 \
    {                                                                                   \
        ncclResult_t r = rc_check_comm(#NAME, comm);                                    \
        if (r != ncclSuccess)                                                           \
            return r;                                                                   \
        if (out == NULL)                                                                \
            return rc_fail(#NAME, ncclInvalidArgument, "the result pointer is NULL");   \
        *out = comm->FIELD;                                                             \
        return ncclSuccess;                                                             \
    }
QUERY(ncclCommCount, nranks)
QUERY(ncclCommCuDevice, device)
QUERY(ncclCommUserRank, rank)

RC_API const char *ncclGetErrorString(ncclResult_t result)
{
    switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "a HIP call failed";
    case ncclSystemError: return "a system call failed (memory, threads)";
    case ncclInternalError: return "internal error of the CPU device's RCCL";
    case ncclInvalidArgument: return "invalid argument (the log names it)";
    case ncclInvalidUsage: return "invalid usage (the log says which)";
    case ncclRemoteError: return "a rank of the communicator aborted";
    case ncclInProgress: return "operation in progress";
    default: return "unknown result code";
    }
}

RC_API const char *ncclGetLastError(ncclComm_t comm)
{
    (void)comm;   /* NCCL's last error is the thread's, whatever the communicator */
    return last_error;
}

RC_API void ncclResetDebugInit(void)
{
}

RC_API ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t *op, void *scalar,
                                             ncclDataType_t datatype,
                                             ncclScalarResidence_t residence,
                                             ncclComm_t comm)
{
    const char *fn = "ncclRedOpCreatePreMulSum";
    ncclResult_t r = rc_check_comm(fn, comm);
    if (r != ncclSuccess)
        return r;
    if (op == NULL || scalar == NULL)
        return rc_fail(fn, ncclInvalidArgument, "op or scalar is NULL");
    if ((unsigned)datatype >= ncclNumTypes)
        return rc_fail(fn, ncclInvalidArgument, "datatype %d is not an ncclDataType_t",
                       (int)datatype);
    if (residence != ncclScalarDevice && residence != ncclScalarHostImmediate)
        return rc_fail(fn, ncclInvalidArgument, "residence %d is not an "
                       "ncclScalarResidence_t", (int)residence);
    for (int i = 0; i < RC_MAX_PREMUL; i++) {
        rc_premul *p = &comm->premul[i];
        if (p->used)
            continue;
        *p = (rc_premul){true, residence, datatype, {0}, NULL};
        if (residence == ncclScalarHostImmediate)
            memcpy(p->value, scalar, rc_type_size(datatype));
        else
            p->ptr = scalar;   /* read when each reduction runs, in stream order */
        *op = (ncclRedOp_t)(ncclNumOps + i);
        return ncclSuccess;
    }
    return rc_fail(fn, ncclInvalidUsage, "more than %d user reduction ops", RC_MAX_PREMUL);
}

RC_API ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm)
{
    const char *fn = "ncclRedOpDestroy";
    ncclResult_t r = rc_check_comm(fn, comm);
    if (r != ncclSuccess)
        return r;
    int i = (int)op - ncclNumOps;
    if (i < 0 || i >= RC_MAX_PREMUL || !comm->premul[i].used)
        return rc_fail(fn, ncclInvalidArgument, "op %d was not made by "
                       "ncclRedOpCreatePreMulSum on this communicator", (int)op);
    comm->premul[i].used = false;
    return ncclSuccess;
}

RC_API ncclResult_t ncclCommRegister(ncclComm_t comm, void *buff, size_t size, void **handle)
{
    const char *fn = "ncclCommRegister";
    ncclResult_t r = rc_check_comm(fn, comm);
    if (r != ncclSuccess)
        return r;
    if (handle == NULL || (buff == NULL && size > 0))
        return rc_fail(fn, ncclInvalidArgument, "%s is NULL", handle == NULL ? "handle" : "buff");
    rc_reg *g = malloc(sizeof *g);
    if (g == NULL)
        return rc_fail(fn, ncclSystemError, "out of memory");
    pthread_mutex_lock(&comm->clique->lock);
    *g = (rc_reg){buff, size, comm->regs};
    comm->regs = g;
    pthread_mutex_unlock(&comm->clique->lock);
    *handle = g;
    return ncclSuccess;
}

RC_API ncclResult_t ncclCommDeregister(ncclComm_t comm, void *handle)
{
    const char *fn = "ncclCommDeregister";
    ncclResult_t r = rc_check_comm(fn, comm);
    if (r != ncclSuccess)
        return r;
    pthread_mutex_lock(&comm->clique->lock);
    rc_reg **link = &comm->regs;
    while (*link != NULL && *link != handle)
        link = &(*link)->next;
    rc_reg *g = *link;
    if (g != NULL)
        *link = g->next;
    pthread_mutex_unlock(&comm->clique->lock);
    if (g == NULL)
        return rc_fail(fn, ncclInvalidArgument, "handle %p was not registered on this "
                       "communicator", handle);
    free(g);
    return ncclSuccess;
}

RC_API ncclResult_t ncclMemAlloc(void **ptr, size_t size)
{
    if (ptr == NULL)
        return rc_fail("ncclMemAlloc", ncclInvalidArgument, "ptr is NULL");
    return hipMalloc(ptr, size) == hipSuccess
        ? ncclSuccess : rc_fail("ncclMemAlloc", ncclUnhandledCudaError, "hipMalloc failed");
}

RC_API ncclResult_t ncclMemFree(void *ptr)
{
    return hipFree(ptr) == hipSuccess
        ? ncclSuccess : rc_fail("ncclMemFree", ncclUnhandledCudaError, "hipFree failed");
}
