"""Passes over one lifted kernel's PTX lines that make them read like nvcc's PTX to the
translator, without changing what any thread computes.

In order (run):
- unreachable: code no path from the entry reaches goes (ptxas's slow paths behind BRA.DIV
  when the whole warp runs together, the padding after EXIT). Left in, its branches target
  labels in the middle of live code, and every such label starts a region on the CPU.
- exits: a guarded return becomes a branch to one return at the end.
- webs: one register per def-use web (ptxas reuses machine registers).
- pairs: 64-bit values split into register pairs and put back together read as the 64-bit
  value; registers that only ever hold an immediate read as it.
- guards: a branch's comparison recomputed right before it; dead pure code dropped.
Each keeps every thread's results bit for bit (tests/test_sass_roundtrip.py runs every
kernel case from PTX and from lifted SASS and compares the bytes).
"""

from __future__ import annotations

import re

_LABEL = re.compile(r"^([$A-Za-z_][$\w]*):$")
_BRA = re.compile(r"^(@!?%\w+\s+)?bra(?:\.uni)?\s+([$\w]+);$")
_BRX = re.compile(r"^(@!?%\w+\s+)?brx")
_END = re.compile(r"^(?:ret|exit|trap)(?:\.\w+)*;$")
_NAME = re.compile(r"[$A-Za-z_][$\w]*")


def run(lines: list[str]) -> list[str]:
    return guards(pairs(webs(exits(unreachable(lines)))))


_GUARDED_END = re.compile(r"^(@!?%\w+) (?:ret|exit);$")


def exits(lines: list[str]) -> list[str]:
    """A guarded return as a branch to one return at the end, as nvcc writes `if (i >= n)
    return;`: the translator takes a branch to a label before an unguarded ret for a
    thread's exit, and versions a thread loop on such branches (an unmasked copy for the
    blocks none of whose threads take them)."""
    if not any(_GUARDED_END.match(ln) for ln in lines):
        return lines
    out = [f"{m.group(1)} bra $X_exit;" if (m := _GUARDED_END.match(ln)) else ln
           for ln in lines]
    return out + ["$X_exit:", "ret;"]


def unreachable(lines: list[str]) -> list[str]:
    """lines without what the entry cannot reach. Scope braces and declarations stay (they
    are not code, and a scope's two ends must both stay); so does everything when some
    branch is indirect."""
    if any(_BRX.match(ln) for ln in lines):
        return lines
    at = {m.group(1): i for i, ln in enumerate(lines) if (m := _LABEL.match(ln))}
    seen = [False] * len(lines)
    work = [0]
    while work:
        i = work.pop()
        while i < len(lines) and not seen[i]:
            seen[i] = True
            ln = lines[i]
            b = _BRA.match(ln)
            if b:
                if b.group(2) not in at:
                    return lines  # a target outside these lines: leave them as they are
                work.append(at[b.group(2)])
                if not b.group(1):
                    break
            elif _END.match(ln):
                break
            i += 1
    kept = [ln for i, ln in enumerate(lines)
            if seen[i] or ln in ("{", "}") or ln.startswith(".")]
    # labels no kept branch names any more
    named: set[str] = set()
    for ln in kept:
        if not _LABEL.match(ln):
            named.update(_NAME.findall(ln))
    return [ln for ln in kept if not (m := _LABEL.match(ln)) or m.group(1) in named]


# ---- webs: one PTX register per def-use web ----------------------------------------------------
# the machine registers and the lifter's temporaries (what entry() declares by kind)
_REG = re.compile(r"%(r|u|p|q|b|t|d|tp|h)(\d+)\b")
_INSN = re.compile(r"^(@!?(%\w+)\s+)?([a-z][\w.]*)(?:\s+(.*))?;$")
# opcodes whose first operand is read, not written
_READS_FIRST = ("bar", "barrier", "nanosleep", "brx", "prefetch", "bra", "call", "red", "st")


