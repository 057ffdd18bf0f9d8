"""Recursive-descent PTX parser (PTX ISA 7.x-9.x, as emitted by nvcc).

One `_parse_<rule>` per grammar rule; the line above each is the ISA manual's syntax (section
numbers refer to the PTX ISA 9.0 manual). Tokens come from `lexer.Source`; every error is a
PtxError with line:column and the offending line.
"""

from __future__ import annotations

import gc
import re

from pyshim.ptx import ir
from pyshim.ptx.errors import PtxError
from pyshim.ptx.frontend.lexer import Source

_SPACES = frozenset(("reg", "param", "local", "shared", "global", "const", "tex", "sreg"))
_TYPES = frozenset((
    "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
    "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred", "tf32", "e4m3", "e5m2",
))
_LINKAGE = frozenset((".visible", ".extern", ".weak", ".common"))
_CUBIN_ATTR = re.compile(r'"pyshim\.(cubin_regs|cubin_local) (\d+)"')
_PERF = frozenset((".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".maxnctapersm",
                   ".maxclusterrank", ".reqnctapercluster"))
_PERF_FLAGS = frozenset((".explicitcluster", ".blocksareclusters"))
_OCTAL = re.compile(r"0[0-7]+U?$")
_IDENT = re.compile(r"[A-Za-z_$%][\w$]*\Z", re.ASCII)  # PTX identifiers (no dots)
_FLOAT = re.compile(r"[0-9]+\.")
_DIGITS = frozenset("0123456789")
_SYM_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
Reg, Sym, Instruction = ir.Reg, ir.Sym, ir.Instruction


def parse(text: str) -> ir.Module:
    """Parse PTX text into an ir.Module (raises PtxError)."""
    # the cyclic collector stays off while the IR is built: it makes no cycles, and on a
    # huge module (CUB's 665k lines) the full collections that millions of new objects
    # trigger took 60% of the parse, each one scanning every object made so far
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _Parser(Source(text)).parse_module()
    finally:
        if was_enabled:
            gc.enable()


def parse_int(tok: str) -> int:
    t = tok[:-1] if tok.endswith("U") else tok
    if len(t) > 1 and t[0] == "0" and t[1] in "bB":
        return int(t[2:], 2)
    if _OCTAL.match(tok):
        return int(t, 8)
    return int(t, 0)


# instructions whose bracketed operand names an image and its coordinates
IMAGE_OPCODES = frozenset(("tex", "tld4", "suld", "sust", "sured", "suq", "txq"))

