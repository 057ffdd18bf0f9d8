"""What the dispatch tables say about an entry point, looked up by exported symbol name.

`pyshim check` never decides a status itself: every status comes from tables/*.json (the
class the generator gave the entry point), so the report changes when the tables do.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pyshim.paths import TABLES_DIR
from pyshim.tables.stats import stub_only

# table key -> the soname pyshim's replacement library carries (the version node of its
# symbols, or the library that exports them unversioned)
TABLE_LIBRARIES = {
    "driver": "libcuda.so.1",
    "runtime": "libcudart.so",
    "cublas": "libcublas.so",
    "cusolver": "libcusolver.so",
    "curand": "libcurand.so",
    "cufft": "libcufft.so",
    "cusparse": "libcusparse.so",
    "cublaslt": "libcublasLt.so",
}


@dataclass(frozen=True)
class Status:
    """The tables' verdict on one exported symbol."""

    api: str  # driver | runtime | cublas | cusolver
    entry_point: str  # the entry point the symbol belongs to (cuMemAlloc for cuMemAlloc_v2)
    status: str  # direct | converted | adapter | shim | unsupported
    target: str | None
    reason: str | None


class Tables:
    """Symbol -> Status for every API, plus the driver's cuGetProcAddress names."""

    def __init__(self, tables_dir: Path = TABLES_DIR) -> None:
        self.by_symbol: dict[str, Status] = {}
        self.driver_names: dict[str, int] = {}  # cuGetProcAddress name -> first version
        self.driver_symbol_versions: dict[str, int] = {}  # versioned symbol -> version
        for api in TABLE_LIBRARIES:
            path = tables_dir / f"{api}.json"
            try:
                with open(path) as f:
                    data = json.load(f)
            except OSError as exc:
                raise FileNotFoundError(f"dispatch table {path} is missing ({exc})") from exc
            for name, ep in data["entry_points"].items():
                if stub_only(ep, api):
                    # the tables map it, but the library defines only a refusing stub
                    st = Status(api=api, entry_point=name, status="unsupported",
                                target=None, reason="only a NOT_SUPPORTED stub is defined")
                else:
                    st = Status(api=api, entry_point=name, status=ep["class"],
                                target=ep.get("target"), reason=ep.get("reason"))
                for sym in ep["symbols"]:
                    self.by_symbol.setdefault(sym, st)
                self.by_symbol.setdefault(name, st)
            if api == "driver":
                for name, version, _flags, symbol in data.get("proc_address", []):
                    self.driver_names[name] = min(version, self.driver_names.get(name, version))
                    prev = self.driver_symbol_versions.get(symbol, version)
                    self.driver_symbol_versions[symbol] = min(prev, version)

    def lookup(self, symbol: str) -> Status | None:
        return self.by_symbol.get(symbol)

    def driver_status(self, name: str) -> Status | None:
        """Status of a cuGetProcAddress name (a base name such as cuMemAlloc)."""
        st = self.by_symbol.get(name)
        return st if st is not None and st.api == "driver" else None


@cache
def load(tables_dir: Path = TABLES_DIR) -> Tables:
    return Tables(tables_dir)