class _Line:
    __slots__ = ("defs", "guard", "ops", "opcode", "uses")

    def __init__(self, guard: str | None, opcode: str, ops: list[str]) -> None:
        self.guard, self.opcode, self.ops = guard, opcode, ops
        first_read = opcode.split(".")[0] in _READS_FIRST or not ops or ops[0].startswith("[")
        self.defs = [] if first_read else [m.group(0) for m in _REG.finditer(ops[0])]
        self.uses = [m.group(0) for op in (ops if first_read else ops[1:])
                     for m in _REG.finditer(op)]
        if guard is not None and _REG.fullmatch(guard):
            self.uses.append(guard)
            self.uses += self.defs  # under a guard the old value may live on


def _operands(text: str) -> list[str] | None:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if depth:
        return None
    if cur.strip():
        out.append(cur.strip())
    return out


def webs(lines: list[str]) -> list[str]:
    """lines with each register's def-use webs (the definitions some read may see, joined
    through the reads that see several) under names of their own: ptxas reuses a machine
    register for unrelated values, and the translator takes a register with one definition
    for what it is (uniform over the block, recomputable from %tid) but must keep one with
    several in per-thread storage across barriers. Lines it cannot read are left as they are."""
    parsed: list[_Line | None] = []
    for ln in lines:
        if _LABEL.match(ln) or ln in ("{", "}") or ln.startswith("."):
            parsed.append(None)
            continue
        m = _INSN.match(ln)
        ops = _operands(m.group(4) or "") if m else None
        if m is None or ops is None:
            return lines
        parsed.append(_Line(m.group(2), m.group(3), ops))
    if any(x is not None and x.opcode.startswith("brx") for x in parsed):
        return lines
    at = {m.group(1): i for i, ln in enumerate(lines) if (m := _LABEL.match(ln))}
    n = len(lines)
    # basic blocks: (start, end) line ranges and their successors
    leaders = {0}
    for i, x in enumerate(parsed):
        if x is None:
            if _LABEL.match(lines[i]):
                leaders.add(i)
            continue
        if x.opcode.startswith("bra") or _END.match(lines[i]):
            leaders.add(i + 1)
    starts = sorted(s for s in leaders if s < n)
    block_of = [0] * n
    for b, s in enumerate(starts):
        e = starts[b + 1] if b + 1 < len(starts) else n
        for i in range(s, e):
            block_of[i] = b
    ends = [(starts[b + 1] if b + 1 < len(starts) else n) for b in range(len(starts))]
    succ: list[list[int]] = [[] for _ in starts]
    for b, s in enumerate(starts):
        last = next((i for i in range(ends[b] - 1, s - 1, -1) if parsed[i] is not None), None)
        falls = True
        if last is not None:
            x = parsed[last]
            assert x is not None
            if x.opcode.startswith("bra"):
                tgt = x.ops[0] if x.ops else ""
                if tgt not in at:
                    return lines
                succ[b].append(block_of[at[tgt]])
                falls = x.guard is not None
            elif _END.match(lines[last]):
                falls = False
        if falls and ends[b] < n:
            succ[b].append(b + 1)
    # definitions: per register, 0 for the entry's (undefined) value, then one per line
    # that writes it; global ids (for the union-find) are the register's base plus that
    count: dict[str, int] = {}
    def_id: dict[tuple[int, str], int] = {}
    for i, x in enumerate(parsed):
        if x is None:
            continue
        for r in x.uses:
            count.setdefault(r, 1)
        for r in x.defs:
            count[r] = count.get(r, 1) + 1
            def_id[(i, r)] = count[r] - 1
    base: dict[str, int] = {}
    reg_of: list[str] = []
    for r, c in count.items():
        base[r] = len(reg_of)
        reg_of += [r] * c
    entry = {r: 0 for r in count}
    # reaching definitions, as one bit set per register
    gen: list[dict[str, int]] = []
    for b, s in enumerate(starts):
        g: dict[str, int] = {}
        for i in range(s, ends[b]):
            x = parsed[i]
            if x is not None:
                for r in x.defs:
                    bit = 1 << def_id[(i, r)]
                    g[r] = g[r] | bit if x.guard is not None and r in g else bit
        gen.append(g)
    out_sets: list[dict[str, int]] = [dict() for _ in starts]
    in_sets: list[dict[str, int]] = [dict() for _ in starts]
    in_sets[0] = {r: 1 << e for r, e in entry.items()}
    preds: list[list[int]] = [[] for _ in starts]
    for b, ss in enumerate(succ):
        for t in ss:
            preds[t].append(b)
    guarded_defs = [any(parsed[i] is not None and parsed[i].guard is not None and parsed[i].defs
                        for i in range(s, ends[b])) for b, s in enumerate(starts)]
    work = list(range(len(starts)))
    while work:
        b = work.pop(0)
        inn = dict(in_sets[b]) if b == 0 else {}
        for p in preds[b]:
            for r, v in out_sets[p].items():
                inn[r] = inn.get(r, 0) | v
        if b == 0:
            for r, e in entry.items():
                inn[r] = inn.get(r, 0) | 1 << e
        in_sets[b] = inn
        out = dict(inn)
        if guarded_defs[b]:
            for i in range(starts[b], ends[b]):
                x = parsed[i]
                if x is not None:
                    for r in x.defs:
                        bit = 1 << def_id[(i, r)]
                        out[r] = out.get(r, 0) | bit if x.guard is not None else bit
        else:
            out.update(gen[b])
        if out != out_sets[b]:
            out_sets[b] = out
            work += [t for t in succ[b] if t not in work]
    # join the definitions each read sees
    parent = list(range(len(reg_of)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    use_web: dict[tuple[int, str], int] = {}
    for b, s in enumerate(starts):
        cur = dict(in_sets[b])
        for i in range(s, ends[b]):
            x = parsed[i]
            if x is None:
                continue
            for r in set(x.uses):
                bits = cur.get(r, 0)
                ids = [base[r] + k for k in range(bits.bit_length()) if bits >> k & 1]
                if x.guard is not None and r in x.defs:
                    ids.append(base[r] + def_id[(i, r)])
                if not ids:
                    ids = [base[r]]
                for k in ids[1:]:
                    parent[find(k)] = find(ids[0])
                use_web[(i, r)] = ids[0]
            for r in x.defs:
                bit = 1 << def_id[(i, r)]
                cur[r] = cur.get(r, 0) | bit if x.guard is not None else bit
    # names: the web holding the entry's value keeps the register's name
    top: dict[str, int] = {}
    for r in entry:
        m = _REG.match(r)
        assert m
        top[m.group(1)] = max(top.get(m.group(1), -1), int(m.group(2)))
    name: dict[int, str] = {}
    for r in entry:
        name[find(base[r])] = r
    for k, r in enumerate(reg_of):
        root = find(k)
        if root not in name:
            m = _REG.match(r)
            assert m
            top[m.group(1)] += 1
            name[root] = f"%{m.group(1)}{top[m.group(1)]}"
    out_lines = list(lines)
    for i, x in enumerate(parsed):
        if x is None:
            continue

        def sub(text: str, defs: bool, i: int = i) -> str:
            def one(m: re.Match) -> str:
                r = m.group(0)
                k = base[r] + def_id[(i, r)] if defs else use_web[(i, r)]
                return name[find(k)]
            return _REG.sub(one, text)

        first_def = bool(x.defs)
        ops = [sub(op, first_def and j == 0) for j, op in enumerate(x.ops)]
        guard = ""
        if x.guard is not None:
            g = lines[i].split()[0]
            guard = g.replace(x.guard, sub(x.guard, False)) + " "
        out_lines[i] = f"{guard}{x.opcode}{' ' + ', '.join(ops) if ops else ''};"
    return out_lines


# ---- guards: a branch's condition computed where it branches -----------------------------------
# what a guard's condition may be recomputed from: no memory, no side effects
_REMAT = frozenset(("setp", "mov", "shr", "shl", "and", "or", "xor", "add", "sub", "cvt"))
# what dead code may be dropped: what cannot fault or touch memory
_DEAD = _REMAT | frozenset(("selp", "lop3", "min", "max", "mul", "mad", "not", "neg", "abs",
                            "prmt", "popc", "brev", "bfind", "szext", "bmsk", "fma"))
_MAX_LINES = 20000
# operands with one value for the whole of a thread's run: immediates, symbols, its indices
_FIXED = re.compile(r"^(?:-?\d+|0[fFdD][0-9A-Fa-f]+|0x[0-9A-Fa-f]+|[A-Za-z_$][\w$]*|"
                    r"%(?:n?tid|n?ctaid)\.[xyz]|%laneid|%lanemask_\w+)$")
_FLIP = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "gt": "le", "le": "gt"}


class _Flow:
    """The lines' control flow, line by line: successors and what each line reaches."""

    def __init__(self, lines: list[str], parsed: list[_Line | None]) -> None:
        at = {m.group(1): i for i, ln in enumerate(lines) if (m := _LABEL.match(ln))}
        self.succ: list[tuple[int, ...]] = []
        n = len(lines)
        for i, x in enumerate(parsed):
            nxt = (i + 1,) if i + 1 < n else ()
            if x is not None and x.opcode.startswith("bra"):
                t = at[x.ops[0]]
                self.succ.append((t,) + nxt if x.guard is not None else (t,))
            elif x is not None and _END.match(lines[i]):
                self.succ.append(())
            else:
                self.succ.append(nxt)
        self._reach: dict[int, set[int]] = {}

    def reach(self, i: int) -> set[int]:
        """The lines some path from line i reaches after it (i itself only round a loop)."""
        r = self._reach.get(i)
        if r is None:
            r = set()
            work = list(self.succ[i])
            while work:
                j = work.pop()
                if j not in r:
                    r.add(j)
                    work += self.succ[j]
            self._reach[i] = r
        return r

    def reach_avoiding(self, i: int, avoid: int) -> set[int]:
        """The lines some path from line i reaches without passing line avoid."""
        r: set[int] = set()
        work = [j for j in self.succ[i] if j != avoid]
        while work:
            j = work.pop()
            if j not in r:
                r.add(j)
                work += [k for k in self.succ[j] if k != avoid]
        return r


def guards(lines: list[str]) -> list[str]:
    """Each `@%p bra` (or ret, exit) whose %p was computed earlier (ptxas hoists comparisons above
    barriers) gets its comparison again right before it, from the same values, and the
    comparisons nothing reads any more go: a region on the CPU then opens with
    `setp; @%p bra`, the guard whose range of %tid.x its thread loop runs."""
    if len(lines) > _MAX_LINES:
        return lines
    parsed: list[_Line | None] = []
    for ln in lines:
        m = None if (_LABEL.match(ln) or ln in ("{", "}") or ln.startswith(".")) \
            else _INSN.match(ln)
        ops = _operands(m.group(4) or "") if m else None
        parsed.append(_Line(m.group(2), m.group(3), ops) if m and ops is not None else None)
    defs: dict[str, list[int]] = {}
    for i, x in enumerate(parsed):
        if x is not None:
            for r in x.defs:
                defs.setdefault(r, []).append(i)
    flow = _Flow(lines, parsed)
    top: dict[str, int] = {}
    for m in _REG.finditer("\n".join(lines)):
        top[m.group(1)] = max(top.get(m.group(1), -1), int(m.group(2)))

    def fresh(like: str) -> str:
        m = _REG.match(like)
        assert m
        top[m.group(1)] += 1
        return f"%{m.group(1)}{top[m.group(1)]}"

    def same_at(reg: str, j: int, i: int) -> bool:
        """No definition of reg lies on a path from line j to line i."""
        after = flow.reach(j)
        return not any(d in after and i in flow.reach(d) for d in defs.get(reg, ()))

    def value(op: str, j: int, i: int, out: list[str], depth: int) -> str | None:
        """op as read at line j, as an operand at line i (definitions appended to out)."""
        if not _REG.fullmatch(op):
            return op if _FIXED.match(op) else None
        cands = [d for d in defs.get(op, ()) if j in flow.reach(d)]
        if len(cands) != 1:
            return None
        if len(defs[op]) == 1 and same_at(op, j, i):
            return op
        return recompute(cands[0], i, out, depth)

    def recompute(m: int, i: int, out: list[str], depth: int) -> str | None:
        x = parsed[m]
        if (x is None or x.guard is not None or len(x.defs) != 1 or depth > 3
                or x.opcode.split(".")[0] not in _REMAT or not _REG.fullmatch(x.ops[0])):
            return None
        srcs = [value(op, m, i, out, depth + 1) for op in x.ops[1:]]
        if any(s is None for s in srcs):
            return None
        d = fresh(x.ops[0])
        out.append(f"{x.opcode} {', '.join([d, *srcs])};")  # type: ignore[list-item]
        return d

    at = {m.group(1): i for i, ln in enumerate(lines) if (m := _LABEL.match(ln))}
    opening = min(at.values(), default=len(lines))  # the straight-line code before any label

    def exit_label(name: str) -> bool:
        j = at.get(name, len(lines)) + 1
        while j < len(lines) and _LABEL.match(lines[j]):
            j += 1
        return j < len(lines) and lines[j] == "ret;"

    out_lines: list[str] = []
    changed = False
    for i, ln in enumerate(lines):
        x = parsed[i]
        if x is not None and (x.opcode.startswith("bra") or _END.match(ln[ln.find(" ") + 1:])) \
                and x.guard is not None and x.guard.startswith("%p"):
            cands = defs.get(x.guard, [])
            # an exit on a comparison the opening made (`if (i >= n)` tested again after a
            # barrier) keeps it: the translator decides such a guard once per block
            if x.opcode.startswith("bra") and cands and cands[0] < opening \
                    and exit_label(x.ops[0]):
                out_lines.append(ln)
                continue
            if len(cands) == 1 and parsed[cands[0]] is not None \
                    and parsed[cands[0]].opcode.startswith("setp"):
                pre: list[str] = []
                p = recompute(cands[0], i, pre, 0)
                if p is not None:
                    g = ln.split()[0]
                    setp = pre[-1].split(" ", 1)
                    mods = setp[0].split(".")
                    if g.startswith("@!") and len(mods) == 3 and mods[1] in _FLIP \
                            and mods[2][0] in "sub":
                        # an integer comparison turned round rather than negated: the
                        # translator reads a guard from `setp; @%p bra`
                        pre[-1] = f"setp.{_FLIP[mods[1]]}.{mods[2]} {setp[1]}"
                        g = "@" + g[2:]
                    out_lines += pre
                    out_lines.append(g.replace(x.guard, p) + ln[len(ln.split()[0]):])
                    changed = True
                    continue
        out_lines.append(ln)
    return _dead(out_lines) if changed else out_lines


def _dead(lines: list[str]) -> list[str]:
    """lines without the side-effect-free ones whose results nothing reads."""
    while True:
        parsed = []
        for ln in lines:
            m = None if (_LABEL.match(ln) or ln in ("{", "}") or ln.startswith(".")) \
                else _INSN.match(ln)
            ops = _operands(m.group(4) or "") if m else None
            parsed.append(_Line(m.group(2), m.group(3), ops) if m and ops is not None else None)
        read: set[str] = set()
        for x in parsed:
            if x is not None:
                read.update(x.uses)
        keep = [ln for ln, x in zip(lines, parsed, strict=True)
                if x is None or not x.defs
                or (x.opcode.split(".")[0] not in _DEAD and not x.opcode.startswith("ld.param"))
                or any(r in read for r in x.defs)
                or len(x.defs) != len(_REG.findall(x.ops[0]))]
        if len(keep) == len(lines):
            return keep
        lines = keep


# ---- pairs and constants: 64-bit values and immediates as nvcc spells them ------------------------
_PACK = re.compile(r"^mov\.b64 (%d\d+), \{(%[rut]\d+), (%[rut]\d+)\};$")
_UNPACK = re.compile(r"^mov\.b64 \{(%r\d+|%u\d+), (%r\d+|%u\d+)\}, (%d\d+);$")
_CONST_MOV = re.compile(r"^mov\.[bu]32 (%[rut]\d+), (-?\d+);$")
_NEG = re.compile(r"^neg\.s32 (%[rut]\d+), (%[rut]\d+);$")
# 32-bit arithmetic whose sources may be immediates
_FOLD = re.compile(r"^(?:mul\.wide|mul\.lo|mad\.lo|add|sub|shl|shr|min|max|setp\.\w+)\.[bsu]32$")


def pairs(lines: list[str]) -> list[str]:
    """A 64-bit value split into two 32-bit registers and put back together unchanged (a
    SASS register pair holding a pointer) becomes a copy of the 64-bit value, and a 32-bit
    register that only ever holds one immediate is that immediate where 32-bit arithmetic
    reads it: the translator then follows pointers and strides through them."""
    if len(lines) > _MAX_LINES:
        return lines
    parsed: list[_Line | None] = []
    for ln in lines:
        m = None if (_LABEL.match(ln) or ln in ("{", "}") or ln.startswith(".")) \
            else _INSN.match(ln)
        ops = _operands(m.group(4) or "") if m else None
        parsed.append(_Line(m.group(2), m.group(3), ops) if m and ops is not None else None)
    defs: dict[str, list[int]] = {}
    for i, x in enumerate(parsed):
        if x is not None:
            for r in x.defs:
                defs.setdefault(r, []).append(i)
    out = list(lines)
    const: dict[str, str] = {}
    while True:  # constants, and the negations of constants (ptxas's -UR of an immediate)
        more = False
        for r, ds in defs.items():
            if r in const or len(ds) != 1 or parsed[ds[0]].guard is not None:
                continue
            ln = out[ds[0]]
            if (m := _CONST_MOV.match(ln)):
                v = int(m.group(2))
                const[r] = str(v - (1 << 32) if v >= 1 << 31 else v)
                more = True
            elif (m := _NEG.match(ln)) and m.group(2) in const:
                v = -int(const[m.group(2)]) & 0xFFFFFFFF
                out[ds[0]] = f"mov.b32 {m.group(1)}, {v - (1 << 32) if v >= 1 << 31 else v};"
                more = True
        if not more:
            break
    flow: _Flow | None = None
    alias: dict[str, tuple[str, int]] = {}  # a copy -> (the 64-bit value, the copy's line)
    for i, ln in enumerate(lines):
        x = parsed[i]
        if x is None or x.guard is not None:
            continue
        m = _UNPACK.match(ln)
        if m and len(defs.get(m.group(3), ())) == 1:
            # the halves of a value made of two halves: those halves (ULDC.64 of two
            # parameters), where they are unchanged since
            p = defs[m.group(3)][0]
            pk = _PACK.match(lines[p])
            if pk and parsed[p] is not None and parsed[p].guard is None:
                flow = flow or _Flow(lines, parsed)
                halves = [pk.group(2), pk.group(3)]
                if not any(d in flow.reach(p) and i in flow.reach(d)
                           for h in halves for d in defs.get(h, ())):
                    out[i] = "\n".join(f"mov.b32 {dst}, {h};" for dst, h
                                       in zip(m.groups()[:2], halves, strict=True))
            continue
        m = _PACK.match(ln)
        if m:
            d, a, b = m.groups()
            da, db = defs.get(a, []), defs.get(b, [])
            if len(da) == 1 and da == db and (u := _UNPACK.match(lines[da[0]])) \
                    and parsed[da[0]].guard is None and u.group(1) == a and u.group(2) == b:
                src = u.group(3)
                flow = flow or _Flow(lines, parsed)
                u0 = da[0]
                after = flow.reach_avoiding(u0, u0)
                # (a and b hold what the last pass through the unpacking gave them)
                if not any(s in after and i in flow.reach_avoiding(s, u0)
                           for s in defs.get(src, ())):
                    out[i] = f"mov.b64 {d}, {src};"
                    if len(defs.get(d, ())) == 1 and len(defs.get(src, ())) == 1:
                        alias[d] = (src, i)
            continue
        if _FOLD.match(x.opcode) and any(op in const for op in x.ops[1:]):
            ops = [x.ops[0]] + [const.get(op, op) for op in x.ops[1:]]
            if len(ops) >= 3 and ops[1] in const.values() and ops[2] not in const.values() \
                    and x.opcode.split(".")[0] in ("mul", "add", "min", "max") \
                    and ops[1] == const.get(x.ops[1]):
                ops[1], ops[2] = ops[2], ops[1]  # the immediate second, as nvcc puts it
            out[i] = f"{x.opcode} {', '.join(ops)};"
    if alias:
        # where the value itself is still there, read it rather than the copy: the
        # translator takes an address for base + offset only from the add that made it
        assert flow is not None
        for i, x in enumerate(parsed):
            if x is None:
                continue
            names = {r for r in x.uses if r in alias}
            line = out[i]
            for r in names:
                src, at = alias[r]
                d = defs[src][0]
                if not (d in flow.reach(at) and i in flow.reach(d)):
                    line = re.sub(re.escape(r) + r"\b", src, line)
            out[i] = line
    out = [x for ln in out for x in ln.split("\n")]
    return _dead(out) if out != lines else out
