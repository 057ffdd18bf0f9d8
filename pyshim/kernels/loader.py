"""The one entry point the shim calls at module load (through embedded Python).

    mod = load_module(data, "cpu-wave64")   # -> LoadedModule(path, kernels, globals, ...)

`data` is a fat binary container (pyshim.binary.fatbin), PTX text, or an ELF (a host binary
or cubin: its fat binaries are searched for PTX). The PTX is translated for `target`,
compiled and cached (key: PTX bytes, translator version, target, compiler identity).
Every failure is an exception whose `cuda_error` names the CUresult to return.
"""

from __future__ import annotations

import json
import logging
import re
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path

from pyshim.ptx.errors import PtxError, UnsupportedInstruction

log = logging.getLogger("pyshim")

_TARGET_RE = re.compile(r"(cpu-wave64|cpu-wave32)|(hip-wave64|hip-wave32):(gfx[0-9a-f]+)")

InvalidPtx = PtxError  # CUDA_ERROR_INVALID_PTX, message with line:col
__all__ = ["InvalidImage", "InvalidPtx", "LoadedModule", "LoaderError", "NoKernelImage",
           "UnsupportedInstruction", "UnsupportedTarget", "load_module"]


class LoaderError(Exception):
    cuda_error = "CUDA_ERROR_INVALID_IMAGE"


class NoKernelImage(LoaderError):
    """Kernels only as SASS (or no kernels at all): nothing to translate."""

    cuda_error = "CUDA_ERROR_NO_BINARY_FOR_GPU"


class InvalidImage(LoaderError):
    """A malformed fat binary or an image that is none of the accepted kinds."""

    cuda_error = "CUDA_ERROR_INVALID_IMAGE"


class UnsupportedTarget(LoaderError):
    cuda_error = "CUDA_ERROR_NOT_SUPPORTED"


@dataclass
class LoadedModule:
    path: Path                 # the .so (CPU) or code object (AMD) in the kernel cache
    kernels: list[str]
    globals: list[str]
    cached: bool
    seconds: float
    target: str = ""
    stats: dict = field(default_factory=dict)
    # __managed__ variables (.attribute(.managed)): on the CPU device plain globals; an AMD
    # runtime must back them with managed memory for the host to see them
    managed: list[str] = field(default_factory=list)
    # the virtual architecture the PTX was written for (".target sm_75" -> 75): what
    # cuFuncGetAttribute(PTX_VERSION / BINARY_VERSION) reports for its kernels
    ptx_target: int = 0
    # each kernel's parameters as (offset, size) in CUDA's packed layout: what
    # cuFuncGetParamInfo / cuKernelGetParamInfo report
    params: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    # bytes of the module's .const variables: cuFuncGetAttribute(CONST_SIZE_BYTES)
    const_bytes: int = 0
    # loaded lazily (pyshim/kernels/lazy.py): `path` holds the variables, no kernel yet
    lazy: bool = False
    # kernels the translator could not translate -> why (naming the instruction): they are
    # in the module but libcuda refuses to launch them (CUDA_ERROR_NOT_SUPPORTED)
    unsupported: dict[str, str] = field(default_factory=dict)


_TARGET = re.compile(rb"^\s*\.target\s+(?:sm|compute)_(\d+)", re.M)


def ptx_target(ptx: str) -> int:
    """The number of the first `.target sm_XX` (sm_90a -> 90), 0 if none."""
    m = _TARGET.search(ptx.encode("utf-8", "replace")[:65536])
    return int(m.group(1)) if m else 0


def device_arch() -> int:
    """The compute capability the device presents (86 for 8.6): as NVIDIA's driver does,
    the PTX to JIT is the newest written for an arch the device has, so a fat binary's
    compute_90 PTX (which may use Hopper-only instructions) is not taken for an 8.6 device
    when it also carries compute_75's."""
    from pyshim.device.identity import presented

    identity, _ = presented()
    return identity.major * 10 + identity.minor


def extract_ptx(data: bytes) -> str:
    """The PTX to translate from a container, PTX text or ELF."""
    from pyshim.binary import fatbin
    from pyshim.binary.errors import FatbinError, NoPtxError

    data = bytes(data)
    if fatbin.is_container(data):
        try:
            containers = fatbin.back_to_back(data)
            if len(containers) > 1:
                return _link_units(containers)
            return fatbin.choose_ptx(containers[0].entries, max_arch=device_arch()).ptx()
        except NoPtxError as exc:
            return _lift_or_refuse([e for c in containers for e in c.entries], exc)
        except FatbinError as exc:
            if getattr(exc, "cuda_error", "") != "CUDA_ERROR_INVALID_IMAGE":
                raise
            raise InvalidImage(str(exc)) from None
    if data[:4] == b"\x7fELF":
        return _ptx_from_elf(data)
    head = data[:4096].lstrip()
    if head.startswith((b".version", b"//", b"/*", b".target")) or b".version" in head[:2048]:
        try:
            return data.decode("utf-8").rstrip("\0")
        except UnicodeDecodeError as exc:
            raise InvalidImage(f"PTX image is not UTF-8 text ({exc})") from None
    raise InvalidImage("module image is neither a fat binary, PTX text nor an ELF file "
                       f"(starts with {data[:8].hex()})")


