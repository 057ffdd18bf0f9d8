"""Hand-written PTX for the warp matrix tests (tests/test_ptx_mma.py) and numpy references.

Fragment layouts here follow the PTX ISA manual's figures shape by shape (section 9.7.14.5.x,
"Matrix Fragments for mma.m16n8k*"), written as tables of (row, col) per lane and element,
independently of preludes/mma.h's single formula.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4,
        "b1": 1, "e4m3": 8, "e5m2": 8, "f32": 32, "s32": 32}


@dataclass(frozen=True)
class Form:
    m: int
    n: int
    k: int
    d: str
    a: str
    b: str
    c: str
    sat: bool = False
    bop: str = ""  # b1: "and" | "xor"

    @property
    def id(self) -> str:
        s = f"m{self.m}n{self.n}k{self.k}_{self.d}_{self.a}_{self.b}_{self.c}"
        return s + ("_sat" if self.sat else "") + (f"_{self.bop}" if self.bop else "")

    @property
    def opcode(self) -> str:
        s = f"mma.sync.aligned.m{self.m}n{self.n}k{self.k}.row.col"
        if self.sat:
            s += ".satfinite"
        s += f".{self.d}.{self.a}.{self.b}.{self.c}"
        if self.bop:
            s += f".{self.bop}.popc"
        return s

    def words(self, which: str) -> int:
        rows, cols, ty = {"a": (self.m, self.k, self.a), "b": (self.k, self.n, self.b),
                          "c": (self.m, self.n, self.c), "d": (self.m, self.n, self.d)}[which]
        return rows * cols * BITS[ty] // 1024


FORMS = [
    Form(16, 8, 16, "f32", "f16", "f16", "f32"), Form(16, 8, 16, "f16", "f16", "f16", "f16"),
    Form(16, 8, 16, "f32", "f16", "f16", "f16"), Form(16, 8, 16, "f16", "f16", "f16", "f32"),
    Form(16, 8, 8, "f32", "f16", "f16", "f32"), Form(16, 8, 8, "f16", "f16", "f16", "f16"),
    Form(16, 8, 16, "f32", "bf16", "bf16", "f32"), Form(16, 8, 8, "f32", "bf16", "bf16", "f32"),
    Form(16, 8, 8, "f32", "tf32", "tf32", "f32"), Form(16, 8, 4, "f32", "tf32", "tf32", "f32"),
    Form(8, 8, 4, "f64", "f64", "f64", "f64"),
    Form(8, 8, 16, "s32", "s8", "s8", "s32"), Form(8, 8, 16, "s32", "u8", "s8", "s32", True),
    Form(16, 8, 16, "s32", "s8", "u8", "s32"), Form(16, 8, 16, "s32", "u8", "u8", "s32", True),
    Form(16, 8, 32, "s32", "s8", "s8", "s32", True), Form(16, 8, 32, "s32", "u8", "u8", "s32"),
    Form(8, 8, 32, "s32", "s4", "s4", "s32"), Form(16, 8, 32, "s32", "u4", "s4", "s32", True),
    Form(16, 8, 64, "s32", "s4", "u4", "s32", True), Form(16, 8, 64, "s32", "u4", "u4", "s32"),
    Form(8, 8, 128, "s32", "b1", "b1", "s32", bop="xor"),
    Form(16, 8, 128, "s32", "b1", "b1", "s32", bop="and"),
    Form(16, 8, 256, "s32", "b1", "b1", "s32", bop="xor"),
    Form(16, 8, 32, "f32", "e4m3", "e4m3", "f32"), Form(16, 8, 32, "f32", "e5m2", "e4m3", "f32"),
    Form(16, 8, 32, "f32", "e5m2", "e5m2", "f32"),
]


# ---- fragment layouts (ISA figures) ---------------------------------------------------------
def a_layout(f: Form) -> list[list[tuple[int, int]]]:
    """[lane][element] -> (row, col) of A"""
    out = []
    per = 32 // min(BITS[f.a], 32)  # elements per 32-bit register
    n = f.m * f.k // 32
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        row = []
        for i in range(n):
            if f.m == 8:  # m8n8k*: one register (two words for f64), row groupID
                row.append((g, t * per + i))
                continue
            reg, e = divmod(i, per)
            # a0/a1 (reg 0): rows g, a2/a3 (reg 1) rows g + 8, the next two registers the
            # same rows in the upper half of k
            r = g + (8 if reg in (1, 3) else 0)
            c = t * per + e + (f.k // 2 if reg >= 2 else 0)
            row.append((r, c))
        out.append(row)
    return out


def b_layout(f: Form) -> list[list[tuple[int, int]]]:
    """[lane][element] -> (k, n) of B"""
    out = []
    per = 32 // min(BITS[f.b], 32)
    n = f.k * f.n // 32
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        out.append([(t * per + i % per + (f.k // 2 if i >= per else 0), g) for i in range(n)])
    return out


def c_layout(f: Form) -> list[list[tuple[int, int]]]:
    n = f.m * f.n // 32
    return [[((lane >> 2) + (8 if i >= 2 else 0), (lane & 3) * 2 + (i & 1)) for i in range(n)]
            for lane in range(32)]


# ---- element encodings ---------------------------------------------------------------------
def e4m3_values() -> np.ndarray:
    out = np.zeros(256)
    for b in range(256):
        s, e, m = b >> 7, (b >> 3) & 15, b & 7
        if e == 15 and m == 7:
            v = np.nan
        elif e == 0:
            v = m * 2.0 ** -9
        else:
            v = (1 + m / 8) * 2.0 ** (e - 7)
        out[b] = -v if s else v
    return out


def e5m2_values() -> np.ndarray:
    return np.array([np.frombuffer(np.uint16(b << 8).tobytes(), np.float16)[0]
                     for b in range(256)], dtype=np.float64)


def decode(ty: str, bits: np.ndarray) -> np.ndarray:
    """element bit patterns -> their values (float64 or int64)"""
    bits = bits.astype(np.uint64)
    if ty == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if ty == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if ty == "tf32":
        return (bits.astype(np.uint32) & 0xFFFFE000).view(np.float32).astype(np.float64)
    if ty in ("f32",):
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    if ty == "f64":
        return bits.view(np.float64)
    if ty == "e4m3":
        return e4m3_values()[bits.astype(np.int64)]
    if ty == "e5m2":
        return e5m2_values()[bits.astype(np.int64)]
    if ty in ("s8", "s4", "s32"):
        w = BITS[ty]
        v = bits.astype(np.int64)
        return np.where(v >= 1 << (w - 1), v - (1 << w), v)
    return bits.astype(np.int64)


def pack(ty: str, layout, mat_bits: np.ndarray, words: int) -> np.ndarray:
    """per-lane fragment words [32, words] (uint32) from a matrix of element bit patterns"""
    w = BITS[ty]
    out = np.zeros((32, words), dtype=np.uint64)
    for lane in range(32):
        for i, (r, c) in enumerate(layout[lane]):
            v = int(mat_bits[r, c])
            if w == 64:
                out[lane, 2 * i] = v & 0xFFFFFFFF
                out[lane, 2 * i + 1] = v >> 32
            else:
                per = 32 // w
                out[lane, i // per] |= (v & ((1 << w) - 1)) << ((i % per) * w)
    return out.astype(np.uint32)


def unpack(ty: str, layout, words: np.ndarray, rows: int, cols: int) -> np.ndarray:
    w = BITS[ty]
    out = np.zeros((rows, cols), dtype=np.uint64)
    for lane in range(32):
        for i, (r, c) in enumerate(layout[lane]):
            if w == 64:
                out[r, c] = int(words[lane, 2 * i]) | (int(words[lane, 2 * i + 1]) << 32)
            else:
                per = 32 // w
                out[r, c] = (int(words[lane, i // per]) >> ((i % per) * w)) & ((1 << w) - 1)
    return out


# ---- PTX ------------------------------------------------------------------------------------
HEAD = ".version 8.0\n.target sm_89\n.address_size 64\n"


def kernel(f: Form) -> str:
    """k_<id>(in, out): thread i reads its A, B, C words from in[i * nin ...] and writes D to
    out[i * nd ...]; every warp of the block is its own mma."""
    na, nb, nc, nd = (f.words(x) for x in "abcd")
    nin = na + nb + nc
    lines = [f".visible .entry k_{f.id}(.param .u64 pin, .param .u64 pout) {{",
             "  .reg .b32 %r<200>; .reg .b64 %rd<20>; .reg .f64 %fd<20>;",
             "  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];",
             "  mov.u32 %r0, %tid.x;",
             f"  mul.wide.u32 %rd3, %r0, {nin * 4}; add.s64 %rd4, %rd1, %rd3;",
             f"  mul.wide.u32 %rd5, %r0, {nd * 4}; add.s64 %rd6, %rd2, %rd5;"]

    def regs(start: int, nwords: int, f64: bool) -> list[str]:
        if f64:
            return [f"%fd{start + i}" for i in range(nwords // 2)]
        return [f"%r{start + i}" for i in range(nwords)]

    is64 = f.a == "f64"
    ra, rb, rc = regs(10, na, is64), regs(50 if not is64 else 2, nb, is64), \
        regs(90 if not is64 else 4, nc, is64)
    rd = regs(150 if not is64 else 10, nd, is64)
    off = 0
    for group in (ra, rb, rc):
        for r in group:
            if is64:
                lines.append(f"  ld.global.f64 {r}, [%rd4+{off}];")
                off += 8
            else:
                lines.append(f"  ld.global.b32 {r}, [%rd4+{off}];")
                off += 4

    def vec(rs: list[str]) -> str:
        return "{" + ", ".join(rs) + "}"

    lines.append(f"  {f.opcode} {vec(rd)}, {vec(ra)}, {vec(rb)}, {vec(rc)};")
    off = 0
    for r in rd:
        if is64:
            lines.append(f"  st.global.f64 [%rd6+{off}], {r};")
            off += 8
        else:
            lines.append(f"  st.global.b32 [%rd6+{off}], {r};")
            off += 4
    lines += ["  ret;", "}"]
    return "\n".join(lines)


def module(forms=FORMS) -> str:
    return HEAD + "\n".join(kernel(f) for f in forms) + "\n" + LDMATRIX_KERNELS


# ldmatrix / stmatrix / movmatrix kernels: one warp; `src` a 32 x 32 b16 matrix (row-major,
# 64-byte rows) copied to shared memory; lane l points at row offs[l] (an index of a 16-byte
# row piece); out: per lane, the registers loaded
def _ldm(count: int, trans: bool) -> str:
    name = f"ldm_x{count}{'_t' if trans else ''}"
    regs = [f"%r{20 + i}" for i in range(count)]
    dst = regs[0] if count == 1 else "{" + ", ".join(regs) + "}"
    stores = "\n".join(f"  st.global.b32 [%rd6+{4 * i}], {r};" for i, r in enumerate(regs))
    return f"""
