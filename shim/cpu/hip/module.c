/*
 * Modules: native shared objects that export `pyshim_module` (pyshim_kernel_abi.h).
 * hipModuleLoad opens a file; hipModuleLoadData takes the bytes of one, sizes the image
 * from its ELF header, writes it to an anonymous memfd and opens that, so nothing touches
 * the file system. Anything else is hipErrorInvalidImage, with the reason on stderr.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "common/bytes.h"
#include "common/fatbin_extent.h"

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#else
#error "unsupported host architecture"
#endif

struct ihipModule_t {
    uint32_t magic;
    void *dl;
    const pyshim_module_desc *desc;
    struct ihipModuleSymbol_t *functions;   /* one per kernel */
    /* -1, or the memfd of a private copy, open as long as the module is: dlopen knows
     * objects by path, so a later copy given the same /proc/self/fd/N would get this
     * instance back (and its globals, already registered) instead of its own */
    int memfd;
};

static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;
static pyshim_handle_set module_handles = PYSHIM_HANDLE_SET_INIT;
/* Live functions, also for handles that come back as `const void *` (hipFuncGetAttributes). */
static pyshim_handle_set function_handles = PYSHIM_HANDLE_SET_INIT;

struct ihipModuleSymbol_t *cpu_function_lookup(const void *handle)
{
    if (handle == NULL || !pyshim_handles_contains(&function_handles, handle))
        return NULL;
    return (struct ihipModuleSymbol_t *)handle;
}

struct ihipModuleSymbol_t *cpu_function_of_desc(const struct ihipModuleSymbol_t *f,
                                                const void *desc)
{
    const struct ihipModule_t *m = f->module;
    uintptr_t first = (uintptr_t)m->desc->kernels, p = (uintptr_t)desc;
    size_t size = sizeof *m->desc->kernels;
    /* compared as integers: a pointer from device code may point anywhere */
    if (p < first || p >= first + (uintptr_t)m->desc->num_kernels * size || (p - first) % size)
        return NULL;
    return &m->functions[(p - first) / size];
}

/* Checks the ELF header of an image whose first `avail` bytes may be read and returns the
 * size of the whole file, or 0 with `why` set. */
static size_t elf_image_size(const unsigned char *img, size_t avail, const char **why)
{
    uint32_t magic = avail >= 4 ? pyshim_get32(img) : 0;
    if (magic == PYSHIM_COMMON_FATBIN_CONTAINER_MAGIC || magic == PYSHIM_COMMON_FATBIN_WRAPPER_MAGIC) {
        *why = "a CUDA fat binary: its PTX must be translated for the CPU device first";
        return 0;
    }
    if (avail < sizeof(Elf64_Ehdr) || memcmp(img, ELFMAG, SELFMAG) != 0) {
        *why = "not an ELF file";
        return 0;
    }
    Elf64_Ehdr eh;
    memcpy(&eh, img, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
        *why = "not a 64-bit little-endian ELF file";
        return 0;
    }
    if (eh.e_machine != HOST_MACHINE) {
        *why = eh.e_machine == EM_AMDGPU ? "an AMD GPU code object, not a CPU device module"
                                          : "an ELF file for another machine";
        return 0;
    }
    if (eh.e_type != ET_DYN) {
        *why = "not a shared object (ELF type is not ET_DYN)";
        return 0;
    }
    if (eh.e_shentsize != 0 && eh.e_shentsize != sizeof(Elf64_Shdr)) {
        *why = "malformed ELF header (section header size)";
        return 0;
    }
    /* The section header table is the last thing a linker writes; program segments are
     * included in case a stripped image ends with them. */
    uint64_t end = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
    if (eh.e_phoff != 0 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
        for (unsigned i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            uint64_t at = eh.e_phoff + (uint64_t)i * sizeof ph;
            if (at + sizeof ph > avail)
                break;
            memcpy(&ph, img + at, sizeof ph);
            if (ph.p_offset + ph.p_filesz > end)
                end = ph.p_offset + ph.p_filesz;
        }
    }
    if (end < sizeof eh || end > (uint64_t)1 << 30) {   /* 1 GiB: no module is bigger */
        *why = "malformed ELF header (image size)";
        return 0;
    }
    return (size_t)end;
}

