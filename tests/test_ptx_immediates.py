"""Immediate operands keep their exact value in the C (the emitter caches their C text)."""

from pyshim.ptx.translate import translate

_PTX = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .f32 %f<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    mov.f32 %f1, 0.0;
    mov.f32 %f2, -0.0;
    st.global.f32 [%rd1], %f1;
    st.global.f32 [%rd1+4], %f2;
    ret;
}
"""


def test_negative_zero_beside_zero():
    # -0.0 == 0.0 (and hashes alike): a cache keyed by the value alone gave both +0.0
    lines = translate(_PTX, "cpu-wave64").splitlines()
    f1 = next(x for x in lines if "r_f1 = " in x)
    f2 = next(x for x in lines if "r_f2 = " in x)
    assert "-0x0.0p+0f" in f2 and "-" not in f1.split("=", 1)[1]
