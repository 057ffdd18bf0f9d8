"""libnccl.so.2's C from tables/nccl.json: a thunk per nccl.h entry point RCCL has, which
calls RCCL's function of that name in librccl.so.1 (dlopen'd, RTLD_LOCAL: both libraries
define the same names), a refusal for the others, and the `pnccl*` profiling twins.

Two things differ between the ABIs and are converted here: a CUDA stream is the HIP stream
of the same handle (pyshim's runtime hands out HIP's), and ncclConfig_t is copied field by
field into RCCL's shorter config (the fields RCCL lacks are hints that it cannot honour).
"""

from __future__ import annotations

from pathlib import Path

from pyshim.codegen.common import STAMP, load_table, write_changed
from pyshim.tables import exports

SONAME = "libnccl.so.2"
RCCL_SONAME = "librccl.so.1"
WEAK = '__attribute__((weak, visibility("default")))'


def _param(name: str, ctype: str) -> str:
    return f"{ctype}{'' if ctype.endswith('*') else ' '}{name}"


def _decl(name: str, f: dict) -> str:
    params = ", ".join(_param(n, t) for n, t in f["params"]) or "void"
    return f"{f['ret']} {name}({params})"


def _failure(ret: str) -> str:
    if ret == "void":
        return "return;"
    if ret == "ncclResult_t":
        return "return ncclInternalError;"
    return "return NULL;" if ret.endswith("*") else "return 0;"


def _thunk(name: str, f: dict) -> str:
    target = f["target"]
    fptr_params = []
    pre, args = [], []
    for n, t in f["params"]:
        if t == "cudaStream_t":
            fptr_params.append("void *")
            args.append(f"pyshim_nccl_stream({n})")
        elif t == "ncclConfig_t *":
            fptr_params.append("void *")
            pre.append(f"    pyshim_rccl_config rc_{n};\n")
            args.append(f"pyshim_nccl_config(\"{name}\", {n}, &rc_{n})")
        else:
            fptr_params.append(t)
            args.append(n)
    call = f"((fn_t)fn)({', '.join(args)})"
    body = "".join(pre)
    ret = f["ret"]
    ret_stmt = f"    {call};\n" if ret == "void" else f"    return {call};\n"
    return (f"{WEAK} {_decl(name, f)}\n{{\n"
            f"    typedef {ret} (*fn_t)({', '.join(fptr_params) or 'void'});\n"
            "    static void *fn;\n"
            f"    if (!pyshim_nccl_resolve(\"{target}\", &fn))\n        {_failure(ret)}\n"
            f"{body}{ret_stmt}}}\n\n")


def _refusal(name: str, f: dict) -> str:
    ret = f["ret"]
    if ret == "ncclResult_t":
        body = f'    return pyshim_nccl_refuse("{name}", "{f["reason"]}");\n'
    else:
        body = f'    (void)pyshim_nccl_refuse("{name}", "{f["reason"]}");\n    {_failure(ret)}\n'
    unused = "".join(f"    (void){n};\n" for n, _ in f["params"])
    return f"{WEAK} {_decl(name, f)}\n{{\n{unused}{body}}}\n\n"


def _twin(name: str, f: dict) -> str:
    """pnccl<X>: NVIDIA's profiling interface names the same function twice"""
    args = ", ".join(n for n, _ in f["params"])
    call = f"{name}({args})"
    stmt = f"    {call};\n" if f["ret"] == "void" else f"    return {call};\n"
    return f"{WEAK} {_decl('p' + name, f)};\n{WEAK} {_decl('p' + name, f)}\n{{\n{stmt}}}\n\n"


def config_source(table: dict) -> str:
    cfg = table["config"]
    nccl = {n: (off, size) for n, off, size in cfg["nccl"]}
    missing = [n for n in cfg["rccl"] if n not in nccl]
    if missing:
        raise ValueError(f"RCCL's ncclConfig_t fields {missing} are not in nccl.h's")
    out = ["typedef struct pyshim_rccl_config {\n"]
    for n in cfg["rccl"]:
        out.append(f"    __typeof__(((ncclConfig_t *)0)->{n}) {n};\n")
    out.append("} pyshim_rccl_config;\n\n")
    out.append("static inline void pyshim_nccl_config_copy(const ncclConfig_t *c, "
               "pyshim_rccl_config *r)\n{\n")
    for n in cfg["rccl"]:
        if n not in ("size", "version"):
            out.append(f"    if (c->size >= offsetof(ncclConfig_t, {n}) + sizeof c->{n})\n"
                       f"        r->{n} = c->{n};\n")
    out.append("    r->size = sizeof *r;\n}\n")
    return "".join(out)


def exported_symbols(table: dict) -> list[str]:
    """What the header-derived table gives libnccl.so.2: each entry point and its pnccl twin."""
    return sorted({*table["functions"], *("p" + n for n in table["functions"])})


def generate(out_dir: Path) -> list[Path]:
    table = load_table("nccl")
    results = table["results"]
    files: dict[str, str] = {}
    files["nccl_config.h"] = (STAMP + "#ifndef PYSHIM_NCCL_CONFIG_H\n#define PYSHIM_NCCL_CONFIG_H\n"
                              "#include <stddef.h>\n#include <nccl.h>\n"
                              + config_source(table) + "#endif\n")
    parts = [STAMP, "#include <stddef.h>\n#include <nccl.h>\n#include \"nccl_internal.h\"\n\n"]
    for name, f in sorted(table["functions"].items()):
        parts.append(_thunk(name, f) if f["target"] else _refusal(name, f))
        parts.append(_twin(name, f))
    files["nccl_thunks.c"] = "".join(parts)
    defined = set(exported_symbols(table))
    extra = exports.extra_symbols(SONAME, defined)
    refuse = results["ncclInvalidUsage"]
    stubs = [STAMP, f"/* {SONAME}: symbols NVIDIA's library exports that nccl.h does not "
             "declare (its device-side API's host helpers, internal entry points):\n"
             " * ncclInvalidUsage, logged by name. */\n",
             f"#define PYSHIM_EXPORT {WEAK}\n",
             "int pyshim_nccl_refuse(const char *name, const char *why);\n\n"]
    for sym in extra:
        stubs.append(f"PYSHIM_EXPORT int {sym}(void);\nPYSHIM_EXPORT int {sym}(void)\n{{\n"
                     f'    pyshim_nccl_refuse("{sym}", "not declared by nccl.h");\n'
                     f"    return {refuse}; /* ncclInvalidUsage */\n}}\n\n")
    files["nccl_export_stubs.c"] = "".join(stubs)
    syms = sorted(defined | set(extra))
    files[f"{SONAME}.map"] = ("{\n  global:\n" + "".join(f"    {s};\n" for s in syms)
                              + "  local: *;\n};\n")
    files["nccl_exports.txt"] = "\n".join(syms) + "\n"
    return write_changed(out_dir, files)

