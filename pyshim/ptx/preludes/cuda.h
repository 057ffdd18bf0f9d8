/* pyshim PTX prelude for NVIDIA GPUs (CUDA C++ under nvcc or NVRTC): the wavefront is the
 * warp, so the primitives are CUDA's own. Used for differential checks against NVIDIA's
 * compilation of the same PTX. */
#if defined(__CUDACC_RTC__)
/* NVRTC's front end is not in GCC mode: none of GCC's builtins that the shared preludes and
 * the generated code use exist there, so they are spelled with CUDA's device functions */
#define __builtin_memcpy(d, s, n) memcpy(d, s, n)
#define __builtin_popcount(a) __popc(a)
#define __builtin_popcountll(a) __popcll(a)
#define __builtin_clz(a) __clz(a)
#define __builtin_clzll(a) __clzll(a)
#define __builtin_frexp(a, e) frexp(a, e)
#define __builtin_ldexp(a, e) ldexp(a, e)
#endif
#define PS_TID_X(c) threadIdx.x
#define PS_TID_Y(c) threadIdx.y
#define PS_TID_Z(c) threadIdx.z
#define PS_NTID_X(c) blockDim.x
#define PS_NTID_Y(c) blockDim.y
#define PS_NTID_Z(c) blockDim.z
#define PS_CTAID_X(c) blockIdx.x
#define PS_CTAID_Y(c) blockIdx.y
#define PS_CTAID_Z(c) blockIdx.z
#define PS_NCTAID_X(c) gridDim.x
#define PS_NCTAID_Y(c) gridDim.y
#define PS_NCTAID_Z(c) gridDim.z
PS_FN uint32_t ps_sreg_smid(void) { uint32_t r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }
PS_FN uint32_t ps_sreg_nsmid(void) { uint32_t r; asm volatile("mov.u32 %0, %%nsmid;" : "=r"(r)); return r; }
PS_FN uint32_t ps_sreg_laneid(void) { uint32_t r; asm("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
PS_FN uint32_t ps_sreg_dynsmem(void) { uint32_t r; asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r)); return r; }
#define PS_SMID(c) ps_sreg_smid()
#define PS_NSMID(c) ps_sreg_nsmid()
#define PS_DYN_SMEM(c) ps_sreg_dynsmem()
PS_FN uint32_t ps_sreg_envreg1(void) { uint32_t r; asm("mov.u32 %0, %%envreg1;" : "=r"(r)); return r; }
PS_FN uint32_t ps_sreg_envreg2(void) { uint32_t r; asm("mov.u32 %0, %%envreg2;" : "=r"(r)); return r; }
#define ps_spin_hint() ((void)0)
#define PS_ENVREG1(c) ps_sreg_envreg1()
#define PS_ENVREG2(c) ps_sreg_envreg2()
#define PS_TRAP(c) __trap()

#define PS_SQRTF(x) __fsqrt_rn(x)
#define PS_SQRT(x) __dsqrt_rn(x)
#define PS_FMAF(a, b, c) __fmaf_rn(a, b, c)
#define PS_FMA(a, b, c) __fma_rn(a, b, c)
/* PTX's .approx instructions as themselves: CUDA's log2f and tanhf are longer sequences
 * that round differently from lg2.approx and tanh.approx (the NVRTC round trip, P -> cuda
 * target -> P', found both), and exp2f/__sinf only happen to compile to the instruction */
#define PS_APPROX_F32(name, ptx)                                                  \
    PS_FN float name(float x) { float r; asm(ptx " %0, %1;" : "=f"(r) : "f"(x)); return r; }
PS_APPROX_F32(ps_ex2_approx, "ex2.approx.f32")
PS_APPROX_F32(ps_lg2_approx, "lg2.approx.f32")
PS_APPROX_F32(ps_sin_approx, "sin.approx.f32")
PS_APPROX_F32(ps_cos_approx, "cos.approx.f32")
PS_APPROX_F32(ps_tanh_approx, "tanh.approx.f32")  /* sm_75 and later */
PS_APPROX_F32(ps_rcp_approx, "rcp.approx.f32")
PS_APPROX_F32(ps_rsqrt_approx, "rsqrt.approx.f32")
PS_APPROX_F32(ps_sqrt_approx, "sqrt.approx.f32")
PS_FN float ps_div_approx(float a, float b) {
    float r; asm("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r;
}
PS_FN float ps_div_full(float a, float b) {
    float r; asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r;
}
#define PS_RCP_APPROXF(x) ps_rcp_approx(x)
#define PS_RSQRT_APPROXF(x) ps_rsqrt_approx(x)
#define PS_SQRT_APPROXF(x) ps_sqrt_approx(x)
#define PS_DIV_APPROXF(a, b) ps_div_approx(a, b)
#define PS_DIV_FULLF(a, b) ps_div_full(a, b)
#define PS_EX2F(x) ps_ex2_approx(x)
#define PS_LG2F(x) ps_lg2_approx(x)
#define PS_SINF(x) ps_sin_approx(x)
#define PS_COSF(x) ps_cos_approx(x)
#define PS_TANHF(x) ps_tanh_approx(x)
#define PS_RINTF(x) rintf(x)
#define PS_RINT(x) rint(x)
#define PS_FLOORF(x) floorf(x)
#define PS_FLOOR(x) floor(x)
#define PS_CEILF(x) ceilf(x)
#define PS_CEIL(x) ceil(x)
#define PS_TRUNCF(x) truncf(x)
#define PS_TRUNC(x) trunc(x)
#define PS_FABSF(x) fabsf(x)
#define PS_FABS(x) fabs(x)
#define PS_COPYSIGNF(a, b) copysignf(a, b)
#define PS_COPYSIGN(a, b) copysign(a, b)

PS_FN uint64_t ps_clock64(void) { return (uint64_t)clock64(); }
PS_FN uint64_t ps_globaltimer(const ps_tctx *c) {
    uint64_t r; (void)c; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r)); return r;
}
/* device printf: the PTX's own call to CUDA's device vprintf, as inline PTX, because a C
 * declaration of it would clash with glibc's host vprintf. The printf("") on a path never
 * taken at run time makes nvcc declare the .extern .func vprintf that the asm calls.
 * NVRTC declares printf itself (and has no <cstdio>). */