.visible .entry {name}(.param .u64 psrc, .param .u64 poffs, .param .u64 pout) {{
  .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<4>;
  .shared .align 16 .b8 tile[2048];
  ld.param.u64 %rd1, [psrc]; ld.param.u64 %rd2, [poffs]; ld.param.u64 %rd3, [pout];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %r0;
LOOP:
  mul.wide.u32 %rd4, %r1, 16; add.s64 %rd5, %rd1, %rd4;
  ld.global.v4.b32 {{%r4, %r5, %r6, %r7}}, [%rd5];
  mov.u32 %r8, tile; mul.lo.u32 %r9, %r1, 16; add.u32 %r8, %r8, %r9;
  st.shared.v4.b32 [%r8], {{%r4, %r5, %r6, %r7}};
  add.u32 %r1, %r1, 32; setp.lt.u32 %p1, %r1, 128; @%p1 bra LOOP;
  bar.sync 0;
  mul.wide.u32 %rd4, %r0, 4; add.s64 %rd5, %rd2, %rd4; ld.global.u32 %r2, [%rd5];
  mov.u32 %r3, tile; mul.lo.u32 %r2, %r2, 16; add.u32 %r3, %r3, %r2;
  ldmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16 {dst}, [%r3];
  mul.wide.u32 %rd4, %r0, {4 * count}; add.s64 %rd6, %rd3, %rd4;
{stores}
  ret;
}}
"""


def _stm(count: int, trans: bool) -> str:
    name = f"stm_x{count}{'_t' if trans else ''}"
    regs = [f"%r{20 + i}" for i in range(count)]
    src = regs[0] if count == 1 else "{" + ", ".join(regs) + "}"
    loads = "\n".join(f"  ld.global.b32 {r}, [%rd6+{4 * i}];" for i, r in enumerate(regs))
    return f"""
