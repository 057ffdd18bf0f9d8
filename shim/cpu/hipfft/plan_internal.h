/* What plan.c shares with xt.c. */
#ifndef PYSHIM_CPU_HIPFFT_PLAN_INTERNAL_H
#define PYSHIM_CPU_HIPFFT_PLAN_INTERNAL_H

#include <hipfft/hipfft.h>

/* The plan's transform type, 0 for none (no plan, or not made yet). */
__attribute__((visibility("hidden"))) hipfftType pyshim_hipfft_plan_type(hipfftHandle p);
/* Execute a made plan of type `want`; `sign` is the direction (R2C/D2Z forward, C2R/Z2D
 * backward whatever is asked). */
__attribute__((visibility("hidden"))) hipfftResult pyshim_hipfft_exec(hipfftHandle p,
                                                                      hipfftType want, void *in,
                                                                      void *out, int sign);

#endif
