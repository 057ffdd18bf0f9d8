"""Our own declarations of the ROCm ABI we call: every HIP/rocBLAS/rocSOLVER function the
tables target, and the types they need, generated from tables/ (no ROCm headers needed).

Structs are laid out field by field at the offsets the tables recorded, with explicit
padding, so a disagreement with the real headers shows up as a failed static assert (the
test compiles the same asserts against both). Fields whose type cannot be spelled (unnamed
unions) become byte arrays of the right size at the right offset.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from pyshim.codegen.common import STAMP, declare, load_table, write_changed

_SCALARS = {
    "void", "char", "signed char", "unsigned char", "short", "unsigned short", "int",
    "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "float",
    "double", "long double", "_Bool", "bool", "size_t", "int8_t", "int16_t", "int32_t",
    "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "uintptr_t", "intptr_t",
    "FILE",  # <stdio.h>
}
_QUALS = re.compile(r"\b(const|volatile|restrict|struct|enum|union)\b")


class DeclError(RuntimeError):
    pass


class Emitter:
    def __init__(self, typedefs: dict[str, str], enums: dict[str, dict[str, int]],
                 structs: dict[str, dict]):
        self.typedefs = typedefs
        self.enums = enums
        self.structs = structs
        self.out: list[str] = []
        self.done: set[str] = set()
        self.forward: set[str] = set()
        self.asserts: list[str] = []

    # -- names ---------------------------------------------------------------------------
    def _base(self, spelled: str) -> tuple[str, str]:
        """('struct', 'X') / ('enum', 'X') / ('', 'X') for a spelled type, pointers off."""
        t = re.sub(r"\[.*\]", "", spelled).replace("*", " ")
        t = re.sub(r"\b(const|volatile|restrict)\b", " ", t)
        t = " ".join(t.split())
        for kw in ("struct", "enum", "union"):
            if t.startswith(kw + " "):
                return kw, t[len(kw) + 1:]
        return "", t

    def need(self, spelled: str, *, complete: bool) -> None:
        """Make `spelled` usable: declared (pointer use) or defined (by-value use)."""
        if "(*)" in spelled:
            ret, _, params = spelled.partition("(*)")
            self.need(ret.strip(), complete=True)
            for p in params.strip("()").split(","):
                if p.strip() and p.strip() != "void":
                    self.need(p.strip(), complete="*" not in p)
            return
        kw, name = self._base(spelled)
        by_value = complete and "*" not in spelled
        if not name or name in _SCALARS:
            return
        if kw == "enum" or (not kw and name in self.enums and name not in self.typedefs):
            self._enum(name)
        elif kw in ("struct", "union"):
            if by_value or name in self.structs and not self._is_opaque(name):
                self._struct(name, kw)
            else:
                self._forward(name, kw)
        elif name in self.typedefs:
            self._typedef(name)
        elif name in self.structs:
            self._struct(name, "struct")
        elif name in self.enums:
            self._enum(name)
        else:
            raise DeclError(f"unknown type {name!r} (in {spelled!r}): not in the tables")

    def _is_opaque(self, name: str) -> bool:
        return name not in self.structs

    def _forward(self, name: str, kw: str) -> None:
        key = f"{kw} {name}"
        if key not in self.forward and key not in self.done:
            self.forward.add(key)
            self.out.append(f"{kw} {name};\n")

    def _typedef(self, name: str) -> None:
        if name in self.done:
            return
        canon = self.typedefs[name]
        self.done.add(name)
        if canon == name:  # anonymous struct/enum named by its typedef
            if name in self.structs:
                self._struct_body(name, "struct", typedef=name)
            elif name in self.enums:
                self._enum_body(name, typedef=name)
            else:
                raise DeclError(f"typedef {name} names nothing the tables know")
            return
        if "(*)" in canon:
            self.need(canon, complete=False)
            self.out.append(f"typedef {canon.replace('(*)', f'(*{name})', 1)};\n")
            return
        if "[" in canon:
            base, _, dims = canon.partition("[")
            self.need(base.strip(), complete=True)
            self.out.append(f"typedef {base.strip()} {name}[{dims};\n")
            return
        self.need(canon, complete="*" not in canon)
        sep = "" if canon.endswith("*") else " "
        self.out.append(f"typedef {canon}{sep}{name};\n")

    def _enum(self, name: str) -> None:
        if f"enum {name}" in self.done:
            return
        self._enum_body(name)

    def _enum_body(self, name: str, typedef: str | None = None) -> None:
        self.done.add(f"enum {name}")
        vals = self.enums[name]
        body = "".join(f"    {k} = {v},\n" for k, v in vals.items())
        for k, v in vals.items():
            self.asserts.append(f"_Static_assert({k} == {v}, \"{k}\");")
        if typedef:
            self.out.append(f"typedef enum {{\n{body}}} {typedef};\n")
        else:
            self.out.append(f"enum {name} {{\n{body}}};\n")

    def _struct(self, name: str, kw: str) -> None:
        if f"{kw} {name}" in self.done:
            return
        if name not in self.structs:
            raise DeclError(f"{kw} {name} is used by value but its layout is not in the tables")
        self._struct_body(name, kw)

    def _struct_body(self, name: str, kw: str, typedef: str | None = None) -> None:
        self.done.add(f"{kw} {name}")
        st = self.structs[name]
        lines = []
        pos = 0
        cname = typedef or f"{kw} {name}"
        fields = st["fields"]
        if any(len(f) > 4 for f in fields):
            # bit-fields: declared as in the header, in order, and the compiler packs them
            # the same way; sizeof is still checked
            for fname, ftype, _off, _size, _bitoff, bits in (f + [0, 0][len(f) - 4:]
                                                              for f in fields):
                self.need(ftype, complete=True)
                lines.append(f"    {ftype} {fname}" + (f" : {bits};" if bits else ";"))
            fields = []
        for i, (fname, ftype, off, size) in enumerate(fields):
            spellable = fname and "(" not in ftype and "unnamed" not in ftype \
                and "anonymous" not in ftype
            if off < 0:
                if spellable:
                    raise DeclError(f"{cname}.{fname}: bit-field or unknown offset")
                continue  # an anonymous member: the padding before the next field covers it
            if kw == "union":
                off = 0
            if off > pos:
                lines.append(f"    unsigned char _pyshim_pad{i}[{off - pos}];")
            if spellable:
                self.need(ftype, complete=True)
                if "[" in ftype:
                    base, _, dims = ftype.partition("[")
                    lines.append(f"    {base.strip()} {fname}[{dims};")
                elif "(*)" in ftype:
                    lines.append(f"    {ftype.replace('(*)', f'(*{fname})', 1)};")
                else:
                    lines.append(f"    {ftype} {fname};")
                self.asserts.append(f"_Static_assert(offsetof({cname}, {fname}) == {off}, "
                                    f"\"{cname}.{fname}\");")
            else:
                lines.append(f"    unsigned char _pyshim_field{i}[{size}];")
            if kw != "union":
                pos = off + size
            else:
                pos = max(pos, size)
        if kw != "union" and st["size"] > pos and fields:
            lines.append(f"    unsigned char _pyshim_tail[{st['size'] - pos}];")
        if lines and not any(len(f) > 4 for f in st["fields"]):
            lines[0] = lines[0].replace("    ", f"    _Alignas({st['align']}) ", 1)
        body = "\n".join(lines)
        if typedef:
            self.out.append(f"typedef {kw} {{\n{body}\n}} {typedef};\n")
        else:
            self.out.append(f"{kw} {name} {{\n{body}\n}};\n")
        self.asserts.append(f"_Static_assert(sizeof({cname}) == {st['size']}, \"{cname}\");")


def declarations(functions: dict[str, dict], em: Emitter, guard: str,
                 needed_types: list[str] = ()) -> tuple[str, str]:
    """A declarations header (types, then prototypes; `<guard>_PROTOTYPES_ONLY` leaves the
    types to a vendor header) and the static asserts that check its types."""
    for t in needed_types:
        em.need(t, complete=True)
    protos = []
    for name, sig in sorted(functions.items()):
        em.need(sig["ret"], complete=True)
        for ctype, _pname in sig["params"]:
            em.need(ctype, complete="*" not in ctype and "[" not in ctype)
        protos.append(declare(name, sig) + ";\n")
    head = [STAMP, f"#ifndef {guard}_H\n#define {guard}_H\n",
            "#include <stddef.h>\n#include <stdint.h>\n#include <stdbool.h>\n#include <stdio.h>\n\n",
            f"#ifndef {guard}_PROTOTYPES_ONLY\n", *em.out,
            f"#endif /* {guard}_PROTOTYPES_ONLY */\n\n", *protos, "\n#endif\n"]
    checks = [STAMP, "#include <stddef.h>\n", *(a + "\n" for a in em.asserts)]
    return "".join(head), "".join(checks)


def generate_header(rocm: dict, typedefs: dict, structs: dict) -> tuple[str, str]:
    """The ROCm declarations header and the static-assert file that checks it."""
    em = Emitter(typedefs["rocm"], typedefs["rocm_enums"], typedefs["rocm_structs"])
    # the HIP runtime's, rocBLAS's and rocSOLVER's targets: the further libraries' shims
    # (codegen/randfft.py, codegen/sparse.py) declare theirs in ABI terms, their types not
    # being in the tables
    own = {n for lib in ("hip", "rocblas", "rocsolver") for n in rocm["names"].get(lib, ())}
    functions = {n: f for n, f in rocm["functions"].items() if n in own}
    # what the struct adapters convert into, too
    return declarations(functions, em, "PYSHIM_ROCM",
                        [pair["rocm"] for pair in structs["pairs"].values()])


def generate(out_dir: Path) -> list[Path]:
    header, checks = generate_header(load_table("rocm"), load_table("typedefs"),
                                     load_table("structs"))
    return write_changed(out_dir, {"pyshim_rocm.h": header, "pyshim_rocm_checks.inc": checks})


if __name__ == "__main__":
    for p in generate(Path(sys.argv[1] if len(sys.argv) > 1 else "build/gen")):
        print(p)
