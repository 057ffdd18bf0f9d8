#include <dlfcn.h> /* dladdr: _GNU_SOURCE comes from the build flags */
#include <string.h>

#include "data_file.h"

FILE *rr_data_open(const void *in_lib, const char *name, const char magic[8], uint32_t *count)
{
    Dl_info info;
    if (!dladdr(in_lib, &info) || !info.dli_fname)
        return NULL;
    char path[4096];
    const char *slash = strrchr(info.dli_fname, '/');
    int dir = slash ? (int)(slash - info.dli_fname) : 1;
    snprintf(path, sizeof path, "%.*s/%s", dir, slash ? info.dli_fname : ".", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char got[8];
    if (fread(got, 1, 8, f) != 8 || memcmp(got, magic, 8) != 0 || fread(count, 4, 1, f) != 1) {
        fclose(f);
        return NULL;
    }
    return f;
}
