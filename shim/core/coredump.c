/*
 * The coredump settings: cuCoredump{Get,Set}AttributeGlobal (application-wide) and
 * cuCoredump{Get,Set}Attribute (the current context's). No device pyshim drives writes
 * GPU coredumps, so these are the settings alone: each global one starts at the default
 * cuda.h documents (or the CUDA-GDB environment variable that sets it, read once, as
 * NVIDIA's driver reads them at initialisation) and reads back what was last set. A
 * context reads the global value of every attribute it has not set itself (and its
 * creation flags CU_CTX_COREDUMP_ENABLE / CU_CTX_USER_COREDUMP_ENABLE turn the two enables
 * on); the user trigger and its pipe are global only. Enabling coredumps is accepted and
 * logged: it will never produce a file.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define COREDUMP_PATH_MAX 1024 /* "a string of up to 1023 characters" */

struct values {
    bool flag[CU_COREDUMP_MAX];  /* the bool settings, by attribute */
    int generation_flags;
    char file[COREDUMP_PATH_MAX];
    char pipe[COREDUMP_PATH_MAX];
};

static struct values settings;

/* a context's own settings (CUctx_st.coredump): which it set, and to what */
struct pyshim_ctx_coredump {
    bool set[CU_COREDUMP_MAX];
    struct values v;
};

static pthread_once_t settings_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t settings_lock = PTHREAD_MUTEX_INITIALIZER;

static bool env_bool(const char *name, bool fallback)
{
    const char *v = getenv(name);
    return v == NULL || *v == '\0' ? fallback : strtol(v, NULL, 10) != 0;
}

static void env_path(char *out, const char *name, const char *prefix)
{
    const char *v = getenv(name);
    if (v != NULL && *v != '\0' && strlen(v) < COREDUMP_PATH_MAX) {
        strcpy(out, v);
        return;
    }
    char host[256] = "localhost";
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "localhost");
    host[sizeof host - 1] = '\0';
    snprintf(out, COREDUMP_PATH_MAX, "%s.%s.%ld", prefix, host, (long)getpid());
}

static void init_settings(void)
{
    settings.flag[CU_COREDUMP_ENABLE_ON_EXCEPTION] =
        env_bool("CUDA_ENABLE_COREDUMP_ON_EXCEPTION", false);
    settings.flag[CU_COREDUMP_TRIGGER_HOST] =
        env_bool("CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION", true);
    settings.flag[CU_COREDUMP_LIGHTWEIGHT] = env_bool("CUDA_ENABLE_LIGHTWEIGHT_COREDUMP", false);
    settings.flag[CU_COREDUMP_ENABLE_USER_TRIGGER] =
        env_bool("CUDA_ENABLE_USER_TRIGGERED_COREDUMP", false);
    settings.generation_flags = CU_COREDUMP_DEFAULT_FLAGS;
    env_path(settings.file, "CUDA_COREDUMP_FILE", "core.cuda");
    env_path(settings.pipe, "CUDA_COREDUMP_PIPE", "corepipe.cuda");
}

static bool is_flag(CUcoredumpSettings a)
{
    return a == CU_COREDUMP_ENABLE_ON_EXCEPTION || a == CU_COREDUMP_TRIGGER_HOST ||
           a == CU_COREDUMP_LIGHTWEIGHT || a == CU_COREDUMP_ENABLE_USER_TRIGGER;
}

static char *path_of(struct values *v, CUcoredumpSettings a)
{
    return a == CU_COREDUMP_FILE ? v->file : a == CU_COREDUMP_PIPE ? v->pipe : NULL;
}

/* The size of the value `a` takes; 0 for an attribute that is not one. */
static size_t value_size(CUcoredumpSettings a)
{
    if (is_flag(a))
        return sizeof(bool);
    if (a == CU_COREDUMP_GENERATION_FLAGS)
        return sizeof(int);
    if (a == CU_COREDUMP_FILE || a == CU_COREDUMP_PIPE)
        return COREDUMP_PATH_MAX;
    return 0;
}

/* *value (of *size bytes) from `v`. */
static CUresult get_value(struct values *v, CUcoredumpSettings attrib, void *value, size_t *size)
{
    size_t need = value_size(attrib);
    const char *path = path_of(v, attrib);
    if (path != NULL) {
        size_t n = strlen(path) + 1;
        if (*size < n)
            return CUDA_ERROR_INVALID_VALUE;
        memcpy(value, path, n);
        *size = n;
    } else if (*size < need) {
        return CUDA_ERROR_INVALID_VALUE;
    } else if (is_flag(attrib)) {
        *(bool *)value = v->flag[attrib];
        *size = need;
    } else {
        *(int *)value = v->generation_flags;
        *size = need;
    }
    return CUDA_SUCCESS;
}

