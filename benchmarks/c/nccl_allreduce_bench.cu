// All-reduce across processes, one device each, float sum, out of place: through NCCL
// (pyshim's libnccl.so.2: `iters` calls per block, then one stream synchronisation) and,
// as the baseline, gloo's own allreduce called directly on host buffers (its file store in
// `storedir`, TCP transport, gloo::sum<float>). The two alternate block by block in the same
// processes, so a loaded machine slows both alike; the median block of each per size.
// Process 0 makes the unique id and writes it to `idfile`.
//   nccl_allreduce_bench <proc> <nprocs> <idfile> <storedir> <iters> <blocks> <bytes>...
// Prints "bytes=<n> nccl_us=<median us per call> gloo_us=<...>" (process 0).
#include <cuda_runtime.h>
#include <nccl.h>
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>
#include <stdio.h>
#include <stdlib.h>
#include <string>
#include <time.h>
#include <unistd.h>
#include <algorithm>
#include <vector>

#define CK(x) do { if ((x) != 0) { printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #x); exit(1); } } while (0)

static double now_us()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    if (argc < 8)
        return 2;
    int proc = atoi(argv[1]), nprocs = atoi(argv[2]), iters = atoi(argv[5]), blocks = atoi(argv[6]);
    const char *idfile = argv[3];
    ncclUniqueId id;
    if (proc == 0) {
        CK(ncclGetUniqueId(&id));
        std::string tmp = std::string(idfile) + ".tmp";
        FILE *f = fopen(tmp.c_str(), "wb");
        CK(f == NULL || fwrite(&id, sizeof id, 1, f) != 1 || fclose(f) != 0
           || rename(tmp.c_str(), idfile) != 0);
    } else {
        FILE *f = NULL;
        for (int i = 0; i < 6000 && (f = fopen(idfile, "rb")) == NULL; i++)
            usleep(10000);
        CK(f == NULL || fread(&id, sizeof id, 1, f) != 1);
        fclose(f);
    }
    ncclComm_t comm;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(ncclCommInitRank(&comm, nprocs, id, proc));
    gloo::transport::tcp::attr attr;
    gloo::rendezvous::FileStore store(argv[4]);
    auto ctx = std::make_shared<gloo::rendezvous::Context>(proc, nprocs);
    auto dev = gloo::transport::tcp::CreateDevice(attr);
    ctx->connectFullMesh(store, dev);
    void (*sum)(void *, const void *, const void *, size_t) = &gloo::sum<float>;
    uint32_t tag = 0;
    for (int a = 7; a < argc; a++) {
        size_t bytes = strtoull(argv[a], NULL, 10), n = bytes / sizeof(float);
        float *x, *y;
        CK(cudaMalloc(&x, bytes));
        CK(cudaMalloc(&y, bytes));
        CK(cudaMemset(x, 0, bytes));
        std::vector<float> hx(n), hy(n);
        auto direct = [&] {
            gloo::AllreduceOptions opts(ctx);
            opts.setInput(hx.data(), n);
            opts.setOutput(hy.data(), n);
            opts.setReduceFunction(sum);
            opts.setTag(tag++);
            gloo::allreduce(opts);
        };
        for (int i = 0; i < 3; i++) {
            CK(ncclAllReduce(x, y, n, ncclFloat32, ncclSum, comm, s));
            direct();
        }
        CK(cudaStreamSynchronize(s));
        std::vector<double> tn, tg;
        for (int b = 0; b < blocks; b++) {
            double t0 = now_us();
            for (int i = 0; i < iters; i++)
                CK(ncclAllReduce(x, y, n, ncclFloat32, ncclSum, comm, s));
            CK(cudaStreamSynchronize(s));
            double t1 = now_us();
            for (int i = 0; i < iters; i++)
                direct();
            tn.push_back((t1 - t0) / iters);
            tg.push_back((now_us() - t1) / iters);
        }
        std::sort(tn.begin(), tn.end());
        std::sort(tg.begin(), tg.end());
        if (proc == 0)
            printf("bytes=%zu nccl_us=%.3f gloo_us=%.3f\n", bytes, tn[tn.size() / 2],
                   tg[tg.size() / 2]);
        CK(cudaFree(x));
        CK(cudaFree(y));
    }
    CK(ncclCommDestroy(comm));
    return 0;
}
