"""Map every CUDA entry point onto its ROCm target and decide how each argument converts.

Order of decisions (shared/DESIGN.md): curated renames (hip-python-interop) first, name
rules second, overrides last. Classes:
  direct       arguments pass unchanged (handles and CUdeviceptr reinterpret), status mapped
  converted    some argument goes through an enum value map
  adapter      a struct, callback or workspace adapter is needed
  shim         implemented by hand in shim/core (the reason says why)
  unsupported  no target, or no complete conversion (the reason says which)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pyshim.tables.clang_parse import Function, Param
from pyshim.tables.cuda_api import Api, EntryPoint, base_name
from pyshim.tables.rocm_api import Rocm

CLASSES = ("direct", "converted", "adapter", "shim", "unsupported")
_WORKSPACE_PARAMS = {"workspace", "work", "lwork", "buffer", "bufferonhost", "bufferondevice",
                     "workspaceinbytesondevice", "workspaceinbytesonhost"}


@dataclass
class Mapping:
    name: str
    cls: str
    target: str | None
    args: list[str] = field(default_factory=list)
    returns: str | None = None
    reason: str | None = None
    extra: list[str] = field(default_factory=list)


def _strip_cv(t: str) -> str:
    return re.sub(r"\b(const|volatile|restrict|__restrict)\b\s*", "", t).strip()


def _pointee(t: str) -> tuple[str, int]:
    t = _strip_cv(t).replace(" ", "").replace("[]", "*")
    depth = len(t) - len(t.rstrip("*"))
    return t.rstrip("*"), depth


_INTS = {"int": 4, "unsignedint": 4, "long": 8, "unsignedlong": 8, "longlong": 8,
         "unsignedlonglong": 8, "short": 2, "unsignedshort": 2, "char": 1, "unsignedchar": 1,
         "signedchar": 1, "_Bool": 1, "bool": 1}


class Converter:
    """Decides the conversion of one CUDA parameter type into one ROCm parameter type."""

    def __init__(self, cuda_enums: dict[str, dict[str, int]], rocm_enums: dict[str, dict[str, int]],
                 cuda_structs: dict, rocm_structs: dict, synonyms: dict[str, dict[str, str]]):
        self.cuda_enums = cuda_enums
        self.rocm_enums = rocm_enums
        self.cuda_structs = cuda_structs
        self.rocm_structs = rocm_structs
        self.synonyms = synonyms
        self.cuda_names: dict[str, str] = {}
        self.rocm_names: dict[str, str] = {}
        self.cuda_canonical: dict[str, str] = {}
        # enum pairs an API may convert (None: any pair found in a signature)
        self.allowed_pairs: set[tuple[str, str]] | None = None

    def canonical(self, cuda_enum: str) -> str:
        """The enum tag behind a typedef (cublasDataType_t and cudaDataType are one enum)."""
        return self.cuda_canonical.get(cuda_enum, cuda_enum)

    def synonyms_for(self, cuda_enum: str) -> dict[str, str]:
        if cuda_enum in self.synonyms:
            return self.synonyms[cuda_enum]
        tag = self.canonical(cuda_enum)
        for key, syn in self.synonyms.items():
            if self.canonical(key) == tag:
                return syn
        return {}

    def set_typedefs(self, cuda: dict[str, str], rocm: dict[str, str]) -> None:
        """Name enums by their typedef (`rocblas_operation`) rather than their tag."""
        for typedefs, out in ((cuda, self.cuda_names), (rocm, self.rocm_names)):
            for name, canonical in sorted(typedefs.items()):
                if canonical.startswith("enum "):
                    out.setdefault(canonical[5:], name)
        for name, canonical in cuda.items():
            if canonical.startswith("enum "):
                self.cuda_canonical[name] = canonical[5:]
        self.enum_pairs_used: set[tuple[str, str]] = set()
        self.struct_pairs_used: set[tuple[str, str]] = set()

    def enum_is_identity(self, cuda: str, rocm: str) -> bool:
        from pyshim.tables import enums

        c, r = self.cuda_enums[cuda], self.rocm_enums[rocm]
        names, _missing = enums.match(c, r, self.synonyms_for(cuda))
        return enums.is_identity(c, r, names)

    def _same_layout(self, c: str, r: str) -> bool:
        cs, rs = self.cuda_structs.get(c), self.rocm_structs.get(r)
        if cs is None or rs is None or cs.size != rs.size or len(cs.fields) != len(rs.fields):
            return False
        return all(a.offset == b.offset and a.size == b.size for a, b in zip(cs.fields, rs.fields, strict=True))

    @staticmethod
    def _kind(base: str, enums: dict, structs: dict) -> str:
        """Anonymous typedef'd enums and structs canonicalise to their typedef name."""
        if base.startswith(("enum", "struct", "union")):
            return base
        if base in enums:
            return "enum" + base
        if base in structs:
            return "struct" + base
        if base not in _INTS and base not in ("void", "float", "double", "longdouble") \
                and "(" not in base and base.isidentifier():
            return "struct" + base  # C++ spells opaque records without `struct`
        return base

    def convert(self, cuda: Param, rocm: Param) -> str | None:
        c_base, c_depth = _pointee(cuda.canonical)
        r_base, r_depth = _pointee(rocm.canonical)
        c_base = self._kind(c_base, self.cuda_enums, self.cuda_structs)
        r_base = self._kind(r_base, self.rocm_enums, self.rocm_structs)
        if c_base == r_base and c_depth == r_depth:
            return "direct"
        if "(*)" in cuda.canonical or "(*)" in rocm.canonical:
            return "callback" if "(*)" in cuda.canonical and "(*)" in rocm.canonical else None
        # CUdeviceptr (an integer) where HIP takes a pointer, or the other way round
        if c_base in ("unsignedlonglong", "unsignedlong") and r_base == "void" \
                and r_depth == c_depth + 1:
            return "deviceptr"
        if c_base == "void" and r_base in ("unsignedlonglong", "unsignedlong") \
                and c_depth == r_depth + 1:
            return "deviceptr"
        # 64-bit integer handles (CUtexObject, CUmemGenericAllocationHandle) where HIP uses
        # opaque pointers
        if c_base in _INTS and _INTS[c_base] == 8 and r_base.startswith("struct") \
                and r_depth == c_depth + 1:
            return "handle"
        if c_depth != r_depth:
            return None
        if c_base in _INTS and r_base in _INTS:
            if _INTS[c_base] == _INTS[r_base]:
                return "direct"
            return "int-cast" if c_depth == 0 else None
        if c_base.startswith("enum") and r_base.startswith("enum"):
            pair = (self.cuda_names.get(c_base[4:], c_base[4:]),
                    self.rocm_names.get(r_base[4:], r_base[4:]))
            if pair[0] in self.cuda_enums and pair[1] in self.rocm_enums:
                if self.allowed_pairs is not None and \
                        (self.canonical(pair[0]), pair[1]) not in self.allowed_pairs:
                    return None  # matched by position only: an unrelated enum
                self.enum_pairs_used.add(pair)
                if self.enum_is_identity(*pair):
                    return "direct"
                return ("enum-out:" if c_depth else "enum:") + f"{pair[0]}->{pair[1]}"
            return None
        if (c_base.startswith("enum") and r_base in _INTS) or \
                (r_base.startswith("enum") and c_base in _INTS):
            return "direct" if c_depth == 0 else None
        if c_base.startswith("union") and r_base.startswith("union"):
            c_base, r_base = "struct" + c_base[5:], "struct" + r_base[5:]
        if c_base.startswith("struct") and r_base.startswith("struct"):
            cn, rn = c_base[6:], r_base[6:]
            if c_depth >= 1 and (cn not in self.cuda_structs or rn not in self.rocm_structs):
                return "handle"  # opaque handles (CUstream_st, ihipStream_t ...)
            if self._same_layout(cn, rn):
                return "direct"
            if cn in self.cuda_structs and rn in self.rocm_structs:
                self.struct_pairs_used.add((cn, rn))
                return f"struct:{cn}->{rn}"
            return None
        if c_base == "void" and c_depth >= 1 and r_base.startswith("struct"):
            return "handle"
        if r_base == "void" and r_depth >= 1 and (c_base.startswith("struct") or c_base in _INTS
                                                  or c_base in ("float", "double")):
            return "handle" if c_base.startswith("struct") else "direct"
        if c_base.startswith("struct") and r_base == "void":
            return "handle"
        if c_depth >= 1 and c_base.startswith("struct") and r_base in ("float", "double"):
            # cuComplex vs rocblas_float_complex are both structs; never float*
            return None
        return None


