/* pyshim PTX prelude, every target: atom/red helpers that GCC/clang builtins lack (min/max,
 * inc/dec with PTX wrap rules, float add) as compare-and-swap loops. On the CPU device blocks
 * run in parallel on worker threads, so these must be real atomics. */
#define PS_ATOMIC_CAS_LOOP(name, T, expr)                                       \
    PS_FN T name(T *p, T b) {                                                   \
        T old = __atomic_load_n(p, __ATOMIC_RELAXED), nv;                       \
        do { nv = (expr); } while (!__atomic_compare_exchange_n(               \
            p, &old, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));               \
        return old;                                                             \
    }
#define PS_ATOMIC_CAS_LOOP_BITS(name, T, U, expr, tobits, frombits)             \
    PS_FN T name(T *pt, T b) {                                                  \
        U *p = (U *)pt;                                                         \
        U oldb = __atomic_load_n(p, __ATOMIC_RELAXED), nvb;                     \
        T old;                                                                  \
        do { old = frombits(oldb); nvb = tobits(expr); }                        \
        while (!__atomic_compare_exchange_n(p, &oldb, nvb, 1, __ATOMIC_SEQ_CST, \
                                            __ATOMIC_RELAXED));                \
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
    PS_FN T name(T *p, T cmp, T nv) {                                            \
        __atomic_compare_exchange_n(p, &cmp, nv, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        return cmp;                                                              \
    }
PS_ATOM_CAS(uint16_t, ps_atom_cas_u16)
PS_ATOM_CAS(uint32_t, ps_atom_cas_u32)
PS_ATOM_CAS(uint64_t, ps_atom_cas_u64)
