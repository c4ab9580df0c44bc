"""Custom kernels on the sim backend, through the public API: results, build errors, sanitizer findings, timing."""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backends.sim import SimBackend

VECTOR_ADD = """
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {
    int gid = get_global_id(0);
    if (gid < n) c[gid] = a[gid] + b[gid];
}
"""
REDUCE = """
#define WG 64
__kernel void partial_sums(__global const float* x, __global float* out, int n) {
    __local float scratch[WG];
    int lid = get_local_id(0), gid = get_global_id(0);
    scratch[lid] = gid < n ? x[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = WG / 2; stride > 0; stride >>= 1) {
        if (lid < stride) scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = scratch[0];
}
"""


def test_vector_add_runs_and_is_timed_from_its_counts(sim: SimBackend, ctx: wia.Context) -> None:
    n = 1000
    rng = np.random.default_rng(0)
    a, b = rng.random(n, np.float32), rng.random(n, np.float32)
    ta, tb, tc = wia.tensor(a, ctx=ctx), wia.tensor(b, ctx=ctx), wia.zeros(n, ctx=ctx)
    kernel = wia.compile_kernel(ctx, VECTOR_ADD, "vector_add")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=1024, local_size=256), ta, tb, tc, n)
    np.testing.assert_array_equal(tc.numpy(), a + b)
    report = wia.explain(kernel)
    assert report.counts["global_bytes_read"] == 8 * n and report.counts["global_bytes_written"] == 4 * n
    assert report.counts["work_groups"] == 4
    assert report.duration_ms == pytest.approx(report.launch_ms + max(report.compute_ms, report.memory_ms))
    assert report.started_ms is not None and report.ended_ms is not None


def test_each_launch_is_timed_from_its_own_counts(ctx: wia.Context) -> None:
    """One kernel on one geometry does as much work as its arguments ask: each launch's time is worked out from what
    that launch counted, and a launch alike to an earlier one takes what it took."""
    source = """
    __kernel void repeat(__global float* x, int times) {
        int i = get_global_id(0);
        float v = x[i];
        for (int k = 0; k < times; ++k) v = v * 0.5f + 1.0f;
        x[i] = v;
    }"""
    kernel = wia.compile_kernel(ctx, source, "repeat")
    x = wia.tensor(np.random.default_rng(1).random(1 << 16, np.float32), ctx=ctx)
    config = wia.LaunchConfig(global_size=1 << 16, local_size=256)
    reports = []
    for times in (1, 4000, 1, 4000):
        wia.launch_kernel(kernel, config, x, times)
        reports.append(wia.explain(kernel))
    short, long, short_again, long_again = reports
    assert long.counts["float32_ops"] > 1000 * short.counts["float32_ops"]
    assert long.duration_ms > 100 * short.duration_ms
    assert (short_again.counts, short_again.duration_ms) == (short.counts, short.duration_ms)
    assert (long_again.counts, long_again.duration_ms) == (long.counts, long.duration_ms)


def test_writes_land_when_the_kernel_ends() -> None:
    """A reader on another stream without an event sees the old values, as with built-in ops (and the simulator
    reports the missing dependency: warned here whatever WIA_SIM_HAZARDS says)."""
    wia.set_backend("sim", hardware="wia-tiny", hazards="warn")
    ctx = wia.create_context()
    n = 1 << 14
    x = wia.tensor(np.ones(n, np.float32), ctx=ctx)
    out = wia.zeros(n // 64, ctx=ctx)
    wia.context_synchronize(ctx)
    kernel = wia.compile_kernel(ctx, REDUCE, "partial_sums")
    for i, value in enumerate((x, out, n)):
        wia.set_kernel_arg(kernel, i, value)
    writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
    busy = wia.alloc(ctx, 16 << 20, wia.MemoryType.PINNED)
    wia.copy_async(busy, wia.alloc(ctx, 16 << 20), 16 << 20, writer)  # the kernel queues behind a long copy
    wia.launch_kernel_async(kernel, wia.LaunchConfig(global_size=n, local_size=64), writer)
    with pytest.warns(wia.StreamHazardWarning, match="read-after-write.*`kernel partial_sums`"):
        stale = wia.relu(out, stream=reader).numpy()
    np.testing.assert_array_equal(stale, 0.0)
    wia.stream_synchronize(writer)
    np.testing.assert_array_equal(out.numpy(), 64.0)


def test_a_bad_source_is_a_compile_error_with_a_build_log(ctx: wia.Context) -> None:
    with pytest.raises(wia.CompileError, match=r"kernel\.cl:2:\d+: error") as info:
        wia.compile_kernel(ctx, "__kernel void k(__global int* a) {\n  a[0] = undefined_name;\n}", "k")
    assert info.value.code is wia.ErrorCode.COMPILE_ERROR
    with pytest.raises(wia.InvalidKernelError, match="vector_add"):
        wia.compile_kernel(ctx, VECTOR_ADD, "vector_sub")


def test_out_of_bounds_write_is_reported_with_line_work_item_and_address(ctx: wia.Context) -> None:
    source = "__kernel void k(__global float* a, int n) {\n  int i = get_global_id(0);\n  if (i <= n) a[i] = 1.0f;\n}"
    kernel = wia.compile_kernel(ctx, source, "k")
    with pytest.raises(wia.InvalidMemoryError, match=r"kernel\.cl:3: out-of-bounds write .* work-item \(64, 0, 0\)"):
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=128, local_size=64), wia.alloc(ctx, 64 * 4), 64)


