"""driver_device_attr.inc from tables/device_attributes.toml: the cases of libcuda's
cuDeviceGetAttribute that read a hipDeviceProp_t field or report a constant, beside the
runtime's generated property map (pyshim.codegen.runtime.devprop_table).

    PYSHIM_ATTR_INT(CU_DEVICE_ATTRIBUTE_X, field)     an int field
    PYSHIM_ATTR_UINT(CU_DEVICE_ATTRIBUTE_X, field)    an unsigned field, cast
    PYSHIM_ATTR_SIZE(CU_DEVICE_ATTRIBUTE_X, field)    a size_t field, clamped to INT_MAX
    PYSHIM_ATTR_CONST(CU_DEVICE_ATTRIBUTE_X, value)   no HIP field: CUDA's absent-feature answer
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

from pyshim.codegen.common import STAMP, load_table, write_changed
from pyshim.paths import TABLES_DIR

SPEC = "device_attributes.toml"
INC = "driver_device_attr.inc"
HIP_PROP = "hipDeviceProp_tR0600"  # hipDeviceProp_t in HIP 7's headers
_FIELD = re.compile(r"(\w+)(?:\[(\d+)\])?")
# the C types of hipDeviceProp_t's fields and how each becomes cuDeviceGetAttribute's int
_KINDS = {"int": "INT", "unsigned int": "UINT", "size_t": "SIZE"}


class SpecError(ValueError):
    pass


def load(path: Path | None = None) -> dict:
    with open(path or TABLES_DIR / SPEC, "rb") as f:
        return tomllib.load(f)


def _kind(ctype: str, indexed: bool, where: str) -> str:
    base = re.sub(r"\[\d+\]$", "", ctype) if indexed else ctype
    if indexed and base == ctype:
        raise SpecError(f"{where}: {ctype} is not an array")
    if base not in _KINDS:
        raise SpecError(f"{where}: hipDeviceProp_t field of type {ctype}: no rule to make an int")
    return _KINDS[base]


def rows(spec: dict, typedefs: dict) -> list[str]:
    """The X-macro rows, in the spec's order. A name the headers do not have is an error."""
    attrs = typedefs["cuda_enums"]["CUdevice_attribute"]
    hip = {f[0]: f[1] for f in typedefs["rocm_structs"][HIP_PROP]["fields"]}
    out = []
    seen: set[str] = set()
    for section in ("field", "constant"):
        for suffix, value in spec.get(section, {}).items():
            attr = f"CU_DEVICE_ATTRIBUTE_{suffix}"
            if attr not in attrs:
                raise SpecError(f"{SPEC}: {attr} is not in cuda.h's CUdevice_attribute")
            if attr in seen:
                raise SpecError(f"{SPEC}: {attr} appears twice")
            seen.add(attr)
            if section == "constant":
                out.append(f"PYSHIM_ATTR_CONST({attr}, {value})")
                continue
            m = _FIELD.fullmatch(value)
            if m is None or m[1] not in hip:
                raise SpecError(f"{SPEC}: {attr}: {value!r} is not a field of hipDeviceProp_t")
            kind = _kind(hip[m[1]], m[2] is not None, f"{SPEC}: {attr}")
            out.append(f"PYSHIM_ATTR_{kind}({attr}, {value})")
    return out


def source(spec: dict, typedefs: dict) -> str:
    return STAMP.replace("tables/", f"tables/{SPEC}") + "\n".join(rows(spec, typedefs)) + "\n"


def generate(out_dir: Path) -> Path:
    return write_changed(out_dir, {INC: source(load(), load_table("typedefs"))})[0]


if __name__ == "__main__":
    print(generate(Path(sys.argv[1] if len(sys.argv) > 1 else "build/gen")))
