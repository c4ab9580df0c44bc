"""The memory checks of issue 16: reads of uninitialized __private variables and arrays and of __global bytes
nothing wrote, kernels against an allocation's ``MemoryAccess`` (OpenCL's read-only/write-only flags), and NULL
pointer dereferences. On the executor directly and through the public HAL on ``sim``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wia_hal as wia
from wia_hal.runtime import runtime
from wia_sim.kernels import compile_source, run_kernel
from wia_sim.kernels.executor import KernelFault
from wia_sim.kernels.lanes import launch_geometry
from wia_sim.kernels.memargs import GlobalBuffer
from wia_sim.memory import Buffer, MemoryKind

N = 64


def _run(src: str, args: list[Any], *, checks: bool = True, n: int = N, local: int = 16) -> None:
    program = compile_source(src, "")
    name = src.split("void", 1)[1].split("(", 1)[0].strip()
    run_kernel(program, name, args, launch_geometry((n, 1, 1), (local, 1, 1), 256, 1), checks=checks)


def _fault(src: str, args: list[Any], **kw: Any) -> KernelFault:
    with pytest.raises(KernelFault) as info:
        _run(src, args, **kw)
    return info.value


def _f32(rng: np.random.Generator, n: int = N) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, n).astype(np.float32)


# -- uninitialized __private ------------------------------------------------------------------------------------------

PARTIAL = """
__kernel void k(__global const float* x, __global float* y)
{
    const int i = get_global_id(0);
    float v;
    if (i % 4 != 3)
        v = x[i];
    y[i] = v;
}
"""


def test_a_private_scalar_read_before_its_lane_assigned_it() -> None:
    rng = np.random.default_rng(1)
    x, y = _f32(rng), np.zeros(N, np.float32)
    f = _fault(PARTIAL, [x.view(np.uint8), y.view(np.uint8)])
    assert (f.check, f.line, f.wia_code) == ("uninitialized_private", 8, "INVALID_MEMORY")
    assert (f.work_item, f.group, f.work_items, f.groups) == ((3, 0, 0), (0, 0, 0), N // 4, N // 16)
    assert "'v'" in str(f)


def test_checks_off_run_the_same_kernel() -> None:
    rng = np.random.default_rng(2)
    x, y = _f32(rng), np.full(N, np.nan, np.float32)
    _run(PARTIAL, [x.view(np.uint8), y.view(np.uint8)], checks=False)
    keep = np.arange(N) % 4 != 3
    assert np.array_equal(y[keep], x[keep])


@pytest.mark.parametrize(
    "body",
    [
        "float v; if (i % 2 == 0) v = x[i]; else v = -x[i]; y[i] = v;",  # every lane assigns, in two branches
        "float v; for (int k = 0; k < 1; k++) v = x[i]; y[i] = v;",
        "float4 v; v.x = x[i]; v.yzw = (float3)(1.0f); y[i] = v.x + v.w;",  # a vector filled by components
        "float a[4] = {1.0f}; y[i] = x[i] + a[3];",  # an initializer sets every element (the rest are zero)
        "float a[4]; for (int k = 0; k < 4; k++) a[k] = x[i]; y[i] = a[i & 3];",
        "float s; float* p = &s; *p = x[i]; y[i] = s;",  # written through a pointer
        "int k; k = 2; k += 1; y[i] = x[i] * (float)k;",
    ],
)
def test_initialized_private_memory_is_clean(body: str) -> None:
    rng = np.random.default_rng(3)
    src = f"__kernel void k(__global const float* x, __global float* y) {{ const int i = get_global_id(0); {body} }}"
    x, y = _f32(rng), np.zeros(N, np.float32)
    _run(src, [x.view(np.uint8), y.view(np.uint8)])


@pytest.mark.parametrize(
    ("body", "offset"),
    [
        ("float a[8]; a[0] = x[i]; y[i] = a[1];", 4),
        ("int a[4]; a[i & 3] = 1; y[i] = (float)a[(i + 1) & 3];", None),
        ("float s; float* p = &s; y[i] = *p;", 0),
        ("float v; v += x[i]; y[i] = v;", None),  # a compound assignment reads first
    ],
)
def test_uninitialized_private_reads(body: str, offset: int | None) -> None:
    rng = np.random.default_rng(4)
    src = f"__kernel void k(__global const float* x, __global float* y) {{ const int i = get_global_id(0); {body} }}"
    x, y = _f32(rng), np.zeros(N, np.float32)
    f = _fault(src, [x.view(np.uint8), y.view(np.uint8)])
    assert f.check == "uninitialized_private"
    assert f.work_items == N
    if offset is not None:
        assert f.address == offset


@pytest.mark.parametrize(
    ("body", "where"),
    [
        (
            "ulong v; uchar* b = (uchar*)&v; for (int k = 0; k < 7; k++) b[k] = 1; y[i] = (float)v;",
            "8 bytes at offset 0; byte 7 of them never written",
        ),
        ("uint v; ((ushort*)&v)[1] = 5; y[i] = (float)v;", "4 bytes at offset 0; bytes 0-1 of them never written"),
        (
            "uint v; ((uchar*)&v)[1] = 5; ((uchar*)&v)[3] = 5; y[i] = (float)v;",
            "4 bytes at offset 0; bytes 0 and 2 of them never written",
        ),
        ("uint a[2]; a[0] = 1; y[i] = (float)a[1];", "4 bytes at offset 4"),  # (none of it written: no word of bytes)
        (  # a vector's first component with bytes nobody wrote (its offset was the vector's)
            "uint2 v; v.x = 1; ((uchar*)&v)[5] = 1; y[i] = (float)(v.x + v.y);",
            "4 bytes at offset 4; bytes 0 and 2-3 of them never written",
        ),
        ("uint a[2]; a[0] = 1; if (a[1] == 2) y[i] = 0;", "4 bytes at offset 4"),  # (used in a branch)
        (
            "uint a[2]; ((uchar*)a)[5] = 1; if (a[1] == 2) y[i] = 0;",
            "4 bytes at offset 4; bytes 0 and 2-3 of them never written",
        ),
    ],
)
def test_a_partly_written_value_names_the_bytes_nobody_wrote(body: str, where: str) -> None:
    """The finding says which bytes of the value read were never written, where some were."""
    src = f"__kernel void k(__global const float* x, __global float* y) {{ const int i = get_global_id(0); {body} }}"
    x, y = _f32(np.random.default_rng(6)), np.zeros(N, np.float32)
    f = _fault(src, [x.view(np.uint8), y.view(np.uint8)])
    assert f"({where})" in str(f), str(f)


# -- uninitialized __global -------------------------------------------------------------------------------------------

COPY = """
__kernel void k(__global const float* x, __global float* y)
{
    const int i = get_global_id(0);
    y[i] = x[i];
}
"""


def test_a_global_buffer_read_where_nothing_wrote() -> None:
    rng = np.random.default_rng(5)
    x, y = _f32(rng), np.zeros(N, np.float32)
    flags = np.ones(x.nbytes, dtype=bool)
    flags[40:48] = False  # elements 10 and 11
    f = _fault(COPY, [GlobalBuffer(x.view(np.uint8), initialized=flags), y.view(np.uint8)])
    assert (f.check, f.line, f.work_item, f.address, f.work_items, f.address_range) == (
        "uninitialized_global",
        5,
        (10, 0, 0),
        40,
        2,
        (40, 44),
    )


def test_an_atomic_on_a_partly_written_element_names_its_unwritten_bytes() -> None:
    """An atomic's read is the finding itself (no value to carry): its message names the bytes too."""
    counts = np.random.default_rng(7).integers(0, 100, N).astype(np.int32)
    flags = np.ones(counts.nbytes, dtype=bool)
    flags[41:43] = False  # two bytes of element 10
    src = "__kernel void k(__global int* c) { atomic_add(&c[get_global_id(0)], 1); }"
    f = _fault(src, [GlobalBuffer(counts.view(np.uint8), initialized=flags)])
    assert (f.check, f.work_item, f.address) == ("uninitialized_global", (10, 0, 0), 40)
    assert "(4 bytes at offset 40; bytes 1-2 of them never written)" in str(f), str(f)


