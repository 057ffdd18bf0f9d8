/*
 * User objects (hipUserObjectCreate, hipGraphRetainUserObject): reference-counted
 * destructors that graphs keep alive, as cuda.core ties a graph's Python arguments to it.
 * A graph holds references (counted per object), each exec instantiated from it holds the
 * same, and each launch of an exec holds one more until its work has run: a destructor
 * therefore never runs while work that may use the object is pending. It runs on the
 * thread that drops the last reference (a stream worker for a launch's), which CUDA
 * allows (destructors must not call the API, and do not here).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CPU_MAGIC_USER_OBJECT 0x55534f42u /* "USOB" */

struct hipUserObject {
    uint32_t magic;
    unsigned refs;
    void *ptr;
    hipHostFn_t destroy;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pyshim_handle_set objects = PYSHIM_HANDLE_SET_INIT;

static bool valid(hipUserObject_t o)
{
    return o != NULL && pyshim_handles_contains(&objects, o) && o->magic == CPU_MAGIC_USER_OBJECT;
}

/* Drop `count` references; the destructor runs outside the lock when none is left. */
static hipError_t release(hipUserObject_t o, unsigned count)
{
    pthread_mutex_lock(&lock);
    if (!valid(o) || count == 0 || count > o->refs) {
        pthread_mutex_unlock(&lock);
        return hipErrorInvalidValue;
    }
    o->refs -= count;
    bool last = o->refs == 0;
    if (last) {
        o->magic = 0;
        pyshim_handles_remove(&objects, o);
    }
    pthread_mutex_unlock(&lock);
    if (last) {
        if (o->destroy != NULL)
            o->destroy(o->ptr);
        free(o);
    }
    return hipSuccess;
}

static hipError_t retain(hipUserObject_t o, unsigned count)
{
    pthread_mutex_lock(&lock);
    hipError_t err = valid(o) && count > 0 && o->refs <= UINT32_MAX - count
                         ? hipSuccess
                         : hipErrorInvalidValue;
    if (err == hipSuccess)
        o->refs += count;
    pthread_mutex_unlock(&lock);
    return err;
}

hipError_t hipUserObjectCreate(hipUserObject_t *object_out, void *ptr, hipHostFn_t destroy,
                               unsigned int initialRefcount, unsigned int flags)
{
    /* hipUserObjectNoDestructorSync is the only flag, and required (as in CUDA) */
    if (object_out == NULL || destroy == NULL || initialRefcount == 0 ||
        flags != hipUserObjectNoDestructorSync)
        return cpu_ret(hipErrorInvalidValue);
    struct hipUserObject *o = calloc(1, sizeof *o);
    if (o == NULL)
        return cpu_ret(hipErrorOutOfMemory);
    *o = (struct hipUserObject){CPU_MAGIC_USER_OBJECT, initialRefcount, ptr, destroy};
    pthread_mutex_lock(&lock);
    bool added = pyshim_handles_add(&objects, o);
    pthread_mutex_unlock(&lock);
    if (!added) {
        free(o);
        return cpu_ret(hipErrorOutOfMemory);
    }
    *object_out = o;
    return hipSuccess;
}

hipError_t hipUserObjectRetain(hipUserObject_t object, unsigned int count)
{
    return cpu_ret(retain(object, count));
}

hipError_t hipUserObjectRelease(hipUserObject_t object, unsigned int count)
{
    return cpu_ret(release(object, count));
}

/* ---- the references a graph, an exec or a launch holds ---- */

hipError_t cpu_user_refs_add(cpu_user_refs *r, hipUserObject_t o, unsigned count, bool move)
{
    if (count == 0)
        return hipErrorInvalidValue;
    hipError_t err = move ? (valid(o) ? hipSuccess : hipErrorInvalidValue) : retain(o, count);
    if (err != hipSuccess)
        return err;
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < r->n && r->objs[i] != o)
        i++;
    if (i == r->n) {
        hipUserObject_t *objs = realloc(r->objs, (r->n + 1) * sizeof *objs);
        unsigned *counts = objs != NULL ? realloc(r->counts, (r->n + 1) * sizeof *counts) : NULL;
        if (objs != NULL)
            r->objs = objs;
        if (counts == NULL) {
            pthread_mutex_unlock(&lock);
            if (!move)
                release(o, count);
            return hipErrorOutOfMemory;
        }
        r->counts = counts;
        r->objs[i] = o;
        r->counts[i] = 0;
        r->n++;
    }
    r->counts[i] += count;
    pthread_mutex_unlock(&lock);
    return hipSuccess;
}

hipError_t cpu_user_refs_remove(cpu_user_refs *r, hipUserObject_t o, unsigned count)
{
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < r->n && r->objs[i] != o)
        i++;
    if (i == r->n || count == 0 || count > r->counts[i]) {
        pthread_mutex_unlock(&lock);
        return hipErrorInvalidValue;
    }
    r->counts[i] -= count;
    if (r->counts[i] == 0) {
        r->objs[i] = r->objs[r->n - 1];
        r->counts[i] = r->counts[r->n - 1];
        r->n--;
    }
    pthread_mutex_unlock(&lock);
    return release(o, count);
}

void cpu_user_refs_clear(cpu_user_refs *r)
{
    pthread_mutex_lock(&lock);
    cpu_user_refs held = *r;
    memset(r, 0, sizeof *r);
    pthread_mutex_unlock(&lock);
    for (size_t i = 0; i < held.n; i++)
        release(held.objs[i], held.counts[i]);
    free(held.objs);
    free(held.counts);
}

bool cpu_user_refs_copy(cpu_user_refs *dst, const cpu_user_refs *src)
{
    pthread_mutex_lock(&lock);
    size_t n = src->n;
    hipUserObject_t *objs = n ? malloc(n * sizeof *objs) : NULL;
    unsigned *counts = n ? malloc(n * sizeof *counts) : NULL;
    if (n && (objs == NULL || counts == NULL)) {
        pthread_mutex_unlock(&lock);
        free(objs);
        free(counts);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        objs[i] = src->objs[i];
        counts[i] = src->counts[i];
        objs[i]->refs += counts[i];
    }
    pthread_mutex_unlock(&lock);
    cpu_user_refs_clear(dst);
    pthread_mutex_lock(&lock);
    dst->objs = objs;
    dst->counts = counts;
    dst->n = n;
    pthread_mutex_unlock(&lock);
    return true;
}

static void release_launch_refs(void *p)
{
    cpu_user_refs *r = p;
    cpu_user_refs_clear(r);
    free(r);
}

cpu_cmd *cpu_user_refs_launch_cmd(const cpu_user_refs *r)
{
    if (r->n == 0)
        return NULL;
    cpu_user_refs *held = calloc(1, sizeof *held);
    if (held == NULL || !cpu_user_refs_copy(held, r)) {
        free(held);
        return NULL;
    }
    cpu_cmd *c = cpu_host_fn_cmd(release_launch_refs, held);
    if (c == NULL)
        release_launch_refs(held);
    return c;
}
