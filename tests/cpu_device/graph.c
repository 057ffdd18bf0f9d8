/* Stream capture into a graph and replay: `graph <kernels.so>`. */
#include <string.h>

#include "check.h"

static int host_calls = 0;

static void drop_user_object(void *p)
{
    ++*(int *)p;
}

static void count_call(void *p)
{
    (void)p;
    host_calls++;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 5;
    hipModule_t mod;
    hipFunction_t saxpy;
    CHECK(hipModuleLoad(&mod, argv[1]));
    CHECK(hipModuleGetFunction(&saxpy, mod, "saxpy"));
    enum { N = 1000 };
    float *x, *y, *hx, *hy;
    CHECK(hipMalloc((void **)&x, N * sizeof(float)));
    CHECK(hipMalloc((void **)&y, N * sizeof(float)));
    CHECK(hipHostMalloc((void **)&hx, N * sizeof(float), 0));
    CHECK(hipHostMalloc((void **)&hy, N * sizeof(float), 0));
    for (int i = 0; i < N; i++) {
        hx[i] = (float)i;
        hy[i] = -1.0f;
    }
    CHECK(hipMemsetD32(y, 0x3f800000, N));   /* 1.0f: must survive the capture untouched */

    hipStream_t s, s2;
    CHECK(hipStreamCreate(&s));
    CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
    SHOW("capture_null_stream", hipStreamBeginCapture(NULL, hipStreamCaptureModeGlobal));
    SHOW("end_not_capturing", hipStreamEndCapture(s, &(hipGraph_t){NULL}));

    CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    SHOW("begin_twice", hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    hipStreamCaptureStatus st = hipStreamCaptureStatusNone;
    unsigned long long id = 0;
    CHECK(hipStreamGetCaptureInfo(s, &st, &id));
    printf("capturing=%d,%d\n", st == hipStreamCaptureStatusActive, id != 0);
    int n = N;
    float a = 2.0f;
    void *params[] = {&n, &a, &x, &y};
    CHECK(hipMemcpyAsync(x, hx, N * sizeof(float), hipMemcpyHostToDevice, s));
    CHECK(hipMemsetD32Async(y, 0, N, s));
    CHECK(hipModuleLaunchKernel(saxpy, (N + 127) / 128, 1, 1, 128, 1, 1, 0, s, params, NULL));
    a = 100.0f;   /* arguments are captured by value */
    CHECK(hipMemcpyAsync(hy, y, N * sizeof(float), hipMemcpyDeviceToHost, s));
    CHECK(hipLaunchHostFunc(s, count_call, NULL));
    hipEvent_t ev;
    CHECK(hipEventCreate(&ev));
    SHOW("capture_event_record", hipEventRecord(ev, s));
    SHOW("capture_sync", hipStreamSynchronize(s));
    SHOW("capture_query", hipStreamQuery(s));
    float yfirst = 0;
    CHECK(hipMemcpy(&yfirst, y, sizeof yfirst, hipMemcpyDeviceToHost));
    printf("nothing_ran=%d,%g,%g\n", host_calls, hy[5], yfirst);

    hipGraph_t graph;
    CHECK(hipStreamEndCapture(s, &graph));
    CHECK(hipStreamIsCapturing(s, &st));
    printf("capturing_after=%d\n", st);
    size_t nodes = 0;
    CHECK(hipGraphGetNodes(graph, NULL, &nodes));
    printf("nodes=%zu\n", nodes);
    hipGraphExec_t exec;
    CHECK(hipGraphInstantiate(&exec, graph, NULL, NULL, 0));
    CHECK(hipGraphDestroy(graph));   /* the executable graph keeps its own copy */

    CHECK(hipGraphLaunch(exec, s));
    CHECK(hipStreamSynchronize(s));
    printf("replay1=%d,%g,%g\n", host_calls, hy[5], hy[999]);
    for (int i = 0; i < N; i++)
        hx[i] = (float)(2 * i);   /* the copy reads host memory when it runs */
    CHECK(hipGraphLaunch(exec, s));
    CHECK(hipStreamSynchronize(s));   /* both launches use the same buffers: one at a time */
    CHECK(hipGraphLaunch(exec, s2));
    CHECK(hipStreamSynchronize(s2));
    printf("replay3=%d,%g,%g\n", host_calls, hy[5], hy[999]);

    /* the same work built node by node: memset -> kernel -> copy -> host, and an empty node */
    hipGraph_t g2, other;
    CHECK(hipGraphCreate(&g2, 0));
    CHECK(hipGraphCreate(&other, 0));
    hipGraphNode_t nset, nkernel, ncopy, nhost, nempty, nforeign;
    hipMemsetParams mp = {y, 4, 1, 0, 0, N};
    CHECK(hipGraphAddMemsetNode(&nset, g2, NULL, 0, &mp));
    float a3 = 3.0f;
    void *kp[] = {&n, &a3, &x, &y};
    hipKernelNodeParams knp = {{128, 1, 1}, NULL, (void *)saxpy, {(N + 127) / 128, 1, 1}, kp, 0};
    CHECK(hipGraphAddKernelNode(&nkernel, g2, &nset, 1, &knp));
    a3 = 50.0f;   /* node parameters are copied when the node is made */
    CHECK(hipGraphAddMemcpyNode1D(&ncopy, g2, &nkernel, 1, hy, y, N * sizeof(float),
                                  hipMemcpyDeviceToHost));
    hipHostNodeParams hp = {count_call, NULL};
    CHECK(hipGraphAddHostNode(&nhost, g2, &ncopy, 1, &hp));
    CHECK(hipGraphAddEmptyNode(&nempty, g2, NULL, 0));
    CHECK(hipGraphAddEmptyNode(&nforeign, other, NULL, 0));
    SHOW("node_foreign_dep", hipGraphAddEmptyNode(&nempty, g2, &nforeign, 1));
    knp.blockDim.x = 2048;
    SHOW("node_bad_kernel", hipGraphAddKernelNode(&nempty, g2, NULL, 0, &knp));
    hipGraphNode_t listed[8];
    size_t count = 8;
    CHECK(hipGraphGetNodes(g2, listed, &count));
    printf("explicit_nodes=%zu,%d,%d\n", count, listed[0] == nset, listed[3] == nhost);
    hipGraphExec_t exec2;
    CHECK(hipGraphInstantiateWithFlags(&exec2, g2, 0));
    CHECK(hipGraphLaunch(exec2, s2));
    CHECK(hipStreamSynchronize(s2));
    printf("explicit_replay=%d,%g,%g\n", host_calls, hy[5], hy[999]);   /* x = 2i */
    /* a clone replays the same work and outlives its original */
    hipGraph_t clone;
    CHECK(hipGraphClone(&clone, g2));
    size_t clone_count = 0;
    CHECK(hipGraphGetNodes(clone, NULL, &clone_count));
    /* an instantiated kernel node given new parameters (copied when set): later launches of
     * the exec use them */
    float a4 = 4.0f;
    void *kp4[] = {&n, &a4, &x, &y};
    hipKernelNodeParams knp4 = {{128, 1, 1}, NULL, (void *)saxpy, {(N + 127) / 128, 1, 1}, kp4, 0};
    CHECK(hipGraphExecKernelNodeSetParams(exec2, nkernel, &knp4));
    a4 = 60.0f;
    CHECK(hipGraphLaunch(exec2, s2));
    CHECK(hipStreamSynchronize(s2));
    printf("exec_set_params=%g,%g\n", hy[5], hy[999]);
    SHOW("exec_set_params_not_kernel", hipGraphExecKernelNodeSetParams(exec2, nset, &knp4));
    SHOW("exec_set_params_foreign", hipGraphExecKernelNodeSetParams(exec2, nforeign, &knp4));
    SHOW("exec_set_params_null", hipGraphExecKernelNodeSetParams(exec2, nkernel, NULL));
    knp4.blockDim.x = 2048;
    SHOW("exec_set_params_bad_block", hipGraphExecKernelNodeSetParams(exec2, nkernel, &knp4));
    /* hipGraphExecUpdate: from a graph of another shape or other node kinds it fails and the
     * exec keeps its work; from one of the same shape (the clone, a = 3) the exec takes it */
    hipGraphExecUpdateResult upd = hipGraphExecUpdateSuccess;
    hipGraphNode_t upd_node = NULL;
    hipError_t upd_err = hipGraphExecUpdate(exec2, other, &upd_node, &upd);
    printf("exec_update_topology=%s,%d\n", hipGetErrorName(upd_err), (int)upd);
    hipGraph_t empties;
    CHECK(hipGraphCreate(&empties, 0));
    hipGraphNode_t en[5];
    for (int i = 0; i < 5; i++)
        CHECK(hipGraphAddEmptyNode(&en[i], empties, NULL, 0));
    upd_err = hipGraphExecUpdate(exec2, empties, &upd_node, &upd);
    printf("exec_update_kinds=%s,%d,%d\n", hipGetErrorName(upd_err), (int)upd,
           upd_node == en[0]);
    CHECK(hipGraphLaunch(exec2, s2));
    CHECK(hipStreamSynchronize(s2));
    printf("exec_update_kept=%g\n", hy[999]);
    upd_err = hipGraphExecUpdate(exec2, clone, &upd_node, &upd);
    CHECK(hipGraphLaunch(exec2, s2));
    CHECK(hipStreamSynchronize(s2));
    printf("exec_update_same_shape=%s,%d,%g\n", hipGetErrorName(upd_err), (int)upd, hy[999]);
    SHOW("exec_update_null_result", hipGraphExecUpdate(exec2, clone, NULL, NULL));
    CHECK(hipGraphDestroy(empties));
    CHECK(hipGraphExecDestroy(exec2));
    CHECK(hipGraphDestroy(g2));
    int calls_before = host_calls;
    CHECK(hipGraphInstantiateWithFlags(&exec2, clone, 0));
    CHECK(hipGraphLaunch(exec2, s2));
    CHECK(hipStreamSynchronize(s2));
    printf("clone_replay=%zu,%d,%g\n", clone_count, host_calls - calls_before, hy[999]);
    SHOW("clone_null", hipGraphClone(NULL, clone));
    CHECK(hipGraphExecDestroy(exec2));
    CHECK(hipGraphDestroy(clone));
    CHECK(hipGraphDestroy(other));

    /* fork/join capture: s3 joins s's capture by waiting on an event recorded in it, works
     * on its own, and s waits on an event s3 recorded (the join); ending the capture on s
     * ends it on s3 too */
    hipStream_t s3;
    CHECK(hipStreamCreateWithFlags(&s3, hipStreamNonBlocking));
    int *fj, fjh[2] = {-1, -1};
    CHECK(hipMalloc((void **)&fj, sizeof fjh));
    CHECK(hipMemset(fj, 0, sizeof fjh));
    hipEvent_t fork, join, outside;
    CHECK(hipEventCreate(&fork));
    CHECK(hipEventCreate(&join));
    CHECK(hipEventCreate(&outside));
    CHECK(hipEventRecord(outside, s));
    CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    CHECK(hipMemsetD32Async(fj, 5, 1, s));
    CHECK(hipEventRecord(fork, s));
    CHECK(hipStreamWaitEvent(s3, fork, 0));
    unsigned long long id_s = 0, id_s3 = 0;
    hipStreamCaptureStatus st3 = hipStreamCaptureStatusNone;
    CHECK(hipStreamGetCaptureInfo(s, &st, &id_s));
    CHECK(hipStreamGetCaptureInfo(s3, &st3, &id_s3));
    printf("fork_joined=%d,%d\n", st3 == hipStreamCaptureStatusActive, id_s3 == id_s);
    CHECK(hipMemsetD32Async(fj + 1, 7, 1, s3));
    CHECK(hipEventRecord(join, s3));
    CHECK(hipStreamWaitEvent(s, join, 0));
    SHOW("capture_wait_outside_event", hipStreamWaitEvent(s, outside, 0));
    hipGraph_t g4;
    CHECK(hipStreamEndCapture(s, &g4));
    CHECK(hipStreamIsCapturing(s3, &st3));
    printf("fork_ended=%d\n", st3 == hipStreamCaptureStatusNone);
    CHECK(hipMemcpy(fjh, fj, sizeof fjh, hipMemcpyDeviceToHost));
    size_t n4 = 0;
    CHECK(hipGraphGetNodes(g4, NULL, &n4));
    printf("fork_captured=%d,%d,%zu\n", fjh[0], fjh[1], n4);   /* nothing ran */
    hipGraphExec_t exec4;
    CHECK(hipGraphInstantiate(&exec4, g4, NULL, NULL, 0));
    CHECK(hipGraphLaunch(exec4, s3));
    CHECK(hipStreamSynchronize(s3));
    CHECK(hipMemcpy(fjh, fj, sizeof fjh, hipMemcpyDeviceToHost));
    printf("fork_replay=%d,%d\n", fjh[0], fjh[1]);
    CHECK(hipGraphExecDestroy(exec4));
    CHECK(hipGraphDestroy(g4));
    CHECK(hipEventDestroy(fork));
    CHECK(hipEventDestroy(join));
    CHECK(hipEventDestroy(outside));
    CHECK(hipStreamDestroy(s3));
    CHECK(hipFree(fj));

    /* the driver API's node forms (cuGraphAddMemsetNode / cuGraphAddMemcpyNode): a pitched
     * 2D memset of a 3 x 4 window of a 16 x 4 byte matrix, then a 3D descriptor copying
     * rows 1..2, bytes 3..5 (straddling its right edge) out to a packed host buffer */
    unsigned char *mat, packed[6] = {0};
    CHECK(hipMalloc((void **)&mat, 64));
    CHECK(hipMemset(mat, 0, 64));
    hipGraph_t g3;
    CHECK(hipGraphCreate(&g3, 0));
    hipCtx_t ctx;
    CHECK(hipDevicePrimaryCtxRetain(&ctx, 0));
    hipGraphNode_t dset, dcopy, dbad;
    hipMemsetParams dmp = {.dst = mat + 16 + 1, .elementSize = 1, .height = 3, .pitch = 16,
                           .value = 0x7e, .width = 4};   /* rows 1..3, bytes 1..4 */
    CHECK(hipDrvGraphAddMemsetNode(&dset, g3, NULL, 0, &dmp, ctx));
    HIP_MEMCPY3D d3;
    memset(&d3, 0, sizeof d3);
    d3.srcMemoryType = hipMemoryTypeDevice;
    d3.srcDevice = (hipDeviceptr_t)mat;
    d3.srcPitch = 16;
    d3.srcXInBytes = 3;
    d3.srcY = 1;
    d3.dstMemoryType = hipMemoryTypeHost;
    d3.dstHost = packed;
    d3.WidthInBytes = 3;
    d3.Height = 2;
    d3.Depth = 1;
    CHECK(hipDrvGraphAddMemcpyNode(&dcopy, g3, &dset, 1, &d3, NULL));
    SHOW("drv_node_bad_ctx", hipDrvGraphAddMemsetNode(&dbad, g3, NULL, 0, &dmp,
                                                      (hipCtx_t)(uintptr_t)0x1234));
    d3.WidthInBytes = 0;
    d3.srcDevice = 0;
    SHOW("drv_node_empty_copy", hipDrvGraphAddMemcpyNode(&dbad, g3, NULL, 0, &d3, NULL));
    d3.WidthInBytes = 3;
    SHOW("drv_node_missing_side", hipDrvGraphAddMemcpyNode(&dbad, g3, NULL, 0, &d3, NULL));
    hipGraphExec_t exec3;
    CHECK(hipGraphInstantiate(&exec3, g3, NULL, NULL, 0));
    CHECK(hipGraphLaunch(exec3, s2));
    CHECK(hipStreamSynchronize(s2));
    unsigned char whole[64];
    CHECK(hipMemcpy(whole, mat, 64, hipMemcpyDeviceToHost));
    printf("drv_nodes_copy=%x,%x,%x,%x,%x,%x\n", packed[0], packed[1], packed[2], packed[3],
           packed[4], packed[5]);
    int set = 0;
    for (int i = 0; i < 64; i++)
        set += whole[i] == 0x7e;
    printf("drv_nodes_memset=%d,%x,%x\n", set, whole[16], whole[16 + 5]);
    CHECK(hipGraphExecDestroy(exec3));
    CHECK(hipGraphDestroy(g3));
    CHECK(hipFree(mat));

    /* user objects: the destructor runs when the last holder (caller, graph, clone, exec)
     * lets go */
    int drops = 0;
    hipUserObject_t uo;
    CHECK(hipUserObjectCreate(&uo, &drops, drop_user_object, 1, hipUserObjectNoDestructorSync));
    hipGraph_t ug, uclone;
    CHECK(hipGraphCreate(&ug, 0));
    CHECK(hipGraphRetainUserObject(ug, uo, 1, hipGraphUserObjectMove)); /* the caller's ref */
    CHECK(hipUserObjectRetain(uo, 2));
    CHECK(hipUserObjectRelease(uo, 2));
    CHECK(hipGraphClone(&uclone, ug));
    hipGraphExec_t uexec;
    CHECK(hipGraphInstantiate(&uexec, ug, NULL, NULL, 0));
    CHECK(hipGraphDestroy(ug));
    int after_graph = drops;
    CHECK(hipGraphDestroy(uclone));
    int after_clone = drops;
    CHECK(hipGraphExecDestroy(uexec));
    printf("user_object=%d,%d,%d\n", after_graph, after_clone, drops);
    SHOW("user_object_after_last", hipUserObjectRelease(uo, 1));
    SHOW("user_object_flags", hipUserObjectCreate(&uo, &drops, drop_user_object, 1, 0));

    CHECK(hipGraphExecDestroy(exec));
    SHOW("exec_destroy_twice", hipGraphExecDestroy(exec));
    SHOW("launch_destroyed", hipGraphLaunch(exec, s));
    SHOW("graph_destroy_twice", hipGraphDestroy(graph));
    CHECK(hipEventDestroy(ev));
    CHECK(hipStreamDestroy(s));
    CHECK(hipStreamDestroy(s2));
    CHECK(hipFree(x));
    CHECK(hipFree(y));
    CHECK(hipHostFree(hx));
    CHECK(hipHostFree(hy));
    CHECK(hipModuleUnload(mod));
    return 0;
}
