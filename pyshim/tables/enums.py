"""Enum value maps between a CUDA enum and its ROCm counterpart, by constant name.

Constants are matched after dropping each enum's common prefix and case/underscores
(`CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK` ~ `hipDeviceAttributeMaxThreadsPerBlock`);
the overrides add synonyms where the names differ (`CUBLAS_OP_N` -> `rocblas_operation_none`).
"""

from __future__ import annotations

import os


def _strip_prefix(names: list[str]) -> dict[str, str]:
    if len(names) < 2:
        return {n: n for n in names}
    prefix = os.path.commonprefix(names)
    # never cut into a word: back up to the last separator or case change
    probe = names[0]
    cut = len(prefix)
    while cut and not (probe[cut - 1] == "_" or (cut < len(probe) and probe[cut].isupper()
                                                  and probe[cut - 1].islower())):
        cut -= 1
    return {n: n[cut:] for n in names}


def normalise(s: str) -> str:
    return s.replace("_", "").lower()


_API_PREFIXES = ("cuda", "cu", "hip", "rocblas", "rocsolver")


def _neutral(name: str) -> str:
    n = normalise(name)
    for p in _API_PREFIXES:
        if n.startswith(p):
            return n[len(p):]
    return n


def match(cuda: dict[str, int], rocm: dict[str, int],
          synonyms: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """CUDA constant -> ROCm constant, and the CUDA constants left without a partner."""
    c_short = _strip_prefix(sorted(cuda))
    r_short = _strip_prefix(sorted(rocm))
    r_by_norm: dict[str, str] = {}
    for name, short in sorted(r_short.items()):
        r_by_norm.setdefault(normalise(short), name)
    # twins that differ only in the API prefix (cudaLimitStackSize ~ hipLimitStackSize),
    # for enums whose common prefixes differ in length
    r_neutral = {}
    for name in sorted(rocm):
        r_neutral.setdefault(_neutral(name), name)
    out: dict[str, str] = {}
    missing: list[str] = []
    for name in sorted(cuda, key=lambda n: (cuda[n], n)):
        if name in synonyms:
            if synonyms[name] in rocm:
                out[name] = synonyms[name]
            else:
                missing.append(name)
            continue
        partner = r_by_norm.get(normalise(c_short[name])) or r_neutral.get(_neutral(name))
        if partner is None:
            missing.append(name)
        else:
            out[name] = partner
    return out, missing


def value_map(cuda: dict[str, int], rocm: dict[str, int], names: dict[str, str]) -> dict[int, int]:
    """CUDA value -> ROCm value (first constant wins where several share a value)."""
    out: dict[int, int] = {}
    for c_name, r_name in names.items():
        out.setdefault(cuda[c_name], rocm[r_name])
    return dict(sorted(out.items()))


def is_identity(cuda: dict[str, int], rocm: dict[str, int], names: dict[str, str]) -> bool:
    return len(names) == len(cuda) and all(cuda[c] == rocm[r] for c, r in names.items())