#if !defined(__CUDACC_RTC__)
#include <cstdio>
#endif
PS_FN int ps_vprintf(const ps_tctx *c, uint64_t fmt, uint64_t args) {
    (void)c;
    if (!fmt) return printf("");
    int r;
    asm volatile("{ .param .b64 ps_p0; .param .b64 ps_p1; .param .b32 ps_rv;\n\t"
                 "st.param.b64 [ps_p0], %1; st.param.b64 [ps_p1], %2;\n\t"
                 "call.uni (ps_rv), vprintf, (ps_p0, ps_p1);\n\t"
                 "ld.param.b32 %0, [ps_rv]; }"
                 : "=r"(r) : "l"(fmt), "l"(args) : "memory");
    return r;
}

#define PS_WAVE_LANE(c) ps_sreg_laneid()
PS_FN uint64_t ps_wave_ballot(ps_tctx *c, uint32_t site, int p) {
    (void)c; (void)site; return (uint64_t)__ballot_sync(__activemask(), p);
}
PS_FN uint32_t ps_wave_permute(ps_tctx *c, uint32_t site, uint32_t v, uint32_t lane) {
    (void)c; (void)site; return (uint32_t)__shfl_sync(__activemask(), v, (int)lane);
}

PS_FN void ps_bar_sync(ps_tctx *c, uint32_t id, uint32_t count) {
    (void)c;
    if (count) asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count) : "memory");
    else asm volatile("bar.sync %0;" :: "r"(id) : "memory");
}
PS_FN void ps_bar_arrive(ps_tctx *c, uint32_t id, uint32_t count) {
    (void)c; asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(count) : "memory");
}
/* bar.red as itself: __syncthreads_count/and/or are barrier 0 of the whole block, while
 * PTX names a barrier and may limit it to `count` threads */
#define PS_BAR_RED(red, out)                                                            \
    if (count)                                                                          \
        asm volatile("{ .reg .pred q, o; setp.ne.u32 q, %1, 0; " red " %2, %3, q; "     \
                     out " }" : "=r"(r) : "r"(in), "r"(id), "r"(count) : "memory");     \
    else                                                                                \
        asm volatile("{ .reg .pred q, o; setp.ne.u32 q, %1, 0; " red " %2, q; " out     \
                     " }" : "=r"(r) : "r"(in), "r"(id) : "memory");
PS_FN uint32_t ps_bar_red(ps_tctx *c, uint32_t id, uint32_t count, int op, bool p) {
    uint32_t r, in = p;
    (void)c;
    if (op == 0) { PS_BAR_RED("bar.red.popc.u32 %0,", "") }
    else if (op == 1) { PS_BAR_RED("bar.red.and.pred o,", "selp.u32 %0, 1, 0, o;") }
    else { PS_BAR_RED("bar.red.or.pred o,", "selp.u32 %0, 1, 0, o;") }
    return r;
}

/* ---- atomics: CUDA's atomic* functions in place of the __atomic builtins nvcc lacks ---- */
template <typename T> __device__ inline T ps_cuda_cas(T *p, T cmp, T nv) {
    if constexpr (sizeof(T) == 2)
        return (T)atomicCAS((unsigned short *)p, (unsigned short)cmp, (unsigned short)nv);
    else if constexpr (sizeof(T) == 4)
        return (T)atomicCAS((unsigned *)p, (unsigned)cmp, (unsigned)nv);
    else
        return (T)atomicCAS((unsigned long long *)p, (unsigned long long)cmp,
                            (unsigned long long)nv);
}
template <typename T> __device__ inline bool ps_cuda_cas_weak(T *p, T *expected, T nv) {
    T old = ps_cuda_cas(p, *expected, nv);
    bool ok = old == *expected;
    *expected = old;
    return ok;
}
#define PS_CUDA_RMW(name, OP)                                                    \
    template <typename T> __device__ inline T name(T *p, T v) {                  \
        T old = *(volatile T *)p, nv;                                            \
        do { nv = (T)(old OP v); } while (!ps_cuda_cas_weak(p, &old, nv));      \
        return old;                                                              \
    }
PS_CUDA_RMW(ps_cuda_add, +)
PS_CUDA_RMW(ps_cuda_and, &)
PS_CUDA_RMW(ps_cuda_or, |)
PS_CUDA_RMW(ps_cuda_xor, ^)
template <typename T> __device__ inline T ps_cuda_exch(T *p, T v) {
    T old = *(volatile T *)p;
    while (!ps_cuda_cas_weak(p, &old, v)) {}
    return old;
}
#define PS_AFETCH_ADD(p, v) ps_cuda_add(p, v)
#define PS_AFETCH_AND(p, v) ps_cuda_and(p, v)
#define PS_AFETCH_OR(p, v) ps_cuda_or(p, v)
#define PS_AFETCH_XOR(p, v) ps_cuda_xor(p, v)
#define PS_AEXCH(p, v) ps_cuda_exch(p, v)
#define PS_ALOAD(p) (*(volatile decltype(+*(p)) *)(p))
#define PS_ACAS_WEAK(p, expected, nv) ps_cuda_cas_weak(p, expected, nv)
#define PS_FENCE() __threadfence_system()
