"""What a kernel finding says: how many work-items (in how many work-groups) hit it at the access that raised it,
the first of them by launch order as the example, the offsets they touched, and the user's source line, quoted;
and what a faulting launch leaves in the caller's buffers (issue 12, item 8)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.executor import KernelFault, KernelTimeout, run_kernel
from wia_sim.kernels.lanes import Geometry


def run(src: str, args: list[Any], n: int, wg: int, **kw: Any) -> Any:
    program = compile_source(src, kw.pop("options", ""))
    raw = [a.view(np.uint8).reshape(-1) if isinstance(a, np.ndarray) else a for a in args]
    return run_kernel(program, program.kernel_names[0], raw, Geometry((n, 1, 1), (wg, 1, 1)), **kw)


def fault_of(src: str, args: list[Any], n: int = 16, wg: int = 4, **kw: Any) -> KernelFault:
    with pytest.raises(KernelFault) as info:
        run(src, args, n, wg, **kw)
    return info.value


SHIFTED = """__kernel void shifted(__global float* out, __global const float* in, int shift) {
    int gid = get_global_id(0);
    out[gid] = in[gid + shift];
}"""


# -------------------------------------------------------------------------------------------- how many work-items
def test_an_out_of_bounds_read_counts_every_work_item_that_makes_it() -> None:
    f = fault_of(SHIFTED, [np.zeros(16, np.float32), np.zeros(16, np.float32), np.int32(4)])
    assert (f.check, f.line, f.work_item, f.group) == ("out_of_bounds_global", 3, (12, 0, 0), (3, 0, 0))
    assert (f.work_items, f.groups, f.address, f.address_range) == (4, 1, 64, (64, 76))
    assert str(f).split("\n")[0] == (
        "kernel.cl:3: out-of-bounds read of 4 bytes at offset 64 of a 64-byte __global buffer (argument 'in') by "
        "work-item (12, 0, 0) in group (3, 0, 0), one of 4 work-items in 1 work-group (offsets 64 to 76)"
    )
    f = fault_of(SHIFTED, [np.zeros(16, np.float32), np.zeros(16, np.float32), np.int32(6)])
    assert (f.work_item, f.work_items, f.groups, f.address_range) == ((10, 0, 0), 6, 2, (64, 84))
    assert "one of 6 work-items in 2 work-groups (offsets 64 to 84)" in str(f)


def test_a_single_offender_keeps_the_short_form() -> None:
    f = fault_of(SHIFTED, [np.zeros(16, np.float32), np.zeros(16, np.float32), np.int32(1)])
    assert (f.work_item, f.work_items, f.groups, f.address_range) == ((15, 0, 0), 1, 1, (64, 64))
    assert str(f).split("\n")[0].endswith("by work-item (15, 0, 0) in group (3, 0, 0)")


def test_an_out_of_bounds_write_to_local_memory_counts_its_work_items() -> None:
    src = """__kernel void k(__global float* o) {
    __local float t[4];
    t[get_local_id(0) + 2] = 1.0f;
}"""
    f = fault_of(src, [np.zeros(16, np.float32)])
    assert (f.check, f.work_item, f.work_items, f.groups, f.address_range) == (
        "out_of_bounds_local",
        (2, 0, 0),
        8,
        4,
        (16, 20),
    )


def test_a_race_counts_the_work_items_whose_access_conflicts() -> None:
    # every work-item reads the element its neighbour wrote, with no barrier in between
    src = """__kernel void k(__global float* o) {
    __local float t[4];
    t[get_local_id(0)] = 1.0f;
    o[get_global_id(0)] = t[(get_local_id(0) + 1) % 4];
}"""
    f = fault_of(src, [np.zeros(16, np.float32)])
    assert (f.check, f.line, f.work_item, f.work_items, f.groups) == ("race_local", 4, (0, 0, 0), 16, 4)
    assert f.address_range == (0, 12)
    assert "one of 16 work-items in 4 work-groups (offsets 0 to 12)" in str(f)
    # all work-items write one __global element in one step: every writer of it races
    f = fault_of("__kernel void k(__global int* o) {\n    o[1] = get_global_id(0);\n}", [np.zeros(4, np.int32)])
    assert (f.check, f.line, f.work_items, f.groups, f.address_range) == ("race_global", 2, 16, 4, (4, 4))
    assert str(f).split("\n")[0].endswith("one of 16 work-items in 4 work-groups")


def test_other_findings_count_their_work_items() -> None:
    src = """__kernel void k(__global int* o) {
    const int i = get_global_id(0);
    o[i] = 100 / (i % 8 - 3);
}"""
    f = fault_of(src, [np.zeros(16, np.int32)], strict=True)
    assert (f.check, f.work_item, f.work_items, f.groups) == ("division_by_zero", (3, 0, 0), 2, 2)
    src = """__kernel void k(__global float* o) {
    if (get_local_id(0) < 3)
        barrier(CLK_LOCAL_MEM_FENCE);
}"""
    f = fault_of(src, [np.zeros(16, np.float32)])
    assert (f.check, f.work_item, f.work_items, f.groups) == ("barrier_divergence", (3, 0, 0), 4, 4)
    src = """__kernel void k(__global float* o) {
    __local float t[4];
    if (get_local_id(0) < 2) t[get_local_id(0)] = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = t[get_local_id(0)];
}"""
    f = fault_of(src, [np.zeros(16, np.float32)])
    assert (f.check, f.work_item, f.work_items, f.groups) == ("uninitialized_local", (2, 0, 0), 8, 4)
    assert f.address_range == (8, 12)


# ------------------------------------------------------------------------------------------ the quoted source line
TANGLED = """// a comment line
#define SHIFT 1   /* a comment that
                     spans lines */