@pytest.mark.parametrize(
    ("use", "offset"),
    [
        ("v.s0", None),
        ("v.s2", 8),
        ("v.s1 + v.s3", 4),
        ("v.s3 + v.s1", 12),
        ("v.s3", 12),
        ("v[get_global_id(0) % 3 + 1]", 4),  # (work-item 0 takes v[1])
        ("dot(v.zw, (float2)(1.0f))", 8),
        ("v.w * v.x", 12),
        ("length(v)", 4),  # the vector: its first component nobody wrote
    ],
)
def test_a_vector_read_over_partly_written_global_memory(use: str, offset: int | None) -> None:
    """A ``float4`` loaded where the host wrote only its first component: using that one is no finding; using
    another names the component used, at its offset (the read's first component nobody wrote before, and the
    vector's own offset, 0, before that). The change that named the bytes nobody wrote had made this launch an
    internal error for a while (the components' flags taken for the lanes')."""
    x, y = _f32(np.random.default_rng(8), 4 * N), np.zeros(N, np.float32)
    flags = np.zeros(x.nbytes, dtype=bool)
    flags.reshape(N, 16)[:, :4] = True
    src = (
        "__kernel void k(__global const float* x, __global float* y) "
        f"{{ int i = get_global_id(0); float4 v = vload4(i, x); y[i] = {use}; }}"
    )
    args = [GlobalBuffer(x.view(np.uint8), initialized=flags), y.view(np.uint8)]
    if offset is None:
        _run(src, args)
        np.testing.assert_array_equal(y, x[::4])
        return
    f = _fault(src, args)
    assert (f.check, f.work_item, f.address, f.work_items) == ("uninitialized_global", (0, 0, 0), offset, N)


