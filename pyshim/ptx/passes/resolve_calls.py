"""Records each function's direct callees (`info['calls']`), for the passes that follow the
call graph, and checks that call targets exist."""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.errors import PtxError


def run(module: ir.Module) -> ir.Module:
    names = {f.name for f in module.functions}
    src = module.source
    for fn in module.functions:
        calls: set[str] = set()
        indirect = False
        for s in fn.body or ():
            if type(s) is not ir.Instruction or s.opcode != "call":
                continue
            target = next((o for o in s.operands if not isinstance(o, ir.Args)), None)
            if isinstance(target, ir.Sym):
                if target.name not in names:
                    msg = f"call to undeclared function {target.name}"
                    if src is not None:
                        raise src.error(PtxError, msg, s.tok, fn.name)
                    raise PtxError(msg, function=fn.name)
                calls.add(target.name)
            else:
                indirect = True
        fn.info.calls = sorted(calls)
        fn.info.indirect_calls = indirect
    return module
