/*
 * The cross-process path of the CPU device's RCCL: gloo (Facebook's collective library, TCP
 * transport) does the communication; this file only translates. Reductions are gloo's
 * algorithms (ring allreduce, ...) calling reduce.c's element functions, so every
 * ncclDataType_t (half, bfloat16, FP8 included) reduces as the in-process path does.
 * Built without gloo (no headers at build time), every call fails and says so.
 */
#include "gloo_bridge.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef RC_HAVE_GLOO
#include <net/if.h>

#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>

extern "C" {
#include "reduce.h"
}
#endif

extern "C" {
struct rc_gloo;
struct rc_gloo_p2p;
}

static void set_err(char *err, const char *msg)
{
    if (err != nullptr)
        snprintf(err, RC_GLOO_ERR, "%s", msg);
}

#ifndef RC_HAVE_GLOO

static const char kMissing[] = "communicators across processes need gloo, and this "
                               "librccl.so.1 was built without its headers (install "
                               "libgloo-dev and rebuild: python3 -m pyshim build)";

extern "C" {
bool rc_gloo_available(void) { return false; }
rc_gloo *rc_gloo_connect(const char *, int, int, int, char *err)
{
    set_err(err, kMissing);
    return nullptr;
}
void rc_gloo_free(rc_gloo *) {}
int rc_gloo_allreduce(rc_gloo *, const void *, void *, size_t, int, int, uint32_t, char *err)
{ set_err(err, kMissing); return -1; }
int rc_gloo_reduce(rc_gloo *, void *, size_t, int, int, int, uint32_t, char *err)
{ set_err(err, kMissing); return -1; }
int rc_gloo_reduce_scatter(rc_gloo *, void *, size_t, int, int, uint32_t, char *err)
{ set_err(err, kMissing); return -1; }
int rc_gloo_broadcast(rc_gloo *, void *, size_t, int, uint32_t, char *err)
{ set_err(err, kMissing); return -1; }
int rc_gloo_allgather(rc_gloo *, void *, size_t, uint32_t, char *err)
{ set_err(err, kMissing); return -1; }
int rc_gloo_gather(rc_gloo *, const void *, void *, size_t, int, uint32_t, char *err)
{ set_err(err, kMissing); return -1; }
int rc_gloo_scatter(rc_gloo *, const void *, void *, size_t, int, uint32_t, char *err)
{ set_err(err, kMissing); return -1; }
int rc_gloo_alltoall(rc_gloo *, const void *, void *, size_t, uint32_t, char *err)
{ set_err(err, kMissing); return -1; }
int rc_gloo_barrier(rc_gloo *, uint32_t, char *err) { set_err(err, kMissing); return -1; }
rc_gloo_p2p *rc_gloo_p2p_post(rc_gloo *, bool, void *, size_t, int, char *err)
{ set_err(err, kMissing); return nullptr; }
int rc_gloo_p2p_wait(rc_gloo_p2p *, char *err) { set_err(err, kMissing); return -1; }
}

#else

struct rc_gloo {
    std::shared_ptr<gloo::Context> ctx;
};

struct rc_gloo_p2p {
    std::unique_ptr<gloo::transport::UnboundBuffer> buf;
    bool send;
};

