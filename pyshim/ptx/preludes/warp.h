/* pyshim PTX prelude: CUDA's 32-lane warp semantics, written once for every target.
 *
 * Built only on the wavefront primitives each target prelude supplies:
 *   PS_WAVE_LANE(ctx)                        lane index within the wavefront (0..W-1)
 *   ps_wave_permute(ctx, site, value, lane)  value of `value` in another lane
 *   ps_wave_ballot(ctx, site, pred)          64-bit ballot of the wavefront
 * On a 64-wide wavefront a CUDA warp is one 32-lane half: laneid = lane & 31, shuffles stay
 * in the half, ballots pick the half. `site` names the call site (the CPU device uses it to
 * group lanes that reach the same collective; GPUs ignore it). The membermask of *.sync
 * instructions needs no action: the collective itself synchronises the lanes that arrive.
 * A shuffle's source lane that does not arrive (outside the mask, past a partial warp's
 * end) reads as 0: what an H200 returned, and what AMD's ds_bpermute gives for an inactive
 * lane; out of range, the source lane is the thread's own and it reads its own value. */

PS_FN uint32_t ps_laneid(PS_CTX) { return PS_WAVE_LANE(ctx) & 31u; }
PS_FN uint32_t ps_half(PS_CTX) { return PS_WAVE_LANE(ctx) & 32u; }

PS_FN uint32_t ps_ballot32(PS_CTX, uint32_t site, int pred) {
    return (uint32_t)(ps_wave_ballot(ctx, site, pred) >> ps_half(ctx));
}

/* shfl.sync.{up,down,bfly,idx}.b32 d|p, a, b, c, membermask (PTX ISA 9.7.9.6):
 * the wavefront lane to read from, and whether it is in range */
PS_FN uint32_t ps_shfl_lane_at(uint32_t wave_lane, int mode, uint32_t b, uint32_t c,
                               bool *valid) {
    uint32_t lane = wave_lane & 31u;
    uint32_t bval = b & 31u, cval = c & 31u, segmask = (c >> 8) & 31u;
    int32_t max_lane = (int32_t)((lane & segmask) | (cval & ~segmask));
    int32_t min_lane = (int32_t)(lane & segmask);
    int32_t j;
    bool p;
    switch (mode) {
    case 0: j = (int32_t)lane - (int32_t)bval; p = j >= max_lane; break;   /* up */
    case 1: j = (int32_t)(lane + bval); p = j <= max_lane; break;           /* down */
    case 2: j = (int32_t)(lane ^ bval); p = j <= max_lane; break;           /* bfly */
    default: j = min_lane | (int32_t)(bval & ~segmask); p = j <= max_lane; break; /* idx */
    }
    if (!p) j = (int32_t)lane;
    if (valid) *valid = p;
    return (wave_lane & 32u) | (uint32_t)j;
}
PS_FN uint32_t ps_shfl_lane(PS_CTX, int mode, uint32_t b, uint32_t c, bool *valid) {
    return ps_shfl_lane_at(PS_WAVE_LANE(ctx), mode, b, c, valid);
}
PS_FN uint32_t ps_shfl(PS_CTX, uint32_t site, int mode, uint32_t a, uint32_t b, uint32_t c,
                       bool *valid) {
    uint32_t src = ps_shfl_lane(ctx, mode, b, c, valid);
    return ps_wave_permute(ctx, site, a, src);
}

/* vote results from a 32-lane ballot of the predicate and the lanes taking part */
PS_FN uint32_t ps_vote_result(int op, uint32_t yes, uint32_t active, uint32_t mask) {
    uint32_t no = active & ~yes & mask;
    switch (op) {
    case 0: return no == 0;                                   /* all */
    case 1: return (yes & mask) != 0;                         /* any */
    case 2: return (yes & mask) == 0 || no == 0;              /* uni */
    default: return yes & mask;                               /* ballot */
    }
}

/* vote.sync.{all,any,uni,ballot} (PTX ISA 9.7.13.10) */
PS_FN uint32_t ps_vote_ballot(PS_CTX, uint32_t site, bool p, uint32_t mask) {
    return ps_ballot32(ctx, site, p) & mask;
}
PS_FN bool ps_vote_all(PS_CTX, uint32_t site, bool p, uint32_t mask) {
    return (ps_ballot32(ctx, site, !p) & mask) == 0;
}
PS_FN bool ps_vote_any(PS_CTX, uint32_t site, bool p, uint32_t mask) {
    return (ps_ballot32(ctx, site, p) & mask) != 0;
}
PS_FN bool ps_vote_uni(PS_CTX, uint32_t site, bool p, uint32_t mask) {
    uint32_t yes = ps_ballot32(ctx, site, p) & mask;
    uint32_t no = ps_ballot32(ctx, site, !p) & mask;
    return yes == 0 || no == 0;
}
PS_FN uint32_t ps_activemask(PS_CTX, uint32_t site) { return ps_ballot32(ctx, site, 1); }

/* match.sync.any / .all (PTX ISA 9.7.13.11): lanes holding the same value */
PS_FN uint32_t ps_match_any32(PS_CTX, uint32_t site, uint32_t a, uint32_t mask) {
    uint32_t active = ps_ballot32(ctx, site, 1) & mask, out = 0;
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t v = ps_wave_permute(ctx, site, a, ps_half(ctx) | i);
        if (((active >> i) & 1u) && v == a) out |= 1u << i;
    }
    return out;
}
PS_FN uint32_t ps_match_any64(PS_CTX, uint32_t site, uint64_t a, uint32_t mask) {
    uint32_t active = ps_ballot32(ctx, site, 1) & mask, out = 0;
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t lo = ps_wave_permute(ctx, site, (uint32_t)a, ps_half(ctx) | i);
        uint32_t hi = ps_wave_permute(ctx, site, (uint32_t)(a >> 32), ps_half(ctx) | i);
        if (((active >> i) & 1u) && (((uint64_t)hi << 32) | lo) == a) out |= 1u << i;
    }
    return out;
}
PS_FN uint32_t ps_match_all32(PS_CTX, uint32_t site, uint32_t a, uint32_t mask, bool *pred) {
    uint32_t m = ps_match_any32(ctx, site, a, mask);
    uint32_t active = ps_ballot32(ctx, site, 1) & mask;
    bool all = m == active;
    if (pred) *pred = all;
    return all ? m : 0;
}

/* redux.sync.{add,min,max,and,or,xor} (PTX ISA 9.7.13.12) over the active lanes in mask */
PS_FN uint32_t ps_redux32(PS_CTX, uint32_t site, int op, int is_signed, uint32_t a,
                          uint32_t mask) {
    uint32_t active = ps_ballot32(ctx, site, 1) & mask;
    uint32_t acc = 0;
    int first = 1;
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t v = ps_wave_permute(ctx, site, a, ps_half(ctx) | i);
        if (!((active >> i) & 1u)) continue;
        if (first) { acc = v; first = 0; continue; }
        switch (op) {
        case 0: acc += v; break;
        case 1: acc = is_signed ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc); break;
        case 2: acc = is_signed ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc); break;
        case 3: acc &= v; break;
        case 4: acc |= v; break;
        default: acc ^= v; break;
        }
    }
    return acc;
}
