"""Coverage figures read from the committed tables (no headers needed)."""

from __future__ import annotations

import json
import re
import tomllib
from functools import cache
from pathlib import Path

from pyshim.codegen import defined
from pyshim.paths import REPO_DIR, TABLES_DIR
from pyshim.tables.mapping import CLASSES

API_KEYS = ("driver", "runtime", "cublas", "cusolver", "curand", "cufft", "cusparse",
            "cublaslt")
MAPPED_CLASSES = ("direct", "converted", "adapter", "shim")


def load(key: str, tables_dir: Path = TABLES_DIR) -> dict:
    with open(tables_dir / f"{key}.json") as f:
        return json.load(f)


# Shim implementations with no HIP target that count as mapped: each names the test that
# shows it doing what CUDA documents on every backend (hand-written, like overrides.toml)
TESTED_FILE = TABLES_DIR / "tested.toml"


@cache
def listed_tests(api: str) -> dict[str, str]:
    """Entry point -> the test (`tests/<file>.py::<function>`) named for it."""
    if not TESTED_FILE.exists():
        return {}
    with open(TESTED_FILE, "rb") as f:
        return dict(tomllib.load(f).get(api, {}))


def names_a_test(node: str) -> bool:
    """`tests/<file>.py::<function>` names a test function that is there."""
    file, _, func = node.partition("::")
    path = REPO_DIR / file
    return (file.startswith("tests/") and func.isidentifier() and path.is_file()
            and re.search(rf"^def {func}\(", path.read_text(), re.M) is not None)


@cache
def _tested_primaries(api: str) -> frozenset[str]:
    eps = load(api)["entry_points"]
    return frozenset(eps[n]["primary"] for n, node in listed_tests(api).items()
                     if n in eps and names_a_test(node))


def shim_without_target(entry: dict, api: str) -> bool:
    """Implemented by hand in the shim over HIP calls and its own state, no HIP target."""
    return (api in defined.APIS and entry["class"] == "shim" and entry["target"] is None
            and defined.implemented(api, entry))


def is_mapped(entry: dict, api: str) -> bool:
    """An existing ROCm target and a complete conversion; for the driver and runtime APIs
    also a definition that does the work (codegen/defined.py): a table row whose symbol is
    only a generated NOT_SUPPORTED stub is not a mapped entry point. A shim implementation
    with no HIP target counts once tables/tested.toml names the test that shows it."""
    if shim_without_target(entry, api):
        return entry["primary"] in _tested_primaries(api)
    if entry["target"] is None or entry["class"] not in MAPPED_CLASSES:
        return False
    return api not in defined.APIS or defined.implemented(api, entry)


def stub_only(entry: dict, api: str) -> bool:
    """Mapped by the tables, but nothing but a stub defines it."""
    return (api in defined.APIS and entry["target"] is not None
            and entry["class"] in MAPPED_CLASSES and not defined.implemented(api, entry))


def stats(tables_dir: Path = TABLES_DIR) -> dict[str, dict]:
    from pyshim.check.backends import CPU, table_gaps

    # mapped entry points whose HIP target the CPU device also has (driver and runtime; the
    # CPU device's BLAS libraries have their own stub lists, not counted here)
    cpu_gaps = table_gaps(tables_dir)
    out = {}
    for key in API_KEYS:
        eps = load(key, tables_dir)["entry_points"]
        by_class = {c: 0 for c in CLASSES}
        for e in eps.values():
            by_class[e["class"]] += 1
        honest = key in defined.APIS
        out[key] = {
            "entry_points": len(eps),
            "symbols": sum(len(e["symbols"]) for e in eps.values()),
            "mapped": sum(1 for e in eps.values() if is_mapped(e, key)),
            # every entry point with a working definition, a HIP target or not
            "implemented": (sum(1 for e in eps.values() if defined.implemented(key, e))
                            if honest else None),
            "stub_only": (sum(1 for e in eps.values() if stub_only(e, key))
                          if honest else None),
            "unsupported": by_class["unsupported"],
            "by_class": by_class,
            "cpu_device": (sum(1 for n, e in eps.items() if is_mapped(e, key)
                               and CPU not in cpu_gaps[key].get(n, {}))
                           if key in cpu_gaps else None),
        }
    return out


def format_text(s: dict[str, dict]) -> str:
    cols = ("entry points", "symbols", "mapped", "cpu device", "implemented",
            "stub only") + CLASSES
    lines = [f"{'api':<10}" + "".join(f"{c:>13}" for c in cols)]
    for key, row in s.items():
        cpu, impl, stubs = ("-" if row.get(k) is None else row[k]
                            for k in ("cpu_device", "implemented", "stub_only"))
        vals = [row["entry_points"], row["symbols"], row["mapped"], cpu, impl, stubs] + \
            [row["by_class"][c] for c in CLASSES]
        lines.append(f"{key:<10}" + "".join(f"{v:>13}" for v in vals))
    return "\n".join(lines + ["", *LEGEND])


LEGEND = (
    "mapped: a HIP target, a complete conversion and a definition that does the work (no",
    "  NOT_SUPPORTED stub), or, for driver and runtime entry points implemented in the shim",
    "  over HIP calls and its own state with no HIP target, a test named in",
    "  tables/tested.toml showing the documented behaviour; `--unsupported` lists the rest",
)