def test_a_kernels_stores_initialize_and_are_reported_back() -> None:
    rng = np.random.default_rng(6)
    x, y = _f32(rng), np.zeros(N, np.float32)
    unset = np.zeros(y.nbytes, dtype=bool)
    out = GlobalBuffer(y.view(np.uint8), initialized=unset)
    _run(COPY.replace("y[i] = x[i];", "if (i < 20) y[i] = x[i];"), [x.view(np.uint8), out])
    assert unset[: 20 * 4].all() and not unset[20 * 4 :].any()
    _run(COPY.replace("y[i] = x[i];", "y[i] = x[i]; y[i] += 1.0f;"), [x.view(np.uint8), out])  # store, then read


def test_initialized_ranges_of_a_simulated_buffer() -> None:
    buf = Buffer(0, MemoryKind.DEVICE, 100, None, True)
    buf.unset = [(0, 100)]
    buf.mark_written(10, 20)
    assert buf.unset == [(0, 10), (20, 100)]
    flags = np.zeros(30, dtype=bool)
    flags[5:8] = True
    flags[20:] = True
    buf.mark_flags(0, flags)
    assert buf.unset == [(0, 5), (8, 10), (30, 100)]
    got = buf.initialized(0, 12)
    assert got is not None and got.tolist() == [False] * 5 + [True] * 3 + [False] * 2 + [True] * 2
    buf.mark_written(0, 100)
    assert buf.unset is None and buf.initialized(0, 100) is None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["copy", "kernel", "ask"]), st.integers(0, 96), st.integers(0, 40), st.integers()),
        max_size=12,
    )
)
def test_a_buffers_unwritten_ranges_follow_its_writes_byte_for_byte(steps: list[tuple[str, int, int, int]]) -> None:
    """Copies (``mark_written``), kernels' scattered stores (``mark_flags``, one flag per byte of the argument's
    range) and the flags a launch asks for (``initialized``) against a byte-by-byte model; the ranges stay sorted,
    disjoint and non-empty."""
    buf = Buffer(0, MemoryKind.DEVICE, 96, None, True)
    buf.unset = [(0, 96)]
    written = np.zeros(96, dtype=bool)
    for what, lo, size, seed in steps:
        hi = min(96, lo + size)
        if what == "copy":
            buf.mark_written(lo, hi)
            written[lo:hi] = True
        elif what == "kernel":
            flags = np.random.default_rng(seed % 2**32).random(hi - lo) < 0.3
            buf.mark_flags(lo, flags)
            written[lo:hi] |= flags
        else:
            got = buf.initialized(lo, hi)
            expected = written[lo:hi]
            assert (got is None and expected.all()) or (got is not None and got.tolist() == expected.tolist())
        if buf.unset is None:
            assert written.all()
            return
        model = np.ones(96, dtype=bool)
        for a, b in buf.unset:
            assert a < b
            model[a:b] = False
        assert all(b <= c for (_, b), (c, _) in zip(buf.unset, buf.unset[1:], strict=False))
        assert model.tolist() == written.tolist()


# -- access flags and NULL on the executor ---------------------------------------------------------------------------


def test_access_flags_on_the_executor() -> None:
    rng = np.random.default_rng(7)
    x, y = _f32(rng), np.zeros(N, np.float32)
    f = _fault(COPY, [x.view(np.uint8), GlobalBuffer(y.view(np.uint8), "read_only")])
    assert (f.check, f.line, f.address, f.work_items) == ("write_to_read_only", 5, 0, N)
    f = _fault(COPY, [GlobalBuffer(x.view(np.uint8), "write_only"), y.view(np.uint8)])
    assert (f.check, f.line, f.address, f.work_items, f.address_range) == (
        "read_from_write_only",
        5,
        0,
        N,
        (0, 4 * (N - 1)),
    )
    _run(COPY, [GlobalBuffer(x.view(np.uint8), "read_only"), GlobalBuffer(y.view(np.uint8), "write_only")])
    assert np.array_equal(x, y)
    with pytest.raises(ValueError, match="access"):
        GlobalBuffer(x.view(np.uint8), "readonly")  # type: ignore[arg-type]


