// NCCL collectives across processes, compiled against NVIDIA's nccl.h: one process of
// `nprocs`, each with `ndev` devices (PYSHIM_CPU_DEVICES), every device a rank (global rank
// proc * ndev + device). Process 0 makes the unique id and writes it to `idfile` (written
// whole, then renamed); the others wait for it. Each rank's input is written by a kernel on
// its stream and the collective follows on that stream with no synchronisation in between;
// every rank's result is written raw to <outdir>/<case>.r<rank> for the test to compare
// with numpy. Prints "DONE <case>" per case and "mp passed=<cases>" last.
//   prog_nccl_mp <proc> <nprocs> <ndev> <idfile> <outdir>   (proc -1: write an id, exit)
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <nccl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL cuda %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define NK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
    printf("FAIL nccl %s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); exit(1); } } while (0)

// the test's numpy reference computes the same values
__host__ __device__ double input_value(int rank, long i, int small)
{
    return small ? 1 + ((i + 3 * rank) % 2) : 1 + ((i * 7 + rank * 3) % 9);
}

template <typename T> __device__ T from_d(double v) { return (T)v; }
template <> __device__ __half from_d<__half>(double v) { return __float2half((float)v); }
template <> __device__ __nv_bfloat16 from_d<__nv_bfloat16>(double v) { return __float2bfloat16((float)v); }
template <> __device__ __nv_fp8_e4m3 from_d<__nv_fp8_e4m3>(double v) { return __nv_fp8_e4m3((float)v); }
template <> __device__ __nv_fp8_e5m2 from_d<__nv_fp8_e5m2>(double v) { return __nv_fp8_e5m2((float)v); }

template <typename T> __global__ void fill(T *p, long n, int rank, int small)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = from_d<T>(input_value(rank, i, small));
}

static const char *type_names[] = {"int8", "uint8", "int32", "uint32", "int64", "uint64",
                                   "half", "float", "double", "bfloat16", "fp8e4m3", "fp8e5m2"};