.visible .entry {name}(.param .u64 pin, .param .u64 poffs, .param .u64 pout) {{
  .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<4>;
  .shared .align 16 .b8 tile[2048];
  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [poffs]; ld.param.u64 %rd3, [pout];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %r0;
ZERO:
  mov.u32 %r8, tile; mul.lo.u32 %r9, %r1, 16; add.u32 %r8, %r8, %r9;
  mov.u32 %r4, 0;
  st.shared.v4.b32 [%r8], {{%r4, %r4, %r4, %r4}};
  add.u32 %r1, %r1, 32; setp.lt.u32 %p1, %r1, 128; @%p1 bra ZERO;
  bar.sync 0;
  mul.wide.u32 %rd4, %r0, {4 * count}; add.s64 %rd6, %rd1, %rd4;
{loads}
  mul.wide.u32 %rd4, %r0, 4; add.s64 %rd5, %rd2, %rd4; ld.global.u32 %r2, [%rd5];
  mov.u32 %r3, tile; mul.lo.u32 %r2, %r2, 16; add.u32 %r3, %r3, %r2;
  stmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16 [%r3], {src};
  bar.sync 0;
  mov.u32 %r1, %r0;
COPY:
  mov.u32 %r8, tile; mul.lo.u32 %r9, %r1, 16; add.u32 %r8, %r8, %r9;
  ld.shared.v4.b32 {{%r4, %r5, %r6, %r7}}, [%r8];
  mul.wide.u32 %rd4, %r1, 16; add.s64 %rd5, %rd3, %rd4;
  st.global.v4.b32 [%rd5], {{%r4, %r5, %r6, %r7}};
  add.u32 %r1, %r1, 32; setp.lt.u32 %p1, %r1, 128; @%p1 bra COPY;
  ret;
}}
"""


MOVMATRIX = """
.visible .entry movm(.param .u64 pin, .param .u64 pout) {
  .reg .b32 %r<10>; .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd3, %r0, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
  ld.global.b32 %r1, [%rd4];
  movmatrix.sync.aligned.m8n8.trans.b16 %r2, %r1;
  st.global.b32 [%rd5], %r2;
  ret;
}
"""

LDMATRIX_KERNELS = "".join(_ldm(c, t) + _stm(c, t) for c in (1, 2, 4) for t in (False, True)) \
    + MOVMATRIX