def _camel_to_snake(s: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s)
    return s.lower()


def rule_targets(api: str, name: str) -> list[str]:
    """Candidate ROCm names by naming rule, best first."""
    core = re.sub(r"_v\d+$", "", name)
    if api == "driver":
        rest = core[2:]
        return [f"hip{rest}", f"hipDrv{rest}", f"hipModule{rest}", f"hip{rest}_spt"]
    if api == "runtime":
        return [f"hip{core[4:]}"]
    if api == "cublas":
        rest = core[len("cublas"):]
        suffix = ""
        if rest.endswith("_64"):
            rest, suffix = rest[:-3], "_64"
        rest = rest[:1].lower() + rest[1:]
        return [f"rocblas_{_camel_to_snake(rest)}{suffix}", f"rocblas_{rest.lower()}{suffix}",
                f"rocsolver_{_camel_to_snake(rest)}{suffix}"]
    if api == "cusolver":
        rest = core[len("cusolverDn"):] if core.startswith("cusolverDn") else core[8:]
        rest = re.sub(r"_bufferSize$", "", rest)
        rest = rest[:1].lower() + rest[1:]
        return [f"rocsolver_{_camel_to_snake(rest)}", f"rocsolver_{rest.lower()}",
                f"rocblas_{_camel_to_snake(rest)}"]
    if api == "curand":
        # curandSetPseudoRandomGeneratorSeed -> rocrand_set_seed: the overrides name the
        # few whose words differ
        return [f"rocrand_{_camel_to_snake(core[len('curand'):])}"]
    if api == "cufft":
        return [f"hipfft{core[len('cufft'):]}"]
    if api == "cusparse":
        # cusparseCreateMatDescr -> rocsparse_create_mat_descr, cusparseXcsr2coo ->
        # rocsparse_csr2coo (X: index-only routines), cusparseScsrmv -> rocsparse_scsrmv
        rest = core[len("cusparse"):]
        out = [f"rocsparse_{_camel_to_snake(rest)}", f"rocsparse_{rest.lower()}"]
        if rest[:1] == "X":
            out += [f"rocsparse_{rest[1:].lower()}", f"rocsparse_{_camel_to_snake(rest[1:])}"]
        return out
    if api == "cublaslt":
        # cublasLtMatmulDescCreate -> hipblasLtMatmulDescCreate: hipBLASLt keeps cuBLASLt's
        # names with its own prefix
        return [f"hipblasLt{core[len('cublasLt'):]}"]
    raise ValueError(api)


