"""The (name, version, per-thread variant) -> symbol map that cuGetProcAddress needs.

cudaTypedefs.h declares one `PFN_<name>_v<version>[_ptds|_ptsz]` typedef per ABI a caller
can ask for. Each is matched to the exported symbol with the same C signature among the
entry point's symbols; where several symbols share a signature (a rename without an ABI
change), the k-th version asks for the k-th symbol in suffix order.
"""

from __future__ import annotations

import re
from collections import defaultdict

from pyshim.tables.clang_parse import Function, parse_header
from pyshim.tables.cuda_api import Api, base_name
from pyshim.tables.fetch import include_dir

_PFN_RE = re.compile(r"^PFN_(\w+?)_v(\d+)(?:_(ptds|ptsz))?$")


def fn_pointer_type(fn: Function) -> str:
    params = ", ".join(p.canonical for p in fn.params) or "void"
    return f"{fn.ret_canonical} (*)({params})"


def _suffix_rank(symbol: str) -> int:
    m = re.search(r"_v(\d+)(?:_pt(?:ds|sz))?$", symbol)
    return int(m.group(1)) if m else 1


class ProcAddressError(RuntimeError):
    pass


def build(driver: Api, *extra: Api) -> list[tuple[str, int, str, str]]:
    """Rows (name, version, variant '' | 'ptds' | 'ptsz', symbol), sorted."""
    inc = [include_dir("cuda13-runtime"), include_dir("cuda13-crt"),
           include_dir("cuda13-profiler")]
    # the legacy (pre-_v2) typedefs exist only under __CUDA_API_VERSION_INTERNAL
    typedefs: dict[str, str] = {}
    for defines in ((), ("__CUDA_API_VERSION_INTERNAL",)):
        typedefs.update(parse_header(inc[0] / "cudaTypedefs.h", inc, files=("/cudaTypedefs.h",),
                                     defines=defines).typedefs)
    typedefs.update(parse_header(inc[0] / "cudaProfilerTypedefs.h", inc,
                                 files=("/cudaProfilerTypedefs.h",)).typedefs)
    symbols = driver.all_symbols()
    for api in extra:
        symbols.update(api.all_symbols())
    by_base: dict[str, list[str]] = defaultdict(list)
    for sym in symbols:
        by_base[base_name(sym)].append(sym)
    # (name, variant, signature) -> versions asking for it
    wanted: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for typedef, canonical in typedefs.items():
        m = _PFN_RE.match(typedef)
        if not m:
            continue
        name, version, variant = m.group(1), int(m.group(2)), m.group(3) or ""
        wanted[(name, variant, canonical)].append(version)
    rows: list[tuple[str, int, str, str]] = []
    unmatched = []
    for (name, variant, canonical), versions in sorted(wanted.items()):
        cands = [s for s in by_base.get(base_name(name), [])
                 if fn_pointer_type(symbols[s]) == canonical
                 and (s.endswith("_" + variant) if variant else not s.endswith(("_ptds", "_ptsz")))]
        cands.sort(key=lambda s: (_suffix_rank(s), s))
        if not cands:
            unmatched.append(f"PFN_{name}_v{versions[0]}{'_' + variant if variant else ''}")
            continue
        for i, version in enumerate(sorted(versions)):
            rows.append((name, version, variant, cands[min(i, len(cands) - 1)]))
    if unmatched:
        raise ProcAddressError("no exported symbol matches " + ", ".join(unmatched[:10]))
    return sorted(rows)
