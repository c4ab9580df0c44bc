"""Operators on vectors. ``c ? a : b`` with a vector condition (OpenCL C 1.2 6.3 i) is ``select(b, a, c)``,
component by component on the most significant bit of ``c`` (1 and 0 choose ``b``, -1 and -3 choose ``a``),
scalar operands widened to the condition's length, both operands evaluated; ``&&`` and ``||`` on vectors (6.3 g)
work component by component, -1 or 0 in the signed type of the element's size. Through the public HAL on the
simulator and, where installed, on PoCL and Oclgrind, against NumPy; Clang's build errors for a float condition,
for elements of another size, and for a scalar that outranks the vector's elements."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import assert_refused, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.program import KernelCompileError

SOURCE = r"""
__kernel void selection(__global const float4* v, __global const int4* m, __global float4* out, __global int4* q,
                        __global ulong2* w)
{
    const int i = get_global_id(0);
    out[i] = m[i] ? v[i] : -v[i];                  // vectors
    q[i] = m[i] ? 5 : i;                           // scalars widened to int4
    const long2 wide = (long2)(i - 4, 1L << 63);
    w[i] = wide ? (ulong2)(7, 8) : (ulong2)(i, 9);  // 64-bit components: the sign bit of each long
}
"""

N = 16


def test_vector_conditions_select_per_component(device_ctx: wia.Context) -> None:
    rng = np.random.default_rng(29)
    v = rng.uniform(-2, 2, (N, 4)).astype(np.float32)
    m = rng.choice(np.array([-3, -1, 0, 1, 2, 2**31 - 1, -(2**31)], np.int32), (N, 4))
    arrays = [v, m, np.full((N, 4), np.nan, np.float32), np.full((N, 4), -99, np.int32), np.zeros((N, 2), np.uint64)]
    out, q, w = run_arrays(device_ctx, SOURCE, "selection", arrays, N, 8)[2:]
    i = np.arange(N)
    np.testing.assert_array_equal(out, np.where(m < 0, v, -v))
    np.testing.assert_array_equal(q, np.where(m < 0, 5, i[:, None]))
    np.testing.assert_array_equal(w[:, 0], np.where(i - 4 < 0, 7, i).astype(np.uint64))
    np.testing.assert_array_equal(w[:, 1], np.full(N, 8, np.uint64))


LOGICAL = r"""
__kernel void logical(__global const short4* x, __global const short4* y, __global short4* out, const short s)
{
    const int i = get_global_id(0);
    out[3 * i + 0] = x[i] && y[i];
    out[3 * i + 1] = x[i] || y[i];
    out[3 * i + 2] = (short)(s > i) && x[i];        // a scalar beside a vector: widened
}
"""


def test_logical_operators_on_vectors(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    if request.node.callspec.params.get("device_ctx") == "oclgrind":
        request.applymarker(
            pytest.mark.xfail(strict=True, reason="Oclgrind 21.10 gives 1, not -1, for a true component of && and ||")
        )
    rng = np.random.default_rng(31)
    x, y = (rng.choice(np.array([0, 0, 1, -1, 7, -32768], np.int16), (N, 4)) for _ in range(2))
    out_init = np.full((N, 3, 4), 99, np.int16)
    out = run_arrays(device_ctx, LOGICAL, "logical", [x, y, out_init], N, 8, np.int16(N // 2))[2]
    i = np.arange(N)[:, None]
    np.testing.assert_array_equal(out[:, 0], -((x != 0) & (y != 0)).astype(np.int16))
    np.testing.assert_array_equal(out[:, 1], -((x != 0) | (y != 0)).astype(np.int16))
    np.testing.assert_array_equal(out[:, 2], -((i < N // 2) & (x != 0)).astype(np.int16))


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        (  # (Clang 15's words, PoCL's and Oclgrind's too, at the '?')
            "(f > 0.0f ? f : f).x + ((float4)(1.0f) ? 1.0f : 2.0f).x",
            r"1:111: error: used type 'float4' \(vector of 4 'float' values\) where floating point type is not allowed",
        ),
        ("((short4)(1) ? f : f).x", "vector condition type 'short4' and result type 'float4' do not have elements"),
        ("((int2)(1) ? f : f).x", "vector condition 'int2' and result 'float4' differ in length"),
    ],
)
def test_vector_condition_build_errors(expr: str, message: str) -> None:
    source = f"__kernel void k(__global float* o) {{ float4 f = (float4)(1.0f); o[0] = {expr}; }}"
    with pytest.raises(KernelCompileError, match=message):
        compile_source(source)


@pytest.mark.parametrize(
    ("expr", "fits"),
    [
        ("c4 + 1", False),
        ("i4 + 1u", False),
        ("i4 + 1L", False),
        ("i4 * 0.5f", False),
        ("i4 == 2u", False),
        ("(int)f4.x && c4", False),
        ("f4 * 2", True),
        ("f4 * 2.0f", True),
        ("u4 + 1", True),
        ("u4 + (short)1", True),
        ("i4 < 2", True),
        ("c4 == (char)1", True),
        ("i4 << 40L", True),
        ("i4 && 1", True),
    ],
)
def test_a_scalar_beside_a_vector_must_not_outrank_its_elements(expr: str, fits: bool) -> None:
    """Clang's OpenCL rule, each case as PoCL's Clang decides it: the scalar converts to the element type only
    if that loses no rank (unsigned above signed of one rank; any integer fits a float vector); shifts are free."""
    source = (
        "__kernel void k(__global int* o) { char4 c4 = (char4)(1); float4 f4 = (float4)(1.0f); "
        f"int4 i4 = (int4)(1); uint4 u4 = (uint4)(1); o[0] = convert_int4({expr}).x; }}"
    )
    if fits:
        compile_source(source)
    else:
        with pytest.raises(KernelCompileError, match="scalar operand type has greater rank than the type of the vec"):
            compile_source(source)


HI_OF_THREE = r"""
__kernel void hi3(__global const float* a, __global const float* b, __global float* out)
{
    const int k = get_global_id(0);
    const int l = get_local_id(0);
    float3 v = (float3)(a[k], b[k], 3.0f);
    float3 w = v;
    w.hi = (float2)(7.0f, 8.0f);
    w.odd = (float2)(9.0f, 10.0f);
    __local float3 t[8];
    t[l] = v;
    t[l].hi = (float2)(b[k], 11.0f);
    out[4 * k] = v.hi.x + v.odd.x;
    out[4 * k + 1] = w.x + w.y + w.z;
    out[4 * k + 2] = t[l].hi.x + t[l].x;
    out[4 * k + 3] = v.lo.y + v.even.y;
}
"""


def test_hi_and_odd_of_a_three_component_vector(device_ctx: wia.Context) -> None:
    """OpenCL C 1.2 6.1.7: ``.hi``/``.odd`` of a 3-component vector treat it as a 4-component one with an undefined
    w; Clang builds them (reads and writes), and the simulator refused them. Only the defined components are
    compared (the w read is 0 on the simulator, whatever a device holds); writes to w go nowhere."""
    n = 8
    rng = np.random.default_rng(1209)
    a, b = rng.uniform(-5, 5, n).astype(np.float32), rng.uniform(-5, 5, n).astype(np.float32)
    _, _, out = run_arrays(device_ctx, HI_OF_THREE, "hi3", [a, b, np.full(4 * n, np.nan, np.float32)], n, 8)
    want = np.stack([3.0 + b, a + 9.0 + 7.0, b + a, b + 3.0], axis=1).astype(np.float32)
    np.testing.assert_allclose(out.reshape(n, 4), want, rtol=1e-6, atol=1e-6)


W_OF_THREE = (
    "__kernel void k(__global int* o) {{\n  __local int3 t[8]; int i = get_global_id(0);\n"
    "  int3 v = (int3)(1, 2, 3) * i;\n  {use}\n}}"
)


@pytest.mark.parametrize(
    ("use", "how", "defined_gives"),
    [
        ("if (v.hi.y > 0) o[i] = 1;", "used in a condition", [int(i > 0) for i in range(8)]),
        ("o[(v.odd.y + i) & 7] = 1;", "as an array index", [1] * 8),  # (3i & 7: every element once)
        ("t[i] = v; o[i] = t[i].hi.y == 4 ? 1 : 0;", "used in a condition", [int(3 * i == 4) for i in range(8)]),
    ],
    ids=["condition", "index", "in-local-memory"],
)
def test_branching_on_the_w_of_a_three_component_vector_is_a_finding(
    use: str, how: str, defined_gives: list[int]
) -> None:
    """The w that ``.hi``/``.odd`` name is undefined (6.1.7): Clang takes it as undef, on which LLVM does not let a
    program branch or index (PoCL 3.1 and Oclgrind 21.10 run such code without a word, on whatever the register
    holds). With checks on, those uses are the simulator's ``uninitialized_private`` finding, at the use; the
    defined components stay usable."""
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    source = W_OF_THREE.format(use=use)
    with pytest.raises(wia.WiaError) as info:
        run_arrays(ctx, source, "k", [np.zeros(8, np.int32)], 8, 8)
    assert info.value.code == wia.ErrorCode.INVALID_MEMORY
    message = str(info.value)
    assert message.startswith("kernel.cl:4: read of uninitialized component w of a 3-component vector")
    assert how in message
    defined = source.replace(".y", ".x")
    assert list(run_arrays(ctx, defined, "k", [np.zeros(8, np.int32)], 8, 8)[0]) == defined_gives


@pytest.mark.parametrize(
    "use",
    [
        "o[i] = v.hi.y;",
        "int2 h = v.odd; o[i] = h.y;",
        "int4 w = (int4)(1, v.hi, 2); o[i] = w.z;",
        "t[i] = v; o[i] = t[i].hi.y;",
        "vstore2(v.hi, i, o);",
    ],
    ids=["hi", "odd", "through-a-literal", "in-local-memory", "vstore2"],
)
def test_storing_the_w_of_a_three_component_vector_is_a_lower_severity_finding(use: str) -> None:
    """Storing the undefined w is not: LLVM lets a program store undef, and the CTS's hiloeo test stores ``.hi``
    of an ``int3`` to compare only its x (found by the CTS probe: the simulator stopped 40 of its 400 kernels).
    With checks on it is a ``KernelFindingWarning`` that names the w, and the kernel goes on, storing the 0 it
    reads as (PoCL 3.1 stores what the register holds, Oclgrind 21.10 its 0xdeadbeef)."""
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    source = W_OF_THREE.format(use=use)
    with pytest.warns(wia.KernelFindingWarning, match=r"kernel\.cl:4: read of uninitialized component w") as w:
        (out,) = run_arrays(ctx, source, "k", [np.full(16, -1, np.int32)], 8, 8)
    assert len(w) == 1 and "stored to __global memory" in str(w[0].message)
    if "vstore2" in use:
        assert out.reshape(8, 2).tolist() == [[3 * i, 0] for i in range(8)]
    else:
        assert out[:8].tolist() == [0] * 8


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (
            "__kernel void k(__global float4* o) { float4 a = o[0]; o[1] = a * 0.5; }",
            "1:65",
            "('float4' (vector of 4 'float' values) and 'double')",
        ),
        (
            "__kernel void k(__global float4* o) { float4 a = o[0]; o[1] = 0.5 + a; }",
            "1:67",
            "('double' and 'float4' (vector of 4 'float' values))",
        ),
        (
            "__kernel void k(__global int4* o) { int4 a = o[0]; uint b = 3; o[1] = a + b; }",
            "1:73",
            "('int4' (vector of 4 'int' values) and 'uint' (aka 'unsigned int'))",
        ),
        (
            "typedef long big;\n__kernel void k(__global int4* o) { int4 a = o[0]; big b = 3; o[1] = a + b; }",
            "2:72",
            "('int4' (vector of 4 'int' values) and 'big' (aka 'long'))",
        ),
        (
            "__kernel void k(__global float4* o) { float4 a = o[0]; a *= 0.5; o[1] = a; }",
            "1:58",
            "('float4' (vector of 4 'float' values) and 'double')",
        ),
        (
            "__kernel void k(__global float4* o) { float4 a = o[0]; o[1] = (a < 1.0f) ? a : 2.0; }",
            "1:74",
            "('float4' (vector of 4 'float' values) and 'double')",
        ),
        (
            "__kernel void k(__global float4* o) { float4 a = o[0]; o[1] = o[0].x > 0 ? 2.0 : a; }",
            "1:74",
            "('double' and 'float4' (vector of 4 'float' values))",
        ),
    ],
)
def test_an_outranking_scalar_in_clangs_words_at_the_operator(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """Clang's error at the operator (``?`` for ``?:``, which the simulator built), the operands' types in their
    order as Clang spells them: a vector's length and element, a typedef's aka."""
    words = "scalar operand type has greater rank than the type of the vector element. " + message
    assert_refused(device_ctx, request, source, words, at)