static hipError_t check_desc(const pyshim_module_desc *d, const char *origin)
{
    if (d->abi_version != PYSHIM_KABI_VERSION) {
        cpu_log("%s: module ABI version %u, this runtime needs %u", origin, d->abi_version,
                PYSHIM_KABI_VERSION);
        return hipErrorInvalidImage;
    }
    if ((d->num_kernels && d->kernels == NULL) || (d->num_globals && d->globals == NULL)) {
        cpu_log("%s: module descriptor lists kernels or globals without their tables", origin);
        return hipErrorInvalidImage;
    }
    for (uint32_t i = 0; i < d->num_kernels; i++) {
        const pyshim_kernel_desc *k = &d->kernels[i];
        if (k->name == NULL || k->run_block == NULL || (k->num_params && k->params == NULL)) {
            cpu_log("%s: kernel %u has no name, block function or parameter table", origin, i);
            return hipErrorInvalidImage;
        }
        for (uint32_t p = 0; p < k->num_params; p++)
            if ((uint64_t)k->params[p].offset + k->params[p].size > k->params_bytes) {
                cpu_log("%s: kernel %s: parameter %u lies outside the %u-byte buffer", origin,
                        k->name, p, k->params_bytes);
                return hipErrorInvalidImage;
            }
    }
    for (uint32_t i = 0; i < d->num_globals; i++)
        if (d->globals[i].name == NULL || (d->globals[i].size && d->globals[i].addr == NULL)) {
            cpu_log("%s: global %u has no name or storage", origin, i);
            return hipErrorInvalidImage;
        }
    return hipSuccess;
}

static void unregister_globals(const pyshim_module_desc *d, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (d->globals[i].size)
            cpu_mem_unregister(d->globals[i].addr);
}

/* Drops a module's handles, globals, code and memory. */
static void forget_module(struct ihipModule_t *m)
{
    for (uint32_t i = 0; i < m->desc->num_kernels; i++)
        pyshim_handles_remove(&function_handles, &m->functions[i]);
    unregister_globals(m->desc, m->desc->num_globals);
    dlclose(m->dl);
    if (m->memfd >= 0)
        close(m->memfd);
    free(m->functions);
    free(m);
}

/* dlopens `path` and builds the module; `origin` names it in messages. */
static hipError_t open_module(hipModule_t *out, const char *path, const char *origin)
{
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) {
        cpu_log("%s: cannot load: %s", origin, dlerror());
        return hipErrorInvalidImage;
    }
    const pyshim_module_desc *d = dlsym(dl, PYSHIM_MODULE_SYMBOL);
    if (d == NULL) {
        cpu_log("%s: no '%s' symbol: not a pyshim CPU module", origin, PYSHIM_MODULE_SYMBOL);
        dlclose(dl);
        return hipErrorInvalidImage;
    }
    hipError_t err = check_desc(d, origin);
    struct ihipModule_t *m = err == hipSuccess ? calloc(1, sizeof *m) : NULL;
    if (err == hipSuccess && m == NULL)
        err = hipErrorOutOfMemory;
    if (m != NULL && d->num_kernels) {
        m->functions = calloc(d->num_kernels, sizeof *m->functions);
        if (m->functions == NULL)
            err = hipErrorOutOfMemory;
    }
    uint32_t registered = 0;
    for (; err == hipSuccess && registered < d->num_globals; registered++) {
        const pyshim_global_desc *g = &d->globals[registered];
        if (g->size == 0)
            continue;
        err = cpu_mem_register(g->addr, g->size, CPU_MEM_MODULE_GLOBAL, 0);
        if (err != hipSuccess)
            cpu_log("%s: global %s overlaps memory the device already knows", origin, g->name);
    }
    if (err != hipSuccess) {
        if (registered > 0)
            unregister_globals(d, registered - (err != hipSuccess));
        if (m != NULL)
            free(m->functions);
        free(m);
        dlclose(dl);
        return err;
    }
    m->magic = CPU_MAGIC_MODULE;
    m->memfd = -1;
    m->dl = dl;
    m->desc = d;
    bool listed = pyshim_handles_add(&module_handles, m);
    for (uint32_t i = 0; i < d->num_kernels; i++) {
        m->functions[i] = (struct ihipModuleSymbol_t){CPU_MAGIC_FUNC, m, &d->kernels[i],
                                                      (int)(CPU_MAX_SHARED -
                                                            d->kernels[i].static_shared_bytes),
                                                      false};
        listed = listed && pyshim_handles_add(&function_handles, &m->functions[i]);
    }
    if (!listed) {
        pyshim_handles_remove(&module_handles, m);
        forget_module(m);
        return hipErrorOutOfMemory;
    }
    *out = m;
    return hipSuccess;
}

