// NCCL collectives across every device of the process, compiled against NVIDIA's nccl.h.
// Each rank's input is written by a kernel on its stream, the collective is enqueued on
// that stream with no synchronisation in between, and a second kernel (out = out * 2 + 1,
// in float for the floating types) runs after it, so a result reads right only when the
// collective ran in stream order. Results are compared with a host reference here.
// Prints "PASS <case>" / "FAIL <case> <detail>", error-code cases as "CODE <case> <value>",
// and "nccl passed=<n> failed=<n>" last.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <nccl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <thread>
#include <vector>

static int passed = 0, failed = 0;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL cuda %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)
#define NK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
    printf("FAIL nccl %s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); return 1; } } while (0)

static const int N = 1000;   // not a multiple of the rank count: uneven shares

__host__ __device__ double input_value(int rank, int i, int small)
{
    // small: {1, 2}, exact through products and through FP8 sums; else 1..9
    return small ? 1 + ((i + 3 * rank) % 2) : 1 + ((i * 7 + rank * 3) % 9);
}

template <typename T> __host__ __device__ T from_d(double v) { return (T)v; }
template <> __host__ __device__ __half from_d<__half>(double v) { return __float2half((float)v); }
template <> __host__ __device__ __nv_bfloat16 from_d<__nv_bfloat16>(double v) { return __float2bfloat16((float)v); }
template <> __host__ __device__ __nv_fp8_e4m3 from_d<__nv_fp8_e4m3>(double v) { return __nv_fp8_e4m3((float)v); }
template <> __host__ __device__ __nv_fp8_e5m2 from_d<__nv_fp8_e5m2>(double v) { return __nv_fp8_e5m2((float)v); }
template <typename T> __host__ __device__ double to_d(T v) { return (double)v; }
template <> __host__ __device__ double to_d<__half>(__half v) { return __half2float(v); }
template <> __host__ __device__ double to_d<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <> __host__ __device__ double to_d<__nv_fp8_e4m3>(__nv_fp8_e4m3 v) { return (float)v; }
template <> __host__ __device__ double to_d<__nv_fp8_e5m2>(__nv_fp8_e5m2 v) { return (float)v; }

template <typename T> __global__ void fill(T *p, int n, int rank, int small, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = from_d<T>(input_value(rank, i + offset, small));
}

// after the collective: out = out * 2 + 1 on the device, in the element type
template <typename T> __global__ void post(T *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = from_d<T>(to_d<T>(p[i]) * 2 + 1);
}

struct Ctx {
    int n;
    std::vector<ncclComm_t> comms;
    std::vector<cudaStream_t> streams;
};

static double reduce_ref(ncclRedOp_t op, const std::vector<double> &v, bool is_int)
{
    double acc = v[0];
    for (size_t k = 1; k < v.size(); k++) {
        if (op == ncclSum || op == ncclAvg) acc += v[k];
        else if (op == ncclProd) acc *= v[k];
        else if (op == ncclMax) acc = fmax(acc, v[k]);
        else if (op == ncclMin) acc = fmin(acc, v[k]);
    }
    if (op == ncclAvg)
        acc = is_int ? floor(acc / (double)v.size()) : acc / (double)v.size();
    return acc;
}

static const char *op_name(ncclRedOp_t op)
{
    static const char *names[] = {"sum", "prod", "max", "min", "avg"};
    return (int)op < 5 ? names[op] : "premulsum";
}

enum Coll { ALLREDUCE, BROADCAST, REDUCE, ALLGATHER, REDUCESCATTER, SENDRECV };
static const char *coll_name[] = {"allreduce", "broadcast", "reduce", "allgather",
                                  "reducescatter", "sendrecv"};

// One collective of one type/op on every rank; checks every rank's output.
template <typename T>
static int run_case(Ctx &c, Coll coll, ncclDataType_t dt, const char *tname, ncclRedOp_t op,
                    bool is_int, bool in_place, double premul = 0, bool premul_device = false)
{
    int n = c.n, root = n - 1;
    bool small = sizeof(T) == 1 || op == ncclProd;
    size_t in_count = coll == REDUCESCATTER ? (size_t)N * n : N;
    size_t out_count = coll == ALLGATHER ? (size_t)N * n : N;
    std::vector<T *> in(n), out(n), base(n);
    std::vector<ncclRedOp_t> ops(n, op);
    std::vector<double *> scal(n, nullptr);
    for (int r = 0; r < n; r++) {
        CK(cudaSetDevice(r));
        size_t bytes = (in_place ? (in_count > out_count ? in_count : out_count) : out_count) * sizeof(T);
        CK(cudaMalloc(&base[r], bytes));
        // NCCL's in-place layouts: all-gather sends from its own slot of the output,
        // reduce-scatter receives into its own slot of the input
        out[r] = base[r] + (in_place && coll == REDUCESCATTER ? (size_t)r * N : 0);
        if (in_place)
            in[r] = coll == ALLGATHER ? base[r] + (size_t)r * N : base[r];
        else
            CK(cudaMalloc(&in[r], in_count * sizeof(T)));
        CK(cudaMemsetAsync(out[r], 0, out_count * sizeof(T), c.streams[r]));
        fill<T><<<(unsigned)((in_count + 255) / 256), 256, 0, c.streams[r]>>>(in[r], (int)in_count, r, small, 0);
        CK(cudaGetLastError());
        if (premul != 0) {
            // each rank's scalar differs: premul * (r + 1)
            T s = from_d<T>(premul * (r + 1));
            if (premul_device) {
                CK(cudaMalloc(&scal[r], sizeof(T)));
                CK(cudaMemcpy(scal[r], &s, sizeof(T), cudaMemcpyHostToDevice));
                NK(ncclRedOpCreatePreMulSum(&ops[r], scal[r], dt, ncclScalarDevice, c.comms[r]));
            } else {
                NK(ncclRedOpCreatePreMulSum(&ops[r], &s, dt, ncclScalarHostImmediate, c.comms[r]));
            }
        }
    }
    NK(ncclGroupStart());
    for (int r = 0; r < n; r++) {
        switch (coll) {
        case ALLREDUCE: NK(ncclAllReduce(in[r], out[r], N, dt, ops[r], c.comms[r], c.streams[r])); break;
        case BROADCAST: NK(ncclBroadcast(in[r], out[r], N, dt, root, c.comms[r], c.streams[r])); break;
        case REDUCE: NK(ncclReduce(in[r], out[r], N, dt, ops[r], root, c.comms[r], c.streams[r])); break;
        case ALLGATHER: NK(ncclAllGather(in[r], out[r], N, dt, c.comms[r], c.streams[r])); break;
        case REDUCESCATTER: NK(ncclReduceScatter(in[r], out[r], N, dt, ops[r], c.comms[r], c.streams[r])); break;
        case SENDRECV:
            // a ring both ways: to r+1 and from r-1
            NK(ncclSend(in[r], N, dt, (r + 1) % n, c.comms[r], c.streams[r]));
            NK(ncclRecv(out[r], N, dt, (r + n - 1) % n, c.comms[r], c.streams[r]));
            break;
        }
    }
    NK(ncclGroupEnd());
    for (int r = 0; r < n; r++) {
        CK(cudaSetDevice(r));
        post<T><<<(unsigned)((out_count + 255) / 256), 256, 0, c.streams[r]>>>(out[r], (int)out_count);
    }
    int bad = 0;
    char detail[200] = "";
    for (int r = 0; r < n && !bad; r++) {
        CK(cudaSetDevice(r));
        CK(cudaStreamSynchronize(c.streams[r]));
        if (coll == REDUCE && r != root)
            continue;
        std::vector<T> host(out_count);
        CK(cudaMemcpy(host.data(), out[r], out_count * sizeof(T), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < out_count && !bad; i++) {
            double want;
            if (coll == BROADCAST) {
                want = input_value(root, (int)i, small);
            } else if (coll == ALLGATHER) {
                want = input_value((int)(i / N), (int)(i % N), small);
            } else if (coll == SENDRECV) {
                want = input_value((r + n - 1) % n, (int)i, small);
            } else {
                size_t src_i = coll == REDUCESCATTER ? (size_t)r * N + i : i;
                std::vector<double> v(n);
                for (int k = 0; k < n; k++) {
                    v[k] = input_value(k, (int)src_i, small);
                    if (premul != 0)
                        v[k] *= premul * (k + 1);
                }
                want = reduce_ref(premul != 0 ? ncclSum : op, v, is_int);
            }
            // the post kernel, in the element type
            want = to_d<T>(from_d<T>(to_d<T>(from_d<T>(want)) * 2 + 1));
            double got = to_d<T>(host[i]);
            if (got != want) {
                bad = 1;
                snprintf(detail, sizeof detail, "rank %d element %zu: got %g want %g", r, i, got, want);
            }
        }
    }
    printf("%s %s/%s/%s/n%d%s%s %s\n", bad ? "FAIL" : "PASS", coll_name[coll], tname,
           coll == BROADCAST || coll == ALLGATHER || coll == SENDRECV ? "-" : premul != 0 ? "premulsum" : op_name(op), n,
           in_place ? "/inplace" : "", premul_device ? "/devscalar" : "", detail);
    bad ? failed++ : passed++;
    for (int r = 0; r < n; r++) {
        CK(cudaSetDevice(r));
        if (!in_place) CK(cudaFree(in[r]));
        CK(cudaFree(base[r]));
        if (premul != 0) NK(ncclRedOpDestroy(ops[r], c.comms[r]));
        if (scal[r]) CK(cudaFree(scal[r]));
    }
    return 0;
}

template <typename T>
static int all_ops(Ctx &c, ncclDataType_t dt, const char *tname, bool is_int)
{
    const ncclRedOp_t ops[] = {ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg};
    for (ncclRedOp_t op : ops) {
        if (run_case<T>(c, ALLREDUCE, dt, tname, op, is_int, false)) return 1;
        if (run_case<T>(c, REDUCESCATTER, dt, tname, op, is_int, false)) return 1;
        if (run_case<T>(c, REDUCE, dt, tname, op, is_int, false)) return 1;
    }
    return run_case<T>(c, BROADCAST, dt, tname, ncclSum, is_int, false)
        || run_case<T>(c, ALLGATHER, dt, tname, ncclSum, is_int, false)
        || run_case<T>(c, SENDRECV, dt, tname, ncclSum, is_int, false);
}

static void code(const char *name, ncclResult_t got, ncclResult_t want)
{
    printf("CODE %s %d\n", name, (int)got);
    got == want ? passed++ : failed++;
    if (got != want) printf("FAIL %s: got %d want %d\n", name, (int)got, (int)want);
}

// ncclCommInitRank from one thread per rank, sharing ncclGetUniqueId's id
static int threaded_init(int n)
{
    ncclUniqueId id;
    NK(ncclGetUniqueId(&id));
    std::vector<ncclComm_t> comms(n);
    std::vector<ncclResult_t> rs(n, ncclSuccess);
    std::vector<int> sums(n, 0);
    std::vector<std::thread> ts;
    for (int r = 0; r < n; r++)
        ts.emplace_back([&, r] {
            cudaSetDevice(r);
            rs[r] = ncclCommInitRank(&comms[r], n, id, r);
            if (rs[r] != ncclSuccess) return;
            int *buf, host = 0;
            cudaStream_t s;
            cudaStreamCreate(&s);
            cudaMalloc(&buf, sizeof(int));
            int v = r + 1;
            cudaMemcpy(buf, &v, sizeof v, cudaMemcpyHostToDevice);
            rs[r] = ncclAllReduce(buf, buf, 1, ncclInt32, ncclSum, comms[r], s);
            cudaStreamSynchronize(s);
            cudaMemcpy(&host, buf, sizeof host, cudaMemcpyDeviceToHost);
            sums[r] = host;
            int dev = -1, rank = -1, count = -1;
            ncclCommCuDevice(comms[r], &dev);
            ncclCommUserRank(comms[r], &rank);
            ncclCommCount(comms[r], &count);
            if (dev != r || rank != r || count != n) sums[r] = -1;
            cudaFree(buf);
            cudaStreamDestroy(s);
        });
    for (auto &t : ts) t.join();
    int bad = 0;
    for (int r = 0; r < n; r++)
        bad |= rs[r] != ncclSuccess || sums[r] != n * (n + 1) / 2;
    printf("%s threaded_initrank/n%d sum %d\n", bad ? "FAIL" : "PASS", n, sums[0]);
    bad ? failed++ : passed++;
    for (int r = 0; r < n; r++)
        if (rs[r] == ncclSuccess) ncclCommDestroy(comms[r]);
    return 0;
}

// ncclCommSplit from one thread in a group: colors r % 2, keys reversing the order; each
// new communicator all-reduces its members' old ranks
static int split(Ctx &c)
{
    int n = c.n;
    std::vector<ncclComm_t> sub(n);
    NK(ncclGroupStart());
    for (int r = 0; r < n; r++)
        NK(ncclCommSplit(c.comms[r], r % 2, -r, &sub[r], nullptr));
    NK(ncclGroupEnd());
    std::vector<int *> buf(n);
    NK(ncclGroupStart());
    for (int r = 0; r < n; r++) {
        CK(cudaSetDevice(r));
        CK(cudaMalloc(&buf[r], sizeof(int)));
        CK(cudaMemcpy(buf[r], &r, sizeof r, cudaMemcpyHostToDevice));
        NK(ncclAllReduce(buf[r], buf[r], 1, ncclInt32, ncclSum, sub[r], c.streams[r]));
    }
    NK(ncclGroupEnd());
    int bad = 0;
    for (int r = 0; r < n; r++) {
        CK(cudaSetDevice(r));
        CK(cudaStreamSynchronize(c.streams[r]));
        int got = -1, rank = -1, count = -1, want = 0, members = 0, below = 0;
        CK(cudaMemcpy(&got, buf[r], sizeof got, cudaMemcpyDeviceToHost));
        NK(ncclCommUserRank(sub[r], &rank));
        NK(ncclCommCount(sub[r], &count));
        for (int k = r % 2; k < n; k += 2) {
            want += k;
            members++;
            below += k > r;   // a larger old rank has a smaller key: it comes first
        }
        if (got != want || count != members || rank != below) {
            bad = 1;
            printf("split rank %d: sum %d want %d, rank %d want %d, count %d want %d\n", r,
                   got, want, rank, below, count, members);
        }
        CK(cudaFree(buf[r]));
        NK(ncclCommDestroy(sub[r]));
    }
    printf("%s split/n%d\n", bad ? "FAIL" : "PASS", n);
    bad ? failed++ : passed++;
    return 0;
}

int main()
{
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    int version = 0;
    NK(ncclGetVersion(&version));
    printf("devices %d version %d\n", n, version);
    Ctx c;
    c.n = n;
    c.comms.resize(n);
    c.streams.resize(n);
    NK(ncclCommInitAll(c.comms.data(), n, nullptr));
    for (int r = 0; r < n; r++) {
        CK(cudaSetDevice(r));
        CK(cudaStreamCreateWithFlags(&c.streams[r], cudaStreamNonBlocking));
        int dev, rank, count;
        NK(ncclCommCuDevice(c.comms[r], &dev));
        NK(ncclCommUserRank(c.comms[r], &rank));
        NK(ncclCommCount(c.comms[r], &count));
        if (dev != r || rank != r || count != n) {
            printf("FAIL comm_queries rank %d: device %d rank %d count %d\n", r, dev, rank, count);
            failed++;
        }
    }
    if (all_ops<int8_t>(c, ncclInt8, "int8", true) || all_ops<uint8_t>(c, ncclUint8, "uint8", true)
        || all_ops<int32_t>(c, ncclInt32, "int32", true) || all_ops<uint32_t>(c, ncclUint32, "uint32", true)
        || all_ops<int64_t>(c, ncclInt64, "int64", true) || all_ops<uint64_t>(c, ncclUint64, "uint64", true)
        || all_ops<__half>(c, ncclFloat16, "half", false) || all_ops<float>(c, ncclFloat32, "float", false)
        || all_ops<double>(c, ncclFloat64, "double", false)
        || all_ops<__nv_bfloat16>(c, ncclBfloat16, "bfloat16", false)
        || all_ops<__nv_fp8_e4m3>(c, ncclFloat8e4m3, "fp8e4m3", false)
        || all_ops<__nv_fp8_e5m2>(c, ncclFloat8e5m2, "fp8e5m2", false))
        return 1;
    // in place, and ncclRedOpCreatePreMulSum with host and device scalars
    if (run_case<float>(c, ALLREDUCE, ncclFloat32, "float", ncclSum, false, true)
        || run_case<int32_t>(c, ALLGATHER, ncclInt32, "int32", ncclSum, true, true)
        || run_case<double>(c, REDUCESCATTER, ncclFloat64, "double", ncclMax, false, true)
        || run_case<float>(c, ALLREDUCE, ncclFloat32, "float", ncclSum, false, false, 0.5)
        || run_case<double>(c, ALLREDUCE, ncclFloat64, "double", ncclSum, false, false, 0.25, true)
        || run_case<int32_t>(c, REDUCESCATTER, ncclInt32, "int32", ncclSum, true, false, 3))
        return 1;
    if (threaded_init(n) || split(c)) return 1;

    // misuse: the NCCL codes
    float *buf;
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&buf, 64 * sizeof(float)));
    code("null_comm", ncclAllReduce(buf, buf, 16, ncclFloat32, ncclSum, nullptr, c.streams[0]), ncclInvalidArgument);
    code("bad_datatype", ncclAllReduce(buf, buf, 16, (ncclDataType_t)ncclNumTypes, ncclSum, c.comms[0], c.streams[0]), ncclInvalidArgument);
    code("bad_op", ncclAllReduce(buf, buf, 16, ncclFloat32, (ncclRedOp_t)77, c.comms[0], c.streams[0]), ncclInvalidArgument);
    code("bad_root", ncclBroadcast(buf, buf, 16, ncclFloat32, n, c.comms[0], c.streams[0]), ncclInvalidArgument);
    code("bad_peer", ncclSend(buf, 16, ncclFloat32, -1, c.comms[0], c.streams[0]), ncclInvalidArgument);
    code("null_buffer", ncclAllReduce(nullptr, buf, 16, ncclFloat32, ncclSum, c.comms[0], c.streams[0]), ncclInvalidArgument);
    code("group_end_without_start", ncclGroupEnd(), ncclInvalidUsage);
    code("unsupported_commgrow", ncclCommGrow(c.comms[0], 2, nullptr, -1, nullptr, nullptr), ncclInvalidUsage);
    void *reg = nullptr;
    code("register", ncclCommRegister(c.comms[0], buf, 64 * sizeof(float), &reg), ncclSuccess);
    code("deregister", ncclCommDeregister(c.comms[0], reg), ncclSuccess);
    code("deregister_twice", ncclCommDeregister(c.comms[0], reg), ncclInvalidArgument);
    ncclResult_t async = ncclSuccess;
    NK(ncclCommGetAsyncError(c.comms[0], &async));
    code("async_clean", async, ncclSuccess);
    // mismatched counts between ranks: nothing runs, each rank's communicator reports it
    std::vector<float *> bufs(n);
    NK(ncclGroupStart());
    for (int r = 0; r < n; r++) {
        CK(cudaSetDevice(r));
        CK(cudaMalloc(&bufs[r], 64 * sizeof(float)));
        NK(ncclAllReduce(bufs[r], bufs[r], r == 0 ? 16 : 8, ncclFloat32, ncclSum, c.comms[r], c.streams[r]));
    }
    NK(ncclGroupEnd());
    for (int r = 0; r < n; r++) {
        CK(cudaSetDevice(r));
        CK(cudaStreamSynchronize(c.streams[r]));
    }
    NK(ncclCommGetAsyncError(c.comms[n - 1], &async));
    code("mismatched_counts", async, n > 1 ? ncclInvalidUsage : ncclSuccess);
    for (int r = 0; r < n; r++) {
        NK(ncclCommDestroy(c.comms[r]));
        CK(cudaStreamDestroy(c.streams[r]));
        CK(cudaFree(bufs[r]));
    }
    code("destroyed_comm", ncclCommCount(c.comms[0], &n), ncclInvalidArgument);
    printf("nccl passed=%d failed=%d\n", passed, failed);
    return failed != 0;
}