def test_a_null_buffer_argument() -> None:
    rng = np.random.default_rng(8)
    x, y = _f32(rng), np.zeros(N, np.float32)
    f = _fault(COPY, [None, y.view(np.uint8)])
    assert (f.check, f.line, f.work_item, f.address, f.work_items, f.address_range) == (
        "null_pointer",
        5,
        (0, 0, 0),
        0,
        N,
        (0, 4 * (N - 1)),
    )
    f = _fault(COPY, [x.view(np.uint8), None], checks=False)  # no memory to write: a finding even unchecked
    assert f.check == "null_pointer"
    guarded = COPY.replace("y[i] = x[i];", "y[i] = x ? x[i] : -1.0f; if (x == 0) y[i] -= 1.0f;")
    _run(guarded, [None, y.view(np.uint8)])
    assert (y == -2.0).all()


def test_a_pointer_null_in_some_work_items() -> None:
    rng = np.random.default_rng(9)
    src = """
__kernel void k(__global const float* x, __global float* y)
{
    const int i = get_global_id(0);
    __global float* out = 0;
    if (i % 2 == 0)
        out = y;
    if (out)
        out[i] = x[i];
    if (i < 8)
        out[i] = 0.0f;
}
"""
    x, y = _f32(rng), np.full(N, np.nan, np.float32)
    f = _fault(src, [x.view(np.uint8), y.view(np.uint8)])
    assert (f.check, f.line, f.work_item, f.address, f.work_items) == ("null_pointer", 11, (1, 0, 0), 4, 4)
    assert np.array_equal(y[::2], x[::2]) and np.isnan(y[1::2]).all()


# -- through the HAL --------------------------------------------------------------------------------------------------


@pytest.fixture
def ctx() -> Iterator[wia.Context]:
    wia.set_backend("sim", hardware="wia-tiny")
    context = wia.create_context()
    try:
        yield context
    finally:
        for c in list(runtime().contexts):
            c.destroy()


def _upload(ctx: wia.Context, data: np.ndarray, access: wia.MemoryAccess = wia.MemoryAccess.READ_WRITE) -> wia.Memory:
    raw = data.reshape(-1).view(np.uint8)
    staging = wia.alloc(ctx, raw.size, wia.MemoryType.HOST)
    wia.memory_ptr(staging)[:] = raw
    mem = wia.alloc(ctx, raw.size, access=access)
    wia.copy_async(staging, mem, raw.size)
    return mem


def _download(ctx: wia.Context, mem: wia.Memory) -> np.ndarray:
    staging = wia.alloc(ctx, mem.size, wia.MemoryType.HOST)
    wia.copy_async(mem, staging, mem.size)
    wia.context_synchronize(ctx)
    return wia.memory_ptr(staging).copy().view(np.float32)


CONFIG = wia.LaunchConfig(global_size=N, local_size=16)


def test_hal_memory_access(ctx: wia.Context) -> None:
    rng = np.random.default_rng(10)
    x = _f32(rng)
    kernel = wia.compile_kernel(ctx, COPY, "k")
    src = _upload(ctx, x, wia.MemoryAccess.READ_ONLY)
    dst = wia.alloc(ctx, x.nbytes, access=wia.MemoryAccess.WRITE_ONLY)
    assert (src.access, dst.access) == (wia.MemoryAccess.READ_ONLY, wia.MemoryAccess.WRITE_ONLY)
    wia.launch_kernel(kernel, CONFIG, src, dst)
    assert np.array_equal(_download(ctx, dst), x)  # the host reads write-only memory
    with pytest.raises(wia.InvalidMemoryError, match="write to read-only __global buffer") as info:
        wia.launch_kernel(kernel, CONFIG, _upload(ctx, x), src)
    assert getattr(info.value.cause, "check", None) == "write_to_read_only"
    with pytest.raises(wia.InvalidMemoryError, match="read of write-only"):
        wia.launch_kernel(kernel, CONFIG, dst, _upload(ctx, x))
    assert wia.alloc(ctx, 16, access="read_only").access is wia.MemoryAccess.READ_ONLY
    with pytest.raises(wia.InvalidValueError, match="MemoryAccess"):
        wia.alloc(ctx, 16, access="rw")  # type: ignore[arg-type]


