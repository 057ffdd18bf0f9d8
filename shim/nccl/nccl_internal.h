/* pyshim's libnccl.so.2: NVIDIA's NCCL API onto RCCL (librccl.so.1). */
#ifndef PYSHIM_NCCL_INTERNAL_H
#define PYSHIM_NCCL_INTERNAL_H

#include <stdbool.h>
#include <nccl.h>

#include "nccl_config.h"

/* RCCL's function `name` into *slot (once); false, logged, when librccl.so.1 or the name
 * is missing */
bool pyshim_nccl_resolve(const char *name, void **slot);
/* the HIP stream a CUDA stream handle names (the legacy and per-thread handles kept) */
void *pyshim_nccl_stream(cudaStream_t stream);
/* RCCL's config from the caller's (NULL stays NULL); fields RCCL lacks are logged once */
void *pyshim_nccl_config(const char *fn, const ncclConfig_t *config, pyshim_rccl_config *out);
/* an entry point RCCL cannot serve: logged once by name, ncclInvalidUsage */
ncclResult_t pyshim_nccl_refuse(const char *name, const char *why);

#endif