def test_an_asynchronous_kernel_fault_is_reported_to_its_own_stream_only() -> None:
    """A kernel's fault is reported by the wait for its own stream, not by whichever call runs the simulator past
    it (found by tests/test_api_abuse.py: another context's blocking upload got it, the faulty context never)."""
    a, b = wia.create_context(), wia.create_context()
    source = "__kernel void k(__global float* a, int n) {\n  int i = get_global_id(0);\n  a[i + n] = 1.0f;\n}"
    kernel = wia.compile_kernel(a, source, "k")
    wia.set_kernel_arg(kernel, 0, wia.alloc(a, 16))
    wia.set_kernel_arg(kernel, 1, 4)
    wia.launch_kernel_async(kernel, wia.LaunchConfig(global_size=4))
    wia.tensor(np.ones(4, np.float32), ctx=b)  # context b's blocking upload runs the simulator past the kernel
    with pytest.raises(wia.InvalidMemoryError, match="out-of-bounds write"):
        wia.context_synchronize(a)


def test_a_runaway_kernel_stops_with_timeout() -> None:
    wia.set_backend("sim", hardware="wia-tiny", kernel_step_limit=2000)
    ctx = wia.create_context()
    source = "__kernel void spin(__global int* a) {\n  int v = 1;\n  while (v != 0) { a[0] = v; }\n}"
    kernel = wia.compile_kernel(ctx, source, "spin")
    with pytest.raises(wia.TimedOutError, match=r"kernel\.cl:3.*spin"):
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=1), wia.alloc(ctx, 4))


def test_kernel_arguments_are_checked(ctx: wia.Context) -> None:
    kernel = wia.compile_kernel(ctx, VECTOR_ADD, "vector_add")
    with pytest.raises(wia.InvalidValueError, match="buffer"):
        wia.set_kernel_arg(kernel, 0, 3.0)
    with pytest.raises(wia.InvalidValueError, match="scalar"):
        wia.set_kernel_arg(kernel, 3, wia.alloc(ctx, 4))


def test_local_memory_over_the_device_limit_is_an_invalid_launch(ctx: wia.Context) -> None:
    source = "__kernel void k(__local float* scratch, __global float* out) { out[0] = 0.0f; }"
    kernel = wia.compile_kernel(ctx, source, "k")
    limit = wia.get_device_capabilities(ctx.device).max_shared_memory
    with pytest.raises(wia.InvalidLaunchConfigError, match="__local memory"):
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=64, local_size=64), limit + 4, wia.alloc(ctx, 4))


DOUBLES = """
__kernel void scale(__global const float* x, __global float* y) {
#ifdef cl_khr_fp64
    double s = 2.5;
    y[get_global_id(0)] = (float)(x[get_global_id(0)] * s);
#else
    y[get_global_id(0)] = -1.0f;
#endif
}
"""


