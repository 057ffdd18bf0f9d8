/* pyshim PTX prelude, every target: atom/red helpers that GCC/clang builtins lack (min/max,
 * inc/dec with PTX wrap rules, float add) as compare-and-swap loops. On the CPU device blocks
 * run in parallel on worker threads, so these must be real atomics (a target may wrap them
 * in function-like macros of the same names: the definitions are parenthesised for that;
 * cpu.h does, to make atomics through generic addresses into a block's own shared memory
 * plain read-modify-writes). atom/red.shared on the CPU device use PS_PLAIN_RMW instead. */
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
/* the new value of each read-modify-write, written once for the atomic helpers below and
 * the plain ones (PS_PLAIN_RMW) */
#define PS_NV_ADD(old, b) ((old) + (b))
#define PS_NV_AND(old, b) ((old) & (b))
#define PS_NV_OR(old, b) ((old) | (b))
#define PS_NV_XOR(old, b) ((old) ^ (b))
#define PS_NV_EXCH(old, b) (b)
#define PS_NV_MIN(old, b) ((b) < (old) ? (b) : (old))
#define PS_NV_MAX(old, b) ((b) > (old) ? (b) : (old))
#define PS_NV_MINF(old, b) ps_minf(old, b)
#define PS_NV_MAXF(old, b) ps_maxf(old, b)
#define PS_NV_MIND(old, b) ps_mind(old, b)
#define PS_NV_MAXD(old, b) ps_maxd(old, b)
#define PS_NV_INC(old, b) ((old) >= (b) ? 0u : (old) + 1u)
#define PS_NV_DEC(old, b) (((old) == 0u || (old) > (b)) ? (b) : (old) - 1u)
#define PS_NV_ADD_F16(old, b) ps_f2h(ps_h2f(old) + ps_h2f(b))
#define PS_NV_ADD_BF16(old, b) ps_f2bf(ps_bf2f(old) + ps_bf2f(b))
#define PS_NV_ADD_F16X2(old, b)                                                  \
    ps_pack2(ps_f2h(ps_h2f((uint16_t)(old)) + ps_h2f((uint16_t)(b))),            \
             ps_f2h(ps_h2f((uint16_t)((old) >> 16)) + ps_h2f((uint16_t)((b) >> 16))))
#define PS_NV_ADD_BF16X2(old, b)                                                 \
    ps_pack2(ps_f2bf(ps_bf2f((uint16_t)(old)) + ps_bf2f((uint16_t)(b))),         \
             ps_f2bf(ps_bf2f((uint16_t)((old) >> 16)) + ps_bf2f((uint16_t)((b) >> 16))))

/* CPU device, atom/red on .shared (the emitter decides, instructions.py): a block runs on one
 * OS thread and its CUDA threads switch only at barriers and collectives, never inside an
 * instruction, so nothing else can touch the block's shared memory during the operation and
 * a plain read-modify-write is exact (no lock prefix, no CAS loop, no test of the address).
 * nv is one of the PS_NV_* macros; the value is the old one, as atom returns. */
#define PS_PLAIN_RMW(p, v, nv) __extension__({                                  \
    __typeof__(p) ps_pq_ = (p);                                                 \
    __typeof__(*ps_pq_) ps_pb_ = (v), ps_po_ = *ps_pq_;                         \
    *ps_pq_ = nv(ps_po_, ps_pb_);                                               \
    ps_po_; })
#define PS_PLAIN_CAS(p, cmp, nv) __extension__({                                \
    __typeof__(p) ps_pq_ = (p);                                                 \
    __typeof__(*ps_pq_) ps_pc_ = (cmp), ps_pn_ = (nv), ps_po_ = *ps_pq_;        \
    if (ps_po_ == ps_pc_) *ps_pq_ = ps_pn_;                                     \
    ps_po_; })

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

PS_ATOMIC_CAS_LOOP(ps_atom_min_u32, uint32_t, PS_NV_MIN(old, b))
PS_ATOMIC_CAS_LOOP(ps_atom_max_u32, uint32_t, PS_NV_MAX(old, b))
PS_ATOMIC_CAS_LOOP(ps_atom_min_s32, int32_t, PS_NV_MIN(old, b))
PS_ATOMIC_CAS_LOOP(ps_atom_max_s32, int32_t, PS_NV_MAX(old, b))
PS_ATOMIC_CAS_LOOP(ps_atom_min_u64, uint64_t, PS_NV_MIN(old, b))
PS_ATOMIC_CAS_LOOP(ps_atom_max_u64, uint64_t, PS_NV_MAX(old, b))
PS_ATOMIC_CAS_LOOP(ps_atom_min_s64, int64_t, PS_NV_MIN(old, b))
PS_ATOMIC_CAS_LOOP(ps_atom_max_s64, int64_t, PS_NV_MAX(old, b))
PS_ATOMIC_CAS_LOOP(ps_atom_inc_u32, uint32_t, PS_NV_INC(old, b))
PS_ATOMIC_CAS_LOOP(ps_atom_dec_u32, uint32_t, PS_NV_DEC(old, b))
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_add_f32, float, uint32_t, PS_NV_ADD(old, b), ps_f2u, ps_u2f)
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_add_f64, double, uint64_t, PS_NV_ADD(old, b), ps_d2u, ps_u2d)
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_min_f32, float, uint32_t, PS_NV_MINF(old, b), ps_f2u, ps_u2f)
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_max_f32, float, uint32_t, PS_NV_MAXF(old, b), ps_f2u, ps_u2f)
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_min_f64, double, uint64_t, PS_NV_MIND(old, b), ps_d2u, ps_u2d)
PS_ATOMIC_CAS_LOOP_BITS(ps_atom_max_f64, double, uint64_t, PS_NV_MAXD(old, b), ps_d2u, ps_u2d)
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
PS_ATOM_ADD_HALF(ps_atom_add_f16, uint16_t, PS_NV_ADD_F16(old, b))
PS_ATOM_ADD_HALF(ps_atom_add_bf16, uint16_t, PS_NV_ADD_BF16(old, b))
PS_ATOM_ADD_HALF(ps_atom_add_f16x2, uint32_t, PS_NV_ADD_F16X2(old, b))
PS_ATOM_ADD_HALF(ps_atom_add_bf16x2, uint32_t, PS_NV_ADD_BF16X2(old, b))