/* `v`'s attribute from *value (of *size bytes). */
static CUresult set_value(struct values *v, CUcoredumpSettings attrib, const void *value,
                          const size_t *size)
{
    char *path = path_of(v, attrib);
    if (path != NULL) {
        size_t n = strnlen(value, *size);
        if (n >= COREDUMP_PATH_MAX)
            return CUDA_ERROR_INVALID_VALUE;
        memcpy(path, value, n);
        path[n] = '\0';
    } else if (*size < value_size(attrib)) {
        return CUDA_ERROR_INVALID_VALUE;
    } else if (is_flag(attrib)) {
        bool on = *(const bool *)value;
        v->flag[attrib] = on;
        if (on && (attrib == CU_COREDUMP_ENABLE_ON_EXCEPTION ||
                   attrib == CU_COREDUMP_ENABLE_USER_TRIGGER))
            pyshim_log("coredumps enabled: pyshim's devices write no GPU coredump (the "
                       "setting is kept and reads back)");
    } else {
        v->generation_flags = *(const int *)value;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCoredumpGetAttributeGlobal(CUcoredumpSettings attrib, void *value,
                                              size_t *size)
{
    size_t need = value_size(attrib);
    if (need == 0 || size == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (value == NULL) {
        *size = need;
        return CUDA_SUCCESS;
    }
    pthread_once(&settings_once, init_settings);
    pthread_mutex_lock(&settings_lock);
    CUresult rc = get_value(&settings, attrib, value, size);
    pthread_mutex_unlock(&settings_lock);
    return rc;
}

CUresult CUDAAPI cuCoredumpSetAttributeGlobal(CUcoredumpSettings attrib, void *value,
                                              size_t *size)
{
    size_t need = value_size(attrib);
    if (need == 0 || size == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (value == NULL) {
        *size = need;
        return CUDA_SUCCESS;
    }
    pthread_once(&settings_once, init_settings);
    CUresult rc;
    pthread_mutex_lock(&settings_lock);
    /* "This value may not be changed after CU_COREDUMP_ENABLE_USER_TRIGGER is set" */
    if (attrib == CU_COREDUMP_PIPE && settings.flag[CU_COREDUMP_ENABLE_USER_TRIGGER])
        rc = CUDA_ERROR_NOT_PERMITTED;
    else
        rc = set_value(&settings, attrib, value, size);
    pthread_mutex_unlock(&settings_lock);
    return rc;
}

/* The current context's effective settings: the global ones, its creation flags, then
 * what it set itself. Under settings_lock. */
static void effective(CUcontext c, struct values *out)
{
    *out = settings;
    if (c->flags & (CU_CTX_COREDUMP_ENABLE | CU_CTX_USER_COREDUMP_ENABLE))
        out->flag[CU_COREDUMP_ENABLE_ON_EXCEPTION] = true;
    if (c->flags & CU_CTX_USER_COREDUMP_ENABLE)
        out->flag[CU_COREDUMP_ENABLE_USER_TRIGGER] = true;
    const struct pyshim_ctx_coredump *own = c->coredump;
    if (own == NULL)
        return;
    for (int a = 1; a < CU_COREDUMP_MAX; a++) {
        if (!own->set[a])
            continue;
        if (is_flag((CUcoredumpSettings)a))
            out->flag[a] = own->v.flag[a];
        else if (a == CU_COREDUMP_GENERATION_FLAGS)
            out->generation_flags = own->v.generation_flags;
        else if (a == CU_COREDUMP_FILE)
            memcpy(out->file, own->v.file, sizeof out->file);
    }
}

CUresult CUDAAPI cuCoredumpGetAttribute(CUcoredumpSettings attrib, void *value, size_t *size)
{
    size_t need = value_size(attrib);
    if (need == 0 || size == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext c;
    CUresult rc = pyshim_ctx_resolve(NULL, &c);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (value == NULL) {
        *size = need;
        return CUDA_SUCCESS;
    }
    pthread_once(&settings_once, init_settings);
    struct values *v = malloc(sizeof *v);
    if (v == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&settings_lock);
    effective(c, v);
    rc = get_value(v, attrib, value, size);
    pthread_mutex_unlock(&settings_lock);
    free(v);
    return rc;
}

CUresult CUDAAPI cuCoredumpSetAttribute(CUcoredumpSettings attrib, void *value, size_t *size)
{
    size_t need = value_size(attrib);
    if (need == 0 || size == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext c;
    CUresult rc = pyshim_ctx_resolve(NULL, &c);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (value == NULL) {
        *size = need;
        return CUDA_SUCCESS;
    }
    /* "CU_COREDUMP_ENABLE_USER_TRIGGER and CU_COREDUMP_PIPE cannot be set on a
     * per-context basis" */
    if (attrib == CU_COREDUMP_ENABLE_USER_TRIGGER || attrib == CU_COREDUMP_PIPE) {
        pyshim_log("cuCoredumpSetAttribute: attribute %d is set only globally "
                   "(cuCoredumpSetAttributeGlobal)", (int)attrib);
        return CUDA_ERROR_NOT_PERMITTED;
    }
    pthread_once(&settings_once, init_settings);
    pthread_mutex_lock(&settings_lock);
    if (c->coredump == NULL)
        c->coredump = calloc(1, sizeof *c->coredump);
    if (c->coredump == NULL) {
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    } else {
        rc = set_value(&c->coredump->v, attrib, value, size);
        if (rc == CUDA_SUCCESS)
            c->coredump->set[attrib] = true;
    }
    pthread_mutex_unlock(&settings_lock);
    return rc;
}