static hipError_t load_copy(hipModule_t *module, FILE *f, const char *fname);

hipError_t hipModuleLoad(hipModule_t *module, const char *fname)
{
    if (module == NULL || fname == NULL)
        return cpu_ret(hipErrorInvalidValue);
    FILE *f = fopen(fname, "rb");
    if (f == NULL) {
        cpu_log("hipModuleLoad: %s: %s", fname, strerror(errno));
        return cpu_ret(hipErrorFileNotFound);
    }
    unsigned char head[sizeof(Elf64_Ehdr)];
    size_t got = fread(head, 1, sizeof head, f);
    const char *why = NULL;
    size_t want = elf_image_size(head, got, &why);
    if (want == 0 && why != NULL) {
        fclose(f);
        cpu_log("hipModuleLoad: %s: %s", fname, why);
        return cpu_ret(hipErrorInvalidImage);
    }
    /* dlopen maps the segments the headers describe: a file cut short (a truncated cache
     * entry) faults with SIGBUS when they are touched past its end, so refuse it first */
    struct stat st = {0};
    if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size < want) {
        fclose(f);
        cpu_log("hipModuleLoad: %s: truncated: %lld bytes of the %zu its ELF headers describe",
                fname, (long long)st.st_size, want);
        return cpu_ret(hipErrorInvalidImage);
    }
    pthread_mutex_lock(&module_lock);
    hipError_t err;
    void *loaded = dlopen(fname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (loaded == NULL) {
        err = open_module(module, fname, fname);
    } else {
        /* Loading a file twice must give a second module with its own globals, and dlopen
         * would hand back the first: load a private copy instead. */
        dlclose(loaded);
        err = load_copy(module, f, fname);
    }
    pthread_mutex_unlock(&module_lock);
    fclose(f);
    return cpu_ret(err);
}

/* Writes `size` bytes to an anonymous memfd and opens that: a private instance of the
 * module, whatever else is loaded. Call with module_lock held. */
