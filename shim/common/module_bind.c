/* The binding of a lazily translated kernel's module variables (module_bind.h). Lazy
 * loading is for the CPU device, where a module's variables are host memory, so the slots
 * are written directly. */
#include <hip/hip_runtime_api.h>
#include <string.h>

#include "log.h"
#include "module_bind.h"

int pyshim_bind_globals(void *data, void *kernel, const char *name)
{
    hipDeviceptr_t slots = NULL, names = NULL;
    size_t slots_size = 0, names_size = 0;
    if (hipModuleGetGlobal(&slots, &slots_size, (hipModule_t)kernel, "pyshim:bind-slots") !=
        hipSuccess)
        return 0; /* it uses no module variable */
    if (hipModuleGetGlobal(&names, &names_size, (hipModule_t)kernel, "pyshim:bind-names") !=
            hipSuccess ||
        names_size == 0 || ((const char *)names)[names_size - 1] != '\0') {
        pyshim_common_log("kernel %s: its binding table has no names", name);
        return -1;
    }
    void **slot = (void **)slots;
    size_t i = 0;
    for (const char *g = names; g < (const char *)names + names_size && *g != '\0';
         g += strlen(g) + 1, i++) {
        hipDeviceptr_t addr = NULL;
        size_t bytes = 0;
        if (i >= slots_size / sizeof(void *) ||
            hipModuleGetGlobal(&addr, &bytes, (hipModule_t)data, g) != hipSuccess) {
            pyshim_common_log("kernel %s: module variable %s is not in its module's data object",
                              name, g);
            return -1;
        }
        slot[i] = addr;
    }
    return 0;
}
