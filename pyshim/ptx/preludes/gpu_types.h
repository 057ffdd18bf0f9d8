/* pyshim PTX prelude for GPU targets (HIP and CUDA dialects): fixed-width types and the
 * attribute spellings, without any vendor header. */
#if defined(__CUDACC_RTC__)
/* NVRTC predefines none of the __UINTn_TYPE__ macros and has no <stdint.h>; it compiles for
 * the host's LP64 data model, so these are the widths nvcc's host compiler gives */
typedef unsigned char uint8_t;
typedef signed char int8_t;
typedef unsigned short uint16_t;
typedef short int16_t;
typedef unsigned int uint32_t;
typedef int int32_t;
typedef unsigned long uint64_t;
typedef long int64_t;
typedef unsigned long uintptr_t;
static_assert(sizeof(uint64_t) == 8 && sizeof(uintptr_t) == sizeof(void *), "LP64 only");
#else
typedef __UINT8_TYPE__ uint8_t;
typedef __INT8_TYPE__ int8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __INT16_TYPE__ int16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __INT32_TYPE__ int32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINTPTR_TYPE__ uintptr_t;
#endif
#ifndef NULL
#define NULL 0
#endif
#if defined(__HIP__)
#define PS_DEVQ __attribute__((device))
#define PS_GLOBALQ __attribute__((global))
#define PS_SHAREDQ __attribute__((shared))
#else  /* nvcc / NVRTC */
#define PS_DEVQ __device__
#define PS_GLOBALQ __global__
#define PS_SHAREDQ __shared__
#endif
#define PS_FN static PS_DEVQ __attribute__((always_inline, unused)) inline
#define PS_DEVICE static PS_DEVQ
#define PS_ALIGN(n) __attribute__((aligned(n)))
#define PS_CTX ps_tctx *ctx

typedef struct ps_tctx {
    uint8_t *sh;           /* this block's shared window (static variables, then dynamic) */
    uint64_t dyn_off;      /* offset of the dynamic (.extern .shared) part in it */
    void *const *params;   /* the kernel's parameters, one pointer each */
} ps_tctx;

#define PS_SHARED(c) ((c)->sh)
#define PS_DYN_OFF(c) ((c)->dyn_off)
#define PS_LINEAR(c) (PS_TID_X(c) + PS_NTID_X(c) * (PS_TID_Y(c) + PS_NTID_Y(c) * PS_TID_Z(c)))
#define PS_NTHREADS(c) (PS_NTID_X(c) * PS_NTID_Y(c) * PS_NTID_Z(c))
