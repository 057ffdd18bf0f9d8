/* rocrand.h names HIP's __half, which hip_fp16.h defines only for C++; from C the
 * type is only passed by pointer or as a 2-byte value, which _Float16 is. Pre-included
 * (-include) by pyshim.build_cpu_randfft. */
#ifndef __cplusplus
typedef _Float16 __half;
#endif
