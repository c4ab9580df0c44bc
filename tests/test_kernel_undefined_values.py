"""Uninitialized values are reported where they are used, not where they are read (``wia_sim/kernels/undef.py``),
as Oclgrind's uninitialized-value plugin reports them: a read whose value is never used is no finding; the value
keeps its "undefined" shadow through operators, casts, variables, __private memory, swizzles and function calls;
storing it to __global memory, branching on it, indexing with it or passing it to a built-in function is the
finding, at the line of that use, naming the read; storing it to __local memory is a lower-severity finding, noted
as Oclgrind reports it and goes on, the bytes it lands on left uninitialized.

The kernels marked "Oclgrind:" were run under Oclgrind 21.10 (``OCLGRIND_UNINITIALIZED=1``, through PyOpenCL) when
this file was written; the line asserted is the one its log named. The planted bugs ``uninitialized_*`` and the
correct corpus kernel ``pair_sums`` hold the simulator and Oclgrind to the same verdict in CI
(``tests/kernels/test_bugs_on_oclgrind.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import context_on, run_arrays

from wia_sim.kernels import compile_source, run_kernel
from wia_sim.kernels.executor import KernelFault, RunResult
from wia_sim.kernels.lanes import launch_geometry
from wia_sim.kernels.memargs import GlobalBuffer

N = 64


def _run(src: str, *, checks: bool = True, x: np.ndarray | None = None, host_data: bool = True) -> RunResult:
    rng = np.random.default_rng(20261202)
    x = rng.uniform(1.0, 4.0, N).astype(np.float32) if x is None else x
    out = np.zeros(4 * N, np.int32)
    flags = None if host_data else np.zeros(x.nbytes, dtype=bool)
    xarg = x.view(np.uint8) if flags is None else GlobalBuffer(x.view(np.uint8), initialized=flags)
    geometry = launch_geometry((N, 1, 1), (16, 1, 1), 256, 1)
    return run_kernel(compile_source(src), "k", [xarg, out.view(np.uint8)], geometry, checks=checks)


def _fault(src: str, **kw: object) -> KernelFault:
    with pytest.raises(KernelFault) as info:
        _run(src, **kw)  # type: ignore[arg-type]
    return info.value


def _kernel(body: str) -> str:
    return (
        "__kernel void k(__global const float* x, __global int* out) {\n"
        "    __local int s[32];\n"
        "    const int l = get_local_id(0), g = get_global_id(0);\n"
        "    s[l] = l;\n"  # line 4: s[0..15] written, s[16..31] never
        "    barrier(CLK_LOCAL_MEM_FENCE);\n" + body + "\n}\n"
    )


# -- reads whose value is never used: no finding -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "    int v = s[l + 16];",  # Oclgrind: nothing
        "    int v = s[l + 16];\n    int w = v * 3 + l;\n    out[g] = l;",  # computed with, never used
        "    int v = s[l + 16];\n    int p[4];\n    p[l & 3] = v;\n    out[g] = 2 * l;",  # kept in __private memory
        "    int v = s[l + 8];\n    out[g] = l < 8 ? v : 0;",  # only the lanes that read a written slot store it
        "    float4 f;\n    f.x = (float)l;\n    out[g] = (int)f.x;",  # the components never assigned stay unread
        "    int v = s[l + 16];\n    int t = v;\n    t = l;\n    out[g] = t;",  # overwritten before its use
    ],
)
def test_a_value_read_but_never_used_is_no_finding(body: str) -> None:
    result = _run(_kernel(body))
    assert not result.findings


def test_a_correct_reduction_that_reads_padding_gives_its_values() -> None:
    """The clSPARSE csrmv_general pattern: the last work-item of a group adds the padding slot, and drops it."""
    src = """