def _link_units(containers: list) -> str:
    """One module from the PTX of several units, linked as nvlink links -rdc=true code; a
    unit with no PTX at all (the device-link stub nvcc adds) has nothing to link."""
    from pyshim.binary import fatbin
    from pyshim.binary.errors import NoPtxError
    from pyshim.kernels import ptx_link

    modules, names = [], []
    for i, c in enumerate(containers):
        try:
            modules.append(fatbin.choose_ptx(c.entries, max_arch=device_arch()).ptx())
            names.append(f"translation unit {i + 1}")
        except NoPtxError:
            continue
    if not modules:
        # raises, naming the SASS
        return fatbin.choose_ptx(containers[0].entries, max_arch=device_arch()).ptx()
    try:
        return ptx_link.link_ptx(modules, names)
    except ptx_link.PtxLinkError as exc:
        raise InvalidImage(str(exc)) from None


def _ptx_from_elf(data: bytes) -> str:
    from pyshim.binary import fatbin
    from pyshim.binary.errors import FatbinError, NoPtxError
    from pyshim.kernels import ptx_link

    inputs = ptx_link.link_inputs(data)
    if inputs is not None:  # a cuLink* link image (shim/core/link.c)
        try:
            return ptx_link.link_image_ptx(inputs, extract_ptx)
        except ptx_link.PtxLinkError as exc:
            raise InvalidImage(str(exc)) from None

    entries = [e for container in fatbin.containers_in(data) for e in container.entries]
    if entries:
        try:
            return fatbin.choose_ptx(entries, max_arch=device_arch()).ptx()
        except NoPtxError as exc:
            return _lift_or_refuse(entries, exc)
    try:
        names = fatbin.cubin_kernels(data)
    except FatbinError:
        names = []
    arch = cubin_arch(data)
    from pyshim.sass.image import LIFTABLE

    if names and arch in LIFTABLE:  # a cubin (cuModuleLoadData): lift its SASS
        from pyshim.sass.image import lift_cached

        return lift_cached(data)
    kernels = ", ".join(names) if names else "none found"
    raise NoKernelImage(f"ELF image holds no PTX (SASS for sm_{arch}; kernels: {kernels}); "
                        "rebuild with PTX, e.g. -gencode arch=compute_XX,code=compute_XX")


def _lift_or_refuse(entries: list, exc: Exception) -> str:
    """PTX lifted from a fat binary's SASS (pyshim.sass) when it has no PTX; the lifter's
    LiftError names the kernels and opcodes it cannot lift."""
    from pyshim.sass.image import lift_entries

    ptx = lift_entries(entries, device_arch())
    if ptx is None:
        raise NoKernelImage(str(exc)) from None
    return ptx


def cubin_arch(elf: bytes) -> int:
    """The SM number a cubin is for, from its e_flags: bits 8-15 in the CUDA ABI of CUDA
    12.8+ (EI_OSABI 0x41, ABI version 8: sm_110a is 0x6e02), the low byte before (0x33)."""
    if len(elf) < 0x34:
        return 0
    flags = struct.unpack_from("<I", elf, 0x30)[0]
    return (flags >> 8) & 0xff if elf[7] == 0x41 or elf[8] >= 8 else flags & 0xff


def _check_target(target: str) -> None:
    if not _TARGET_RE.fullmatch(target):
        raise UnsupportedTarget(f"unknown kernel target {target!r}: expected cpu-wave64, "
                                "cpu-wave32, hip-wave64:gfxNNN or hip-wave32:gfxNNN")


def _translate(ptx: str, target: str, meta: dict) -> str:
    """The source of `ptx` for `target`, parsing it once: the module's facts the cache keeps
    beside the kernel object (_names) come from the same parse (meta["names"])."""
    from pyshim.ptx.frontend.parser import parse
    from pyshim.ptx.translate import translate

    t0 = time.perf_counter()
    module = parse(ptx)
    meta["names"] = _module_names(module)
    parse_s = time.perf_counter() - t0
    stats: dict = {}
    source = translate(ptx, target, stats, parsed=module)
    stats["parse_seconds"] += parse_s
    stats["seconds"] += parse_s
    meta["stats"] = stats
    return source