def test_double_and_half_follow_the_device() -> None:
    """The TPU v5e model has neither float64 nor float16 arithmetic: no cl_khr_fp64/fp16, so a kernel declaring a
    double is a build error there, `#ifdef cl_khr_fp64` takes the other branch, and half is a storage type only."""
    wia.set_backend("sim", hardware="google-tpu-v5e")
    ctx = wia.create_context()
    with pytest.raises(wia.CompileError, match=r"kernel\.cl:2:\d+: error: type 'double' needs the cl_khr_fp64"):
        wia.compile_kernel(ctx, "__kernel void k(__global float* y) {\n  double d = 1.0;\n}", "k")
    with pytest.raises(wia.CompileError, match=r"declaring variable of type '__private half' is not allowed"):
        wia.compile_kernel(ctx, "__kernel void k(__global half* y) { half h = y[0]; }", "k")
    wia.compile_kernel(ctx, "__kernel void k(__global half* y) { vstore_half(1.0f, 0, y); }", "k")
    x = wia.tensor(np.arange(4, dtype=np.float32), ctx=ctx)
    y = wia.zeros(4, ctx=ctx)
    wia.launch_kernel(wia.compile_kernel(ctx, DOUBLES, "scale"), wia.LaunchConfig(global_size=4), x, y)
    assert y.numpy().tolist() == [-1.0] * 4
    wia.destroy_context(ctx)
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    y = wia.zeros(4, ctx=ctx)
    x = wia.tensor(np.arange(4, dtype=np.float32), ctx=ctx)
    wia.launch_kernel(wia.compile_kernel(ctx, DOUBLES, "scale"), wia.LaunchConfig(global_size=4), x, y)
    assert y.numpy().tolist() == [0.0, 2.5, 5.0, 7.5]
    wia.destroy_context(ctx)


def test_an_unsuffixed_literal_is_single_precision_without_doubles() -> None:
    """OpenCL C 1.2, 6.1.1.1 (Clang: "double precision constant requires cl_khr_fp64, casting to single")."""
    from wia_sim.kernels import compile_source
    from wia_sim.kernels.executor import run_kernel
    from wia_sim.kernels.lanes import Geometry

    source = "__kernel void k(__global float* y) { y[get_global_id(0)] = y[get_global_id(0)] * 0.1; }"
    for extensions, kind in ((frozenset({"cl_khr_fp64"}), "float64_ops"), (frozenset(), "float32_ops")):
        y = np.full(8, 3.0, np.float32)
        counts = run_kernel(
            compile_source(source, extensions=extensions), "k", [y.view(np.uint8)], Geometry((8, 1, 1), (8, 1, 1))
        ).counts
        assert counts[kind] == 8, (kind, counts)
        expected = np.float32(3.0 * 0.1) if kind == "float64_ops" else np.float32(3.0) * np.float32(0.1)
        assert y[0] == expected


def test_get_work_dim_is_the_number_of_sizes_given(ctx: wia.Context) -> None:
    kernel = wia.compile_kernel(
        ctx, "__kernel void k(__global int* o) { if (get_global_id(0) == 0) o[0] = get_work_dim(); }", "k"
    )
    out = wia.zeros(1, dtype=np.int32, ctx=ctx)
    for config, expected in [
        (wia.LaunchConfig(global_size=4), 1),
        (wia.LaunchConfig(global_size=(4, 1)), 2),
        (wia.LaunchConfig(grid_dim=(1, 1, 1), block_dim=(2, 1, 1)), 3),
    ]:
        wia.launch_kernel(kernel, config, out)
        assert out.numpy()[0] == expected, config


def test_two_arguments_on_one_buffer_see_each_others_writes_and_both_land(ctx: wia.Context) -> None:
    """As on a device, where both pointers address the same memory (the backend copies a written buffer once, over
    the span of every argument on it; one copy per argument lost all but the last one's writes)."""
    source = """
__kernel void both(__global float* a, __global float* b, __global const float* c, __global float* seen) {
    int i = get_global_id(0);
    a[2 * i] = 1.0f + i;
    b[2 * i + 1] = 100.0f + i;
    seen[i] = c[2 * i];   /* reads what a just wrote, through a third pointer on the same buffer */
}
"""
    data = np.random.default_rng(3).random(16, np.float32)
    t = wia.tensor(data, ctx=ctx)
    seen = wia.zeros(8, ctx=ctx)
    kernel = wia.compile_kernel(ctx, source, "both")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=8, local_size=8), t, t, t, seen)
    expected = np.empty(16, np.float32)
    expected[0::2] = 1.0 + np.arange(8)
    expected[1::2] = 100.0 + np.arange(8)
    np.testing.assert_array_equal(t.numpy(), expected)
    np.testing.assert_array_equal(seen.numpy(), expected[0::2])