static hipError_t open_private(hipModule_t *module, const void *bytes, size_t size,
                               const char *origin)
{
    int fd = memfd_create("pyshim-cpu-module", MFD_CLOEXEC);
    if (fd < 0) {
        cpu_log("%s: memfd_create: %s", origin, strerror(errno));
        return hipErrorOperatingSystem;
    }
    const unsigned char *p = bytes;
    for (size_t off = 0; off < size;) {
        ssize_t w = write(fd, p + off, size - off);
        if (w <= 0) {
            if (w < 0 && errno == EINTR)
                continue;
            cpu_log("%s: writing the image: %s", origin, strerror(errno));
            close(fd);
            return hipErrorOperatingSystem;
        }
        off += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    hipError_t err = open_module(module, path, origin);
    if (err == hipSuccess)
        (*module)->memfd = fd;
    else
        close(fd);
    return err;
}

/* Reads the whole (already opened) file and opens a private copy of it. */
static hipError_t load_copy(hipModule_t *module, FILE *f, const char *fname)
{
    if (fseek(f, 0, SEEK_END) != 0)
        return hipErrorInvalidImage;
    long n = ftell(f);
    if (n <= 0 || fseek(f, 0, SEEK_SET) != 0)
        return hipErrorInvalidImage;
    void *bytes = malloc((size_t)n);
    if (bytes == NULL)
        return hipErrorOutOfMemory;
    hipError_t err = fread(bytes, 1, (size_t)n, f) == (size_t)n
                         ? open_private(module, bytes, (size_t)n, fname)
                         : hipErrorInvalidImage;
    free(bytes);
    return err;
}

static hipError_t load_data(hipModule_t *module, const void *image)
{
    if (module == NULL || image == NULL)
        return hipErrorInvalidValue;
    const char *why = NULL;
    /* The caller gives no length: check the header, then size the image from the
     * section and program header tables it points to. */
    size_t size = elf_image_size(image, sizeof(Elf64_Ehdr), &why);
    if (size != 0) {
        const Elf64_Ehdr *eh = image;
        size_t ph_end = eh->e_phoff + (size_t)eh->e_phnum * eh->e_phentsize;
        size = elf_image_size(image, ph_end > size ? ph_end : size, &why);
    }
    if (size == 0) {
        cpu_log("hipModuleLoadData: image at %p: %s", image, why);
        return hipErrorInvalidImage;
    }
    char origin[64];
    snprintf(origin, sizeof origin, "hipModuleLoadData(image %p)", image);
    pthread_mutex_lock(&module_lock);
    hipError_t err = open_private(module, image, size, origin);
    pthread_mutex_unlock(&module_lock);
    return err;
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
    return cpu_ret(load_data(module, image));
}

hipError_t hipModuleLoadDataEx(hipModule_t *module, const void *image, unsigned int numOptions,
                               hipJitOption *options, void **optionValues)
{
    /* JIT options tune a compiler we do not run here. */
    (void)numOptions;
    (void)options;
    (void)optionValues;
    return cpu_ret(load_data(module, image));
}

static bool module_valid(hipModule_t m)
{
    return m != NULL && pyshim_handles_contains(&module_handles, m);
}

hipError_t hipModuleUnload(hipModule_t module)
{
    if (module == NULL || !pyshim_handles_contains(&module_handles, module))
        return cpu_ret(hipErrorInvalidResourceHandle);
    /* launches in flight still run its code */
    if (cpu_device_wait_idle() == hipErrorNotSupported)
        return cpu_ret(hipErrorNotSupported);
    if (!pyshim_handles_remove(&module_handles, module))
        return cpu_ret(hipErrorInvalidResourceHandle);   /* another thread unloaded it */
    pthread_mutex_lock(&module_lock);
    forget_module(module);
    pthread_mutex_unlock(&module_lock);
    return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *kname)
{
    if (function == NULL || kname == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (!module_valid(module))
        return cpu_ret(hipErrorInvalidResourceHandle);
    for (uint32_t i = 0; i < module->desc->num_kernels; i++)
        if (strcmp(module->desc->kernels[i].name, kname) == 0) {
            *function = &module->functions[i];
            return hipSuccess;
        }
    return cpu_ret(hipErrorNotFound);
}

hipError_t hipModuleGetFunctionCount(unsigned int *count, hipModule_t mod)
{
    if (count == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (!module_valid(mod))
        return cpu_ret(hipErrorInvalidResourceHandle);
    *count = mod->desc->num_kernels;
    return hipSuccess;
}

hipError_t hipModuleGetGlobal(hipDeviceptr_t *dptr, size_t *bytes, hipModule_t hmod,
                              const char *name)
{
    if (name == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (!module_valid(hmod))
        return cpu_ret(hipErrorInvalidResourceHandle);
    for (uint32_t i = 0; i < hmod->desc->num_globals; i++) {
        const pyshim_global_desc *g = &hmod->desc->globals[i];
        if (strcmp(g->name, name) == 0) {
            if (dptr != NULL)
                *dptr = g->addr;
            if (bytes != NULL)
                *bytes = g->size;
            return hipSuccess;
        }
    }
    return cpu_ret(hipErrorNotFound);
}