def export_stats(tables_dir: Path = TABLES_DIR) -> dict[str, dict]:
    """Per replaced soname: how many symbols NVIDIA's library exports
    (tables/exports/<soname>.txt), how many of them the header-derived tables define, and
    how many only the export list gives (NOT_SUPPORTED stubs with no signature)."""
    from pyshim.codegen import blas, blaslt, export_stubs, nccl, randfft, runtime, sparse
    from pyshim.tables import exports

    out = {}
    for lib in exports.LIBRARIES:
        if lib.api == "runtime":
            major = int(lib.soname.rsplit(".", 1)[1])
            defined = runtime.exported(major, load("runtime", tables_dir),
                                       load("cuda12", tables_dir))
        elif lib.api in randfft.LIBS:
            defined = randfft.exported_symbols(lib.api, load(lib.api, tables_dir))
        elif lib.api in blas.REFUSED_ONLY:
            # no table: every name a refusal
            defined = list(blas.OWN_EXPORTS[lib.api])
        elif lib.api == blaslt.TABLE:
            defined = blaslt.exported_symbols(load(lib.api, tables_dir))
        elif lib.api == "nccl":
            defined = nccl.exported_symbols(load("nccl", tables_dir))
        elif lib.api in sparse.LIBS:
            defined = sparse.exported_symbols(lib.api, load(lib.api, tables_dir))
        else:
            defined = blas.exported_symbols(lib.api, load(lib.api, tables_dir))
        listed = exports.load(lib.soname, tables_dir / "exports")
        stubs = export_stubs.extras(lib.soname, defined)
        out[lib.soname] = {"nvidia": len(listed), "from_headers": len(listed) - len(stubs),
                           "export_list_stubs": len(stubs)}
    return out


def format_exports(s: dict[str, dict]) -> str:
    cols = ("NVIDIA exports", "from headers", "list-only stubs")
    lines = [f"{'soname':<20}" + "".join(f"{c:>17}" for c in cols)]
    for soname, row in s.items():
        vals = (row["nvidia"], row["from_headers"], row["export_list_stubs"])
        lines.append(f"{soname:<20}" + "".join(f"{v:>17}" for v in vals))
    return "\n".join(lines)


# Feature areas of the entry points not mapped, by name (first match wins): what a reader of
# `pyshim tables stats --unsupported` looks for ("is cooperative launch there?").
AREAS: tuple[tuple[str, str], ...] = (
    ("arrays, textures, surfaces", r"Array|Mipmapped|Tex(Ref|Object)|Texture|Surf"),
    ("green contexts and device resources", r"GreenCtx|DevResource|DevSmResource"),
    ("thread-block clusters", r"Cluster"),
    ("tensor maps (TMA)", r"TensorMap"),
    ("multicast objects", r"Multicast"),
    ("checkpoint / restore", r"Checkpoint"),
    ("logs", r"Logs"),
    ("coredumps", r"Coredump"),
    ("batched memory operations", r"Batch"),
    ("pre-CUDA-4.0 launches", r"^cu(Launch|LaunchGrid|LaunchGridAsync|ParamSet\w*|"
                              r"FuncSetBlockShape|FuncSetSharedSize)$"),
    ("graphs", r"Graph(?!ics)"),
    ("interop: graphics, external memory, NvSci, RDMA", r"Graphics|External|NvSci|RDMA"),
    ("contexts and streams", r"Ctx|Stream"),
    ("memory", r"Mem|Memcpy|Memset|Prefetch|Advise"),
)


def area(name: str) -> str:
    for label, pattern in AREAS:
        if re.search(pattern, name):
            return label
    return "other"


def not_mapped(tables_dir: Path = TABLES_DIR,
               apis: tuple[str, ...] = ("driver", "runtime")) -> dict[str, dict[str, list]]:
    """Per API, per feature area: every entry point not counted as mapped, with why (the
    table's reason; shim-implemented ones without a HIP target say so)."""
    out: dict[str, dict[str, list]] = {}
    for key in apis:
        groups: dict[str, list] = {}
        for name, e in sorted(load(key, tables_dir)["entry_points"].items()):
            if is_mapped(e, key):
                continue
            why = e.get("reason") or e["class"]
            if stub_only(e, key):
                why = (f"only a NOT_SUPPORTED stub is defined (the tables map it: "
                       f"{e['class']} -> {e['target']})")
            elif shim_without_target(e, key):
                why = (f"implemented in the shim, no HIP target, no test named in "
                       f"tables/tested.toml (not counted): {why}")
            groups.setdefault(area(name), []).append([name, why])
        out[key] = dict(sorted(groups.items(),
                               key=lambda kv: (kv[0] == "other", -len(kv[1]), kv[0])))
    return out


def format_not_mapped(groups: dict[str, dict[str, list]]) -> str:
    lines = []
    for key, areas in groups.items():
        total = sum(len(v) for v in areas.values())
        lines.append(f"{key}: {total} entry points not mapped")
        for label, rows in areas.items():
            lines.append(f"  {label} ({len(rows)})")
            width = max(len(n) for n, _ in rows)
            lines += [f"    {n:<{width}}  {why}" for n, why in rows]
    return "\n".join(lines)