def _translate_cpu(ptx: str, target: str, meta: dict | None = None,
                   **kw: object) -> tuple[str, dict]:
    """(source, translator stats) for a tier's build (tiers.py); with `meta` and no other
    options, through _translate (the module's facts from the same parse)."""
    if meta is not None and not kw:
        source = _translate(ptx, target, meta)
        return source, meta["stats"]
    from pyshim.ptx.translate import translate

    stats: dict = {}
    return translate(ptx, target, stats, **kw), stats  # type: ignore[arg-type]


def _build_hip(ptx: str, target: str, compiler: str, meta: dict) -> bytes:
    from pyshim.kernels import amd

    source = _translate(ptx, target, meta)
    return amd.compile_hip(source, target.partition(":")[2], compiler=compiler, use_cache=False)


def load_module(data: bytes, target: str) -> LoadedModule:
    """Translate (or fetch from the cache) the kernels of one module image for `target`."""
    from pyshim.kernels import cache
    from pyshim.kernels.compile import compiler_identity
    from pyshim.ptx.fingerprint import translator_fingerprint

    t0 = time.perf_counter()
    _check_target(target)
    from pyshim.kernels import lazy

    if bytes(data[:len(lazy.REQUEST_MAGIC)]) == lazy.REQUEST_MAGIC:
        return _load_lazy_kernel(bytes(data), target, t0)
    ptx = extract_ptx(data)
    ptx_bytes = ptx.encode("utf-8")
    meta: dict = {}
    if lazy.wanted(ptx, target):
        loaded = _load_lazy_module(ptx, ptx_bytes, target, t0)
        if loaded is not None:
            return loaded
    if target.startswith("hip"):
        from pyshim.kernels import amd

        found = amd.available_compilers()
        if not found:
            raise UnsupportedTarget(f"kernel target {target}: no AMD kernel compiler "
                                    f"({amd.missing_compiler_hint()})")
        compiler = next(iter(found))
        ident = amd.compiler_identity(compiler)
        key = cache.cache_key(ptx_bytes, translator_fingerprint(), target, ident)
        path, cached = cache.get_or_build(
            key, ".co", lambda: _build_hip(ptx, target, compiler, meta))
    else:
        from pyshim.kernels import tiers

        fp = translator_fingerprint()

        def key_for(tier: str) -> str:
            return cache.cache_key(ptx_bytes, fp, target, compiler_identity(tier))

        path, cached, tier = tiers.build(key_for, lambda: _translate_cpu(ptx, target, meta),
                                        meta)
        key = key_for("opt")  # the module's facts (.json) are the same at every tier
        meta.setdefault("stats", {})["tier"] = tier
    info_path = cache.lookup(key, ".json") if cached else None
    info = None
    if info_path is not None:
        try:
            info = json.loads(cache.read_entry(info_path))
        except (cache.CacheError, ValueError):
            info = None
    if info is None or "const_bytes" not in info:  # cached before these facts were kept
        info = meta.get("names") or _names(ptx)  # (a cache miss parsed it once, above)
        if "stats" not in meta:  # built by an earlier process: translate again to know
            meta["stats"] = {}
            try:
                from pyshim.ptx.translate import translate
                translate(ptx, target, meta["stats"])
            except PtxError:
                pass
        info["unsupported"] = meta["stats"].get("unsupported", {})
        cache.store(key, ".json", json.dumps(info).encode())
    for name, why in info.get("unsupported", {}).items():
        log.warning("pyshim: kernel %s cannot be translated (it fails at launch with "
                    "CUDA_ERROR_NOT_SUPPORTED; the module's other kernels run): %s", name, why)
    seconds = time.perf_counter() - t0
    if cached:
        log.info("pyshim: module with %d kernels loaded from cache (%.1f ms)",
                 len(info["kernels"]), seconds * 1e3)
    else:
        st = meta.get("stats", {})
        log.info("pyshim: translated %d PTX lines (%d kernels) for %s in %.3f s",
                 st.get("lines", 0), len(info["kernels"]), target, seconds)
    return LoadedModule(path=path, kernels=info["kernels"], globals=info["globals"],
                        cached=cached, seconds=seconds, target=target,
                        stats=meta.get("stats", {}), managed=info.get("managed", []),
                        ptx_target=ptx_target(ptx),
                        params={k: [tuple(p) for p in v] for k, v in info["params"].items()},
                        const_bytes=int(info.get("const_bytes", 0)),
                        unsupported=dict(info.get("unsupported", {})))


def _names(ptx: str) -> dict:
    from pyshim.ptx.frontend.parser import parse

    return _module_names(parse(ptx))


def _module_names(m) -> dict:
    """What the loader keeps of a module beside its kernel object (JSON)."""
    from pyshim.ptx.layout import param_layout, var_bytes

    return {"kernels": [k.name for k in m.kernels],
            "const_bytes": sum(var_bytes(v) for v in m.variables if v.space == "const"),
            "params": {k.name: [[off, size] for off, size, _ in param_layout(k.params)[0]]
                       for k in m.kernels},
            "globals": [v.name for v in m.variables if v.space in ("global", "const")],
            "managed": [v.name for v in m.variables if "managed" in v.attributes]}


