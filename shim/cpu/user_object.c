/*
 * User objects (hipUserObjectCreate and the graph retain/release calls): a reference count
 * and a destructor, which runs when the last reference goes. A graph holds its references
 * until hipGraphDestroy, an instantiated graph (which takes its graph's) until
 * hipGraphExecDestroy. cuda.core keeps the Python objects a captured graph uses alive this
 * way. CUDA runs destructors on a thread of its own and forbids CUDA calls in them; running
 * them on the releasing thread keeps the same rule.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "internal.h"

struct hipUserObject {
    void *ptr;
    hipHostFn_t destroy;
    atomic_uint refs;
};

static cpu_handle_set object_handles = CPU_HANDLE_SET_INIT;

hipError_t hipUserObjectCreate(hipUserObject_t *object_out, void *ptr, hipHostFn_t destroy,
                               unsigned int initialRefcount, unsigned int flags)
{
    if (object_out == NULL || destroy == NULL || initialRefcount == 0 ||
        flags != hipUserObjectNoDestructorSync)
        return cpu_ret(hipErrorInvalidValue);
    struct hipUserObject *o = malloc(sizeof *o);
    if (o == NULL)
        return cpu_ret(hipErrorOutOfMemory);
    o->ptr = ptr;
    o->destroy = destroy;
    atomic_init(&o->refs, initialRefcount);
    if (!cpu_handles_add(&object_handles, o)) {
        free(o);
        return cpu_ret(hipErrorOutOfMemory);
    }
    *object_out = o;
    return hipSuccess;
}

hipError_t hipUserObjectRetain(hipUserObject_t object, unsigned int count)
{
    if (count == 0 || !cpu_handles_contains(&object_handles, object))
        return cpu_ret(hipErrorInvalidValue);
    atomic_fetch_add(&object->refs, count);
    return hipSuccess;
}

hipError_t hipUserObjectRelease(hipUserObject_t object, unsigned int count)
{
    if (count == 0 || !cpu_handles_contains(&object_handles, object))
        return cpu_ret(hipErrorInvalidValue);
    unsigned int before = atomic_fetch_sub(&object->refs, count);
    if (before > count)
        return hipSuccess;
    if (before < count) { /* more released than held: keep the count at zero */
        atomic_store(&object->refs, 0);
        return cpu_ret(hipErrorInvalidValue);
    }
    cpu_handles_remove(&object_handles, object);
    object->destroy(object->ptr);
    free(object);
    return hipSuccess;
}

/* ---- the references a graph (or an instantiated graph) holds ---- */

bool cpu_user_refs_add(cpu_user_refs *r, hipUserObject_t object, unsigned int count)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->items[i].object == object) {
            r->items[i].count += count;
            return true;
        }
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4;
        struct cpu_user_ref *items = realloc(r->items, cap * sizeof *items);
        if (items == NULL)
            return false;
        r->items = items;
        r->cap = cap;
    }
    r->items[r->n++] = (struct cpu_user_ref){object, count};
    return true;
}

/* another holder of the same references (an instantiated graph of its graph) */
bool cpu_user_refs_copy(cpu_user_refs *to, const cpu_user_refs *from)
{
    for (size_t i = 0; i < from->n; i++) {
        if (!cpu_user_refs_add(to, from->items[i].object, from->items[i].count))
            return false;
        atomic_fetch_add(&from->items[i].object->refs, from->items[i].count);
    }
    return true;
}

void cpu_user_refs_release(cpu_user_refs *r)
{
    for (size_t i = 0; i < r->n; i++)
        (void)hipUserObjectRelease(r->items[i].object, r->items[i].count);
    free(r->items);
    *r = (cpu_user_refs){0};
}

hipError_t hipGraphRetainUserObject(hipGraph_t graph, hipUserObject_t object,
                                    unsigned int count, unsigned int flags)
{
    if (count == 0 || (flags & ~(unsigned int)hipGraphUserObjectMove) ||
        !cpu_handles_contains(&object_handles, object))
        return cpu_ret(hipErrorInvalidValue);
    cpu_user_refs *refs = cpu_graph_user_refs(graph);
    if (refs == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (!cpu_user_refs_add(refs, object, count))
        return cpu_ret(hipErrorOutOfMemory);
    if (!(flags & hipGraphUserObjectMove)) /* Move: the caller's references pass over */
        atomic_fetch_add(&object->refs, count);
    return hipSuccess;
}

hipError_t hipGraphReleaseUserObject(hipGraph_t graph, hipUserObject_t object,
                                     unsigned int count)
{
    cpu_user_refs *refs = cpu_graph_user_refs(graph);
    if (count == 0 || refs == NULL || !cpu_handles_contains(&object_handles, object))
        return cpu_ret(hipErrorInvalidValue);
    for (size_t i = 0; i < refs->n; i++) {
        if (refs->items[i].object != object)
            continue;
        if (refs->items[i].count < count)
            return cpu_ret(hipErrorInvalidValue);
        refs->items[i].count -= count;
        if (refs->items[i].count == 0)
            refs->items[i] = refs->items[--refs->n];
        return hipUserObjectRelease(object, count);
    }
    return cpu_ret(hipErrorInvalidValue);
}
