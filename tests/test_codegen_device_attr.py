"""pyshim.codegen.device_attr: libcuda's cuDeviceGetAttribute cases from
tables/device_attributes.toml, checked against the tables' cuda.h and HIP names."""

from __future__ import annotations

import re

import pytest

from pyshim.codegen import device_attr
from pyshim.codegen.common import load_table
from pyshim.paths import SHIM_DIR


@pytest.fixture(scope="module")
def typedefs() -> dict:
    return load_table("typedefs")


def test_every_row_names_a_real_attribute_and_field(typedefs: dict) -> None:
    rows = device_attr.rows(device_attr.load(), typedefs)
    assert len(rows) > 100
    hip = {f[0]: f[1] for f in typedefs["rocm_structs"][device_attr.HIP_PROP]["fields"]}
    for row in rows:
        kind, attr, value = re.fullmatch(r"PYSHIM_ATTR_(\w+)\((\w+), (.*)\)", row).groups()
        assert attr in typedefs["cuda_enums"]["CUdevice_attribute"]
        if kind != "CONST":
            ctype = hip[value.split("[")[0]]
            # a size_t is clamped, an unsigned cast: the field's type decides, not the spec
            assert kind == {"size_t": "SIZE", "unsigned int": "UINT"}.get(
                re.sub(r"\[\d+\]$", "", ctype), "INT")


def test_a_misspelt_field_is_an_error(typedefs: dict) -> None:
    spec = {"field": {"MAX_THREADS_PER_BLOCK": "maxThreadPerBlock"}}
    with pytest.raises(device_attr.SpecError, match="maxThreadPerBlock"):
        device_attr.rows(spec, typedefs)
    with pytest.raises(device_attr.SpecError, match="CU_DEVICE_ATTRIBUTE_NO_SUCH"):
        device_attr.rows({"constant": {"NO_SUCH": 0}}, typedefs)


def test_the_c_answers_by_hand_only_what_the_spec_cannot(typedefs: dict) -> None:
    """device_attr.c keeps the cases that need more than a field or a constant; a field read
    typed into its switch (the 172-line switch this replaced) is a second source."""
    text = (SHIM_DIR / "core" / "device_attr.c").read_text()
    by_hand = set(re.findall(r"case (CU_DEVICE_ATTRIBUTE_\w+):", text))
    spec = device_attr.load()
    in_spec = {f"CU_DEVICE_ATTRIBUTE_{a}" for s in ("field", "constant") for a in spec[s]}
    assert by_hand and not by_hand & in_spec
    assert not re.findall(r"case CU_DEVICE_ATTRIBUTE_\w+: v = (?:clamp\()?p->\w+(?:\[\d\])?\)?;",
                          text)
