/*
 * Context-local storage for cudart's CONTEXT_LOCAL_STORAGE export table: values are stored
 * per (context, key), never process-wide, and destructors run when the context goes.
 */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

struct pyshim_cls_entry {
    void *key;
    void *value;
    void (*dtor)(CUcontext, void *, void *);
    struct pyshim_cls_entry *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static CUresult pick(CUcontext in, CUcontext *out)
{
    CUcontext ctx = in != NULL ? in : pyshim_current_ctx();
    if (!pyshim_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    *out = ctx;
    return CUDA_SUCCESS;
}

CUresult pyshim_cls_insert(CUcontext in, void *key, void *value,
                           void (*dtor)(CUcontext, void *, void *))
{
    CUcontext ctx;
    CUresult rc = pick(in, &ctx);
    if (rc != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&lock);
    struct pyshim_cls_entry *e = ctx->cls;
    while (e != NULL && e->key != key)
        e = e->next;
    if (e == NULL) {
        e = calloc(1, sizeof *e);
        if (e == NULL) {
            pthread_mutex_unlock(&lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        e->key = key;
        e->next = ctx->cls;
        ctx->cls = e;
    }
    e->value = value;
    e->dtor = dtor;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

CUresult pyshim_cls_remove(CUcontext in, void *key)
{
    CUcontext ctx;
    CUresult rc = pick(in, &ctx);
    if (rc != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&lock);
    struct pyshim_cls_entry **link = &ctx->cls;
    while (*link != NULL && (*link)->key != key)
        link = &(*link)->next;
    struct pyshim_cls_entry *e = *link;
    if (e != NULL)
        *link = e->next;
    pthread_mutex_unlock(&lock);
    if (e == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    /* removing is the owner's own teardown: it already released the value */
    free(e);
    return CUDA_SUCCESS;
}

CUresult pyshim_cls_get(void **value, CUcontext in, void *key)
{
    if (value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext ctx;
    CUresult rc = pick(in, &ctx);
    if (rc != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&lock);
    struct pyshim_cls_entry *e = ctx->cls;
    while (e != NULL && e->key != key)
        e = e->next;
    if (e != NULL)
        *value = e->value;
    pthread_mutex_unlock(&lock);
    return e != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

void pyshim_cls_destroy_all(CUcontext ctx)
{
    pthread_mutex_lock(&lock);
    struct pyshim_cls_entry *e = ctx->cls;
    ctx->cls = NULL;
    pthread_mutex_unlock(&lock);
    while (e != NULL) {
        struct pyshim_cls_entry *next = e->next;
        if (e->dtor != NULL)
            e->dtor(ctx, e->key, e->value);
        free(e);
        e = next;
    }
}
