/*
 * pyshim's ptxas, first on PATH under `pyshim run` (Triton and other tools run ptxas to
 * turn PTX into a cubin). It writes the cubin-shaped ELF of pyshim_ptx_elf(): the PTX
 * itself, which pyshim's loader translates, where NVIDIA's ptxas would write SASS.
 * `--version` and `--help` are answered by NVIDIA's ptxas (the next one on PATH), as
 * tools read its version.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptx_image.h"

/* options whose value may be the next argument */
static const char *const WITH_VALUE[] = {
    "-o", "--output-file", "-arch", "--gpu-name", "-maxrregcount", "--maxrregcount",
    "--opt-level", "-def-load-cache", "--def-load-cache", "-def-store-cache",
    "--def-store-cache", "-m", "--machine", "--entry", "-e", "-split-compile",
    "--split-compile", NULL,
};

static int takes_value(const char *opt)
{
    for (int i = 0; WITH_VALUE[i] != NULL; i++)
        if (strcmp(opt, WITH_VALUE[i]) == 0)
            return 1;
    return 0;
}

/* NVIDIA's ptxas: the first on PATH that is not this program */
static int exec_real(char **argv)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    const char *path = getenv("PATH");
    char *dirs = strdup(path != NULL ? path : "/usr/local/cuda/bin:/usr/bin");
    for (char *d = strtok(dirs, ":"); d != NULL; d = strtok(NULL, ":")) {
        char cand[PATH_MAX], real[PATH_MAX];
        snprintf(cand, sizeof cand, "%s/ptxas", d);
        if (access(cand, X_OK) != 0 || realpath(cand, real) == NULL || strcmp(real, self) == 0)
            continue;
        execv(cand, argv);
    }
    fprintf(stderr, "ptxas (pyshim): NVIDIA's ptxas is not on PATH\n");
    return 1;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
            } else {
                buf = bigger;
            }
        }
    }
    if (f != stdin)
        fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    const char *out = "elf.o", *input = NULL, *arch = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0 || strcmp(a, "--help") == 0 ||
            strcmp(a, "-h") == 0)
            return exec_real(argv);
        const char *eq = strchr(a, '=');
        if (a[0] == '-' && a[1] != '\0') {
            size_t name = eq != NULL ? (size_t)(eq - a) : strlen(a);
            const char *value = eq != NULL ? eq + 1 : NULL;
            if (value == NULL && takes_value(a) && i + 1 < argc)
                value = argv[++i];
            if ((name == 2 && strncmp(a, "-o", 2) == 0) ||
                (name == 13 && strncmp(a, "--output-file", 13) == 0))
                out = value;
            else if ((name == 5 && strncmp(a, "-arch", 5) == 0) ||
                     (name == 10 && strncmp(a, "--gpu-name", 10) == 0))
                arch = value;
            continue;
        }
        input = a;
    }
    if (input == NULL || out == NULL) {
        fprintf(stderr, "ptxas (pyshim): usage: ptxas [-arch=sm_XX] [-o out] file.ptx\n");
        return 1;
    }
    size_t len = 0;
    char *ptx = read_all(input, &len);
    if (ptx == NULL) {
        fprintf(stderr, "ptxas (pyshim): cannot read %s\n", input);
        return 1;
    }
    if (memmem(ptx, len, ".version", 8) == NULL || memmem(ptx, len, ".target", 7) == NULL) {
        fprintf(stderr, "ptxas (pyshim): %s: not PTX (no .version/.target directive)\n",
                input);
        free(ptx);
        return 1;
    }
    size_t size = 0;
    uint8_t *image = pyshim_ptx_elf(ptx, len, pyshim_arch_number(arch), &size);
    free(ptx);
    FILE *f = image != NULL ? fopen(out, "wb") : NULL;
    if (f == NULL || fwrite(image, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "ptxas (pyshim): cannot write %s\n", out);
        free(image);
        return 1;
    }
    free(image);
    return 0;
}