class _Parser:
    def __init__(self, src: Source) -> None:
        self.src = src
        self.toks = src.tokens
        self.i = 0
        self.n = len(self.toks)
        self.function = ""
        self.module = ir.Module(source=src)
        self._opcodes: dict[str, tuple[str, tuple[str, ...]]] = {}  # "ld.global.f32" split
        # one-token operands by spelling: one shared object per register, symbol or
        # immediate of the module (passes read operands, never change them in place)
        self._operands: dict[str, ir.Operand] = {}
        self._addrs: dict[tuple[str, ...], ir.Operand] = {}  # [address] operands, likewise

    # ---- helpers -------------------------------------------------------------------------
    def error(self, message: str, index: int | None = None) -> PtxError:
        return self.src.error(PtxError, message, self.i if index is None else index,
                              self.function)

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.toks[j] if j < self.n else ""

    def next(self) -> str:
        if self.i >= self.n:
            raise self.error("unexpected end of PTX")
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, tok: str) -> None:
        if self.i >= self.n or self.toks[self.i] != tok:
            got = self.toks[self.i] if self.i < self.n else "end of input"
            raise self.error(f"expected {tok!r}, found {got!r}")
        self.i += 1

    def int_token(self) -> int:
        neg = False
        if self.peek() == "-":
            self.i += 1
            neg = True
        t = self.next()
        if not t[0].isdigit():
            raise self.error(f"expected an integer, found {t!r}", self.i - 1)
        try:
            v = parse_int(t)
        except ValueError:
            raise self.error(f"bad integer {t!r}", self.i - 1) from None
        return -v if neg else v

    def skip_to_semicolon(self) -> None:
        try:
            self.i = self.toks.index(";", self.i) + 1
        except ValueError:
            raise self.error("missing ';'") from None

    # ---- module --------------------------------------------------------------------------
    # module: version-directive target-directive address-size-directive? { directive }
    def parse_module(self) -> ir.Module:
        m = self.module
        while self.i < self.n:
            t = self.toks[self.i]
            if t == ".version":
                self.i += 1
                m.version = self.next()
            elif t == ".target":
                self.i += 1
                m.target.append(self.next())
                while self.peek() == ",":
                    self.i += 1
                    m.target.append(self.next())
            elif t == ".address_size":
                self.i += 1
                m.address_size = self.int_token()
                if m.address_size not in (32, 64):
                    raise self.error("address size must be 32 or 64", self.i - 1)
            elif t in (".pragma", ".alias"):
                self.skip_to_semicolon()
            elif t == ".section":
                self._parse_section()
            elif t == ";":
                self.i += 1
            else:
                self._parse_declaration()
        if not m.version:
            raise self.error("no .version directive", 0)
        return m

    # .section section_name { dwarf-lines }  (debug info: skipped)
    def _parse_section(self) -> None:
        self.i += 2
        if self.peek() == "{":
            try:
                self.i = self.toks.index("}", self.i) + 1
            except ValueError:
                raise self.error("unterminated .section") from None

    # declaration: linkage? ( .entry ... | .func ... | variable-declaration )
    def _parse_declaration(self) -> None:
        start = self.i
        linkage = ""
        while self.peek() in _LINKAGE:
            linkage = self.next()[1:]
        t = self.peek()
        if t == ".entry":
            self.module.functions.append(self._parse_function(True, linkage, start))
        elif t == ".func":
            self.module.functions.append(self._parse_function(False, linkage, start))
        elif t[1:] in _SPACES and t.startswith("."):
            for v in self._parse_var_decl(linkage):
                self.module.variables.append(v)
        else:
            raise self.error(f"unexpected {t!r} at module scope" if t else "unexpected end")

    # .entry kernel-name ( param-list )? performance-tuning-directives { kernel-body }
    # .func (ret-param)? function-name (param-list)? .noreturn? { function-body } | ;
    def _parse_function(self, entry: bool, linkage: str, start: int) -> ir.Function:
        self.i += 1
        rets: list[ir.Var] = []
        if not entry and self.peek() == "(":
            rets = self._parse_param_list()
        name = self.next()
        if not _IDENT.match(name):
            raise self.error(f"bad function name {name!r}", self.i - 1)
        self.function = name
        fn = ir.Function(name=name, entry=entry, linkage=linkage, returns=rets, tok=start)
        if self.peek() == "(":
            fn.params = self._parse_param_list()
        while True:
            t = self.peek()
            if t in _PERF_FLAGS:  # a directive without values (.explicitcluster)
                self.i += 1
                fn.directives[t[1:]] = []
            elif t in _PERF:
                self.i += 1
                vals = [self.int_token()]
                while self.peek() == ",":
                    self.i += 1
                    vals.append(self.int_token())
                fn.directives[t[1:]] = vals
            elif t == ".noreturn":
                self.i += 1
                fn.noreturn = True
            elif t == ".pragma":
                # the SASS lifter's note of what the cubin records (registers, stack frame)
                m = _CUBIN_ATTR.fullmatch(self.toks[self.i + 1]) if self.i + 1 < self.n else None
                if m:
                    fn.directives[m.group(1)] = [int(m.group(2))]
                self.skip_to_semicolon()
            elif t == ".attribute":
                self.i += 1
                self._skip_parens()
            else:
                break
        if self.peek() == ";":
            self.i += 1
        elif self.peek() == "{":
            self.i += 1
            fn.body = self._parse_body()
        else:
            raise self.error(f"expected '{{' or ';' after the header of {name}")
        self.function = ""
        return fn

    def _skip_parens(self) -> None:
        if self.peek() != "(":
            return
        depth = 0
        while True:
            t = self.next()
            depth += (t == "(") - (t == ")")
            if depth == 0:
                return

    # param-list: ( param-decl { , param-decl } )
    def _parse_param_list(self) -> list[ir.Var]:
        self.expect("(")
        out: list[ir.Var] = []
        if self.peek() == ")":
            self.i += 1
            return out
        while True:
            out.extend(self._parse_var_decl("", in_list=True))
            t = self.next()
            if t == ")":
                return out
            if t != ",":
                raise self.error(f"expected ',' or ')' in a parameter list, found {t!r}",
                                 self.i - 1)

    # variable-declaration: .space (.align n)? (.vN)? .type (.ptr.space.align n)? name
    #     ( <n> | [n]* )? ( = initializer )? { , name ... } ;
    def _parse_var_decl(self, linkage: str, in_list: bool = False) -> list[ir.Var]:
        start = self.i
        tok = self.next()
        # inline asm writes `.reg.b16 x;`: the type (or vector width) glued to the space
        space, *glued = tok[1:].split(".")
        if not tok.startswith(".") or space not in _SPACES:
            raise self.error(f"expected a declaration (.param, .reg, ...), found {tok!r}", start)
        align = 0
        vector = 1
        typ = ""
        ptr_space = ""
        attributes: list[str] = []
        for part in glued:
            if part in _TYPES:
                typ = part
            elif part in ("v2", "v4", "v8"):
                vector = int(part[1:])
            else:
                raise self.error(f"unknown declaration {tok!r}", start)
        while True:
            t = self.peek()
            if t == ".attribute":
                attributes.extend(self._parse_var_attributes())
            elif t == ".align":
                self.i += 1
                align = self.int_token()
                if align <= 0 or align & (align - 1):
                    raise self.error(f"alignment {align} is not a power of two", self.i - 1)
            elif t in (".v2", ".v4", ".v8"):
                self.i += 1
                vector = int(t[2:])
            elif t.startswith(".ptr"):
                self.i += 1
                parts = t.split(".")[2:]
                ptr_space = parts[0] if parts else ""
                if "align" in parts:
                    self.int_token()
            elif t.startswith(".") and t[1:] in _TYPES:
                self.i += 1
                typ = t[1:]
            elif t.startswith(".") and t[1:] in _SPACES:
                raise self.error(f"two state spaces in one declaration ({space}, {t[1:]})")
            else:
                break
        if not typ:
            raise self.error(f"declaration without a type in .{space}")
        out = []
        while True:
            name_at = self.i
            name = self.next()
            if not _IDENT.match(name):
                raise self.error(f"bad variable name {name!r}", name_at)
            v = ir.Var(space=space, type=typ, name=name, vector=vector, align=align,
                       linkage=linkage, ptr_space=ptr_space, attributes=tuple(attributes),
                       tok=name_at)
            t = self.peek()
            if t == "<":
                self.i += 1
                v.count = self.int_token()
                self.expect(">")
                if not 0 < v.count <= 1 << 20:
                    raise self.error(f"bad register count {v.count}", name_at)
            while self.peek() == "[":
                self.i += 1
                if self.peek() == "]":
                    v.dims.append(0)
                else:
                    d = self.int_token()
                    if d < 0 or d > 1 << 40:
                        raise self.error(f"bad array size {d}", self.i - 1)
                    v.dims.append(d)
                self.expect("]")
            if self.peek() == "=":
                self.i += 1
                v.init = self._parse_initializer()
            out.append(v)
            if in_list or self.peek() != ",":
                break
            self.i += 1
        if not in_list:
            self.expect(";")
        return out

    # variable attribute (5.4.8): .attribute( .managed | .unified(uuid1, uuid2) )
    def _parse_var_attributes(self) -> list[str]:
        at = self.i
        self.i += 1
        self.expect("(")
        out = []
        while True:
            t = self.next()
            if t not in (".managed", ".unified"):
                raise self.error(f"unknown variable attribute {t!r}", self.i - 1)
            out.append(t[1:])
            if t == ".unified" and self.peek() == "(":
                self._skip_parens()
            if self.peek() != ",":
                break
            self.i += 1
        self.expect(")")
        if not out:
            raise self.error("empty .attribute()", at)
        return out

    # initializer: constant-expression | { initializer { , initializer } }
    def _parse_initializer(self) -> list:
        out: list = []
        self._parse_init_item(out, 0)
        return out

    def _parse_init_item(self, out: list, depth: int) -> None:
        if depth > 8:
            raise self.error("initializer nested too deeply")
        t = self.peek()
        if t == "{":
            if self._int_table(out):
                return
            self.i += 1
            if self.peek() != "}":
                while True:
                    self._parse_init_item(out, depth + 1)
                    if self.peek() != ",":
                        break
                    self.i += 1
            self.expect("}")
            return
        end = self._init_end()
        out.append(self._parse_operand_at(self.i, end))
        self.i = end

    # `{ 12, 0, 7, ... }` of plain decimal integers is how nvcc writes every constant table
    # (ggml's quantisation grids are millions of items per library): read such a brace in
    # one pass, giving what the general operand path gives; any other token falls back to it
    def _int_table(self, out: list) -> bool:
        toks = self.toks
        n = self.n
        j = self.i + 1
        items = []
        while j + 1 < n:
            t = toks[j]
            if not (t.isdigit() and t.isascii() and (t[0] != "0" or len(t) == 1)):
                return False
            items.append(ir.Imm(int(t), "int"))
            sep = toks[j + 1]
            if sep == "}":
                out.extend(items)
                self.i = j + 2
                return True
            if sep != ",":
                return False
            j += 2
        return False

    def _init_end(self) -> int:
        j = self.i
        depth = 0
        while j < self.n:
            t = self.toks[j]
            if t in "(":
                depth += 1
            elif t == ")":
                depth -= 1
            elif depth == 0 and t in (",", "}", ";"):
                return j
            j += 1
        raise self.error("unterminated initializer")

    # ---- bodies --------------------------------------------------------------------------
    # body: { statement } '}'   statement: decl | label ':' | '{' body '}' | instruction ';'
    def _parse_body(self) -> list[ir.Statement]:
        body: list[ir.Statement] = []
        toks = self.toks
        depth = 1
        append = body.append
        while True:
            if self.i >= self.n:
                raise self.error(f"unterminated body of {self.function}")
            t = toks[self.i]
            c = t[0]
            if c == "." and (t[1:] in _SPACES or t[1:].split(".", 1)[0] in _SPACES):
                for v in self._parse_var_decl(""):
                    append(v)
            elif t == "}":
                self.i += 1
                depth -= 1
                if depth == 0:
                    return body
                append(ir.Scope(False))
            elif t == "{":
                self.i += 1
                depth += 1
                append(ir.Scope(True))
            elif t == ".pragma":
                self.skip_to_semicolon()
            elif t == ";":
                self.i += 1
            elif self.i + 1 < self.n and toks[self.i + 1] == ":":
                at = self.i
                if not _IDENT.match(t):
                    raise self.error(f"bad label {t!r}")
                self.i += 2
                if self.peek() == ".callprototype":
                    self._parse_prototype(t)
                elif self.peek() == ".branchtargets":
                    append(self._parse_branch_targets(t, at))
                else:
                    append(ir.Label(t, at))
            elif c == ".":
                raise self.error(f"unknown directive {t!r} in a function body")
            else:
                append(self._parse_instruction())

    # label: .branchtargets label { , label } ;   (PTX ISA 10.3.1, for brx.idx)
    def _parse_branch_targets(self, name: str, at: int) -> ir.BranchTargets:
        self.i += 1
        labels = []
        while True:
            t = self.next()
            if not _IDENT.match(t):
                raise self.error(f"bad label {t!r} in .branchtargets {name}", self.i - 1)
            labels.append(t)
            t = self.next()
            if t == ";":
                return ir.BranchTargets(name, labels, at)
            if t != ",":
                raise self.error(f"expected ',' or ';' in .branchtargets, found {t!r}",
                                 self.i - 1)

    # label: .callprototype (ret-param)? _ (param-list)? ;
    def _parse_prototype(self, label: str) -> None:
        self.i += 1
        fn = ir.Function(name=label, entry=False, tok=self.i)
        if self.peek() == "(":
            fn.returns = self._parse_param_list()
        self.next()  # the placeholder name "_"
        if self.peek() == "(":
            fn.params = self._parse_param_list()
        while self.peek() == ".noreturn":
            self.i += 1
        self.expect(";")
        self.module.prototypes[label] = fn

    # instruction: ( @ !? pred )? opcode(.modifier)* operand { , operand } ;
    def _parse_instruction(self) -> ir.Instruction:
        # the hot path of a cold load (one call per instruction): locals, no helper calls
        # for the common one-token operands, opcodes split once per distinct spelling
        toks = self.toks
        start = self.i
        pred = None
        neg = False
        if toks[start] == "@":
            j = start + 1
            if j < self.n and toks[j] == "!":
                neg = True
                j += 1
            if j >= self.n or not _IDENT.match(toks[j]):
                raise self.error("expected a predicate register after '@'", j)
            pred = toks[j]
            self.i = j + 1
        op_at = self.i
        if op_at >= self.n:
            raise self.error("unexpected end of PTX")
        optok = toks[op_at]
        split = self._opcodes.get(optok)
        if split is None:
            if not optok[0].isalpha():
                raise self.error(f"expected an instruction, found {optok!r}", op_at)
            parts = optok.split(".")
            split = self._opcodes[optok] = (parts[0], tuple(parts[1:]))
        j = op_at + 1
        try:
            end = toks.index(";", j)
        except ValueError:
            raise self.error("missing ';' after instruction", op_at) from None
        operands: list[ir.Operand] = []
        append = operands.append
        # fast path: operands of one token each (the common case); the first operand of
        # more tokens ([addr], {vec}, -imm, %p|%q) and everything after it take the
        # general loop below
        k = j
        ops = self._operands
        while k < end:
            nxt = k + 1
            if nxt != end and toks[nxt] != ",":
                break
            t = toks[k]
            op = ops.get(t)
            if op is None:
                c = t[0]
                if c == "%":
                    op = Reg(t)
                elif c in _DIGITS:
                    op = self._imm(t, k)
                elif c in _SYM_START:
                    op = Sym(t)
                else:
                    break
                ops[t] = op
            append(op)
            k = nxt + 1
        j = k
        addrs = self._addrs
        while j < end:
            # an address: one shared object per spelling, as above (an image operand
            # `[handle, {coords}]` is two operands, split below)
            if toks[j] == "[" and split[0] not in IMAGE_OPCODES:
                k = j + 1
                while k < end and toks[k] != "]":
                    k += 1
                if k < end and (k + 1 == end or toks[k + 1] == ","):
                    key = tuple(toks[j + 1:k])
                    op = addrs.get(key)
                    if op is None:
                        op = addrs[key] = self._parse_operand_at(j, k + 1)
                    append(op)
                    j = k + 2
                    continue
            k = j
            depth = 0
            while k < end:
                t = toks[k]
                if t in ("{", "[", "("):
                    depth += 1
                elif t in ("}", "]", ")"):
                    depth -= 1
                elif t == "," and depth == 0:
                    break
                k += 1
            if toks[j] == "[" and split[0] in IMAGE_OPCODES:
                operands += self._image_operand(j, k)
            else:
                append(self._parse_operand_at(j, k))
            j = k + 1
        self.i = end + 1
        return Instruction(split[0], split[1], operands, pred, neg, op_at)

    def _single(self, t: str, j: int) -> ir.Operand:
        c = t[0]
        if c == "%":
            return ir.Reg(t)
        if c.isdigit():
            return self._imm(t, j)
        if c.isalpha() or c in "_$":
            return ir.Sym(t)
        raise self.error(f"bad operand {t!r}", j)

    # operand: reg | reg '|' reg | '!' reg | imm | '-' imm | name ('+' int)? |
    #          '[' address ']' | '{' operand-list '}' | '(' operand-list ')'
    def _parse_operand_at(self, j: int, end: int) -> ir.Operand:
        toks = self.toks
        if j >= end:
            raise self.error("empty operand", j)
        t = toks[j]
        c = t[0]
        if end - j == 1:
            if c == "%":
                return ir.Reg(t)
            if c.isdigit():
                return self._imm(t, j)
            if c.isalpha() or c in "_$":
                return ir.Sym(t)
            raise self.error(f"bad operand {t!r}", j)
        if c == "[":
            if toks[end - 1] != "]":
                raise self.error("expected ']' to close an address", end - 1)
            return self._address(j + 1, end - 1)
        if c in "{(":
            close = "}" if c == "{" else ")"
            if toks[end - 1] != close:
                raise self.error(f"expected {close!r}", end - 1)
            items = []
            a = j + 1
            while a < end - 1:
                b = a
                while b < end - 1 and toks[b] != ",":
                    b += 1
                items.append(self._parse_operand_at(a, b))
                a = b + 1
            return ir.Vec(items) if c == "{" else ir.Args(items)
        if c == "-" and end - j == 2 and toks[j + 1][0].isdigit():
            imm = self._imm(toks[j + 1], j + 1)
            imm.value = -imm.value
            return imm
        # registers may be named without '%' (nvcc: __$temp3), so any identifier goes here
        if c == "!" and end - j == 2 and _IDENT.match(toks[j + 1]):
            return ir.Neg(ir.Reg(toks[j + 1]))
        if end - j == 3 and toks[j + 1] == "|" and _IDENT.match(t) and _IDENT.match(toks[j + 2]):
            return ir.PredPair(ir.Reg(t), ir.Reg(toks[j + 2]))
        if (c.isalpha() or c in "_$") and end - j >= 3 and toks[j + 1] == "(":
            # generic(sym) / function-like initializer forms
            if toks[j] == "generic" and end - j == 4 and toks[j + 3] == ")":
                return ir.Addr(ir.Sym(toks[j + 2]), 0)
        if (c.isalpha() or c in "_$" or c == "%") and toks[j + 1] in "+-" and end - j == 3:
            off = parse_int(toks[j + 2]) if toks[j + 2][0].isdigit() else None
            if off is None:
                raise self.error(f"bad offset {toks[j + 2]!r}", j + 2)
            base: ir.Reg | ir.Sym = ir.Reg(t) if c == "%" else ir.Sym(t)
            return ir.Addr(base, off if toks[j + 1] == "+" else -off)
        text = " ".join(toks[j:end])
        hint = " (missing ';'?)" if any(x[0].isalpha() for x in toks[j + 1:end]) else ""
        raise self.error(f"cannot parse operand {text!r}{hint}", j)

    # image operand of tex/tld4/suld/sust/sured/suq/txq (PTX ISA 9.7.10):
    #   '[' handle (',' '{' coordinates '}')? ']'
    # flattened into the handle and the coordinate vector, two operands
    def _image_operand(self, j: int, end: int) -> list[ir.Operand]:
        toks = self.toks
        if toks[end - 1] != "]" or end - j < 3:
            raise self.error("expected '[handle, {coordinates}]'", j)
        inner_end = end - 1
        k = j + 1
        while k < inner_end and toks[k] != ",":
            k += 1
        handle = self._parse_operand_at(j + 1, k)
        if k == inner_end:
            return [handle]
        if toks[k + 1] != "{":
            raise self.error("image coordinates must be a vector {...}", k + 1)
        return [handle, self._parse_operand_at(k + 1, inner_end)]

    # address: reg | name | imm | (reg | name) ('+' | '-') imm
    def _address(self, j: int, end: int) -> ir.Addr:
        toks = self.toks
        if j >= end:
            raise self.error("empty address", j)
        t = toks[j]
        base: ir.Reg | ir.Sym | None
        if t[0] == "%":
            base = ir.Reg(t)
        elif t[0].isalpha() or t[0] in "_$":
            base = ir.Sym(t)
        elif t[0].isdigit() and end - j == 1:
            return ir.Addr(None, self._int(t, j))
        else:
            raise self.error(f"bad address base {t!r}", j)
        if end - j == 1:
            return ir.Addr(base, 0)
        sign = toks[j + 1]
        rest = toks[j + 2:end]
        if sign not in "+-" or not rest:
            raise self.error("bad address expression", j + 1)
        neg = sign == "-"
        if rest[0] == "-" and len(rest) == 2:
            neg = not neg
            rest = rest[1:]
        if len(rest) != 1 or not rest[0][0].isdigit():
            raise self.error("bad address offset", j + 2)
        off = self._int(rest[0], j + 2)
        return ir.Addr(base, -off if neg else off)

    def _int(self, t: str, j: int) -> int:
        if t.isdigit() and (t[0] != "0" or len(t) == 1):
            return int(t)
        try:
            return parse_int(t)
        except ValueError:
            raise self.error(f"bad integer {t!r}", j) from None

    def _imm(self, t: str, j: int) -> ir.Imm:
        if len(t) > 2 and t[0] == "0" and t[1] in "fF" and len(t) == 10:
            return ir.Imm(int(t[2:], 16), "f32", True)
        if len(t) > 2 and t[0] == "0" and t[1] in "dD" and len(t) == 18:
            return ir.Imm(int(t[2:], 16), "f64", True)
        if _FLOAT.match(t):
            try:
                return ir.Imm(float(t), "f64")
            except ValueError:
                raise self.error(f"bad number {t!r}", j) from None
        return ir.Imm(self._int(t, j), "int")
