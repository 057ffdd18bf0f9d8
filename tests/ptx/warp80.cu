// Warp collectives that need sm_80 PTX (redux.sync) or that nvcc emits as match/activemask;
// compiled with -arch=sm_80 by tests/test_ptx_nvcc.py.
extern "C" __global__ void collectives(const int *in, int *out) {
    int t = threadIdx.x;
    int v = in[t];
    unsigned any = __match_any_sync(0xffffffffu, v % 4);
    int pred;
    unsigned all = __match_all_sync(0xffffffffu, v > -1000, &pred);
    int sum = __reduce_add_sync(0xffffffffu, v);
    unsigned mx = __reduce_max_sync(0xffffffffu, (unsigned)v);
    int mn = __reduce_min_sync(0xffffffffu, v);
    unsigned x = __reduce_xor_sync(0xffffffffu, (unsigned)v);
    out[t * 6 + 0] = any;
    out[t * 6 + 1] = all + pred;
    out[t * 6 + 2] = sum;
    out[t * 6 + 3] = mx;
    out[t * 6 + 4] = mn;
    out[t * 6 + 5] = x;
}

// divergent warps: only the odd lanes vote and shuffle; activemask sees them
extern "C" __global__ void divergent(const int *in, int *out) {
    int t = threadIdx.x;
    int v = in[t];
    if (t & 1) {
        unsigned m = __activemask();
        int s = __shfl_xor_sync(m, v, 2);
        out[t] = (int)(m == 0xaaaaaaaau) + 2 * s;
    } else {
        out[t] = -1;
    }
}