def test_destroying_a_context_or_stream_whose_kernel_faulted_reports_the_fault_and_destroys_it() -> None:
    """No partial state: the fault the finishing work reports is raised, and the context (stream) is gone with its
    memory released all the same (found by the abuse machine: the context stayed half alive)."""
    source = "__kernel void k(__global float* a, int n) {\n  int i = get_global_id(0);\n  a[i + n] = 1.0f;\n}"
    for what in ("context", "stream"):
        ctx = wia.create_context()
        stream = wia.create_stream(ctx)
        kernel = wia.compile_kernel(ctx, source, "k")
        wia.set_kernel_arg(kernel, 0, wia.alloc(ctx, 16))
        wia.set_kernel_arg(kernel, 1, 4)
        wia.launch_kernel_async(kernel, wia.LaunchConfig(global_size=4), stream)
        with pytest.raises(wia.InvalidMemoryError, match="out-of-bounds write"):
            wia.destroy_context(ctx) if what == "context" else wia.destroy_stream(stream)
        assert stream.destroyed and stream not in ctx.streams
        if what == "context":
            assert ctx.destroyed and ctx.bytes_allocated == 0 and ctx not in wia.runtime.runtime().contexts
        else:
            wia.destroy_context(ctx)  # the fault was reported once: nothing is left to report


# ---------------------------------------------------------------------------------------------------------------
# switch statements: each lane of a work-group takes its own case (fresh random data against a Python reference)

SWITCH_SEMANTICS = r"""
#define NEG -3
int classify(int v) {
    switch (v) {
    case 0: return 100;          /* return inside a case */
    case 1:                      /* fallthrough through an empty case */
    case 2: v += 10;             /* fallthrough into the default */
    default: v *= 2;
    case 7: return v + 1;
    }
}
__kernel void sw(__global const int* x, __global int* out, __global int* untouched) {
    int i = get_global_id(0);
    int a = x[i];
    int acc = 0;
    switch (a % 8) {
    case -7: case -6: case -5: case -4: case NEG: case -2: case -1: acc = -1; break;
    default: acc = 50;           /* a default in the middle: entered by 1, 4, 6 and 7, falls into 5 */
    case 5: acc += 5; break;
    case 0: acc = 7;             /* no break: falls into case 3 */
    case 3: {
        int t = acc;             /* a declaration inside a case body */
        acc = t * 3;
        break;
    }
    case 2:
        for (int j = 0; j < 100; j++) {
            if (j * j > a) break; /* leaves the loop, not the switch */
            acc += j;
        }
        acc += 1000;
        break;
    }
    out[4 * i] = acc;
    out[4 * i + 1] = classify(a % 9);
    int sum = 0;
    for (int j = 0; j < 6; j++) {
        switch ((a + j) % 4) {
        case 0: continue;        /* continues the loop around the switch */
        case 1:
            switch (j & 1) {     /* a nested switch; its break leaves only itself */
            case 0: sum += 100; break;
            case 1: sum += 1000; break;
            }
            sum += 1;
            break;
        case 'b' - 'a' + 1: sum += 10;   /* 2: a char-literal label, falls into 3 */
        case 3: sum += 3;
        }
        sum += 10000;
    }
    out[4 * i + 2] = sum;
    switch ((uchar)a) {          /* no matching case and no default: nothing happens */
    case 255: untouched[i] = 1; break;
    case (uchar)-2: untouched[i] = 2; break;
    }
    if (a % 5 == 0) {
        switch (a % 3) { case 1: return; }
    }
    out[4 * i + 3] = 1;
}
"""