def test_hal_uninitialized_device_memory(ctx: wia.Context) -> None:
    rng = np.random.default_rng(11)
    x = _f32(rng)
    kernel = wia.compile_kernel(ctx, COPY, "k")
    fresh = wia.alloc(ctx, x.nbytes)
    out = wia.alloc(ctx, x.nbytes)
    with pytest.raises(wia.InvalidMemoryError, match="read of uninitialized __global buffer") as info:
        wia.launch_kernel(kernel, CONFIG, fresh, out)
    assert getattr(info.value.cause, "work_items", None) == N
    half = _upload(ctx, x[: N // 2])  # a copy initializes what it writes, no more
    staging = wia.alloc(ctx, x.nbytes // 2, wia.MemoryType.HOST)
    wia.memory_ptr(staging)[:] = x[: N // 2].view(np.uint8)
    wia.copy_async(staging, fresh, x.nbytes // 2)
    with pytest.raises(wia.InvalidMemoryError) as info:
        wia.launch_kernel(kernel, CONFIG, fresh, out)
    assert getattr(info.value.cause, "address", None) == x.nbytes // 2
    del half
    wia.launch_kernel(kernel, CONFIG, _upload(ctx, x), fresh)  # a kernel's stores initialize
    wia.launch_kernel(kernel, CONFIG, fresh, out)
    assert np.array_equal(_download(ctx, out), x)
    zeros = wia.zeros(N, ctx=ctx)  # an op's output
    wia.launch_kernel(kernel, CONFIG, zeros, out)
    with pytest.raises(wia.InvalidMemoryError):
        wia.launch_kernel(kernel, CONFIG, wia.empty(N, ctx=ctx), out)
    unified = wia.alloc(ctx, x.nbytes, wia.MemoryType.UNIFIED)
    if ctx.device.capabilities.supports_unified_memory:
        wia.memory_ptr(unified)[:] = x.view(np.uint8)  # the host writes through its view
        wia.launch_kernel(kernel, CONFIG, unified, out)


def test_hal_without_kernel_checks_nothing_is_tracked() -> None:
    wia.set_backend("sim", hardware="wia-tiny", kernel_checks=False)
    ctx = wia.create_context()
    try:
        kernel = wia.compile_kernel(ctx, COPY, "k")
        wia.launch_kernel(kernel, CONFIG, wia.alloc(ctx, 4 * N), wia.alloc(ctx, 4 * N))
    finally:
        wia.destroy_context(ctx)


def test_hal_null_arguments(ctx: wia.Context) -> None:
    kernel = wia.compile_kernel(ctx, COPY, "k")
    out = wia.alloc(ctx, 4 * N)
    wia.set_kernel_arg(kernel, 0, None)
    with pytest.raises(wia.InvalidMemoryError, match="through a NULL pointer") as info:
        wia.launch_kernel(kernel, CONFIG, None, out)
    assert getattr(info.value.cause, "check", None) == "null_pointer"
    scalar = wia.compile_kernel(ctx, "__kernel void s(__global float* y, const int n) { y[0] = n; }", "s")
    with pytest.raises(wia.InvalidValueError):
        wia.set_kernel_arg(scalar, 1, None)


def test_hal_tensors_take_an_access_flag(ctx: wia.Context) -> None:
    rng = np.random.default_rng(12)
    x = _f32(rng)
    kernel = wia.compile_kernel(ctx, COPY, "k")
    weights = wia.tensor(x, ctx=ctx, access=wia.MemoryAccess.READ_ONLY)
    out = wia.empty(N, ctx=ctx, access="write_only")
    assert (weights.memory.access, out.memory.access) == (wia.MemoryAccess.READ_ONLY, wia.MemoryAccess.WRITE_ONLY)
    wia.launch_kernel(kernel, CONFIG, weights, out)
    assert np.array_equal(out.numpy(), x)  # the host reads write-only memory
    with pytest.raises(wia.InvalidMemoryError, match="write to read-only"):
        wia.launch_kernel(kernel, CONFIG, wia.tensor(x, ctx=ctx), weights)
    with pytest.raises(wia.InvalidValueError, match="MemoryAccess"):
        wia.empty(N, ctx=ctx, access=1)  # type: ignore[arg-type]


# -- one buffer as two arguments ----------------------------------------------------------------------------------


def test_one_buffer_as_two_arguments_is_one_memory_for_the_checks(ctx: wia.Context) -> None:
    """clSetKernelArg may give one buffer to two parameters: their accesses race with each other (Oclgrind:
    "Read-write data race"; the simulator kept one record per parameter and missed it), and what one writes the
    other reads as written (no uninitialized finding for a buffer allocated without data)."""
    shift = (
        "__kernel void k(__global const float* a, __global float* b) { int g = get_global_id(0); "
        "b[g] = a[(g + 1) % 32]; }"
    )
    inplace = (
        "__kernel void k(__global float* a, __global const float* b, __global float* o) { int g = get_global_id(0); "
        "a[g] = 2.0f * g; o[g] = b[g] + 1.0f; }"
    )
    buf = _upload(ctx, np.arange(32, dtype=np.float32))
    out = wia.alloc(ctx, 32 * 4)
    config = wia.LaunchConfig(global_size=(32,), local_size=(16,))
    with pytest.raises(wia.InvalidKernelError, match=r"data race: .* __global buffer \(arguments 'a' and 'b'\)"):
        wia.launch_kernel(wia.compile_kernel(ctx, shift, "k"), config, buf, buf)
        wia.context_synchronize(ctx)
    fresh = wia.alloc(ctx, 32 * 4)  # no data: only the kernel's own stores initialize it
    wia.launch_kernel(wia.compile_kernel(ctx, inplace, "k"), config, fresh, fresh, out)
    wia.context_synchronize(ctx)
    host = wia.alloc(ctx, 32 * 4, wia.MemoryType.HOST)
    wia.copy_async(out, host, 32 * 4)
    wia.context_synchronize(ctx)
    got = np.frombuffer(bytes(wia.memory_ptr(host)), np.float32)
    np.testing.assert_array_equal(got, 2.0 * np.arange(32) + 1.0)


# -- arguments over overlapping bytes of one allocation --------------------------------------------------------------

SHIFT = """
__kernel void k(__global const float* src, __global float* dst)
{
    const int i = get_global_id(0);
    dst[i] = 0.5f * src[i];
}
"""


@pytest.mark.parametrize("ahead", [16, 32, 48])
def test_arguments_over_overlapping_bytes_race_with_each_other(ahead: int) -> None:
    """Two views of one allocation, src starting ``ahead`` floats after dst: work-item i reads the float work-item
    i + ahead stores (a separate record per argument missed it; Oclgrind, one address space, reports it: the
    planted bug race_overlapping_args compares the two)."""
    data = _f32(np.random.default_rng(20), N + ahead)
    raw = data.view(np.uint8)
    f = _fault(SHIFT, [raw[4 * ahead :], raw[: 4 * N]], local=16)
    assert (f.check, f.line, f.work_item) == ("race_global", 5, (ahead, 0, 0))
    assert "argument 'dst', which overlaps argument 'src'" in str(f)
    assert "a read by work-item (0, 0, 0)" in str(f)
    assert f.work_items == N - ahead  # every store that lands on a float another work-item read


def test_arguments_over_disjoint_bytes_of_one_allocation_stay_apart() -> None:
    """Views of one allocation that do not overlap are separate memories: no race between them, and an access past
    a view is out of bounds of that view even where the allocation goes on."""
    rng = np.random.default_rng(21)
    data = _f32(rng, 3 * N)
    raw = data.view(np.uint8)
    expected = 0.5 * data[N : 2 * N]
    _run(SHIFT, [raw[4 * N : 8 * N], raw[: 4 * N]])
    np.testing.assert_array_equal(data[:N], expected)
    over = SHIFT.replace("src[i]", "src[i + 1]")
    f = _fault(over, [raw[4 * N : 8 * N], raw[: 4 * N]])
    assert (f.check, f.work_item) == ("out_of_bounds_global", (N - 1, 0, 0))
    assert f"offset {4 * N} of a {4 * N}-byte __global buffer (argument 'src')" in str(f)


def test_what_one_overlapping_argument_stores_the_other_reads_as_written() -> None:
    """A buffer allocated without data, given as two overlapping views: a work-item reads through one what it stored
    through the other (no uninitialized finding), and the caller gets back the bytes either view initialized."""
    src = """
    __kernel void k(__global float* a, __global const float* b, __global float* out)
    {
        const int i = get_global_id(0);
        a[i] = 3.0f * i;
        out[i] = b[i + 4] + 1.0f;   /* a[i], 16 bytes on in b */
    }
    """
    raw = np.zeros(4 * (N + 8), np.uint8)
    out = np.zeros(N, np.float32)
    a = GlobalBuffer(raw[16 : 16 + 4 * N], "read_write", np.zeros(4 * N, bool))  # type: ignore[arg-type]
    b = GlobalBuffer(raw[: 4 * (N + 4)], "read_write", np.zeros(4 * (N + 4), bool))  # type: ignore[arg-type]
    _run(src, [a, b, out.view(np.uint8)])
    np.testing.assert_array_equal(out, 3.0 * np.arange(N) + 1.0)
    assert a.initialized is not None and b.initialized is not None
    assert a.initialized.all() and not b.initialized[:16].any() and b.initialized[16:].all()
    # b[i + 3] is a[i - 1]: what work-item i - 1 stored, with no barrier between
    fresh = [GlobalBuffer(v, "read_write", np.zeros(v.size, bool)) for v in (a.data, b.data)]  # type: ignore[arg-type]
    f = _fault(src.replace("b[i + 4]", "b[i + 3]"), [*fresh, out.view(np.uint8)])
    assert (f.check, f.line, f.work_item) == ("race_global", 6, (1, 0, 0))


def test_overlapping_arguments_of_other_element_sizes_race_byte_by_byte() -> None:
    """A float argument and a uchar argument over one allocation: a byte store races with another work-item's float
    read covering it (the float's four bytes are each on record, not only its first)."""
    src = """
    __kernel void k(__global const float* f, __global uchar* c)
    {
        const int i = get_global_id(0);
        const float v = f[i];
        c[4 * i + 5] = (uchar)(v > 0.0f);
    }
    """
    raw = _f32(np.random.default_rng(22), 2 * N).view(np.uint8)
    for fbytes, cbytes in ((raw[: 4 * N], raw), (raw[:], raw)):  # overlapping, and the same bytes twice
        f = _fault(src, [fbytes, cbytes])
        assert (f.check, f.line, f.work_item) == ("race_global", 6, (0, 0, 0))
        assert "a read by work-item (1, 0, 0)" in str(f)


def test_overlapping_slices_of_one_tensor_through_the_hal(ctx: wia.Context) -> None:
    """The sim backend gives a kernel the slices of one tensor as views of one memory: the race between them is
    the HAL's INVALID_KERNEL error, and a correct in-place kernel on two slices of an uninitialized tensor runs."""
    base = wia.tensor(_f32(np.random.default_rng(23), N + 16), ctx=ctx)
    config = wia.LaunchConfig(global_size=(N,), local_size=(16,))
    kernel = wia.compile_kernel(ctx, SHIFT, "k")
    src, dst = wia.slice(base, [16], [N + 16]), wia.slice(base, [0], [N])
    with pytest.raises(wia.InvalidKernelError, match=r"data race: .*argument 'dst', which overlaps argument 'src'"):
        wia.launch_kernel(kernel, config, src, dst)
        wia.context_synchronize(ctx)
    fresh = wia.empty(N + 4, ctx=ctx)  # no data: only the kernel's stores initialize it
    own = (
        "__kernel void k(__global float* a, __global const float* b, __global float* o) { int i = get_global_id(0); "
        "a[i] = 2.0f * i; o[i] = b[i + 4]; }"
    )
    out = wia.empty(N, ctx=ctx)
    a, b = wia.slice(fresh, [4], [N + 4]), wia.slice(fresh, [0], [N + 4])
    wia.launch_kernel(wia.compile_kernel(ctx, own, "k"), config, a, b, out)
    np.testing.assert_array_equal(out.numpy(), 2.0 * np.arange(N))


# -- a vector through a pointer to its type: aligned to its size -------------------------------------------------------

VECTOR_AT = """
__kernel void k(__global float* f, __global float4* o)
{
    const int i = get_global_id(0);
    BODY
}
"""


@pytest.mark.parametrize(
    ("body", "fault"),
    [
        ("o[i] = *(__global float4*)(f + 4 * i);", None),
        ("o[i] = vload4(0, f + 1);", None),  # vloadN: the scalar's alignment (OpenCL C 1.2 6.12.7)
        ("o[i].xy = *(__global float2*)(f + 2);", None),
        ("o[i].xyz = *(__global float3*)(f + 4);", None),
        # Oclgrind, each of these: "Invalid memory load (store) - source pointer is not aligned to the pointed type"
        ("o[i] = *(__global float4*)(f + 1);", ("read", "float4", 4, (0, 0, 0))),
        ("o[i] = *(__global float4*)(f + i);", ("read", "float4", 4, (1, 0, 0))),
        ("*(__global float4*)(f + 2) = (float4)(i);", ("write", "float4", 8, (0, 0, 0))),
        ("o[i].xyz = *(__global float3*)(f + 3);", ("read", "float3", 12, (0, 0, 0))),  # a float3: 16 bytes
        ("o[i].xy = *(__global float2*)(f + 1);", ("read", "float2", 4, (0, 0, 0))),
    ],
)
def test_a_vector_through_a_pointer_to_its_type_is_aligned_to_its_size(body: str, fault: tuple | None) -> None:
    """OpenCL C 1.2 6.1.5: a vector type is aligned to its size; a float4 read from a float pointer one element on
    is undefined (it works on CPUs and faults or reads other bytes on GPUs)."""
    f, o = np.arange(128, dtype=np.float32), np.zeros(4 * N, np.float32)
    args = [f.view(np.uint8), o.view(np.uint8)]
    if fault is None:
        _run(VECTOR_AT.replace("BODY", body), args, n=16, local=16)
        return
    access, vector, at, item = fault
    e = _fault(VECTOR_AT.replace("BODY", body), args, n=16, local=16)
    assert (e.check, e.line, e.work_item, e.address) == ("misaligned_global", 5, item, at), str(e)
    assert f"misaligned {access} of a {vector}" in str(e)


MISALIGNED = """__constant uchar tab[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__kernel void k(__global const uchar* in, __global int* out, int which) {
    __local uchar l[16];
    uchar p[16];
    const int i = get_local_id(0);
    l[i] = in[i];
    p[i & 15] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (which == 0) out[i] = *(__local const int*)(l + 1);
    if (which == 1) out[i] = *(const int*)(p + 1);
    if (which == 2) out[i] = *(__constant const int*)(tab + 1);
    if (which == 3) *(__local int*)(l + 2) = i;
}
"""


@pytest.mark.parametrize(
    ("which", "check", "line", "access"),
    [
        (0, "misaligned_local", 9, "read"),  # Oclgrind 21.10: "Invalid memory load - source pointer is not aligned"
        (1, "misaligned_private", 10, "read"),  # the same
        (2, "misaligned_constant", 11, "read"),  # (Clang folds this load away before Oclgrind sees it)
        (3, "misaligned_local", 12, "write"),  # "Invalid memory store - source pointer is not aligned"
    ],
)
def test_a_misaligned_access_is_its_own_finding_in_every_address_space(
    which: int, check: str, line: int, access: str
) -> None:
    """An element off its type's alignment (OpenCL C 1.2 6.1.5) inside the memory object is ``misaligned_<space>``,
    not an out-of-bounds access: Oclgrind says "not aligned to the pointed type", not "Invalid read"."""
    args = [np.arange(16, dtype=np.uint8), np.zeros(16, np.int32).view(np.uint8), np.int32(which)]
    e = _fault(MISALIGNED, args, n=1, local=1)
    assert (e.check, e.line, e.work_item) == (check, line, (0, 0, 0)), str(e)
    assert f"misaligned {access} of 4 bytes" in str(e)


MISALIGNED_OFF = """__constant uchar tab[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__kernel void k(__global const uchar* b, __global uint* out, __global uchar* c) {
    __local uchar l[64];
    union { uchar c[32]; ulong q[4]; } p = {{0}};
    const int i = get_local_id(0), g = get_global_id(0);
    for (int k = 0; k < 4; k++) { l[4 * i + k] = (uchar)(4 * i + k); p.c[(i + k) & 31] = (uchar)(i + k); }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[4 * g] = *(__local const uint*)(l + i + 1);
    *(ulong*)(p.c + 3) = 0x1122334455667788UL + i;
    out[4 * g + 1] = (uint)(p.q[0] >> 8) + (uint)*(const ushort*)(p.c + 9);
    out[4 * g + 2] = *(__constant const uint*)(tab + 1 + (i & 3));
    out[4 * g + 3] = *(__global const uint*)(b + 2 * g + 1);
    *(__global uint*)(c + 4 * g + 1) = 0xA1B2C3D4u + i;
    if (g == 5)
        *(__global ulong*)(c + 4 * get_global_size(0) + 11) = 0x0102030405060708UL;
}
"""


@pytest.mark.parametrize("n", [16, 4096])  # (at 4,096 work-items the one store of work-item 5 goes by itself)
def test_with_checks_off_a_misaligned_access_moves_the_bytes_at_its_offset(n: int) -> None:
    """With checks off, a misaligned load or store in any address space moves the bytes at its offset, as x86's
    PoCL 3.1 and Oclgrind 21.10 do (JtR's sha512crypt copies through a ulong pointer at an odd offset): the
    simulator dropped such a store and read the element rounded down to its alignment."""
    rng = np.random.default_rng(3)
    b, c = rng.integers(0, 256, 2 * n + 8, dtype=np.uint8), rng.integers(0, 256, 4 * n + 24, dtype=np.uint8)
    out = np.zeros(4 * n, np.uint32)
    _run(MISALIGNED_OFF, [b, out.view(np.uint8), c], checks=False, n=n, local=16)
    i = np.arange(n) % 16
    words = out.reshape(n, 4)

    def word(data: np.ndarray, at: np.ndarray) -> np.ndarray:
        return data[at[:, None] + np.arange(4)].copy().view("<u4")[:, 0]

    local = np.arange(64, dtype=np.uint8)
    np.testing.assert_array_equal(words[:, 0], word(local, i + 1))
    for k, lane in enumerate(i[:16]):  # (each group's the same)
        private = np.zeros(32, np.uint8)
        private[(lane + np.arange(4)) & 31] = (lane + np.arange(4)).astype(np.uint8)
        private[3:11] = np.frombuffer(np.uint64(0x1122334455667788 + int(lane)).tobytes(), np.uint8)
        low = int(private[:8].copy().view("<u8")[0] >> np.uint64(8)) & 0xFFFFFFFF
        assert (words[k::16, 1] == (low + int(private[9:11].copy().view("<u2")[0])) & 0xFFFFFFFF).all()
    np.testing.assert_array_equal(words[:, 2], word(np.arange(1, 9, dtype=np.uint8), 1 + (i & 3)))
    np.testing.assert_array_equal(words[:, 3], word(b, 2 * np.arange(n) + 1))
    np.testing.assert_array_equal(word(c, 4 * np.arange(n) + 1), 0xA1B2C3D4 + i.astype(np.uint32))
    tail = 4 * n + 11
    np.testing.assert_array_equal(c[tail : tail + 8], np.frombuffer(np.uint64(0x0102030405060708).tobytes(), np.uint8))