/* another
   comment */
#if SHIFT > 0
#define OFFSET(i) \\
    ((i) + SHIFT)
#endif

float twice(float v) { return 2.0f * v; }

__kernel void tangled(__global float* out,
                      __global const float* in)
{
    int gid = get_global_id(0);
    out[gid] = twice(in[OFFSET(
        gid)]);   // reads one past the end
}"""


def test_the_message_quotes_the_users_source_line() -> None:
    f = fault_of(TANGLED, [np.zeros(16, np.float32), np.zeros(16, np.float32)])
    assert (f.check, f.line) == ("out_of_bounds_global", 17)
    assert f.source_line == "out[gid] = twice(in[OFFSET("
    first, quoted = str(f).split("\n")
    assert first.startswith("kernel.cl:17: out-of-bounds read")
    assert quoted == "    out[gid] = twice(in[OFFSET("


def test_the_quoted_line_follows_options_crlf_and_helper_functions() -> None:
    src = """#ifndef N
#error N is needed
#endif
void put(__global float* p, int i) {
    p[i] = 1.0f;  /* the faulting store */
}
__kernel void k(__global float* out) {
    put(out, get_global_id(0) + N);
}""".replace("\n", "\r\n")
    f = fault_of(src, [np.zeros(16, np.float32)], options="-D N=2")
    assert (f.line, f.source_line) == (5, "p[i] = 1.0f;  /* the faulting store */")
    assert str(f).endswith("\n    p[i] = 1.0f;  /* the faulting store */")


def test_a_fault_after_a_helper_call_is_on_the_callers_line() -> None:
    src = """float twice(float v) {
    return 2.0f * v;
}
__kernel void k(__global float* out, __global const float* in) {
    out[get_global_id(0) + 1] = twice(in[get_global_id(0)]);
}"""
    f = fault_of(src, [np.zeros(16, np.float32), np.zeros(16, np.float32)])
    assert (f.check, f.line, f.source_line) == (
        "out_of_bounds_global",
        5,
        "out[get_global_id(0) + 1] = twice(in[get_global_id(0)]);",
    )


def test_a_timeout_quotes_the_loop() -> None:
    src = """__kernel void k(__global uint* o) {
    uint v = 1u;
    while (v != 0u) {  // never ends
        o[get_global_id(0)] = v;
    }
}"""
    with pytest.raises(KernelTimeout) as info:
        run(src, [np.zeros(16, np.uint32)], 16, 4, step_limit=500)
    assert info.value.source_line == "while (v != 0u) {  // never ends"
    assert str(info.value).split("\n")[1] == "    while (v != 0u) {  // never ends"


# -------------------------------------------------------------------------------------- what a faulting launch leaves
WRITE_THEN_FAULT = """__kernel void k(__global float* out, __global const float* in) {
    int gid = get_global_id(0);
    out[gid] = 1.0f;
    float v = in[gid + 1];
    out[gid] = v;
}"""


def test_run_kernel_works_in_place_and_the_faulting_access_writes_nothing() -> None:
    out = np.full(16, 7.0, np.float32)
    f = fault_of(WRITE_THEN_FAULT, [out, np.arange(16, dtype=np.float32)])
    assert (f.check, f.line) == ("out_of_bounds_global", 4)
    np.testing.assert_array_equal(out, 1.0)  # the steps before the faulting one wrote in place
    out = np.full(16, 7.0, np.float32)
    src = """__kernel void k(__global float* out) {
    out[get_global_id(0)] = 2.0f;
    out[get_global_id(0) + 1] = 3.0f;
}"""
    assert fault_of(src, [out]).line == 3
    np.testing.assert_array_equal(out, 2.0)  # no lane of the faulting store wrote, not even the in-bounds ones


def test_no_write_of_a_faulting_launch_lands_through_the_hal() -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    out = wia.tensor(np.full(16, 7.0, np.float32), ctx=ctx)
    data = wia.tensor(np.arange(16, dtype=np.float32), ctx=ctx)
    kernel = wia.compile_kernel(ctx, WRITE_THEN_FAULT, "k")
    config = wia.LaunchConfig(global_size=16, local_size=4)
    with pytest.raises(wia.WiaError) as info:
        wia.launch_kernel(kernel, config, out, data)
    error = info.value
    assert error.code is wia.ErrorCode.INVALID_MEMORY
    first, quoted = str(error).split("\n")
    assert first == (
        "kernel.cl:4: out-of-bounds read of 4 bytes at offset 64 of a 64-byte __global buffer (argument 'in') by "
        "work-item (15, 0, 0) in group (3, 0, 0)"
    )
    assert quoted == "    float v = in[gid + 1];"
    np.testing.assert_array_equal(out.numpy(), 7.0)
    stream = wia.create_stream(ctx)
    for i, value in enumerate((out, data)):
        wia.set_kernel_arg(kernel, i, value)
    wia.launch_kernel_async(kernel, config, stream)
    with pytest.raises(wia.InvalidMemoryError):
        wia.stream_synchronize(stream)
    np.testing.assert_array_equal(out.numpy(), 7.0)


def test_a_hal_finding_says_how_many_work_items_and_quotes_the_line() -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    out, data = wia.zeros(16, ctx=ctx), wia.zeros(16, ctx=ctx)
    kernel = wia.compile_kernel(ctx, SHIFTED, "shifted")
    with pytest.raises(wia.InvalidMemoryError) as info:
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=16, local_size=4), out, data, 6)
    assert info.value.code is wia.ErrorCode.INVALID_MEMORY
    assert str(info.value).split("\n") == [
        "kernel.cl:3: out-of-bounds read of 4 bytes at offset 64 of a 64-byte __global buffer (argument 'in') by "
        "work-item (10, 0, 0) in group (2, 0, 0), one of 6 work-items in 2 work-groups (offsets 64 to 84)",
        "    out[gid] = in[gid + shift];",
    ]
    cause = getattr(info.value, "cause", None) or info.value.__cause__  # the executor's KernelFault
    assert isinstance(cause, KernelFault) and (cause.work_items, cause.groups) == (6, 2)


@pytest.mark.parametrize("checks", [True, False])
def test_an_atomic_through_a_const_pointer_is_refused_and_writes_nothing(checks: bool) -> None:
    src = "__kernel void k(__global const int* c) {\n    atomic_add((__global int*)c, 1);\n}"
    c = np.zeros(4, np.int32)
    f = fault_of(src, [c], checks=checks)
    assert (f.check, f.line, f.work_items, f.groups) == ("write_to_read_only", 2, 16, 4)
    np.testing.assert_array_equal(c, 0)
    wia.set_backend("sim", hardware="wia-tiny", kernel_checks=checks)
    ctx = wia.create_context()
    buffer = wia.zeros(4, dtype=np.int32, ctx=ctx)
    with pytest.raises(wia.InvalidMemoryError, match="read-only"):
        wia.launch_kernel(wia.compile_kernel(ctx, src, "k"), wia.LaunchConfig(global_size=16, local_size=4), buffer)
    np.testing.assert_array_equal(buffer.numpy(), 0)
