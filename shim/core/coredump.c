/*
 * cuCoredump{Get,Set}AttributeGlobal: the application-wide coredump settings. No device
 * pyshim drives writes GPU coredumps, so these are the settings alone: each starts at the
 * default cuda.h documents (or the CUDA-GDB environment variable that sets it, read once,
 * as NVIDIA's driver reads them at initialisation) and reads back what was last set.
 * Enabling coredumps is accepted and logged once: it will never produce a file.
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

static struct {
    bool flag[CU_COREDUMP_MAX];  /* the bool settings, by attribute */
    int generation_flags;
    char file[COREDUMP_PATH_MAX];
    char pipe[COREDUMP_PATH_MAX];
} settings;

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

static char *path_of(CUcoredumpSettings a)
{
    return a == CU_COREDUMP_FILE ? settings.file : a == CU_COREDUMP_PIPE ? settings.pipe : NULL;
}

/* The size of the value `a` takes; 0 for an attribute that is not one. */
static size_t value_size(CUcoredumpSettings a)
{
    if (is_flag(a))
        return sizeof(bool);
    if (a == CU_COREDUMP_GENERATION_FLAGS)
        return sizeof(int);
    if (path_of(a) != NULL)
        return COREDUMP_PATH_MAX;
    return 0;
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
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&settings_lock);
    const char *path = path_of(attrib);
    if (path != NULL) {
        size_t n = strlen(path) + 1;
        if (*size < n)
            rc = CUDA_ERROR_INVALID_VALUE;
        else {
            memcpy(value, path, n);
            *size = n;
        }
    } else if (*size < need) {
        rc = CUDA_ERROR_INVALID_VALUE;
    } else if (is_flag(attrib)) {
        *(bool *)value = settings.flag[attrib];
        *size = need;
    } else {
        *(int *)value = settings.generation_flags;
        *size = need;
    }
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
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&settings_lock);
    char *path = path_of(attrib);
    if (path != NULL) {
        size_t n = strnlen(value, *size);
        if (n >= COREDUMP_PATH_MAX)
            rc = CUDA_ERROR_INVALID_VALUE;
        /* "This value may not be changed after CU_COREDUMP_ENABLE_USER_TRIGGER is set" */
        else if (attrib == CU_COREDUMP_PIPE && settings.flag[CU_COREDUMP_ENABLE_USER_TRIGGER])
            rc = CUDA_ERROR_NOT_PERMITTED;
        else {
            memcpy(path, value, n);
            path[n] = '\0';
        }
    } else if (*size < need) {
        rc = CUDA_ERROR_INVALID_VALUE;
    } else if (is_flag(attrib)) {
        bool on = *(const bool *)value;
        settings.flag[attrib] = on;
        if (on && (attrib == CU_COREDUMP_ENABLE_ON_EXCEPTION ||
                   attrib == CU_COREDUMP_ENABLE_USER_TRIGGER))
            pyshim_log("coredumps enabled: pyshim's devices write no GPU coredump (the "
                       "setting is kept and reads back)");
    } else {
        settings.generation_flags = *(const int *)value;
    }
    pthread_mutex_unlock(&settings_lock);
    return rc;
}
