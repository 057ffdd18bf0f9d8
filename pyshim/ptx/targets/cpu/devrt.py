"""The device runtime's syscalls on the CPU device (dynamic parallelism): libcudadevrt,
linked into every -rdc program that launches from device code, implements cudaLaunchDevice,
cudaGetLastError, cudaStreamCreateWithFlags ... (the `__cudaCDP2*` functions nvcc calls) on
`.extern` `__cuda_syscall_cnpv2*` functions that NVIDIA's driver supplies at load time.
Here each is a call of the CPU device's runtime through the launch record
(preludes/cdp_cpu.h, pyshim_kernel_abi.h's PYSHIM_DEVRT_*), where the grid's queue of
children lives. A syscall not listed, or with another signature, stays refused by name."""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.layout import var_bytes

PREFIX = "__cuda_syscall_cnpv2"

# syscall -> (its PYSHIM_DEVRT_<op>, result type, argument types); dim3 is a .b8[12] param
FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    PREFIX + "GetParameterBufferV2": ("PARAM_BUFFER", "u64", ("u64", "dim3", "dim3", "u32")),
    PREFIX + "LaunchDeviceV2": ("LAUNCH", "u32", ("u64", "u64")),
    PREFIX + "GetLastError": ("GET_LAST_ERROR", "u32", ()),
    PREFIX + "SetLastError": ("SET_LAST_ERROR", "u32", ("u32",)),
    PREFIX + "GetDevice": ("GET_DEVICE", "u32", ("u64",)),
    PREFIX + "GetDeviceCount": ("GET_DEVICE_COUNT", "u32", ("u64",)),
    PREFIX + "StreamCreate": ("STREAM_CREATE", "u32", ("u64", "u32")),
    PREFIX + "StreamDestroy": ("STREAM_DESTROY", "u32", ("u64",)),
    PREFIX + "EventCreate": ("EVENT_CREATE", "u32", ("u64", "u32")),
    PREFIX + "EventRecord": ("EVENT_RECORD", "u32", ("u64", "u64")),
    PREFIX + "EventDestroy": ("EVENT_DESTROY", "u32", ("u64",)),
    PREFIX + "StreamWaitEvent": ("STREAM_WAIT_EVENT", "u32", ("u64", "u64", "u32")),
}


def signature_matches(fn: ir.Function, name: str) -> bool:
    """Whether the declaration `fn` is the one FUNCTIONS describes."""
    _op, ret, args = FUNCTIONS[name]
    if len(fn.returns) != 1 or len(fn.params) != len(args):
        return False
    return [var_bytes(v) for v in (*fn.returns, *fn.params)] == [_WIDTH[k] for k in (ret, *args)]


_WIDTH = {"u64": 8, "u32": 4, "dim3": 12}


def call(fe, inst, name: str, params: list[str]) -> str:
    """C for a call of `name` with `params` (pointers to the result's and the arguments'
    .param storage)."""
    op, ret, kinds = FUNCTIONS[name]
    fe.need("cdp_cpu.h")
    r, args = params[0], params[1:]
    words: list[str] = []
    for p, kind in zip(args, kinds, strict=True):
        if kind == "dim3":
            words += [f"((uint64_t)((const uint32_t *){p})[0] | "
                      f"(uint64_t)((const uint32_t *){p})[1] << 32)",
                      f"(uint64_t)((const uint32_t *){p})[2]"]
        elif kind == "u64":
            words.append(f"*(const uint64_t *){p}")
        else:
            words.append(f"(uint64_t)*(const uint32_t *){p}")
    t = fe.new_tmp()
    arr = f"const uint64_t {t}a[] = {{{', '.join(words)}}}; " if words else ""
    argp = f"{t}a" if words else "NULL"
    size, ct = (8, "int64_t") if ret == "u64" else (4, "int32_t")
    return (f"{{ {arr}{ct} {t} = ({ct})ps_cdp(ctx, PYSHIM_DEVRT_{op}, {argp});"
            f" __builtin_memcpy({r}, &{t}, {size}); }}")
