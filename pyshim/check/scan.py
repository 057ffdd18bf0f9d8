"""A module's translate verdict from a per-instruction scan (issue 23 point 5), without
translating the whole module: `pyshim check`'s default; `--deep` dry-runs the translator.

The module is parsed and validated as the translator would (same errors), then every
instruction and declaration is reduced to its *shape*: opcode, modifiers, and per operand
its kind with its register's declared type or its symbol's kind. The emitter's decisions
depend on those, so a shape that translated once translates again. Shapes not yet known
(`memo`, shared by all modules of a check) are learned by dry-running the kernels that hold
them, one kernel (with the functions it calls) at a time, until every shape of the module
is known. A module where one of those fails, or that the scan cannot reduce (no kernels,
32-bit addresses, an index it cannot split), gets the full dry run, whose message is the
one reported. Verdicts are cached by PTX hash in the kernel cache.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

from pyshim.check import translate_probe
from pyshim.check.translate_probe import Outcome

_TRAILING_DIGITS = re.compile(r"\d+$")
_VERDICT_SUFFIX = ".check.json"


def _reg_types(decls: list) -> tuple[dict[str, str], dict[str, str]]:
    exact: dict[str, str] = {}
    prefix: dict[str, str] = {}
    for v in decls:
        if v.space == "reg":
            t = f"{v.type}x{v.vector}" if v.vector > 1 else v.type
            (prefix if v.count else exact)[v.name] = t
    return exact, prefix


class _Shapes:
    """Shapes of one module's functions."""

    def __init__(self, module) -> None:
        from pyshim.ptx import ir

        self.ir = ir
        self.module = module
        self.defined = {f.name for f in module.functions if f.body is not None}
        self.declared = {f.name for f in module.functions if f.body is None}
        self.mvars = {v.name: f"var:{v.space}:{v.linkage == 'extern'}:{bool(v.init)}"
                      for v in module.variables}

    def function(self, fn) -> tuple[set, set[str]]:
        """(shapes, names of the functions it calls) of one function."""
        ir = self.ir
        local = [s for s in fn.body if type(s) is ir.Var]
        exact, prefix = _reg_types([*fn.params, *fn.returns, *local])
        lvars = {v.name: f"lvar:{v.space}" for v in local if v.space != "reg"}
        labels = {s.name for s in fn.body if type(s) is ir.Label or type(s) is ir.BranchTargets}
        for p in (*fn.params, *fn.returns):
            lvars[p.name] = "param"
        shapes: set = {("fn", fn.entry, bool(fn.returns), tuple(sorted(fn.directives)),
                        fn.noreturn)}
        calls: set[str] = set()

        def reg(name: str) -> str:
            t = exact.get(name)
            if t is None:
                t = prefix.get(_TRAILING_DIGITS.sub("", name))
            return t if t is not None else ("sreg:" + name if "." in name or name in
                                            _SREGS else "?")

        def sym(name: str) -> str:
            if name in lvars:
                return lvars[name]
            if name in self.defined:
                return "fn"
            if name in self.declared:
                return "fndecl"
            if name in self.mvars:
                return self.mvars[name]
            return "label" if name in labels else "undefined"

        def op(o) -> tuple:
            t = type(o)
            if t is ir.Reg:
                return ("r", reg(o.name))
            if t is ir.Imm:
                return ("i", o.kind)
            if t is ir.Sym:
                return ("s", sym(o.name))
            if t is ir.Addr:
                base = None if o.base is None else op(o.base)
                return ("a", base, o.offset != 0)
            if t is ir.Vec or t is ir.Args:
                return ("v" if t is ir.Vec else "args", tuple(op(x) for x in o.items))
            if t is ir.PredPair:
                return ("pp", reg(o.first.name), reg(o.second.name))
            if t is ir.Neg:
                return ("neg", reg(o.reg.name))
            return ("?", t.__name__)

        for s in fn.body:
            t = type(s)
            if t is ir.Instruction:
                ops = tuple(op(o) for o in s.operands)
                if s.opcode == "call":
                    # arity against the callee's is checked per call: keep the callee's name
                    for o in s.operands:
                        if type(o) is ir.Sym and o.name in self.defined | self.declared:
                            calls.add(o.name)
                            ops = (*ops, ("callee", o.name))
                shapes.add((s.opcode, s.mods, s.pred is not None, ops))
            elif t is ir.Var:
                shapes.add(("decl", s.space, s.type, s.vector, bool(s.dims), s.init is not None,
                            s.linkage))
            elif t is ir.BranchTargets:
                shapes.add(("branchtargets",))
        return shapes, calls


_SREGS = frozenset(("%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
                    "%clock", "%clock64", "%globaltimer", "%lanemask_eq", "%lanemask_lt",
                    "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%dynamic_smem_size",
                    "%total_smem_size", "%SP", "%SPL", "%envreg"))


