"""The PTX IR: a module of variables and functions, function bodies as flat statement lists.

Kept deliberately close to the text: an instruction is its opcode, its modifier list (in
order, e.g. ('global', 'v2', 'f32')), its operands and its guard predicate. Passes annotate
functions (`Function.info`) and the module (`Module.info`) rather than rewriting instructions into another language.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Reg:
    name: str                      # "%r1", "%tid.x", "%SP"


@dataclass(slots=True)
class Imm:
    value: int | float
    kind: str                      # "int" | "f32" | "f64" (0f/0d bit patterns are kept as int bits)
    bits: bool = False             # True for 0fXXXXXXXX / 0dXXXX...: value is the raw bit pattern


@dataclass(slots=True)
class Sym:
    name: str                      # a variable, function or label name


@dataclass(slots=True)
class Addr:
    base: Reg | Sym | None         # None: an absolute address [imm]
    offset: int = 0


@dataclass(slots=True)
class Vec:
    items: list[Reg | Imm | Sym]


@dataclass(slots=True)
class PredPair:
    """`%p|%q`: setp's second destination, or shfl's validity predicate."""
    first: Reg
    second: Reg


@dataclass(slots=True)
class Neg:
    """`!%p` as a source operand (setp's combining predicate, selp)."""
    reg: Reg


@dataclass(slots=True)
class Args:
    """A parenthesised list in `call`: (retval0) or (param0, param1)."""
    items: list[Reg | Imm | Sym]


Operand = Reg | Imm | Sym | Addr | Vec | PredPair | Neg | Args


@dataclass(slots=True)
class Instruction:
    opcode: str
    mods: tuple[str, ...]
    operands: list[Operand]
    pred: str | None = None        # guard register name
    pred_neg: bool = False         # @!%p
    tok: int = 0                   # token index in the Source, for line:col
    site: int = 0                  # unique id within the module (collective call sites)


@dataclass(slots=True)
class Label:
    name: str
    tok: int = 0


@dataclass(slots=True)
class Var:
    """A .reg/.param/.local/.shared/.global/.const declaration."""
    space: str                     # "reg" "param" "local" "shared" "global" "const"
    type: str                      # "b32" "f32" "pred" ...
    name: str
    vector: int = 1                # .v2 / .v4
    align: int = 0                 # 0: natural
    dims: list[int] = field(default_factory=list)  # [] scalar; 0 = unsized (extern / [])
    count: int = 0                 # %r<100>: a range of 100 registers named %r0..%r99
    init: list | None = None       # flattened initializer: ints / floats / Sym / ("generic", Sym)
    linkage: str = ""              # "visible" "extern" "weak" "common" ""
    ptr_space: str = ""            # .param .ptr.global.align N: informational
    # .attribute(.managed): a __managed__ variable. The CPU device's memory is host memory,
    # so its storage is the plain global. An AMD runtime must back it with managed memory
    # (hipMallocManaged) and make the code object's symbol refer to that allocation, so
    # that host code dereferencing the variable's address sees the device's writes.
    attributes: tuple[str, ...] = ()
    tok: int = 0


@dataclass(slots=True)
class Scope:
    """`{` or `}` inside a body: nested scopes hold their own declarations."""
    open: bool


@dataclass(slots=True)
class BranchTargets:
    """`name: .branchtargets L0, L1, ...;`: the label table an indirect brx.idx goes through."""
    name: str
    labels: list[str]
    tok: int = 0


Statement = Instruction | Label | Var | Scope | BranchTargets


@dataclass(slots=True)
class FunctionPlan:
    """What the passes decide about one function (`Function.info`), for the targets.

    Generic passes: `calls`, `indirect_calls` (resolve_calls), `shared`, `shared_size`
    (layout_shared, kernels). The CPU target's own passes (targets/cpu/target.py PASSES):
    `sync`, `mode` ("loop" | "phase" | "fiber"), `regions` (a passes.regions.RegionPlan or
    None), `phase_live` (classify_sync). Read as attributes; `info["mode"]` and
    `info.get("mode")` also work (for a field only: a misspelt key is an error)."""
    calls: list[str] = field(default_factory=list)
    indirect_calls: bool = False
    shared: dict[str, int] = field(default_factory=dict)
    shared_size: int = 0
    sync: bool = False
    mode: str | None = None
    regions: object = None
    phase_live: set[str] | None = None

    def __getitem__(self, key: str):
        if key not in self.__slots__:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        if key not in self.__slots__:
            raise KeyError(key)
        setattr(self, key, value)

    def get(self, key: str, default=None):
        value = self[key]
        return default if value is None else value

    def items(self):
        return [(k, getattr(self, k)) for k in self.__slots__]


@dataclass(slots=True)
class ModulePlan:
    """What the passes decide about the whole module (`Module.info`), for the targets.

    layout_shared: `shared_common` (the offsets in every kernel's shared window of the
    module-scope .shared variables and those declared in .func bodies), `shared_common_size`
    (where that common part ends, each kernel's own variables follow) and `reserved_smem`
    (the offset of the block's reserved shared region, None where the module does not read
    %reserved_smem_offset_*)."""
    shared_common: dict[str, int] = field(default_factory=dict)
    shared_common_size: int = 0
    reserved_smem: int | None = None


@dataclass(slots=True)
class Function:
    name: str
    entry: bool                    # .entry (kernel) or .func
    linkage: str = ""
    params: list[Var] = field(default_factory=list)
    returns: list[Var] = field(default_factory=list)
    body: list[Statement] | None = None   # None: a declaration only (.extern / prototype)
    directives: dict[str, list[int]] = field(default_factory=dict)  # maxntid, reqntid, ...
    noreturn: bool = False
    tok: int = 0
    info: FunctionPlan = field(default_factory=FunctionPlan)  # filled by passes


@dataclass(slots=True)
class Module:
    version: str = ""
    target: list[str] = field(default_factory=list)
    address_size: int = 64
    variables: list[Var] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    prototypes: dict[str, Function] = field(default_factory=dict)  # .callprototype labels
    source: object = None          # lexer.Source, for positions in errors
    info: ModulePlan = field(default_factory=ModulePlan)  # filled by passes

    def function(self, name: str) -> Function | None:
        for f in self.functions:
            if f.name == name:
                return f
        return None

    @property
    def kernels(self) -> list[Function]:
        return [f for f in self.functions if f.entry and f.body is not None]


# opcodes whose first operand is not written (a call's first operand, when it is a list, is
# its return values, which it writes)
NO_DEST = frozenset(("st", "red", "bar", "barrier", "bra", "brx", "ret", "exit", "trap",
                     "prefetch", "prefetchu", "membar", "fence", "cp", "nanosleep", "pmevent",
                     "griddepcontrol", "discard", "applypriority", "sust", "sured"))


def written(s: Instruction) -> list[str]:
    """The registers instruction `s` writes: its first operand's, where it has a destination
    (a register, `%p|%q`, a vector load's `{%r1, %r2}`, a call's return list)."""
    if not s.operands or s.opcode in NO_DEST:
        return []
    op = s.operands[0]
    if type(op) is Reg:
        return [op.name]
    if type(op) is PredPair:
        return [op.first.name, op.second.name]
    if type(op) is Vec or type(op) is Args:
        return [x.name for x in op.items if type(x) is Reg]
    return []