def _takes_lt_object(fn: Function) -> bool:
    """A parameter of one of cuBLASLt's own types (handle, descriptors, layouts,
    preferences, algorithms, attribute enums)."""
    return any(_pointee(p.type)[0].startswith("cublasLt") for p in fn.params)


def _norm_param(name: str) -> str:
    n = name.lower()
    return n[3:] if n.startswith("dev") and len(n) > 3 else n


class Mapper:
    def __init__(self, rocm: Rocm, curated: dict[str, str], overrides: dict,
                 converter: Converter):
        self.rocm = rocm
        self.curated = curated
        self.overrides = overrides
        self.conv = converter

    def _find_target(self, api: str, ep: EntryPoint) -> tuple[str | None, str]:
        over = self.overrides.get(api, {}).get("target", {})
        if ep.name in over:
            if self.rocm.function(over[ep.name][0]) is None:
                raise ValueError(f"overrides: {api}.target.{ep.name}: no ROCm function "
                                 f"{over[ep.name][0]}")
            return over[ep.name][0], "override"
        adapter = self.overrides.get(api, {}).get("adapter", {})
        if ep.name in adapter:
            return adapter[ep.name]["target"], "override"
        for n in (ep.name, ep.primary):
            t = self.curated.get(n)
            if t and self.rocm.function(t):
                return t, "curated"
        for cand in rule_targets(api, ep.name):
            if self.rocm.function(cand):
                return cand, "rule"
        return None, ""

    def _convert_args(self, api: str, ep: EntryPoint, target: Function
                      ) -> tuple[list[str] | None, str]:
        cparams = ep.function.params
        rparams = target.params
        if api == "cusolver":
            return self._solver_args(ep, target)
        if len(cparams) != len(rparams):
            return None, f"arity differs: {len(cparams)} CUDA vs {len(rparams)} ROCm parameters"
        if api == "cufft":
            return self._fft_args(cparams, rparams)
        if len(cparams) != len(rparams):
            return None, f"arity differs: {len(cparams)} CUDA vs {len(rparams)} ROCm parameters"
        out = []
        for i, (c, r) in enumerate(zip(cparams, rparams, strict=True)):
            conv = self.conv.convert(c, r)
            if conv is None:
                return None, f"argument {i} ({c.name}): no conversion from {c.type} to {r.type}"
            out.append(conv)
        return out, ""

    def _fft_args(self, cparams: list[Param], rparams: list[Param]
                  ) -> tuple[list[str] | None, str]:
        """cuFFT plans are ints, hipFFT's are pointers: pyshim's plan table converts them."""
        out = []
        for i, (c, r) in enumerate(zip(cparams, rparams, strict=True)):
            t = _strip_cv(c.type).replace(" ", "")
            if t == "cufftHandle":
                out.append("fft-handle")
                continue
            if t == "cufftHandle*":
                out.append("fft-handle-out")
                continue
            if t.rstrip("*") in _FFT_DATA and t.count("*") == 1:
                # cuComplex/float2 vs hipFloatComplex: the same two floats (doubles)
                out.append("direct")
                continue
            if t == "cudaDataType" and _strip_cv(r.type) == "hipDataType":
                # the two enums are value-identical (shared/notes/api-sources.md)
                out.append("direct")
                continue
            conv = self.conv.convert(c, r)
            if conv is None:
                return None, f"argument {i} ({c.name}): no conversion from {c.type} to {r.type}"
            out.append(conv)
        return out, ""

    def _solver_args(self, ep: EntryPoint, target: Function) -> tuple[list[str] | None, str]:
        """cuSOLVER passes a user workspace; rocSOLVER takes it from the handle."""
        query = ep.name.endswith("_bufferSize")
        rparams = list(target.params)
        out = []
        used = 0
        for i, c in enumerate(ep.function.params):
            key = _norm_param(c.name)
            if key in _WORKSPACE_PARAMS:
                out.append("lwork-out" if query and c.canonical.endswith("*") else "workspace")
                continue
            if used < len(rparams):
                conv = self.conv.convert(c, rparams[used])
                if conv is None and query:
                    out.append("ignored")
                    continue
                if conv is None:
                    return None, (f"argument {i} ({c.name}): no conversion from {c.type} to "
                                  f"{rparams[used].type}")
                out.append(conv)
                used += 1
            elif query:
                out.append("ignored")
            else:
                return None, f"argument {i} ({c.name}) has no rocSOLVER counterpart"
        if not query and used != len(rparams):
            return None, f"rocSOLVER takes {len(rparams) - used} more parameters"
        return out, ""

    def map(self, api: str, ep: EntryPoint, status: str | None) -> Mapping:
        over = self.overrides.get(api, {})
        if api in ("cublas", "cusolver"):
            # BLAS/LAPACK enums line up by position only when the argument orders agree:
            # convert only the pairs the overrides name
            pairs = self.overrides.get("enum_pairs", {})
            self.conv.allowed_pairs = {(self.conv.canonical(c), v[0]) for c, v in pairs.items()}
        else:
            self.conv.allowed_pairs = None
        target, _how = self._find_target(api, ep)
        if ep.name in over.get("unsupported", {}):
            return Mapping(ep.name, "unsupported", target, [], status,
                           over["unsupported"][ep.name])
        if ep.name in over.get("shim", {}):
            return Mapping(ep.name, "shim", target, [], status, over["shim"][ep.name])
        if ep.name in over.get("adapter", {}):
            spec = over["adapter"][ep.name]
            if len(spec["args"]) != len(ep.function.params):
                raise ValueError(f"overrides: {api}.adapter.{ep.name} lists {len(spec['args'])}"
                                 f" argument conversions for {len(ep.function.params)} parameters")
            if self.rocm.function(spec["target"]) is None:
                raise ValueError(f"overrides: {api}.adapter.{ep.name}: no ROCm function "
                                 f"{spec['target']}")
            return Mapping(ep.name, "adapter", spec["target"], list(spec["args"]), status,
                           spec["reason"], list(spec.get("extra", [])))
        if api == "runtime" and _takes_host_stub(ep.function):
            # a kernel's host stub or a variable's shadow means nothing to HIP: only hand
            # code that resolves it through the __cudaRegister* records can serve the call
            return Mapping(ep.name, "unsupported", target, [], status,
                           "takes a kernel host stub or variable shadow that HIP cannot "
                           "resolve; no hand-written implementation")
        if target is None:
            lib = {"driver": "HIP", "runtime": "HIP", "cublas": "rocBLAS",
                   "cusolver": "rocSOLVER", "curand": "rocRAND", "cufft": "hipFFT",
                   "cusparse": "rocSPARSE", "cublaslt": "hipBLASLt"}[api]
            return Mapping(ep.name, "unsupported", None, [], status,
                           f"no {lib} counterpart")
        if api == "cublaslt" and _takes_lt_object(ep.function):
            # pyshim's cuBLASLt objects are its own (shim/blaslt keeps every attribute as
            # the program set it and builds hipBLASLt's objects at matmul time): a thunk
            # would hand hipBLASLt a pointer it never made
            return Mapping(ep.name, "unsupported", target, [], status,
                           "takes a cuBLASLt object or attribute, which only pyshim's "
                           "hand-written objects (shim/blaslt) translate to hipBLASLt's")
        fn = self.rocm.function(target)
        args, why = self._convert_args(api, ep, fn)
        if args is None:
            return Mapping(ep.name, "unsupported", target, [], status, why)
        if any(a.startswith(("struct:", "callback", "workspace", "lwork-out", "ignored", "fft-"))
               for a in args):
            cls = "adapter"
        elif any(a.startswith(("enum", "int-cast")) for a in args):
            cls = "converted"
        else:
            cls = "direct"
        if api == "cusolver":
            cls = "adapter"  # the workspace model differs even where no argument shows it
        return Mapping(ep.name, cls, target, args, status)


_FFT_DATA = {"cufftComplex", "cufftDoubleComplex", "cufftReal", "cufftDoubleReal"}
_HOST_STUB_PARAMS = {"func", "symbol", "entry", "funcPtr"}


def _takes_host_stub(fn: Function) -> bool:
    return any(p.name in _HOST_STUB_PARAMS and "void" in p.type for p in fn.params)


def status_of(fn: Function, cuda_api: Api) -> str | None:
    """The return-code conversion for an entry point's return type."""
    ret = fn.ret
    if ret in ("CUresult", "cudaError_t", "cublasStatus_t", "cusolverStatus_t", "curandStatus_t",
               "cufftResult", "cusparseStatus_t"):
        return ret
    return None if ret == "void" else f"value:{ret}"


__all__ = ["CLASSES", "Converter", "Mapper", "Mapping", "base_name", "rule_targets", "status_of"]