def scan(text: str, memo: dict | None = None) -> Outcome:
    """The verdict for one module's PTX text (see the module docstring)."""
    from pyshim.ptx.errors import PtxError, UnsupportedInstruction
    from pyshim.ptx.frontend.parser import parse
    from pyshim.ptx.frontend.validate import validate

    memo = {} if memo is None else memo
    try:
        module = parse(text)
        validate(module)
    except (PtxError, UnsupportedInstruction, RecursionError):
        return translate_probe.dry_run(text)  # the same first error, worded by the dry run
    except Exception:  # noqa: BLE001 - whatever it is, the dry run says it as before
        return translate_probe.dry_run(text)
    kernels = [f for f in module.functions if f.entry and f.body is not None]
    if module.address_size != 64 or not kernels:
        return translate_probe.dry_run(text)
    shapes = _Shapes(module)
    own: dict[str, tuple[set, set[str]]] = {f.name: shapes.function(f)
                                            for f in module.functions if f.body is not None}
    mod_shapes = {("mvar", v.space, v.type, v.vector, bool(v.dims), v.init is not None,
                   v.linkage, v.attributes) for v in module.variables}

    def closure(name: str) -> set:
        seen, todo, out = {name}, [name], set(mod_shapes)
        while todo:
            got = own.get(todo.pop())
            if got is None:
                continue
            out |= got[0]
            for c in got[1]:
                if c not in seen:
                    seen.add(c)
                    todo.append(c)
        return out

    # shapes as text: the memo is kept on disk between checks (load_memo / save_memo)
    per_kernel = {k.name: {repr(x) for x in closure(k.name)} for k in kernels}
    if len(kernels) <= 2 and all(any(x not in memo for x in per_kernel[k.name])
                                 for k in kernels):
        # nothing to skip: one dry run of the whole module, and learn its shapes
        out = translate_probe.dry_run(text)
        if out.translates is True:
            # a kernel that fails alone (out.kernel_errors) teaches nothing: its shapes may
            # be the ones that do not translate
            failed = {name for name, _ in out.kernel_errors}
            for name, shapes_of in per_kernel.items():
                if name not in failed:
                    memo.update(dict.fromkeys(shapes_of, True))
        return out
    index = None
    # the smallest kernels first: they are the cheapest dry runs and hold the common shapes,
    # so the big ones that follow are mostly known already
    by_size = sorted(kernels, key=lambda k: len(k.body or ()))
    for k in by_size:
        if all(x in memo for x in per_kernel[k.name]):
            continue
        if index is None:
            from pyshim.kernels import lazy

            try:
                index = lazy.Index(text.encode("utf-8"))
            except Exception:  # noqa: BLE001 - an index that cannot split: the whole run
                return translate_probe.dry_run(text)
        try:
            piece = index.kernel_module(k.name)
        except KeyError:
            return translate_probe.dry_run(text)
        out = translate_probe.dry_run(piece)
        if out.translates is not True or out.kernel_errors:
            return translate_probe.dry_run(text)  # the module's own message and line
        memo.update(dict.fromkeys(per_kernel[k.name], True))
    return Outcome(translates=True, mode="scan")


def _memo_key() -> str:
    from pyshim.kernels import cache
    from pyshim.ptx.fingerprint import translator_fingerprint

    return cache.cache_key(translator_fingerprint(), translate_probe.TARGET, "shape-memo",
                           _checker_fingerprint())


def load_memo() -> dict:
    """The shapes earlier checks found to translate (for this translator)."""
    from pyshim.kernels import cache

    try:
        path = cache.lookup(_memo_key(), ".shapes.json")
        if path is not None:
            return dict.fromkeys(json.loads(cache.read_entry(path)), True)
    except (cache.CacheError, ValueError, TypeError):
        pass
    return {}


def save_memo(memo: dict) -> None:
    """Add this process's shapes to the kept ones (a racing check may lose some: only
    time, the next check learns them again)."""
    from pyshim.kernels import cache

    known = load_memo()
    if all(k in known for k in memo):
        return
    known.update(memo)
    try:
        cache.store(_memo_key(), ".shapes.json", json.dumps(sorted(known)).encode())
    except cache.CacheError:
        pass


def verdict_key(text: str) -> str:
    from pyshim.kernels import cache
    from pyshim.ptx.fingerprint import translator_fingerprint

    return cache.cache_key(text.encode("utf-8", "replace"), translator_fingerprint(),
                           translate_probe.TARGET, "check-verdict", _checker_fingerprint())


@functools.cache
def _checker_fingerprint() -> str:
    """The verdict's own code: a verdict another version of the scan or the probe wrote
    (fewer fields, other rules) is never reused."""
    h = hashlib.sha256()
    for path in (Path(__file__), Path(translate_probe.__file__)):
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cached_outcome(text: str, deep: bool, memo: dict | None = None) -> Outcome:
    """scan() (or the full dry run when `deep`), through the verdict cache."""
    from pyshim.kernels import cache

    key = verdict_key(text)
    suffix = ".deep" + _VERDICT_SUFFIX if deep else _VERDICT_SUFFIX
    try:
        path = cache.lookup(key, suffix)
        if path is not None:
            d = json.loads(cache.read_entry(path))
            d["kernel_errors"] = tuple(tuple(e) for e in d.get("kernel_errors", ()))
            return Outcome(**d)
    except (cache.CacheError, ValueError, TypeError):
        pass
    out = translate_probe.dry_run(text) if deep else scan(text, memo)
    if out.translates is not None:  # "not known" is not worth keeping
        try:
            cache.store(key, suffix, json.dumps(out.__dict__).encode())
        except cache.CacheError:
            pass
    return out