namespace {

/* one slot for every send/recv: gloo matches a pair's messages of one slot in order, as
 * NCCL matches sends and receives between two ranks; collectives' slots carry their own
 * prefixes (gloo's Slot::build), this one lies above them */
constexpr uint64_t kP2pSlot = 0xfeull << 56;
/* the ring reduce-scatter's messages: (prefix, tag, step) */
constexpr uint64_t kRingSlot = 0xfdull << 56;

std::mutex device_lock;
std::shared_ptr<gloo::transport::Device> device;

std::shared_ptr<gloo::transport::Device> tcp_device()
{
    std::lock_guard<std::mutex> g(device_lock);
    if (!device) {
        gloo::transport::tcp::attr attr;
        const char *iface = getenv("PYSHIM_NCCL_SOCKET_IFNAME");
        const char *host = getenv("PYSHIM_NCCL_HOSTNAME");
        /* NCCL's own variable where it names one interface exactly (not a prefix list) */
        const char *nccl_iface = getenv("NCCL_SOCKET_IFNAME");
        if ((iface == nullptr || *iface == '\0') && nccl_iface != nullptr
            && if_nametoindex(nccl_iface) != 0)
            iface = nccl_iface;
        if (iface != nullptr && *iface != '\0')
            attr.iface = iface;
        else if (host != nullptr && *host != '\0')
            attr.hostname = host;
        device = gloo::transport::tcp::CreateDevice(attr);
    }
    return device;
}

template <typename F>
int guarded(char *err, F &&f)
{
    try {
        f();
        return 0;
    } catch (const std::exception &e) {
        set_err(err, e.what());
    } catch (...) {
        set_err(err, "gloo threw an unknown exception");
    }
    return -1;
}

/* gloo's reduce function: c = a op b, n elements, by reduce.c */
gloo::AllreduceOptions::Func reducer(int type, int op)
{
    return [type, op](void *c, const void *a, const void *b, size_t n) {
        rc_reduce2(type, op, c, a, b, n);
    };
}

size_t type_size(int type)
{
    static const size_t sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
    return type >= 0 && type < 12 ? sizes[type] : 0;
}

/* gloo's options know elements by a C++ type of the element's size */
template <typename Opts, typename Fn>
void with_element(size_t es, Fn &&fn)
{
    switch (es) {
    case 1: fn(static_cast<uint8_t *>(nullptr)); break;
    case 2: fn(static_cast<uint16_t *>(nullptr)); break;
    case 4: fn(static_cast<uint32_t *>(nullptr)); break;
    default: fn(static_cast<uint64_t *>(nullptr)); break;
    }
}

}  // namespace

extern "C" {

bool rc_gloo_available(void)
{
    return true;
}

rc_gloo *rc_gloo_connect(const char *store_dir, int rank, int nranks, int timeout_ms,
                         char *err)
{
    rc_gloo *g = nullptr;
    int r = guarded(err, [&] {
        auto dev = tcp_device();
        gloo::rendezvous::FileStore store(store_dir);
        auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, nranks);
        ctx->setTimeout(std::chrono::milliseconds(timeout_ms));
        ctx->connectFullMesh(store, dev);
        g = new rc_gloo{ctx};
    });
    return r == 0 ? g : nullptr;
}

void rc_gloo_free(rc_gloo *g)
{
    delete g;
}

int rc_gloo_allreduce(rc_gloo *g, const void *in, void *buf, size_t count, int type, int op,
                      uint32_t tag, char *err)
{
    return guarded(err, [&] {
        gloo::AllreduceOptions opts(g->ctx);
        with_element<gloo::AllreduceOptions>(type_size(type), [&](auto *t) {
            /* gloo copies an input into the output segment by segment as the ring reaches
             * it, so the copy overlaps the other ranks' sends instead of preceding them */
            if (in != nullptr && in != buf)
                opts.setInput(static_cast<decltype(t)>(const_cast<void *>(in)), count);
            opts.setOutput(static_cast<decltype(t)>(buf), count);
        });
        opts.setReduceFunction(reducer(type, op));
        opts.setTag(tag);
        gloo::allreduce(opts);
    });
}

int rc_gloo_reduce(rc_gloo *g, void *buf, size_t count, int type, int op, int root,
                   uint32_t tag, char *err)
{
    return guarded(err, [&] {
        gloo::ReduceOptions opts(g->ctx);
        with_element<gloo::ReduceOptions>(type_size(type), [&](auto *t) {
            opts.setOutput(static_cast<decltype(t)>(buf), count);
        });
        opts.setRoot(root);
        opts.setReduceFunction(reducer(type, op));
        opts.setTag(tag);
        gloo::reduce(opts);
    });
}

/* gloo's own reduce-scatter is float-only: a ring over its point-to-point buffers, each
 * step sending one block to the next rank and reducing the previous rank's into ours, so
 * every rank sends (n - 1) blocks, half of what an all-reduce of the whole would */