__kernel void k(__global const float* x, __global int* out) {
    __local float s[17];
    const int l = get_local_id(0);
    s[l] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    const float sum = s[l] + s[l + 1];
    if ((l & 1) == 0)
        out[get_global_id(0) / 2] = (int)(sum * 100.0f);
}
"""
    rng = np.random.default_rng(5)
    x = rng.uniform(-2.0, 2.0, N).astype(np.float32)
    out = np.zeros(4 * N, np.int32)
    run_kernel(
        compile_source(src), "k", [x.view(np.uint8), out.view(np.uint8)], launch_geometry((N, 1, 1), (16, 1, 1), 256, 1)
    )
    pairs = x.astype(np.float64).reshape(-1, 2).sum(axis=1)
    np.testing.assert_array_equal(out[: N // 2], ((x[0::2] + x[1::2]) * np.float32(100.0)).astype(np.int32))
    np.testing.assert_allclose(out[: N // 2] / 100.0, pairs, atol=0.011)


# -- uses: reported at the use, naming the read ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "line", "use"),
    [
        # Oclgrind: "Controlflow depends on uninitialized value" at line 7
        ("    int z = s[l + 16];\n    if (z > 3) out[g] = 1;", 7, "used in a condition"),
        # Oclgrind: "Uninitialized address used to write to global memory" at line 8
        ("    int v = s[l + 16];\n    int idx = v & 7;\n    out[40 + idx] = 1;", 8, "used as an array index"),
        # Oclgrind: "Uninitialized value written to global memory" at line 8 (a division carries it, no fault)
        ("    int v = s[l + 16];\n    int r = l < 8 ? v : 3;\n    out[g] = l / v;", 8, "stored to __global memory"),
        # through a cast, a vector literal, a swizzle and as_type; Oclgrind: the store, line 10
        (
            "    int v = s[l + 16];\n    float f = (float)v;\n    int4 q = (int4)(1, v, 2, 3);\n"
            "    out[g] = as_int(f) + q.y;",
            9,
            "stored to __global memory",
        ),
        # kept in __private memory and read back
        ("    int p[4];\n    p[l & 3] = s[l + 16];\n    int q = p[l & 3];\n    out[g] = q;", 9, "stored to __global"),
        # around a loop, the value still undefined
        ("    int v = s[l + 16];\n    for (int k = 0; k < 2; k++)\n        v = v ^ k;\n    out[g] = v;", 9, "stored"),
    ],
)
def test_the_use_is_the_finding(body: str, line: int, use: str) -> None:
    f = _fault(_kernel(body))
    assert (f.check, f.line, f.wia_code) == ("uninitialized_local", line, "INVALID_MEMORY"), str(f)
    assert use in str(f)
    assert "read of uninitialized __local variable 's'" in str(f)
    assert f.work_items == 16 * (N // 16) if "l + 16" in body else f.work_items == 8 * (N // 16)
    assert f.address is not None and f.address >= 64  # the first slot nobody wrote is s[16], at byte 64


def test_a_value_of_two_reads_names_the_one_undefined_in_the_lane_it_reports() -> None:
    """``u0 + u2`` where work-item 13 read ``u0`` from a slot someone wrote and ``u2`` from one nobody did: the
    finding, at work-item 13, names ``u2``'s read, its line and offset (Bullet3's radix-sort scan, found by a
    probe: the simulator named the first operand's read, a written slot, and gave the range of its offsets)."""
    body = "    int u0 = s[l + 2];\n    int u2 = s[l + 3];\n    out[g] = u0 + u2;"
    f = _fault(_kernel(body))
    assert (f.check, f.line, f.work_item, f.address) == ("uninitialized_local", 8, (13, 0, 0), 64), str(f)
    assert "'s' (4 bytes at offset 64) at line 7," in str(f)
    assert f.address_range == (64, 72)  # u2's reads of s[16..18], by work-items 13-15 of each group


@pytest.mark.parametrize(
    ("body", "stored"),
    [
        ("    int v = s[l + 16];\n    float w = sqrt((float)v) * 2.0f;\n    out[g] = 0;", None),
        # the result is undefined where the argument was: a store of it is the finding, naming the read
        ("    int v = s[l + 16];\n    float w = sqrt((float)v);\n    out[g] = (int)w;", 8),
        # a vectorized kernel's padding: exp of it, dropped by select (ComputeLibrary's softmax); a vector's
        # components keep their own shadows through the call
        (
            "    int4 v = (int4)(s[l], s[l + 16], s[l], s[l]);\n    float4 e = exp(convert_float4(v));\n"
            "    out[g] = (int)select(e, (float4)(-1.0f), (int4)(0, -1, 0, 0)).y + (int)e.x;",
            None,
        ),
        (
            "    int4 v = (int4)(s[l], s[l + 16], s[l], s[l]);\n    float4 e = exp(convert_float4(v));\n"
            "    out[g] = e.y;",
            8,
        ),
    ],
)
def test_a_built_in_call_on_an_undefined_value_is_noted_and_its_result_stays_undefined(
    body: str, stored: int | None
) -> None:
    """Oclgrind 21.10 reports "Controlflow depends on uninitialized value" at a built-in's call with an undefined
    argument (its built-ins are calls, which check their operands) and goes on: a lower-severity finding at the
    call here too, which ``strict`` raises, and the result carries the argument's shadow, per component (the
    simulator had stopped the kernel at the call: ComputeLibrary's softmax over a row's unwritten padding)."""
    if stored is None:
        result = _run(_kernel(body))
        [f] = result.findings
    else:
        f = _fault(_kernel(body))
        assert (f.check, f.line) == ("uninitialized_local", stored)
        assert "stored to __global memory" in str(f) and "read of uninitialized __local variable 's'" in str(f)
        return
    assert (f.check, f.line, f.work_items) == ("uninitialized_local", 7, N), str(f)
    assert "used by sqrt()" in str(f) or "used by convert_float4()" in str(f)
    with pytest.raises(KernelFault) as info:
        run_kernel(
            compile_source(_kernel(body)),
            "k",
            [np.zeros(N, np.float32).view(np.uint8), np.zeros(4 * N, np.int32).view(np.uint8)],
            launch_geometry((N, 1, 1), (16, 1, 1), 256, 1),
            strict=True,
        )
    assert (info.value.check, info.value.line) == ("uninitialized_local", 7)


STORED_TO_LOCAL = """
__kernel void k(__global const float* x, __global int* out) {
    __local int s[32];
    const int l = get_local_id(0), g = get_global_id(0);
    s[l] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int v = s[l + 8];
    barrier(CLK_LOCAL_MEM_FENCE);
    s[l] = v + 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = l < 8 ? s[l] : -1;
    USE
}
"""


