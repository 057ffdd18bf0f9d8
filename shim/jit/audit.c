/*
 * libpyshim_audit.so: the dynamic linker's audit module (LD_AUDIT) that `pyshim run`
 * installs so that pyshim's libraries are the ones loaded however a program asks for an
 * NVIDIA soname: DT_NEEDED, dlopen by soname, or dlopen by absolute path into a wheel
 * (cuda-pathfinder) or a toolkit. LD_PRELOAD cannot do this: a dlopen by path loads the
 * named file, and a dlsym on its handle never looks at preloaded libraries.
 *
 * $PYSHIM_AUDIT_MAP (set by the launcher) is the table, entries separated by ';':
 *   soname=path    replace: every request for soname loads path (pyshim's library)
 *   soname=@path   wrap: path is a pyshim wrapper that forwards to NVIDIA's library; the
 *                  request's own file (the absolute path asked for, or the file the search
 *                  found) is remembered, and the wrapper's own request for soname (or for
 *                  "pyshim-original:<soname>", from a wrapper that loads it into the base
 *                  namespace) is answered with it: the wrapper loads the very library the
 *                  program chose.
 * Each redirection is appended to $PYSHIM_REPORT as `redirect <requested> <target>`.
 *
 * This module runs in the linker's audit namespace with its own copy of libc: it uses only
 * getenv, string functions, access and write.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ENTRIES 32
#define PATH_CAP 4096

struct entry {
    char soname[128];
    char target[PATH_CAP];
    int wrap;
    char original[PATH_CAP]; /* wrap: the file the program's request resolved to */
    uintptr_t *wrapper_cookie; /* the wrapper's link map, once loaded */
};

static struct entry entries[MAX_ENTRIES];
static int n_entries;
static int parsed;

static void parse_map(void)
{
    parsed = 1;
    const char *map = getenv("PYSHIM_AUDIT_MAP");
    if (map == NULL)
        return;
    while (*map != '\0' && n_entries < MAX_ENTRIES) {
        const char *end = strchr(map, ';');
        size_t len = end != NULL ? (size_t)(end - map) : strlen(map);
        const char *eq = memchr(map, '=', len);
        if (eq != NULL) {
            struct entry *e = &entries[n_entries];
            size_t slen = (size_t)(eq - map);
            const char *t = eq + 1;
            size_t tlen = len - slen - 1;
            if (tlen > 0 && *t == '@') {
                e->wrap = 1;
                t++;
                tlen--;
            }
            if (slen > 0 && slen < sizeof e->soname && tlen > 0 && tlen < sizeof e->target) {
                memcpy(e->soname, map, slen);
                memcpy(e->target, t, tlen);
                n_entries++;
            }
        }
        if (end == NULL)
            break;
        map = end + 1;
    }
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

static struct entry *lookup(const char *name)
{
    if (!parsed)
        parse_map();
    const char *base = base_name(name);
    for (int i = 0; i < n_entries; i++)
        if (strcmp(entries[i].soname, base) == 0)
            return &entries[i];
    return NULL;
}

/* a path as one field of a report record: its spaces become '?' */
static void field(char *out, size_t cap, const char *path)
{
    size_t i = 0;
    for (; path[i] != '\0' && i + 1 < cap; i++)
        out[i] = path[i] == ' ' ? '?' : path[i];
    out[i] = '\0';
}

static void report(const char *requested, const char *target)
{
    const char *path = getenv("PYSHIM_REPORT");
    if (path == NULL || *path == '\0')
        return;
    char a[PATH_CAP], b[PATH_CAP], line[2 * PATH_CAP + 16];
    field(a, sizeof a, requested);
    field(b, sizeof b, target);
    int n = snprintf(line, sizeof line, "redirect %s %s\n", a, b);
    if (n <= 0 || (size_t)n >= sizeof line)
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
    close(fd);
}

unsigned int la_version(unsigned int version)
{
    return version < LAV_CURRENT ? version : LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
    (void)lmid;
    if (map->l_name != NULL && map->l_name[0] != '\0') {
        struct entry *e = lookup(map->l_name);
        if (e != NULL && e->wrap && strcmp(map->l_name, e->target) == 0)
            e->wrapper_cookie = cookie;
    }
    return 0; /* no symbol-binding audit: bindings stay as fast as without LD_AUDIT */
}

#define ORIGINAL_PREFIX "pyshim-original:"

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
    /* a wrapper asking for NVIDIA's library in the base namespace: a name no loaded object
     * matches (its own soname would), answered with the file the program chose */
    if (strncmp(name, ORIGINAL_PREFIX, sizeof ORIGINAL_PREFIX - 1) == 0) {
        struct entry *w = lookup(name + sizeof ORIGINAL_PREFIX - 1);
        if (w == NULL || !w->wrap)
            return (char *)name;
        return w->original[0] != '\0' ? w->original : w->soname;
    }
    struct entry *e = lookup(name);
    if (e == NULL)
        return (char *)name;
    if (strcmp(name, e->target) == 0)
        return (char *)name;
    if (e->wrap && cookie != NULL && cookie == e->wrapper_cookie) {
        /* the wrapper loading NVIDIA's library: the file the program chose, else search */
        if (flag == LA_SER_ORIG && e->original[0] != '\0')
            return e->original;
        return (char *)name;
    }
    int is_path = strchr(name, '/') != NULL;
    if (!e->wrap) {
        if (flag == LA_SER_ORIG || is_path) {
            report(name, e->target);
            return e->target;
        }
        return (char *)name;
    }
    /* wrap: remember the real file first, then load the wrapper in its place */
    if (is_path) {
        if (access(name, F_OK) != 0)
            return (char *)name; /* not there: the search goes on (or fails as it would) */
        if (strlen(name) < sizeof e->original)
            strcpy(e->original, name);
        report(name, e->target);
        return e->target;
    }
    return (char *)name; /* a bare soname (LA_SER_ORIG): wait for the search's candidates */
}
