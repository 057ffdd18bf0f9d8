/*
 * pyshim's libcurand.so.10 and libcufft.so.12: what the generated thunks
 * (pyshim.codegen.randfft) and the hand-written entry points share.
 */
#ifndef PYSHIM_RANDFFT_INTERNAL_H
#define PYSHIM_RANDFFT_INTERNAL_H

#define PYSHIM_WEAK __attribute__((weak, visibility("default")))
#undef PYSHIM_EXPORT
#define PYSHIM_EXPORT __attribute__((visibility("default")))

/* Count one call of an entry point pyshim does not map; log its name the first time. */
void pyshim_curand_unsupported(const char *name);
void pyshim_cufft_unsupported(const char *name);

/* cuFFT plans are ints, hipFFT's are pointers (hipfftHandle): the plan table between them.
 * pyshim_fft_plan: the hipFFT plan of a cuFFT handle, NULL when it names none.
 * pyshim_fft_register: a new handle for a hipFFT plan, -1 when the table is full.
 * pyshim_fft_release: forget a handle; returns its plan (NULL when unknown). */
void *pyshim_fft_plan(int plan);
int pyshim_fft_register(void *h);
void *pyshim_fft_release(int plan);

#endif
