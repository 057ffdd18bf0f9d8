"""libcublasLt generated C: a weak definition of every exported cuBLASLt symbol, from
tables/cublaslt.json, plus the version script and the export-list stubs.

cuBLASLt's objects are pyshim's own (shim/blaslt keeps every attribute as the program set
it and builds hipBLASLt's objects at heuristic/matmul time), so every entry point that
maps onto hipBLASLt is a `shim` entry of tables/overrides.toml, defined strongly by the
hand-written C, which wins over the weak definition here. Everything else is a
CUBLAS_STATUS_NOT_SUPPORTED stub that logs its name once and is counted (entries that
return something else return 0 / NULL). A direct or converted entry would need a thunk
generator this library does not have: the mapper refuses thunks for entry points taking
cuBLASLt's types, and any other mechanical mapping fails generation loudly.

The table and the hand-written C must agree: every `shim` entry is defined in shim/blaslt
(LT_EXPORT) and every cublasLt* function shim/blaslt exports is a `shim` entry, so the
tables' classes say what the library does.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from pyshim.codegen import common, export_stubs
from pyshim.codegen.common import STAMP, declare, load_table, param_names

LIB = "cublasLt"          # the C files' prefix and export_stubs kind
TABLE = "cublaslt"        # tables/cublaslt.json
SONAME = "libcublasLt.so.13"
STATUS = ("cublasStatus_t", "CUBLAS_STATUS_NOT_SUPPORTED")
OWN_EXPORTS = ("pyshim_cublaslt_unsupported_count",)
HAND_DIR = Path(__file__).resolve().parents[2] / "shim" / "blaslt"
_HAND_EXPORT = re.compile(r"^LT_EXPORT\s+[\w\s\*]*?\b(\w+)\s*\(", re.M)


def hand_exports(folder: Path = HAND_DIR) -> list[str]:
    """The cublasLt* entry points shim/blaslt's C defines (LT_EXPORT ...)."""
    names = {m.group(1) for src in sorted(folder.glob("*.c"))
             for m in _HAND_EXPORT.finditer(src.read_text())}
    return sorted(n for n in names if n.startswith("cublasLt"))


def check_hand(table: dict, hand: list[str]) -> None:
    """The table's `shim` entries are exactly what the hand-written C defines."""
    shim = {s for e in table["entry_points"].values() if e["class"] == "shim"
            for s in e["symbols"]}
    missing, unlisted = sorted(shim - set(hand)), sorted(set(hand) - shim)
    if missing or unlisted:
        raise ValueError(
            "tables/cublaslt.json and shim/blaslt disagree: "
            + (f"shim entries with no hand-written definition: {', '.join(missing)}; "
               if missing else "")
            + (f"hand-written definitions not in [cublaslt.shim]: {', '.join(unlisted)}"
               if unlisted else ""))


def _stub(symbol: str, sig: dict) -> str:
    status_t, not_supported = STATUS
    if sig["ret"] == "void":
        ret = "    return;\n"
    else:
        ret = f"    return {not_supported if sig['ret'] == status_t else '0'};\n"
    unused = "".join(f"    (void){n};\n" for n in param_names(sig))
    return (f"{declare(symbol, sig, attrs='PYSHIM_WEAK ')}\n{{\n{unused}"
            f'    pyshim_cublaslt_unsupported("{symbol}");\n{ret}}}\n')


def thunks(table: dict) -> str:
    out = [STAMP,
           "/* Every exported cuBLASLt symbol, weak: shim/blaslt's strong definitions win. */\n",
           "#include <stddef.h>\n#include <stdint.h>\n\n#include \"cublaslt_internal.h\"\n\n",
           '#define PYSHIM_WEAK __attribute__((weak, visibility("default")))\n',
           '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n\n']
    for name, entry in sorted(table["entry_points"].items()):
        if entry["class"] in ("direct", "converted", "adapter"):
            raise ValueError(f"tables/cublaslt.json: {name} is {entry['class']} -> "
                             f"{entry['target']}, but cuBLASLt has no thunk generator: name "
                             "it in [cublaslt.shim] (hand-written) or [cublaslt.unsupported]")
        for symbol, sig in sorted(entry["symbols"].items()):
            out.append(_stub(symbol, sig) + "\n")
    return "".join(out)


def exported_symbols(table: dict) -> list[str]:
    names = {s for e in table["entry_points"].values() for s in e["symbols"]}
    return sorted(names | set(OWN_EXPORTS))


def files(typedefs: dict | None = None, table: dict | None = None,
          hand: list[str] | None = None) -> dict[str, str]:
    """File name -> text: cublasLt_thunks.c, cublasLt_export_stubs.c, cublasLt_exports.txt
    and libcublasLt.so.13.map."""
    typedefs = typedefs if typedefs is not None else load_table("typedefs")
    table = table if table is not None else load_table(TABLE)
    check_hand(table, hand_exports() if hand is None else hand)
    syms = exported_symbols(table)
    # NVIDIA's exports no pinned header declares: stubs in their own translation unit
    extra = export_stubs.extras(SONAME, syms)
    syms = sorted({*syms, *extra})
    return {f"{LIB}_thunks.c": thunks(table),
            f"{LIB}_export_stubs.c": export_stubs.source(SONAME, LIB, extra, typedefs),
            f"{LIB}_exports.txt": "\n".join(syms) + "\n",
            f"{SONAME}.map": common.version_script(SONAME, syms)}


def generate(out_dir: Path) -> list[Path]:
    return common.write_changed(out_dir, files())


if __name__ == "__main__":
    for p in generate(Path(sys.argv[1] if len(sys.argv) > 1 else "build/blas/gen")):
        print(p)