static const char *op_names[] = {"sum", "prod", "max", "min", "avg"};
static size_t type_size(ncclDataType_t t)
{
    static const size_t s[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
    return s[t];
}

static void fill_any(ncclDataType_t t, void *p, long n, int rank, int small, cudaStream_t s)
{
    int b = 256;
    long g = (n + b - 1) / b;
    switch (t) {
    case ncclInt8: fill<<<g, b, 0, s>>>((int8_t *)p, n, rank, small); break;
    case ncclUint8: fill<<<g, b, 0, s>>>((uint8_t *)p, n, rank, small); break;
    case ncclInt32: fill<<<g, b, 0, s>>>((int32_t *)p, n, rank, small); break;
    case ncclUint32: fill<<<g, b, 0, s>>>((uint32_t *)p, n, rank, small); break;
    case ncclInt64: fill<<<g, b, 0, s>>>((int64_t *)p, n, rank, small); break;
    case ncclUint64: fill<<<g, b, 0, s>>>((uint64_t *)p, n, rank, small); break;
    case ncclFloat16: fill<<<g, b, 0, s>>>((__half *)p, n, rank, small); break;
    case ncclFloat32: fill<<<g, b, 0, s>>>((float *)p, n, rank, small); break;
    case ncclFloat64: fill<<<g, b, 0, s>>>((double *)p, n, rank, small); break;
    case ncclBfloat16: fill<<<g, b, 0, s>>>((__nv_bfloat16 *)p, n, rank, small); break;
    case ncclFloat8e4m3: fill<<<g, b, 0, s>>>((__nv_fp8_e4m3 *)p, n, rank, small); break;
    default: fill<<<g, b, 0, s>>>((__nv_fp8_e5m2 *)p, n, rank, small); break;
    }
    CK(cudaGetLastError());
}

enum Kind { ALLREDUCE, REDUCESCATTER, REDUCE, BROADCAST, ALLGATHER, SENDRECV, ALLTOALL, PREMUL,
            GATHER, SCATTER };
static const char *kind_names[] = {"allreduce", "reducescatter", "reduce", "broadcast",
                                   "allgather", "sendrecv", "alltoall", "premulsum", "gather",
                                   "scatter"};

struct Case {
    Kind kind;
    ncclDataType_t type;
    int op;           // ncclRedOp_t, -1 when none
    long count;       // elements each rank sends (allreduce/reduce/broadcast/sendrecv: the buffer)
    int root;
    bool inplace;
};

struct Rank {
    int global, dev;
    ncclComm_t comm;
    cudaStream_t stream;
};

static int nranks_total;

static std::string case_name(const Case &c)
{
    std::string n = std::string(kind_names[c.kind]) + "-" + type_names[c.type] + "-"
        + (c.op >= 0 ? op_names[c.op] : "x") + "-n" + std::to_string(c.count);
    return c.inplace ? n + "-inplace" : n;
}

static void run_case(std::vector<Rank> &ranks, const Case &c, const char *outdir,
                     const char *prefix = "")
{
    size_t es = type_size(c.type);
    int W = nranks_total;
    // the send buffer's and the receive buffer's elements
    long ns = c.count, nr = c.count;
    if (c.kind == REDUCESCATTER || c.kind == ALLTOALL || c.kind == SCATTER) ns = c.count * W;
    if (c.kind == ALLGATHER || c.kind == ALLTOALL || c.kind == GATHER) nr = c.count * W;
    int small = c.type >= ncclFloat8e4m3 || c.op == ncclProd;
    std::vector<void *> sb(ranks.size()), rb(ranks.size());
    for (size_t k = 0; k < ranks.size(); k++) {
        Rank &r = ranks[k];
        CK(cudaSetDevice(r.dev));
        if (c.inplace) {
            // NCCL's in place: allgather's input is this rank's block of the output,
            // reduce-scatter's output this rank's block of the input
            char *buf;
            size_t block = (size_t)r.global * c.count * es;
            CK(cudaMalloc(&buf, (ns > nr ? ns : nr) * es));
            CK(cudaMemset(buf, 0, (ns > nr ? ns : nr) * es));
            sb[k] = c.kind == ALLGATHER ? buf + block : buf;
            rb[k] = c.kind == REDUCESCATTER ? buf + block : buf;
        } else {
            CK(cudaMalloc(&rb[k], nr * es));
            CK(cudaMemset(rb[k], 0, nr * es));
            CK(cudaMalloc(&sb[k], ns * es));
        }
        CK(cudaDeviceSynchronize());
        fill_any(c.type, sb[k], ns, r.global, small, r.stream);
    }
    std::vector<ncclRedOp_t> premul(ranks.size());
    NK(ncclGroupStart());
    for (size_t k = 0; k < ranks.size(); k++) {
        Rank &r = ranks[k];
        CK(cudaSetDevice(r.dev));
        ncclRedOp_t op = (ncclRedOp_t)(c.op < 0 ? 0 : c.op);
        switch (c.kind) {
        case ALLREDUCE:
            NK(ncclAllReduce(sb[k], rb[k], c.count, c.type, op, r.comm, r.stream)); break;
        case REDUCESCATTER:
            NK(ncclReduceScatter(sb[k], rb[k], c.count, c.type, op, r.comm, r.stream)); break;
        case REDUCE:
            NK(ncclReduce(sb[k], rb[k], c.count, c.type, op, c.root, r.comm, r.stream)); break;
        case BROADCAST:
            NK(ncclBroadcast(sb[k], rb[k], c.count, c.type, c.root, r.comm, r.stream)); break;
        case ALLGATHER:
            NK(ncclAllGather(sb[k], rb[k], c.count, c.type, r.comm, r.stream)); break;
        case ALLTOALL:
            NK(ncclAlltoAll(sb[k], rb[k], c.count, c.type, r.comm, r.stream)); break;
        case GATHER:
            NK(ncclGather(sb[k], rb[k], c.count, c.type, c.root, r.comm, r.stream)); break;
        case SCATTER:
            NK(ncclScatter(sb[k], rb[k], c.count, c.type, c.root, r.comm, r.stream)); break;
        case SENDRECV:   // a ring: to the next rank, from the previous
            NK(ncclSend(sb[k], c.count, c.type, (r.global + 1) % W, r.comm, r.stream));
            NK(ncclRecv(rb[k], c.count, c.type, (r.global + W - 1) % W, r.comm, r.stream));
            break;
        case PREMUL: {   // each rank's input times (its rank + 1)
            float scalar = (float)(r.global + 1);
            NK(ncclRedOpCreatePreMulSum(&premul[k], &scalar, c.type, ncclScalarHostImmediate,
                                        r.comm));
            NK(ncclAllReduce(sb[k], rb[k], c.count, c.type, premul[k], r.comm, r.stream));
            break;
        }
        }
    }
    NK(ncclGroupEnd());
    std::vector<char> host(nr * es);
    for (size_t k = 0; k < ranks.size(); k++) {
        Rank &r = ranks[k];
        CK(cudaSetDevice(r.dev));
        CK(cudaMemcpyAsync(host.data(), rb[k], nr * es, cudaMemcpyDeviceToHost, r.stream));
        CK(cudaStreamSynchronize(r.stream));
        ncclResult_t async;
        NK(ncclCommGetAsyncError(r.comm, &async));
        if (async != ncclSuccess) {
            printf("FAIL %s rank %d: async error %s\n", case_name(c).c_str(), r.global,
                   ncclGetErrorString(async));
            exit(1);
        }
        if (c.kind == PREMUL)
            NK(ncclRedOpDestroy(premul[k], r.comm));
        std::string path = std::string(outdir) + "/" + prefix + case_name(c) + ".r"
            + std::to_string(r.global);
        FILE *f = fopen(path.c_str(), "wb");
        if (f == NULL || fwrite(host.data(), 1, host.size(), f) != host.size()) {
            printf("FAIL cannot write %s\n", path.c_str());
            exit(1);
        }
        fclose(f);
        CK(cudaFree(c.inplace && c.kind != ALLGATHER ? sb[k] : rb[k]));
        if (!c.inplace)
            CK(cudaFree(sb[k]));
    }
    printf("DONE %s\n", case_name(c).c_str());
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s proc nprocs ndev idfile outdir\n", argv[0]);
        return 2;
    }
    int proc = atoi(argv[1]), nprocs = atoi(argv[2]), ndev = atoi(argv[3]);
    const char *idfile = argv[4], *outdir = argv[5];
    nranks_total = nprocs * ndev;
    ncclUniqueId id;
    if (proc < 0 || proc == 0) {   // -1: only write the id (the tests' error cases)
        NK(ncclGetUniqueId(&id));
        std::string tmp = std::string(idfile) + ".tmp";
        FILE *f = fopen(tmp.c_str(), "wb");
        if (f == NULL || fwrite(&id, sizeof id, 1, f) != 1 || fclose(f) != 0
            || rename(tmp.c_str(), idfile) != 0) {
            printf("FAIL cannot write the unique id to %s\n", idfile);
            return 1;
        }
        if (proc < 0)
            return 0;
    } else {
        FILE *f = NULL;
        for (int i = 0; i < 6000 && (f = fopen(idfile, "rb")) == NULL; i++)
            usleep(10000);
        if (f == NULL || fread(&id, sizeof id, 1, f) != 1) {
            printf("FAIL no unique id in %s\n", idfile);
            return 1;
        }
        fclose(f);
    }
    // one device: a plain ncclCommInitRank; several: one thread's group of them
    std::vector<Rank> ranks(ndev);
    if (ndev > 1)
        NK(ncclGroupStart());
    for (int d = 0; d < ndev; d++) {
        ranks[d].global = proc * ndev + d;
        ranks[d].dev = d;
        CK(cudaSetDevice(d));
        CK(cudaStreamCreate(&ranks[d].stream));
        NK(ncclCommInitRank(&ranks[d].comm, nranks_total, id, ranks[d].global));
    }
    if (ndev > 1)
        NK(ncclGroupEnd());
    for (int d = 0; d < ndev; d++) {
        int count = 0, rank = -1;
        NK(ncclCommCount(ranks[d].comm, &count));
        NK(ncclCommUserRank(ranks[d].comm, &rank));
        if (count != nranks_total || rank != ranks[d].global) {
            printf("FAIL comm count %d rank %d\n", count, rank);
            return 1;
        }
    }
    std::vector<Case> cases;
    for (int t = 0; t < ncclNumTypes; t++)
        for (int op = 0; op < 5; op++)
            cases.push_back({ALLREDUCE, (ncclDataType_t)t, op, 1000, 0, false});
    cases.push_back({ALLREDUCE, ncclFloat32, ncclSum, (1 << 20) + 3, 0, false});
    cases.push_back({ALLREDUCE, ncclFloat32, ncclSum, 4099, 0, true});
    int W = nranks_total;
    ncclDataType_t rs_types[] = {ncclFloat32, ncclInt32, ncclFloat16, ncclBfloat16, ncclUint64};
    for (ncclDataType_t t : rs_types)
        for (int op : {ncclSum, ncclMax, ncclAvg})
            cases.push_back({REDUCESCATTER, t, op, 777, 0, false});
    cases.push_back({REDUCESCATTER, ncclFloat64, ncclSum, 500, 0, true});
    cases.push_back({REDUCE, ncclFloat32, ncclSum, 1001, W - 1, false});
    cases.push_back({REDUCE, ncclInt64, ncclMax, 1001, 0, false});
    cases.push_back({REDUCE, ncclFloat16, ncclAvg, 1001, 1 % W, false});
    cases.push_back({REDUCE, ncclFloat8e4m3, ncclSum, 1001, W - 1, false});
    for (ncclDataType_t t : {ncclInt8, ncclFloat32, ncclFloat64, ncclBfloat16})
        cases.push_back({BROADCAST, t, -1, 3001, 1 % W, false});
    cases.push_back({BROADCAST, ncclInt32, -1, 3001, W - 1, true});
    for (ncclDataType_t t : {ncclFloat32, ncclUint8, ncclFloat16})
        cases.push_back({ALLGATHER, t, -1, 999, 0, false});
    cases.push_back({ALLGATHER, ncclInt32, -1, 999, 0, true});
    for (ncclDataType_t t : {ncclFloat32, ncclInt64, ncclFloat8e5m2})
        cases.push_back({SENDRECV, t, -1, 12345, 0, false});
    cases.push_back({ALLTOALL, ncclInt32, -1, 333, 0, false});
    cases.push_back({GATHER, ncclFloat64, -1, 555, W - 1, false});
    cases.push_back({SCATTER, ncclUint32, -1, 555, 1 % W, false});
    cases.push_back({PREMUL, ncclFloat32, ncclSum, 1000, 0, false});
    for (const Case &c : cases)
        run_case(ranks, c, outdir);
    // ncclCommSplit: color rank % 2 (across processes when ndev > 1), key -rank (the new
    // ranks in reverse); then color = the process (every member in one process)
    for (int mode = 0; mode < 2; mode++) {
        std::vector<Rank> sub = ranks;
        if (ndev > 1)
            NK(ncclGroupStart());
        for (int d = 0; d < ndev; d++) {
            int color = mode == 0 ? ranks[d].global % 2 : proc;
            CK(cudaSetDevice(d));
            NK(ncclCommSplit(ranks[d].comm, color, -ranks[d].global, &sub[d].comm, NULL));
        }
        if (ndev > 1)
            NK(ncclGroupEnd());
        for (int d = 0; d < ndev; d++) {
            int count = 0, rank = -1;
            NK(ncclCommCount(sub[d].comm, &count));
            NK(ncclCommUserRank(sub[d].comm, &rank));
            printf("SPLIT %d %d %d %d\n", mode, ranks[d].global, rank, count);
        }
        std::string prefix = "split" + std::to_string(mode) + "-";
        run_case(sub, {ALLREDUCE, ncclFloat32, ncclSum, 2049, 0, false}, outdir, prefix.c_str());
        for (int d = 0; d < ndev; d++)
            NK(ncclCommDestroy(sub[d].comm));
    }
    for (int d = 0; d < ndev; d++)
        NK(ncclCommDestroy(ranks[d].comm));
    printf("mp passed=%zu\n", cases.size() + 2);
    return 0;
}