int rc_gloo_reduce_scatter(rc_gloo *g, void *buf, size_t count, int type, int op,
                           uint32_t tag, char *err)
{
    return guarded(err, [&] {
        int n = g->ctx->size, r = g->ctx->rank;
        size_t block = count * type_size(type);
        if (n == 1 || block == 0)
            return;
        std::vector<unsigned char> scratch(block);
        auto all = g->ctx->createUnboundBuffer(buf, block * (size_t)n);
        auto in = g->ctx->createUnboundBuffer(scratch.data(), block);
        auto reduce = reducer(type, op);
        int right = (r + 1) % n, left = (r + n - 1) % n;
        for (int s = 0; s < n - 1; s++) {
            uint64_t slot = kRingSlot | ((uint64_t)tag << 16) | (uint64_t)s;
            size_t out_blk = (size_t)((r - s - 1 + 2 * n) % n);
            size_t in_blk = (size_t)((r - s - 2 + 2 * n) % n);
            in->recv(left, slot, 0, block);
            all->send(right, slot, out_blk * block, block);
            in->waitRecv();
            unsigned char *dst = static_cast<unsigned char *>(buf) + in_blk * block;
            reduce(dst, dst, scratch.data(), count);
            all->waitSend();
        }
    });
}

int rc_gloo_broadcast(rc_gloo *g, void *buf, size_t bytes, int root, uint32_t tag, char *err)
{
    return guarded(err, [&] {
        gloo::BroadcastOptions opts(g->ctx);
        opts.setOutput(static_cast<uint8_t *>(buf), bytes);
        opts.setRoot(root);
        opts.setTag(tag);
        gloo::broadcast(opts);
    });
}

int rc_gloo_allgather(rc_gloo *g, void *out, size_t bytes, uint32_t tag, char *err)
{
    return guarded(err, [&] {
        gloo::AllgatherOptions opts(g->ctx);
        opts.setOutput(static_cast<uint8_t *>(out), bytes * (size_t)g->ctx->size);
        opts.setTag(tag);
        gloo::allgather(opts);
    });
}

int rc_gloo_gather(rc_gloo *g, const void *in, void *out, size_t bytes, int root,
                   uint32_t tag, char *err)
{
    return guarded(err, [&] {
        gloo::GatherOptions opts(g->ctx);
        opts.setInput(static_cast<uint8_t *>(const_cast<void *>(in)), bytes);
        if (g->ctx->rank == root)
            opts.setOutput(static_cast<uint8_t *>(out), bytes * (size_t)g->ctx->size);
        opts.setRoot(root);
        opts.setTag(tag);
        gloo::gather(opts);
    });
}

int rc_gloo_scatter(rc_gloo *g, const void *in, void *out, size_t bytes, int root,
                    uint32_t tag, char *err)
{
    return guarded(err, [&] {
        gloo::ScatterOptions opts(g->ctx);
        std::vector<uint8_t *> ins;
        if (g->ctx->rank == root) {
            for (int k = 0; k < g->ctx->size; k++)
                ins.push_back(static_cast<uint8_t *>(const_cast<void *>(in)) + (size_t)k * bytes);
            opts.setInputs(ins, bytes);
        }
        opts.setOutput(static_cast<uint8_t *>(out), bytes);
        opts.setRoot(root);
        opts.setTag(tag);
        gloo::scatter(opts);
    });
}

int rc_gloo_alltoall(rc_gloo *g, const void *in, void *out, size_t bytes, uint32_t tag,
                     char *err)
{
    return guarded(err, [&] {
        gloo::AlltoallOptions opts(g->ctx);
        size_t all = bytes * (size_t)g->ctx->size;
        opts.setInput(static_cast<uint8_t *>(const_cast<void *>(in)), all);
        opts.setOutput(static_cast<uint8_t *>(out), all);
        opts.setTag(tag);
        gloo::alltoall(opts);
    });
}

int rc_gloo_barrier(rc_gloo *g, uint32_t tag, char *err)
{
    return guarded(err, [&] {
        gloo::BarrierOptions opts(g->ctx);
        opts.setTag(tag);
        gloo::barrier(opts);
    });
}

rc_gloo_p2p *rc_gloo_p2p_post(rc_gloo *g, bool send, void *buf, size_t bytes, int peer,
                              char *err)
{
    rc_gloo_p2p *p = nullptr;
    guarded(err, [&] {
        auto ub = g->ctx->createUnboundBuffer(buf, bytes);
        if (send)
            ub->send(peer, kP2pSlot);
        else
            ub->recv(peer, kP2pSlot);
        p = new rc_gloo_p2p{std::move(ub), send};
    });
    return p;
}

int rc_gloo_p2p_wait(rc_gloo_p2p *p, char *err)
{
    int r = guarded(err, [&] {
        if (p->send)
            p->buf->waitSend();
        else
            p->buf->waitRecv();
    });
    delete p;
    return r;
}

}  // extern "C"

#endif
