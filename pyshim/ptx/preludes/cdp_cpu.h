/* pyshim PTX prelude (CPU device): the syscalls of CUDA's device runtime (dynamic
 * parallelism) that libcudadevrt's cudaLaunchDevice & co. make and NVIDIA's driver answers,
 * sent to the CPU device's runtime through the launch record (pyshim_kernel_abi.h,
 * PYSHIM_DEVRT_*), which keeps the grid's queue of children. A launch record without a
 * device runtime (a harness calling run_block itself) gets no parameter buffer and CNP
 * error 2, which libcudadevrt reports as cudaErrorStartupFailure. */
PS_FN int64_t ps_cdp(const ps_tctx *c, uint32_t op, const uint64_t *args) {
    if (!c->launch->devrt) return op == PYSHIM_DEVRT_PARAM_BUFFER ? 0 : 2;
    return c->launch->devrt(c->launch, c->block, PS_LINEAR(c), op, args);
}
