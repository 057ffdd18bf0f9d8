"""Which driver and runtime symbols the shim libraries really implement.

Every exported symbol gets a weak definition from the generators (codegen/driver.py,
codegen/runtime.py): a forwarding thunk, or a stub that only says NOT_SUPPORTED. A symbol is
implemented when its weak definition is a thunk, or when the hand-written C (shim/core for
libcuda.so.1, shim/runtime for libcudart.so.N) gives it a strong definition that does more
than refuse. The tables' class alone ("adapter", "shim") says what an entry point *needs*,
not that anyone wrote it: `tables stats` counts through this module so that a stub is never
counted as a feature.

The C is read, not compiled: comments and strings are blanked, the few preprocessor
conditionals the shim uses are evaluated for the library's CUDA major, and every
non-static function definition at file scope is collected with its body.
tests/test_stub_only.py checks the result against the built libraries' symbol tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pyshim.codegen.common import load_table
from pyshim.paths import SHIM_DIR, TABLES_DIR

CORE_DIR = SHIM_DIR / "core"
RUNTIME_DIR = SHIM_DIR / "runtime"
APIS = ("driver", "runtime")
RUNTIME_MAJOR = 13  # runtime.json describes CUDA 13's ABI


@dataclass(frozen=True)
class Definitions:
    thunks: frozenset[str]        # weak generated definitions that forward
    strong: frozenset[str]        # hand-written definitions that do the work
    strong_stubs: frozenset[str]  # hand-written definitions that only refuse

    def implemented(self, symbol: str) -> bool:
        return symbol in self.strong or (symbol in self.thunks
                                         and symbol not in self.strong_stubs)


# ---------------------------------------------------------------- reading C


def _blank(m: re.Match) -> str:
    # keep newlines so that preprocessor lines stay lines
    return re.sub(r"[^\n]", " ", m.group(0))


_COMMENTS_STRINGS = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
                               re.S)


def _eval_condition(expr: str, macros: dict[str, int]) -> bool:
    expr = re.sub(r"defined\s*\(?\s*(\w+)\s*\)?",
                  lambda m: "1" if m.group(1) in macros else "0", expr)
    expr = re.sub(r"[A-Za-z_]\w*", lambda m: str(macros.get(m.group(0), 0)), expr)
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    if not re.fullmatch(r"[\d\s()<>=!+\-*/andornt]*", expr):
        raise ValueError(f"preprocessor condition not understood: {expr!r}")
    return bool(eval(expr, {"__builtins__": {}}))  # digits and operators only (checked)


def preprocess(text: str, macros: dict[str, int]) -> str:
    """Comments and strings blanked, lines of inactive conditional branches blanked, the
    file's own function-like macros expanded (memcpy.c defines its copies with them)."""
    text = _COMMENTS_STRINGS.sub(_blank, text)
    text = re.sub(r"\\\n", "  ", text)
    out, stack = [], []  # stack: (this branch active, some branch taken, parent active)
    defines: dict[str, tuple[list[str], str]] = {}
    for line in text.split("\n"):
        m = re.match(r"\s*#\s*(\w+)(.*)", line)
        active = all(s[0] for s in stack)
        if m:
            word, rest = m.group(1), m.group(2).strip()
            fn = re.match(r"(\w+)\(([^)]*)\)(.*)", rest)
            if word == "define" and active and fn:
                params = [p.strip() for p in fn.group(2).split(",") if p.strip()]
                defines[fn.group(1)] = (params, fn.group(3))
            elif word == "undef":
                defines.pop(rest.split()[0], None)
            if word in ("if", "ifdef", "ifndef"):
                if word == "if":
                    cond = _eval_condition(rest, macros)
                else:
                    cond = (rest.split()[0] in macros) == (word == "ifdef")
                stack.append([active and cond, cond, active])
            elif word == "elif":
                top = stack[-1]
                cond = not top[1] and _eval_condition(rest, macros)
                top[0], top[1] = top[2] and cond, top[1] or cond
            elif word == "else":
                top = stack[-1]
                top[0], top[1] = top[2] and not top[1], True
            elif word == "endif":
                stack.pop()
            out.append("")
            continue
        out.append(line if active else "")
    text = "\n".join(out)
    for _round in range(4):  # macros that use macros
        expanded = _expand(text, defines)
        if expanded == text:
            break
        text = expanded
    return text


def _call_args(text: str, i: int) -> tuple[list[str], int] | None:
    """The comma-separated arguments of a macro call whose `(` is at i, and the index
    after its `)`."""
    depth, args, cur = 0, [], i + 1
    for j in range(i, len(text)):
        c = text[j]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append(text[cur:j])
                return [a.strip() for a in args], j + 1
        elif c == "," and depth == 1:
            args.append(text[cur:j])
            cur = j + 1
    return None