def _lazy_module_key(ptx_bytes: bytes, target: str) -> str:
    from pyshim.kernels import cache
    from pyshim.kernels.compile import compiler_identity
    from pyshim.ptx.fingerprint import translator_fingerprint

    return cache.cache_key(ptx_bytes, translator_fingerprint(), target, compiler_identity(),
                           "lazy")


def _load_lazy_module(ptx: str, ptx_bytes: bytes, target: str, t0: float
                      ) -> LoadedModule | None:
    """The data object and index of a huge module (lazy.py); None where it cannot be
    loaded lazily (a variable initialised with a function's address), to load it eagerly."""
    from pyshim.kernels import cache, lazy
    from pyshim.kernels.compile import compile_cpu
    from pyshim.ptx.translate import translate

    key = _lazy_module_key(ptx_bytes, target)
    if cache.lookup(key, ".ptx") is None:
        cache.store(key, ".ptx", ptx_bytes)  # what each kernel's translation reads

    def build() -> bytes:
        try:
            source = translate(lazy.index_of(ptx_bytes).data_module(), target,
                               marker=("pyshim:lazy", key))
        except UnsupportedInstruction as exc:
            raise _NotLazy(str(exc)) from None
        return compile_cpu(source)

    try:
        path, cached = cache.get_or_build(key, ".so", build)
    except _NotLazy as exc:
        log.info("pyshim: module of %d kernels loaded eagerly: %s", len(lazy.index_of(ptx_bytes).kernels), exc)
        return None
    info_path = cache.lookup(key, ".json")
    info = None
    if info_path is not None:
        try:
            info = json.loads(cache.read_entry(info_path))
        except (cache.CacheError, ValueError):
            info = None
    if info is None:
        try:
            info = _names(lazy.index_of(ptx_bytes).skeleton())
        except Exception as exc:  # noqa: BLE001 - the eager path still loads the module
            # the index's text scanner misread the module (it met a shape it does not know):
            # the whole module is translated as it was before lazy loading
            log.info("pyshim: module loaded eagerly: its lazy index does not parse (%s)", exc)
            return None
        cache.store(key, ".json", json.dumps(info).encode())
    seconds = time.perf_counter() - t0
    log.info("pyshim: module of %d kernels (%d PTX lines) indexed for lazy translation "
             "in %.3f s", len(info["kernels"]), ptx.count("\n") + 1, seconds)
    return LoadedModule(path=path, kernels=info["kernels"], globals=info["globals"],
                        cached=cached, seconds=seconds, target=target,
                        managed=info.get("managed", []), ptx_target=ptx_target(ptx),
                        params={k: [tuple(p) for p in v] for k, v in info["params"].items()},
                        const_bytes=int(info.get("const_bytes", 0)), lazy=True)


class _NotLazy(Exception):
    pass


def _load_lazy_kernel(request: bytes, target: str, t0: float) -> LoadedModule:
    """One kernel of a lazily loaded module, translated and compiled with the functions it
    calls; its variables are bound to the module's data object by libcuda."""
    from pyshim.kernels import cache, lazy, tiers

    try:
        module_key, kernel = lazy.decode_request(request)
    except ValueError:
        raise InvalidImage("malformed lazy kernel request") from None
    meta: dict = {}

    def key_for(tier: str) -> str:
        if tier == "opt":
            return cache.cache_key(module_key, kernel, "kernel")
        return cache.cache_key(module_key, kernel, "kernel", f"tier {tier}")

    def translate_fn() -> tuple[str, dict]:
        ptx_path = cache.lookup(module_key, ".ptx")
        if ptx_path is None:
            raise InvalidImage(f"kernel {kernel}: the PTX of its lazily loaded module is no "
                               "longer in the kernel cache")
        index = lazy.index_of(cache.read_entry(ptx_path))
        try:
            text = index.kernel_module(kernel)
        except KeyError:
            raise LoaderError(f"kernel {kernel} is not in its module") from None
        return _translate_cpu(text, target, bind_globals=True)

    path, cached, tier = tiers.build(key_for, translate_fn, meta)
    meta.setdefault("stats", {})["tier"] = tier
    seconds = time.perf_counter() - t0
    if not cached:
        st = meta.get("stats", {})
        log.info("pyshim: kernel %s of a lazily loaded module: %d PTX lines translated and "
                 "compiled in %.3f s", kernel, st.get("lines", 0), seconds)
    return LoadedModule(path=path, kernels=[kernel], globals=[], cached=cached,
                        seconds=seconds, target=target, stats=meta.get("stats", {}))