def _switch_reference(a: int) -> tuple[list[int], int | None]:
    """The kernel above, case by case, for one input (C's % truncates toward zero)."""
    rem8 = int(np.fmod(a, 8))
    if rem8 < 0:
        acc = -1
    elif rem8 in (1, 4, 6, 7):
        acc = 55
    elif rem8 == 5:
        acc = 5
    elif rem8 in (0, 3):
        acc = 21 if rem8 == 0 else 0
    else:  # 2
        acc = sum(j for j in range(100) if all(k * k <= a for k in range(j + 1))) + 1000
    v = int(np.fmod(a, 9))
    classify = 100 if v == 0 else 8 if v == 7 else ((v + 10) * 2 + 1 if v in (1, 2) else v * 2 + 1)
    total = 0
    for j in range(6):
        r = int(np.fmod(a + j, 4))
        if r == 0:
            continue
        if r == 1:
            total += (100 if j % 2 == 0 else 1000) + 1
        elif r == 2:
            total += 13
        elif r == 3:
            total += 3
        total += 10000
    byte = a & 0xFF
    untouched = 1 if byte == 255 else 2 if byte == 254 else None
    returned = a % 5 == 0 and int(np.fmod(a, 3)) == 1
    return [acc, classify, total, -7 if returned else 1], untouched


def test_switch_statements_run_like_c_with_divergent_lanes(ctx: wia.Context) -> None:
    n, wg = 512, 64
    rng = np.random.default_rng()
    x = rng.integers(-300, 300, n).astype(np.int32)
    x[:4] = (255, -1, -2, 254)  # the uchar labels are taken
    x[4:10] = (-9, 16, 17, 18, 19, 21)  # and the first work-group diverges across these cases of % 8, whatever x is
    out_t = wia.tensor(np.full(4 * n, -7, np.int32), ctx=ctx)
    untouched_t = wia.tensor(np.full(n, -9, np.int32), ctx=ctx)
    kernel = wia.compile_kernel(ctx, SWITCH_SEMANTICS, "sw")
    for k, value in enumerate((wia.tensor(x, ctx=ctx), out_t, untouched_t)):
        wia.set_kernel_arg(kernel, k, value)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=(n,), local_size=(wg,)))
    out, untouched = out_t.numpy().reshape(n, 4), untouched_t.numpy()
    for i, a in enumerate(x.tolist()):
        row, mark = _switch_reference(a)
        assert out[i].tolist() == row, (i, a)
        assert untouched[i] == (-9 if mark is None else mark), (i, a)
    assert {int(np.fmod(a, 8)) for a in x[:wg]} >= {-1, 0, 1, 2, 3, 5}  # one work-group diverges across cases


SWITCH_BARRIER = r"""
__kernel void k(__global const int* mode, __global float* out) {
    __local float tile[64];
    int lid = get_local_id(0), g = get_group_id(0);
    switch (mode[g]) {           /* one case per work-group: the barrier is reached by the whole group */
    case 0: tile[lid] = 1.0f; barrier(CLK_LOCAL_MEM_FENCE); out[get_global_id(0)] = tile[63 - lid]; break;
    default: out[get_global_id(0)] = -1.0f;
    }
    switch (lid % 2) {           /* lanes of one group in different cases */
    case 0: barrier(CLK_LOCAL_MEM_FENCE); break;
    }
}
"""


def test_a_barrier_inside_a_switch_is_checked_like_one_inside_an_if(ctx: wia.Context) -> None:
    """Uniform per work-group: fine. Divergent: the same barrier_divergence finding an ``if`` gets."""
    kernel = wia.compile_kernel(ctx, SWITCH_BARRIER.replace("switch (lid % 2)", "switch (g % 2)"), "k")
    out = wia.zeros(128, ctx=ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=128, local_size=64), wia.tensor([0, 3], ctx=ctx), out)
    np.testing.assert_array_equal(out.numpy(), [1.0] * 64 + [-1.0] * 64)
    kernel = wia.compile_kernel(ctx, SWITCH_BARRIER, "k")
    divergent = SWITCH_BARRIER.split("\n")[8:10]  # the second switch's first two lines
    assert divergent[0].startswith("    switch (lid % 2)") and divergent[1].startswith("    case 0: barrier")
    same_as_if = "    if (lid % 2 == 0) {\n    barrier(CLK_LOCAL_MEM_FENCE);"
    as_if = wia.compile_kernel(ctx, SWITCH_BARRIER.replace("\n".join(divergent), same_as_if), "k")
    messages = []
    for k in (kernel, as_if):
        with pytest.raises(wia.InvalidKernelError, match=r"kernel\.cl:10: barrier reached by 32 of the 64") as info:
            wia.launch_kernel(k, wia.LaunchConfig(global_size=128, local_size=64), wia.tensor([0, 3], ctx=ctx), out)
        messages.append(str(info.value).split("\n")[0])
    assert messages[0] == messages[1]