def _expand(text: str, defines: dict[str, tuple[list[str], str]]) -> str:
    if not defines:
        return text
    name_re = re.compile(r"\b(" + "|".join(map(re.escape, defines)) + r")\s*\(")
    out, pos = [], 0
    for m in name_re.finditer(text):
        if m.start() < pos:
            continue
        call = _call_args(text, m.end() - 1)
        if call is None:
            continue
        args, end = call
        params, body = defines[m.group(1)]
        if len(args) != len(params) and not (params == [] and args == [""]):
            continue
        values = dict(zip(params, args, strict=False))
        body = re.sub(r"#\s*(\w+)", lambda b, v=values: "  " if b.group(1) in v else b.group(0),
                      body.replace("##", "\x00"))
        body = re.sub(r"\b\w+\b", lambda t, v=values: v.get(t.group(0), t.group(0)), body)
        out += [text[pos:m.start()], re.sub(r"\s*\x00\s*", "", body)]
        pos = end
    return "".join(out) + text[pos:]


_DECLARATOR = re.compile(r"(\w+)\s*\(([^()]|\([^()]*\))*\)\s*$", re.S)


def functions(text: str) -> dict[str, str]:
    """name -> body of every non-static function defined at file scope of preprocessed C."""
    out: dict[str, str] = {}
    depth, start, i = 0, 0, 0
    head_start = 0
    while i < len(text):
        c = text[i]
        if c == "{":
            if depth == 0:
                head = text[head_start:i]
                start = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                m = _DECLARATOR.search(head)
                words = head.split()
                # `struct s {` has no declarator; static functions are not exported
                if m and "=" not in head and not (words and words[0] in ("static", "typedef")):
                    out[m.group(1)] = text[start + 1:i]
                head_start = i + 1
        elif c == ";" and depth == 0:
            head_start = i + 1
        i += 1
    return out


_STATEMENT_STUB = re.compile(
    r"\(void\)\s*\w+|"
    r"pyshim_(rt_)?unsupported\s*\([^;]*\)|"
    r"return\s+(CUDA_ERROR_NOT_SUPPORTED|cudaErrorNotSupported|"
    r"\(cudaError_t\)\s*PYSHIM_RT_cudaErrorNotSupported|PYSHIM_RT_cudaErrorNotSupported|"
    r"pyshim_rt_unsupported\s*\([^;]*\)|pyshim_rt_note_unsupported\s*\([^;]*\))")


def only_refuses(body: str) -> bool:
    """A body whose every statement is `(void)arg;`, a not-supported log call or a
    not-supported return: a stub written by hand."""
    statements = [s.strip() for s in body.split(";") if s.strip()]
    return bool(statements) and all(_STATEMENT_STUB.fullmatch(s) for s in statements)


def c_definitions(paths: list[Path], macros: dict[str, int]) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in paths:
        out.update(functions(preprocess(path.read_text(), macros)))
    return out


def _split(defs: dict[str, str], exported: set[str]) -> tuple[frozenset[str], frozenset[str]]:
    strong = {n for n in defs if n in exported}
    stubs = {n for n in strong if only_refuses(defs[n])}
    return frozenset(strong - stubs), frozenset(stubs)


# ---------------------------------------------------------------- per library


def driver_sources() -> list[Path]:
    return sorted(CORE_DIR.glob("*.c"))


def runtime_sources() -> list[Path]:
    return sorted(RUNTIME_DIR.glob("*.c"))


def runtime_macros(major: int) -> dict[str, int]:
    # CUDART_VERSION as the headers the library is compiled against define it
    return {"PYSHIM_CUDART_MAJOR": major, "CUDART_VERSION": 13000 if major == 13 else 12090}


@cache
def driver(tables_dir: Path = TABLES_DIR) -> Definitions:
    from pyshim.codegen import driver as gen

    table, rocm = load_table("driver", tables_dir), load_table("rocm", tables_dir)
    made = gen.bodies(table, rocm)
    thunks = frozenset(s for s, _b, is_thunk in made if is_thunk)
    strong, stubs = _split(c_definitions(driver_sources(), {}), {s for s, _b, _t in made})
    return Definitions(thunks, strong, stubs)


@cache
def runtime(major: int = RUNTIME_MAJOR, tables_dir: Path = TABLES_DIR) -> Definitions:
    from pyshim.codegen import runtime as gen

    tables = [load_table(n, tables_dir) for n in ("runtime", "cuda12", "rocm", "enums")]
    made = gen.bodies(major, *tables)
    thunks = frozenset(s for s, _b, is_thunk in made if is_thunk)
    exported = set(gen.exported(major, tables[0], tables[1]))
    strong, stubs = _split(c_definitions(runtime_sources(), runtime_macros(major)), exported)
    return Definitions(thunks, strong, stubs)


def definitions(api: str, tables_dir: Path = TABLES_DIR) -> Definitions:
    if api == "driver":
        return driver(tables_dir)
    if api == "runtime":
        return runtime(RUNTIME_MAJOR, tables_dir)
    raise ValueError(f"no definitions are read for the {api} API")


def implemented(api: str, entry: dict, tables_dir: Path = TABLES_DIR) -> bool:
    """Whether the entry point's primary symbol does anything but refuse."""
    return definitions(api, tables_dir).implemented(entry["primary"])
