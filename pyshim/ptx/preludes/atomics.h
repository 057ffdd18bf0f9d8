/* pyshim PTX prelude, every target: atom/red helpers that GCC/clang builtins lack (min/max,
 * inc/dec with PTX wrap rules, float add) as compare-and-swap loops. On the CPU device blocks
 * run in parallel on worker threads, so these must be real atomics (a target may wrap them
 * in function-like macros of the same names: the definitions are parenthesised for that;
 * cpu.h does, to make atomics on a block's own shared memory plain read-modify-writes). */
/* the target may supply these (CUDA does: nvcc has no __atomic builtins in device code) */
#ifndef PS_AFETCH_ADD
#define PS_AFETCH_ADD(p, v) __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST)
#define PS_AFETCH_AND(p, v) __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST)
#define PS_AFETCH_OR(p, v) __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST)
#define PS_AFETCH_XOR(p, v) __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST)
#define PS_AEXCH(p, v) __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST)
#define PS_ALOAD(p) __atomic_load_n(p, __ATOMIC_RELAXED)
#define PS_ACAS_WEAK(p, expected, nv) \
    __atomic_compare_exchange_n(p, expected, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)
#define PS_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif
#define PS_ATOMIC_CAS_LOOP(name, T, expr)                                       \
    PS_FN T (name)(T *p, T b) {                                                 \
        T old = PS_ALOAD(p), nv;                       \
        do { nv = (expr); } while (!PS_ACAS_WEAK(p, &old, nv));                 \
        return old;                                                             \
    }
#define PS_ATOMIC_CAS_LOOP_BITS(name, T, U, expr, tobits, frombits)             \
    PS_FN T (name)(T *pt, T b) {                                                  \
        U *p = (U *)pt;                                                         \
        U oldb = PS_ALOAD(p), nvb;                     \
        T old;                                                                  \
        do { old = frombits(oldb); nvb = tobits(expr); }                        \
        while (!PS_ACAS_WEAK(p, &oldb, nvb));                                   \
        return old;                                                             \
    }

PS_ATOMIC_CAS_LOOP(ps_atom_min_u32, uint32_t, b < old ? b : old)
PS_ATOMIC_CAS_LOOP(ps_atom_max_u32, uint32_t, b > old ? b : old)
PS_ATOMIC_CAS_LOOP(ps_atom_min_s32, int32_t, b < old ? b : old)
PS_ATOMIC_CAS_LOOP(ps_atom_max_s32, int32_t, b > old ? b : old)
PS_ATOMIC_CAS_LOOP(ps_atom_min_u64, uint64_t, b < old ? b : old)
PS_ATOMIC_CAS_LOOP(ps_atom_max_u64, uint64_t, b > old ? b : old)
PS_ATOMIC_CAS_LOOP(ps_atom_min_s64, int64_t, b < old ? b : old)
PS_ATOMIC_CAS_LOOP(ps_atom_max_s64, int64_t, b > old ? b : old)
PS_ATOMIC_CAS_LOOP(ps_atom_inc_u32, uint32_t, old >= b ? 0u : old + 1u)
PS_ATOMIC_CAS_LOOP(ps_atom_dec_u32, uint32_t, (old == 0u || old > b) ? b : old - 1u)
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_add_f32, float, uint32_t, old + b, ps_f2u, ps_u2f)
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_add_f64, double, uint64_t, old + b, ps_d2u, ps_u2d)
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_min_f32, float, uint32_t, ps_minf(old, b), ps_f2u, ps_u2f)
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_max_f32, float, uint32_t, ps_maxf(old, b), ps_f2u, ps_u2f)
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_min_f64, double, uint64_t, ps_mind(old, b), ps_d2u, ps_u2d)
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_max_f64, double, uint64_t, ps_maxd(old, b), ps_d2u, ps_u2d)
#define PS_ATOM_CAS(T, name)                                                     \
    PS_FN T (name)(T *p, T cmp, T nv) {                                            \
        T want = cmp; /* a weak CAS may fail spuriously: retry while unchanged */ \
        while (!PS_ACAS_WEAK(p, &cmp, nv) && cmp == want) {}                     \
        return cmp;                                                              \
    }
PS_ATOM_CAS(uint16_t, ps_atom_cas_u16)
PS_ATOM_CAS(uint32_t, ps_atom_cas_u32)
PS_ATOM_CAS(uint64_t, ps_atom_cas_u64)

/* half-precision atomic add (atom.add.noftz.f16 / .bf16 / .f16x2 / .bf16x2) */
#define PS_ATOM_ADD_HALF(name, T, expr)                                          \
    PS_FN T name(T *p, T b) {                                                    \
        T old = PS_ALOAD(p), nv;                                                 \
        do { nv = (expr); } while (!PS_ACAS_WEAK(p, &old, nv));                 \
        return old;                                                              \
    }
PS_ATOM_ADD_HALF(ps_atom_add_f16, uint16_t, ps_f2h(ps_h2f(old) + ps_h2f(b)))
PS_ATOM_ADD_HALF(ps_atom_add_bf16, uint16_t, ps_f2bf(ps_bf2f(old) + ps_bf2f(b)))
PS_ATOM_ADD_HALF(ps_atom_add_f16x2, uint32_t,
                 ps_pack2(ps_f2h(ps_h2f((uint16_t)old) + ps_h2f((uint16_t)b)),
                          ps_f2h(ps_h2f((uint16_t)(old >> 16)) + ps_h2f((uint16_t)(b >> 16)))))
PS_ATOM_ADD_HALF(ps_atom_add_bf16x2, uint32_t,
                 ps_pack2(ps_f2bf(ps_bf2f((uint16_t)old) + ps_bf2f((uint16_t)b)),
                          ps_f2bf(ps_bf2f((uint16_t)(old >> 16)) + ps_bf2f((uint16_t)(b >> 16)))))