def test_an_undefined_value_stored_to_local_memory_is_noted_and_the_kernel_goes_on() -> None:
    """Oclgrind 21.10 (``OCLGRIND_UNINITIALIZED=1``, this kernel, one group of 16): "Uninitialized value written to
    local memory" at line 9 for work-items 8-15 (they read s[16..23], which nobody wrote), and the kernel goes on:
    the stored bytes stay uninitialized, so only a use of what a work-item reads back is reported (line 12 here),
    "Uninitialized value written to global memory". PyOpenCL's scan kernels store such a value (the padding of the
    last partial block) and never use it: they stopped on the simulator."""
    result = _run(STORED_TO_LOCAL.replace("USE", ""))
    [f] = result.findings
    assert (f.check, f.line, f.wia_code, f.work_item, f.work_items) == (
        "uninitialized_local",
        9,
        "INVALID_MEMORY",
        (8, 0, 0),
        8 * (N // 16),
    )
    assert "(4 bytes at offset 64) at line 7, and its value stored to __local memory" in str(f)
    with pytest.raises(KernelFault) as info:  # strict: the finding stops the kernel where it is noted
        run_kernel(
            compile_source(STORED_TO_LOCAL.replace("USE", "")),
            "k",
            [np.zeros(N, np.float32).view(np.uint8), np.zeros(4 * N, np.int32).view(np.uint8)],
            launch_geometry((N, 1, 1), (16, 1, 1), 256, 1),
            strict=True,
        )
    assert (info.value.check, info.value.line) == ("uninitialized_local", 9)
    used = _fault(STORED_TO_LOCAL.replace("USE", "if (l == 15) out[g] = s[l];"))
    assert (used.check, used.line, used.work_item, used.work_items) == ("uninitialized_local", 12, (15, 0, 0), N // 16)
    assert "at line 7, and its value stored to __global memory" in str(used)  # the read it came from


def test_the_defined_values_stored_beside_undefined_ones_in_local_memory_land() -> None:
    out = np.zeros(4 * N, np.int32)
    result = run_kernel(
        compile_source(STORED_TO_LOCAL.replace("USE", "")),
        "k",
        [np.zeros(N, np.float32).view(np.uint8), out.view(np.uint8)],
        launch_geometry((N, 1, 1), (16, 1, 1), 256, 1),
    )
    assert [f.check for f in result.findings] == ["uninitialized_local"]
    lanes = np.arange(N) % 16
    np.testing.assert_array_equal(out[:N], np.where(lanes < 8, lanes + 9, -1))


STRUCT_TO_LOCAL = """
typedef struct { int a; int b; } P;
__kernel void k(__global const float* x, __global int* out) {
    __local P s[16];
    const int l = get_local_id(0), g = get_global_id(0);
    P p;
    p.a = l;
    if (l < 8) p.b = 2 * l;
    s[l] = p;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = s[l].a;
    if (l == 3) out[g] = s[l].b;
    USE
}
"""


def test_a_struct_with_a_member_nobody_set_stored_to_local_memory_is_noted() -> None:
    """Oclgrind 21.10 on this kernel (one group of 16): "Uninitialized value written to local memory" at line 9 for
    work-items 8-15, then, with the use, "Uninitialized value written to global memory" for work-item 12 only."""
    result = _run(STRUCT_TO_LOCAL.replace("USE", ""))
    assert [(f.check, f.line, f.work_item, f.work_items) for f in result.findings] == [
        ("uninitialized_private", 9, (8, 0, 0), 8 * (N // 16))
    ]
    used = _fault(STRUCT_TO_LOCAL.replace("USE", "if (l == 12) out[g] = s[l].b;"))
    assert (used.check, used.line, used.work_item, used.work_items) == ("uninitialized_private", 13, (12, 0, 0), 4)


@pytest.mark.parametrize(
    ("body", "stored", "used_by"),
    [
        ("out[g] = (v & 0) + 5;", 5, 0),  # Oclgrind: nothing (LLVM folds it)
        ("out[g] = (v & z) + 5;", 5, 0),  # (z is 0 at run time: Oclgrind's shadow goes through, memcheck's not)
        ("out[g] = (v | (z - 1)) + 5;", 4, 0),  # every bit set
        ("out[g] = (v & (l < 8 ? z : 1)) + 1;", None, 8),  # decided in lanes 0-7 only
        ("out[g] = v & 1;", None, 16),
        ("out[g] = v | 255;", None, 16),  # (not every bit: a uchar's 255 is no int's ~0)
        ("out[g] = (v & 0) | (v + 1);", None, 16),  # the other operand undefined
    ],
)
def test_bits_a_defined_operand_decides_alone_are_defined(body: str, stored: int | None, used_by: int) -> None:
    """``x & 0`` is 0 and ``x | ~0`` all ones whatever ``x`` (Valgrind's memcheck keeps a shadow per bit, and these
    bits are defined). JtR's RAR kernel masks a word nobody wrote so (``W[0] & (0xffffff00U << 24)``); Oclgrind
    21.10 reports nothing where LLVM folds the operation, and keeps the shadow where it runs it (``z``)."""
    src = _kernel("    int v = s[l + 16];\n    const int z = (int)get_local_size(0) - 16;\n    " + body)
    if used_by:
        f = _fault(src)
        assert (f.check, f.line, f.work_items) == ("uninitialized_local", 8, used_by * (N // 16)), str(f)
        return
    out = np.zeros(4 * N, np.int32)
    run_kernel(
        compile_source(src),
        "k",
        [np.zeros(N, np.float32).view(np.uint8), out.view(np.uint8)],
        launch_geometry((N, 1, 1), (16, 1, 1), 256, 1),
    )
    assert (out[:N] == stored).all()


def test_a_value_copied_element_by_element_names_the_element_it_came_from() -> None:
    """``W[k] = t[k]`` for every k of a private array nobody wrote, then ``W[2]`` used: the read of t[2] (offset 8)
    is named, not the last one the copy made (JtR's RAR kernel copies its words so; the message said offset 60)."""
    src = """
__kernel void k(__global const float* x, __global int* out) {
    uint t[16], W[16];
    for (int k = 0; k < 16; k++)
        W[k] = t[k];
    out[get_global_id(0)] = W[2];
}
"""
    f = _fault(src)
    assert (f.check, f.line) == ("uninitialized_private", 6)
    assert "read of uninitialized __private array 't' (4 bytes at offset 8) at line 5" in str(f), str(f)


def test_the_finding_names_the_line_of_the_read_when_the_use_is_elsewhere() -> None:
    f = _fault(_kernel("    int v = s[l + 16];\n    int w = v + l;\n    out[g] = w;"))
    assert f.line == 8
    assert "(4 bytes at offset 64) at line 6, and its value stored to __global memory" in str(f)


def test_only_the_lanes_that_use_an_undefined_value_are_counted() -> None:
    f = _fault(_kernel("    int v = s[l + 12];\n    if (l > 5) out[g] = v;"))  # lanes 4..15 read s[16..27]
    assert (f.line, f.work_items, f.work_item) == (7, 10 * (N // 16), (6, 0, 0))


def test_a_helper_function_carries_the_value_through_its_argument_and_return() -> None:
    src = """
int twice(int v) { return v + v; }
__kernel void k(__global const float* x, __global int* out) {
    __local int s[32];
    const int l = get_local_id(0);
    s[l] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int t = twice(s[l + 16]);
    out[get_global_id(0)] = t;
}
"""
    f = _fault(src)
    assert (f.check, f.line) == ("uninitialized_local", 9)


FALLS_OFF = """
int sign_of(int v) {
    if (v > 0)
        return 1;
    if (v < 0)
        return -1;
}
__kernel void k(__global const float* x, __global int* out) {
    const int g = get_global_id(0);
    const int unused = sign_of(g - 8);
    out[g] = USE;
}
"""


@pytest.mark.parametrize(("use", "finding"), [("sign_of(g - 8)", True), ("sign_of(g + 1)", False), ("g", False)])
def test_the_value_of_a_function_that_ends_without_return_is_undefined(use: str, finding: bool) -> None:
    """A non-void function that runs off its end gives an undefined value (C99 6.9.1p12; Clang's ``undef``, which
    Oclgrind's uninitialized-value plugin tracks): using it is the finding, for the work-items that ran off; one
    that returned is fine, and so is a value nobody uses (found by a sweep: PoCL gives 1, Oclgrind 1, the simulator
    gave 0, none said anything)."""
    src = FALLS_OFF.replace("USE", use)
    if not finding:
        out = _run(src)
        assert out.findings == []
        return
    f = _fault(src)
    assert (f.check, f.line, f.work_item, f.work_items) == ("uninitialized_private", 11, (8, 0, 0), 1)
    assert "return value of 'sign_of' (it ended without a return statement)" in str(f)
    _run(src, checks=False)  # without checks: 0, as before


def test_a_private_variable_never_assigned_in_some_lanes() -> None:
    src = """
__kernel void k(__global const float* x, __global int* out) {
    const int l = get_local_id(0);
    int v;
    if (l & 1)
        v = l;
    const int w = v * 2;
    out[get_global_id(0)] = w;
}
"""
    f = _fault(src)
    assert (f.check, f.line, f.work_items) == ("uninitialized_private", 8, N // 2)
    assert "__private variable 'v' (declared without an initializer) at line 7" in str(f)


def test_a_global_buffer_without_data_read_and_dropped_is_no_finding() -> None:
    src = "__kernel void k(__global const float* x, __global int* out) {\n    float v = x[get_global_id(0)];\n}\n"
    assert not _run(src, host_data=False).findings
    store = src.replace("\n}", "\n    out[get_global_id(0)] = (int)v;\n}")
    f = _fault(store, host_data=False)
    assert (f.check, f.line, f.work_items) == ("uninitialized_global", 3, N)


def test_checks_off_run_without_shadows() -> None:
    result = _run(_kernel("    int z = s[l + 16];\n    if (z > 3) out[g] = z;"), checks=False)
    assert not result.findings


LOOP_SCOPED = """__kernel void k(__global int* out, __global float* f) {
    int g = get_global_id(0);
    int acc = 0;
    float facc = 0.0f;
    for (int t = 0; t < 4; t++) {
        int v;
        float2 w;
        if (t <= g % 3) v = t + 1 + g;
        if (t == 0) w = (float2)(g, 0.5f);
        if (t == g % 2 + 1) w.y = t;
        acc = acc * 10 + v;
        facc = facc * 4.0f + w.x + w.y;
    }
    out[g] = acc;
    f[g] = facc;
}
"""


def _loop_scoped_reference(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each work-item's sums when ``v`` and ``w`` keep the last trip's value where a trip assigns none."""
    out, f = np.zeros(n, np.int64), np.zeros(n, np.float32)
    for g in range(n):
        acc, facc, v, wy = 0, np.float32(0), 0, np.float32(0.5)
        for t in range(4):
            v = t + 1 + g if t <= g % 3 else v
            wy = np.float32(t) if t == g % 2 + 1 else wy
            acc, facc = acc * 10 + v, np.float32(np.float32(facc * 4) + np.float32(g)) + wy
        out[g], f[g] = acc, facc
    return out.astype(np.int32), f


@pytest.mark.parametrize("device", ["sim", "pocl", "oclgrind"])
def test_a_variable_declared_in_a_loop_without_an_initializer_keeps_the_last_trips_value(
    device: str, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """C99 6.2.4p5 leaves such a variable indeterminate at each trip; PoCL 3.1 and Oclgrind 21.10 keep the value in
    its storage (Parboil's tpacf relies on it). The simulator does too with checks off; with checks on, the use of
    the unassigned value is the finding (Oclgrind's plugin reports none)."""
    n = 12
    with context_on(device, monkeypatch, tmp_path_factory, kernel_checks=False) as ctx:
        out, f = run_arrays(ctx, LOOP_SCOPED, "k", [np.full(n, -1, np.int32), np.zeros(n, np.float32)], n, 4)
    want_out, want_f = _loop_scoped_reference(n)
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(f, want_f)


def test_a_variable_declared_in_a_loop_is_undefined_again_at_each_trip_with_checks_on() -> None:
    out = np.zeros(12, np.int32)
    geometry = launch_geometry((12, 1, 1), (4, 1, 1), 256, 1)
    with pytest.raises(KernelFault) as info:
        run_kernel(compile_source(LOOP_SCOPED), "k", [out.view(np.uint8), np.zeros(48, np.uint8)], geometry)
    assert info.value.check == "uninitialized_private" and info.value.line == 14
    assert "'v' (declared without an initializer) at line 11" in str(info.value)
    assert info.value.work_items == 12  # every work-item skips the assignment at some trip before its last


# -- select, as_type and structs (each verdict and line checked against Oclgrind 21.10: its default build, or with
# -cl-opt-disable where LLVM folds the undefined value away before Oclgrind sees it, as noted) ------------------------

SIG = (
    "__kernel void k(__global int* out, __global const int* in, __global const int* u, __global const float* uf, "
    "__global const float* fin)"
)
ST = "typedef struct { int a; int b; } S;\n"
PS = "typedef struct __attribute__((packed)) { char c; int v; short s; } P;\n"


def _run_sig(src: str) -> RunResult:
    rng = np.random.default_rng(7)
    out = np.zeros(16, np.int32)
    ins = rng.integers(-4, 14, 16).astype(np.int32)
    fin = rng.uniform(0.0, 4.0, 16).astype(np.float32)
    unset = np.zeros(64, dtype=bool)
    args = [
        out.view(np.uint8),
        ins.view(np.uint8),
        GlobalBuffer(np.zeros(16, np.int32).view(np.uint8), initialized=unset),
        GlobalBuffer(np.zeros(16, np.float32).view(np.uint8), initialized=unset),
        fin.view(np.uint8),
    ]
    return run_kernel(compile_source(src), "k", args, launch_geometry((8, 1, 1), (8, 1, 1), 256, 1))


@pytest.mark.parametrize(
    ("name", "src", "line"),
    [
        # select() carries the chosen operand's shadow, as ?: does (not a call that uses its arguments)
        ("select of the defined operand", SIG + " { int g = get_global_id(0);\n out[g] = select(u[g], in[g], 1); }", 0),
        (
            "select of the undefined operand",
            SIG + " { int g = get_global_id(0);\n int r = select(in[g], u[g], in[g] > -100);\n out[g] = r; }",
            3,
        ),
        (
            "select on an undefined selector",
            SIG + " { int g = get_global_id(0);\n int r = select(1, 2, u[g]);\n out[g] = r; }",
            3,
        ),
        (
            "vector select",
            SIG + " { int g = get_global_id(0);\n int2 a = (int2)(u[g], in[g]); int2 b = (int2)(in[g], u[g]);\n"
            " int2 r = select(a, b, (int2)(-1, 0));\n out[g] = r.x + r.y; }",
            0,
        ),
        # as_type keeps the shadow byte by byte: short4's x and y are int2's x
        (
            "as_type of the defined half",
            SIG + " { int g = get_global_id(0);\n int2 p = (int2)(in[g], u[g]);\n short4 s = as_short4(p);\n"
            " out[g] = s.x + s.y; }",
            0,
        ),
        (
            "as_type of the undefined half",
            SIG + " { int g = get_global_id(0);\n int2 p = (int2)(in[g], u[g]);\n short4 s = as_short4(p);\n"
            " out[g] = s.z; }",
            4,
        ),
        # a struct's members are tracked one by one; a copy carries the holes (Oclgrind with -cl-opt-disable)
        (
            "a member never set, used",
            ST + SIG + " {\n S s;\n s.a = in[get_global_id(0)];\n out[get_global_id(0)] = s.b;\n}",
            5,
        ),
        (
            "a member never set, copied and not used",
            ST + SIG + " {\n S s;\n s.a = in[get_global_id(0)];\n S t = s;\n out[get_global_id(0)] = t.a;\n}",
            0,
        ),
        (
            "a struct with a member never set, passed by value and used",
            ST
            + "int getb(S s) { return s.b; }\n"
            + SIG
            + " {\n S s;\n s.a = in[get_global_id(0)];\n out[get_global_id(0)] = getb(s);\n}",
            6,
        ),
        (
            "a struct with a member never set, stored to __global",
            ST + SIG + " {\n S s;\n s.a = in[get_global_id(0)];\n __global S* o = (__global S*)out;\n"
            " o[get_global_id(0)] = s;\n}",
            6,
        ),
        # read from __global memory nobody wrote: only the member used is the finding (Oclgrind's default build)
        (
            "a struct read from unwritten memory, its one set member used",
            ST + SIG + " {\n int g = get_global_id(0);\n S s = ((__global const S*)u)[g];\n s.a = in[g];\n"
            " out[g] = s.a;\n}",
            0,
        ),
        (
            "a struct read from unwritten memory, the other member used",
            ST + SIG + " {\n int g = get_global_id(0);\n S s = ((__global const S*)u)[g];\n s.a = in[g];\n"
            " out[g] = s.a + s.b;\n}",
            6,
        ),
        # a packed struct's members are moved byte by byte (``unaligned.py``): they carry the shadow as well
        (
            "a packed struct's member set from unwritten memory, the struct stored to __global",
            PS + SIG + " {\n P p;\n p.c = 1;\n p.v = u[get_global_id(0)];\n p.s = 2;\n"
            " ((__global P*)out)[get_global_id(0)] = p;\n}",
            7,
        ),
        (
            "a packed struct's member set from unwritten memory, the others used",
            PS + SIG + " {\n P p;\n p.c = 1;\n p.v = u[get_global_id(0)];\n p.s = in[get_global_id(0)];\n"
            " out[get_global_id(0)] = p.s + p.c;\n}",
            0,
        ),
        (
            "a packed struct's member set from unwritten memory, read and its value used",
            PS + SIG + " {\n P p;\n p.c = 1;\n p.v = u[get_global_id(0)];\n int x = p.v + 1;\n"
            " out[get_global_id(0)] = x;\n}",
            7,
        ),
        (
            "padding is not a member",
            "typedef struct { char c; int v; } P;\n"
            + SIG
            + " {\n P p;\n p.c = 1;\n p.v = in[get_global_id(0)];\n ((__global P*)out)[get_global_id(0)] = p;\n}",
            0,
        ),
        # a 3-component vector's fourth is undefined (6.1.5) as padding is: Blender Cycles' differential3_zero()
        (
            "the fourth component of a float3 member is not a member's byte",
            "typedef struct { float3 dx; float3 e[2]; } D;\nD zero(void) { D d; d.dx = (float3)(0.0f);"
            " d.e[0] = d.e[1] = (float3)(3.0f); return d; }\n"
            + SIG
            + " {\n if (get_global_id(0) == 0)\n  *(__global D*)out = zero();\n}",
            0,
        ),
        (
            "a float3 member's third component never set",
            "typedef struct { float3 dx, dy; } D;\n"
            + SIG
            + " {\n D d;\n d.dx = (float3)(0.0f);\n d.dy.xy = (float2)(1.0f);\n"
            " if (get_global_id(0) == 0)\n  *(__global D*)out = d;\n}",
            7,
        ),
    ],
)
def test_select_as_type_and_structs_follow_oclgrind(name: str, src: str, line: int) -> None:
    if line == 0:
        assert not _run_sig(src).findings, name
        return
    with pytest.raises(KernelFault) as info:
        _run_sig(src)
    assert info.value.check.startswith("uninitialized_") and info.value.line == line, f"{name}: {info.value}"


# -- vload3/vstore3 and shuffle carry the shadow (not uses: Oclgrind sees loads, stores and shufflevector) ------------


@pytest.mark.parametrize(
    "body",
    [
        "    int3 v = vload3(0, s + 20);\n    out[g] = l;",  # read, never used (Oclgrind: nothing)
        "    int3 v = vload3(0, s + 13);\n    out[g] = v.x + v.y;",  # s[13], s[14]: written; s[15] never used
        "    int3 v;\n    v.x = l;\n    int p[3];\n    vstore3(v, 0, p);\n    out[g] = p[0];",  # unset parts kept
        "    int4 v;\n    v.x = l;\n    int2 r = shuffle(v, (uint2)(0, 0));\n    out[g] = r.y;",  # picks only v.x
        "    int2 a;\n    a.y = l;\n    int4 r = shuffle2(a, (int2)(1, 2), (uint4)(1, 2, 3, 2));\n"
        "    out[g] = r.x + r.w;",
    ],
)
def test_vload3_vstore3_and_shuffle_carry_the_undefined_components(body: str) -> None:
    result = _run(_kernel(body))
    assert not result.findings


@pytest.mark.parametrize(
    ("body", "line", "what"),
    [
        # Oclgrind: the store, line 8 (the vload3 reads s[15..17], s[16] and s[17] never written)
        ("    int3 v = vload3(0, s + 15);\n    int w = v.y;\n    out[g] = w;", 8, "__local variable 's'"),
        # the unset component of a vstore3 into __private memory, read back and stored
        (
            "    int3 v;\n    v.x = l;\n    int p[3];\n    vstore3(v, 0, p);\n    out[g] = p[2];",
            10,
            "__private variable 'v'",
        ),
        # a shuffle that picks a component never set, or with a mask element never set
        (
            "    int4 v;\n    v.x = l;\n    int2 r = shuffle(v, (uint2)(0, 3));\n    out[g] = r.y;",
            9,
            "__private variable 'v'",
        ),
        (
            "    uint2 m;\n    m.x = 1;\n    int2 r = shuffle((int4)(l), m);\n    out[g] = r.y;",
            9,
            "__private variable 'm'",
        ),
    ],
)
def test_an_undefined_component_of_vload3_vstore3_or_shuffle_is_found_at_its_use(
    body: str, line: int, what: str
) -> None:
    f = _fault(_kernel(body))
    assert f.line == line and "stored to __global memory" in str(f), str(f)
    assert f"read of uninitialized {what}" in str(f)


PRIVATE_WRITTEN_OVER_AND_OVER = """
__kernel void k(__global const float* x, __global int* out) {
    const int g = get_global_id(0);
    int a[8];
    for (int r = 0; r < 20; r++)       /* many more bytes stored than the array holds: a[7] still never */
        for (int j = 0; j < 7; j++)
            a[j] = r + j;
    int b[4];
    for (int j = 0; j < 4; j++)
        b[j] = j;                      /* every byte written */
    int u;
    b[g & 3] = u;                      /* then an undefined value stored over one element */
    uint4 w[2];
    w[1].x = (uint)g;                  /* one component of a vector in private memory */
    USE
}
"""


@pytest.mark.parametrize(
    ("use", "line", "what"),
    [
        ("out[g] = a[6] + a[7];", 15, "__private array 'a'"),  # the element the stores never reached
        ("out[g] = b[3] + b[(g & 3) ^ 1] + b[g & 3];", 15, "__private variable 'u'"),
        ("out[g] = w[1].yx.x;", 15, "__private array 'w'"),  # (.yx's x is w's y, which nobody wrote)
    ],
)
def test_private_memory_keeps_its_unwritten_bytes_after_many_stores(use: str, line: int, what: str) -> None:
    """Private memory stops looking at its flags once every byte is written (a filled array read in a loop: scrypt's
    salsa core), and reads a vector whole for a swizzle of it: neither may lose a byte nobody wrote, nor one an
    undefined value was stored to afterwards."""
    f = _fault(PRIVATE_WRITTEN_OVER_AND_OVER.replace("USE", use))
    assert (f.check, f.line) == ("uninitialized_private", line), str(f)
    assert what in str(f)


def test_private_memory_written_whole_reads_back_its_values() -> None:
    src = PRIVATE_WRITTEN_OVER_AND_OVER.replace("USE", "out[g] = a[6] + b[(g & 3) ^ 1] * 100 + w[1].yx.y * 10000;")
    src = src.replace("int u;", "int u = 7;")
    out = np.zeros(N, np.int32)
    geometry = launch_geometry((N, 1, 1), (16, 1, 1), 256, 1)
    x = np.zeros(N, np.float32)
    result = run_kernel(compile_source(src), "k", [x.view(np.uint8), out.view(np.uint8)], geometry, checks=True)
    assert not result.findings
    g = np.arange(N)
    np.testing.assert_array_equal(out, 19 + 6 + ((g & 3) ^ 1) * 100 + g * 10000)


# -- a word copied before all its bytes are written (each verdict checked against Oclgrind 21.10 with
# -cl-opt-disable, and its default build where it runs) ----------------------------------------------------------------

PARTIAL_WORDS = """__kernel void k(__global const uchar* in, __global uint* out) {
    const int g = get_global_id(0);
    uint a[2], b[2];
    ((uchar*)a)[0] = in[0];
    ((uchar*)a)[1] = in[1];
    a[1] = 7u;
    BODY
    out[g] = b[0];
}
"""


@pytest.mark.parametrize(
    ("body", "finding"),
    [
        # John the Ripper's rar kernel: W[i] = block[i], then PUTCHAR_BE of the rest: the copy keeps bytes 0-1
        ("b[0] = a[0];\n    ((uchar*)b)[2] = in[2];\n    ((uchar*)b)[3] = in[3];", None),
        ("uint t = a[0];\n    b[0] = t;\n    ((uchar*)b)[2] = in[2];\n    ((uchar*)b)[3] = in[3];", None),
        (  # each lane's bytes its own read's
            "uint t;\n    if (g & 1) t = a[0]; else t = a[1];\n    b[0] = t;\n"
            "    ((uchar*)b)[2] = in[2];\n    ((uchar*)b)[3] = in[3];",
            None,
        ),
        (  # as_type keeps the bytes: x and y of as_uchar4 of the word are defined, and z, w once written
            "uchar4 v[1], w[1];\n    v[0] = as_uchar4(a[0]);\n    w[0] = v[0];\n    ((uchar*)w)[2] = in[2];\n"
            "    ((uchar*)w)[3] = in[3];\n    b[0] = as_uint(w[0]);",
            None,
        ),
        (  # and back: as_uint of a vector whose bytes 2-3 nobody wrote, stored, completed
            "uchar4 v[1];\n    v[0] = as_uchar4(a[0]);\n    b[0] = as_uint(v[0]);\n    ((uchar*)b)[2] = in[2];\n"
            "    ((uchar*)b)[3] = in[3];",
            None,
        ),
        ("b[0] = a[0];\n    ((uchar*)b)[2] = in[2];", "byte 3 of them holds an undefined value stored there"),
        (  # (a[0] + 1u: its low bytes defined, memcheck's rule: tests/test_kernel_bit_shadow.py)
            "b[0] = a[0] / 3u;\n    ((uchar*)b)[2] = in[2];\n    ((uchar*)b)[3] = in[3];",
            "bytes 0-1 of them hold an undefined value stored there",
        ),
        (  # a lane that never assigned t: its whole word undefined
            "uint t;\n    if (g & 1) t = a[0];\n    b[0] = t;\n"
            "    ((uchar*)b)[2] = in[2];\n    ((uchar*)b)[3] = in[3];",
            "bytes 0-1 of them hold an undefined value stored there",
        ),
        ("((uchar*)b)[1] = in[2];", "bytes 0 and 2-3 of them never written"),  # (nothing stored to them)
    ],
)
def test_a_word_copied_before_its_other_bytes_are_written_is_defined_once_they_are(
    body: str, finding: str | None
) -> None:
    """A value read where some of its bytes were written is the bytes read: stored to private memory unchanged (a
    copy, through a variable too), it leaves only the bytes nobody wrote unwritten, so writing them completes the
    word, as Oclgrind's shadow follows bytes through loads and stores; computing with it (``/ 3u``) makes every
    byte undefined, as there."""
    src = PARTIAL_WORDS.replace("BODY", body)
    ins, out = np.array([1, 2, 3, 4], np.uint8), np.zeros(2, np.uint32)
    geometry = launch_geometry((2, 1, 1), (2, 1, 1), 256, 1)
    if finding is None:
        result = run_kernel(compile_source(src), "k", [ins, out.view(np.uint8)], geometry)
        assert not result.findings
        low = [0x0007, 0x0201] if "a[1]" in body else [0x0201, 0x0201]  # (work-item 0 copies a[1], 7, there)
        np.testing.assert_array_equal(out, [0x04030000 | word for word in low])
        return
    with pytest.raises(KernelFault) as info:
        run_kernel(compile_source(src), "k", [ins, out.view(np.uint8)], geometry)
    assert info.value.check == "uninitialized_private" and finding in str(info.value), str(info.value)


TRUNCATED = """__kernel void k(__global const uchar* in, __global uint* out) {
    const int g = get_global_id(0);
    uint a[2];
    short t[2];
    ((uchar*)a)[0] = in[0];
    ((uchar*)t)[0] = in[2];
    USE
}
"""


@pytest.mark.parametrize(
    ("use", "finding"),
    [
        ("out[g] = (uchar)a[0];", None),  # the byte written: defined (Oclgrind: Trunc keeps the low byte's shadow)
        ("uchar c = a[0];\n    out[g] = c;", None),
        ("out[g] = (char)a[0] + 1;", None),
        ("out[g] = (ushort)a[0];", "(2 bytes at offset 0; byte 1 of them never written)"),
        ("out[g] = a[0];", "(4 bytes at offset 0; bytes 1-3 of them never written)"),
        ("int x = t[0];\n    out[g] = (uchar)x;", None),  # (the extension's low byte: ``bit_shadow.py``)
        ("int x = t[0];\n    out[g] = (uchar)(x >> 8);", "(2 bytes at offset 0; byte 1 of them never written)"),
    ],
)
def test_the_low_bytes_of_a_word_read_where_only_they_were_written_are_defined(use: str, finding: str | None) -> None:
    """A truncation keeps the bytes of a value read from memory (each verdict Oclgrind 21.10's with
    -cl-opt-disable), a sign extension its low bytes' too (until ``bit_shadow.py``, it was undefined as a whole)."""
    src = TRUNCATED.replace("USE", use)
    ins, out = np.array([1, 2, 3, 4], np.uint8), np.zeros(2, np.uint32)
    geometry = launch_geometry((2, 1, 1), (2, 1, 1), 256, 1)
    if finding is None:
        assert not run_kernel(compile_source(src), "k", [ins, out.view(np.uint8)], geometry).findings
        assert out[0] in (1, 2, 3)  # (in[0], in[0] + 1, in[2])
        return
    with pytest.raises(KernelFault) as info:
        run_kernel(compile_source(src), "k", [ins, out.view(np.uint8)], geometry)
    assert info.value.check == "uninitialized_private" and finding in str(info.value), str(info.value)
