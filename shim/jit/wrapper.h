/* The runtime of a JIT-library wrapper (shim/jit/wrapper.c) and what the generated
 * forwarding file (build: <wrapper>_forward.c) provides. */
#ifndef PYSHIM_JIT_WRAPPER_H
#define PYSHIM_JIT_WRAPPER_H

#include <stddef.h>

/* NVIDIA's function behind an exported name: the generated file defines one pointer per
 * exported name, pyshim_real_<name>, pointing at a stub returning the library's error
 * status until NVIDIA's library is loaded */
#define REAL(name) pyshim_real_##name

/* loads NVIDIA's library (once) and resolves every pointer; 0 on success */
int pyshim_jit_load(void);

/* one line on stderr with the wrapper's name */
void pyshim_jit_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* generated */
extern const char pyshim_jit_soname[];
extern const char *const pyshim_jit_companions[];
extern const int pyshim_jit_own_namespace; /* dlmopen(LM_ID_NEWLM) rather than dlopen */
void pyshim_jit_resolve(void *handle);

#endif
