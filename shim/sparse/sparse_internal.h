/*
 * pyshim's libcusparse.so.12: what the generated thunks (pyshim.codegen.sparse) and the
 * hand-written entry points share.
 */
#ifndef PYSHIM_SPARSE_INTERNAL_H
#define PYSHIM_SPARSE_INTERNAL_H

#define PYSHIM_WEAK __attribute__((weak, visibility("default")))
#undef PYSHIM_EXPORT
#define PYSHIM_EXPORT __attribute__((visibility("default")))

/* Count one call of an entry point pyshim does not map; log its name the first time. */
void pyshim_cusparse_unsupported(const char *name);

/* cudaDataType -> rocsparse_datatype's value; -1 where rocSPARSE has none */
int pyshim_cusparse_datatype(int cuda_data_type);

#endif
