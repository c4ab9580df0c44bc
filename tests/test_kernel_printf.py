"""printf in kernels (OpenCL C 1.2, 6.12.13) on the simulator, through the HAL: what each conversion prints, the
order of the lines (work-group by work-group, call by call, work-item by work-item), when they are printed (to
the host's stdout when the launch completes; nothing for a launch that stops with a finding), and the build
errors for formats and arguments that do not match. Where PoCL and Oclgrind are usable, the same kernel's output on
each (their devices write to C's stdout: ``capfd``) holds the same lines as the simulator's."""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.printf import Conversion, format_value, parse_format

ALL = r"""__kernel void k(__global const float* a, __global int* ret) {
    const int i = get_global_id(0);
    ret[i] = printf("i=%d u=%u x=%x X=%#X o=%#o c=%c s=%s %%\n", i, i, 255 + i, 255, 8, 'A' + i, "str");
    printf("%d: f=%f F=%F e=%e E=%E g=%g G=%G a=%a A=%A\n", i, a[i], a[i], a[i], a[i], a[i], a[i], a[i], a[i]);
    printf("%d: [%5d|%-5d|%+d|% d|%05d|%.3d|%8.3f|%-9.2e|%.0d|%#.0f]\n", i, i, i, i, i, i, i, a[i], a[i], 0, 2.0f);
    printf("%d: hh=%hhd h=%hd l=%ld lu=%lu lx=%lx hhu=%hhu\n", i, (char)(200 + i), (short)(70000 + i),
           (long)i * 10000000000L, (ulong)i, (ulong)-1, (uchar)(250 + i));
    float4 v = (float4)(a[i], 1.0f, -0.5f, 2.0f);
    short2 s2 = (short2)(i, -i);
    uchar8 u8 = (uchar8)(1, 2, 3, 4, 5, 6, 7, 250);
    int3 i3 = (int3)(i, i * 2, -i);
    printf("%d: v=%v4hlf s2=%v2hd u8=%v8hhx i3=%v3hld e=%.2v4hle\n", i, v, s2, u8, i3, v);
    printf("%d: inf=%f ninf=%e a=%a %.2a %a %a\n", i, INFINITY, -INFINITY, 1.0f, 1.1f, 0.0f, -0.1f);
}"""

A = np.array([1.5, -2.25, 3e10, 1e-3], np.float32)
EXPECTED_0 = [
    "i=0 u=0 x=ff X=0XFF o=010 c=A s=str %",
    "0: f=1.500000 F=1.500000 e=1.500000e+00 E=1.500000E+00 g=1.5 G=1.5 a=0x1.8p+0 A=0X1.8P+0",
    "0: [    0|0    |+0| 0|00000|000|   1.500|1.50e+00 ||2.]",
    "0: hh=-56 h=4464 l=0 lu=0 lx=ffffffffffffffff hhu=250",
    "0: v=1.500000,1.000000,-0.500000,2.000000 s2=0,0 u8=1,2,3,4,5,6,7,fa i3=0,0,0 e=1.50e+00,1.00e+00,-5.00e-01,"
    "2.00e+00",
    "0: inf=inf ninf=-inf a=0x1p+0 0x1.1ap+0 0x0p+0 -0x1.99999ap-4",
]


def launch(ctx: wia.Context, source: str, *args: Any, n: int = 4, wg: int = 2) -> None:
    kernel = wia.compile_kernel(ctx, source, "k")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=n, local_size=wg), *args)


def test_every_conversion_prints_as_c_does(capsys: pytest.CaptureFixture[str]) -> None:
    ctx = wia.create_context()
    ret = wia.tensor(np.full(4, 7, np.int32), ctx=ctx)
    launch(ctx, ALL, wia.tensor(A, ctx=ctx), ret)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 24
    # group (0, 1) before group (2, 3); in a group, call by call, work-item 0 before work-item 1
    assert [line.split()[0] for line in lines[:4]] == ["i=0", "i=1", "0:", "1:"]
    assert [line.split()[0] for line in lines[12:14]] == ["i=2", "i=3"]
    mine = [line for line in lines if line.startswith(("i=0 ", "0: "))]
    assert mine == EXPECTED_0
    assert "2: f=30000001024.000000 F=30000001024.000000 e=3.000000e+10" in "\n".join(lines)
    assert "1: hh=-55 h=4465 l=10000000000 lu=1 lx=ffffffffffffffff hhu=251" in lines
    assert "3: v=0.001000,1.000000,-0.500000,2.000000 s2=3,-3 u8=1,2,3,4,5,6,7,fa i3=3,6,-3" in "\n".join(lines)
    np.testing.assert_array_equal(ret.numpy(), 0)  # printf returns 0


def test_the_order_is_group_by_group_then_call_by_call(ctx: wia.Context, capsys: pytest.CaptureFixture[str]) -> None:
    src = r"""__kernel void k(__global int* o) {
    const int i = get_global_id(0);
    if (i % 2) printf("odd %d\n", i);
    printf("all %d\n", i);
}"""
    launch(ctx, src, wia.zeros(4, dtype="int32", ctx=ctx), n=4, wg=2)
    assert capsys.readouterr().out == "odd 1\nall 0\nall 1\nodd 3\nall 2\nall 3\n"


def test_a_faulting_launch_prints_nothing(ctx: wia.Context, capsys: pytest.CaptureFixture[str]) -> None:
    src = r"""__kernel void k(__global int* o) {
    const int i = get_global_id(0);
    printf("before %d\n", i);
    o[i + 1] = i;
}"""
    with pytest.raises(wia.InvalidMemoryError):
        launch(ctx, src, wia.zeros(4, dtype="int32", ctx=ctx))
    assert capsys.readouterr().out == ""


def test_a_loop_and_a_helper_function(ctx: wia.Context, capsys: pytest.CaptureFixture[str]) -> None:
    src = r"""void show(int i, int k) { printf("%d.%d\n", i, k); }
__kernel void k(__global int* o) {
    for (int k = 0; k < get_global_id(0); k++)
        show(get_global_id(0), k);
}"""
    launch(ctx, src, wia.zeros(4, dtype="int32", ctx=ctx), n=4, wg=4)
    assert capsys.readouterr().out == "1.0\n2.0\n3.0\n2.1\n3.1\n3.2\n"


def test_strings_pointers_and_escapes(ctx: wia.Context, capsys: pytest.CaptureFixture[str]) -> None:
    """%s of literals with precision and width, %p (implementation-defined: the address ``(intptr_t)p`` gives,
    which the CTS's printf test compares it with; it printed the byte offset alone), escapes in the format and in
    the literal arguments, adjacent literals joined."""
    src = r"""__kernel void k(__global int* x, __global ulong* at) {
    printf("[%.2s|%5s|%-4s]\t%p %p\x41\101" "\n", "abcdef", "ab", "x\"", x + 3, x);
    at[0] = (ulong)(intptr_t)(x + 3);
    at[1] = (ulong)(intptr_t)x;
}"""
    at = wia.zeros(4, dtype="int32", ctx=ctx)  # (two ulongs: the HAL's tensors have no 64-bit integers)
    launch(ctx, src, wia.zeros(4, dtype="int32", ctx=ctx), at, n=1, wg=1)
    p3, p0 = (int(a) for a in at.numpy().view(np.uint64))
    assert p3 == p0 + 12 and p0 > 0
    assert capsys.readouterr().out == f'[ab|   ab|x"  ]\t0x{p3:x} 0x{p0:x}AA\n'


@pytest.mark.parametrize("checks", [True, False], ids=["checks-on", "checks-off"])
def test_a_string_without_a_nul(checks: bool, capsys: pytest.CaptureFixture[str]) -> None:
    """``%.2s`` reads at most two bytes (C11 7.21.6.1p8: no NUL needed within the precision), so a string of
    four bytes without a NUL prints with checks on, where the simulator stopped with an out-of-bounds read; with
    checks off ``%s`` of it ends at its object's end, where the simulator read the last byte again for ever
    (found by the CTS probe). Oclgrind 21.10 prints the same; with checks on ``%s`` of it is the out-of-bounds read
    (Oclgrind reports it too)."""
    wia.set_backend("sim", hardware="wia-tiny", kernel_checks=checks)
    ctx = wia.create_context()
    bounded = r"""__kernel void k(__global const char* s, __global const char* t) {
    printf("[%.2s][%.6s][%-5.3s|]\n", s, t, s);
}"""
    text = wia.tensor(np.frombuffer(b"abcd", np.int8).copy(), ctx=ctx)
    short = wia.tensor(np.frombuffer(b"xy\0z", np.int8).copy(), ctx=ctx)
    launch(ctx, bounded, text, short, n=8, wg=8)
    assert capsys.readouterr().out == "[ab][xy][abc  |]\n" * 8
    unbounded = r"""__kernel void k(__global const char* s, __global const char* t) {
    __global const char* p = get_global_id(0) & 1 ? s : t;  /* into either object, by work-item */
    if (get_global_id(0) >= 6) printf("[%s]\n", p);
}"""
    if checks:
        with pytest.raises(wia.WiaError, match=r"out-of-bounds read of 1 byte at offset 4 of a 4-byte __global"):
            launch(ctx, unbounded, text, short, n=8, wg=8)
    else:
        launch(ctx, unbounded, text, short, n=8, wg=8)
        assert capsys.readouterr().out == "[xy]\n[abcd]\n"


# ------------------------------------------------------------------------------------------------ the formatter
@pytest.mark.parametrize(
    ("fmt", "value", "bits", "floating", "expected"),
    [
        ("%x", -1, 32, False, "ffffffff"),
        ("%hhx", 511, 8, False, "ff"),
        ("%hd", 40000, 16, False, "-25536"),
        ("%-6.3x|", 10, 32, False, "00a   |"),
        ("%+08d", -42, 32, False, "-0000042"),
        ("%#010x", 255, 32, False, "0x000000ff"),
        ("%#x", 0, 32, False, "0"),
        ("%.0d", 0, 32, False, ""),
        ("%5.0d", 0, 32, False, "     "),
        ("%o", 8, 32, False, "10"),
        ("%c", 65 + 256, 8, False, "A"),
        ("%a", 0.5, 0, True, "0x1p-1"),
        ("%.1a", 1.96875, 0, True, "0x2.0p+0"),
        ("%.3a", 1.0, 0, True, "0x1.000p+0"),
        ("%#a", 1.0, 0, True, "0x1.p+0"),
        ("%012a", -1.5, 0, True, "-0x0001.8p+0"),
        ("%a", 5e-324, 0, True, "0x0.0000000000001p-1022"),
        ("%A", float("inf"), 0, True, "INF"),
        ("%g", 1e-5, 0, True, "1e-05"),
        ("%#g", 1.0, 0, True, "1.00000"),
        # (a carry up to 10**P under %#.Pg: glibc's exponent style without digits, as PoCL and Oclgrind print it)
        ("%#.3g", 999.6, 0, True, "1.e+03"),
        ("%#+.3G", -999.9, 0, True, "-1.E+03"),
        ("%#012.2g", 99.99, 0, True, "0000001.e+02"),
        ("%#g", 999999.5, 0, True, "1.e+06"),
        ("%#.3g", 99.96, 0, True, "100."),
        ("%#.3g", 0.0009996, 0, True, "0.00100"),
    ],
)
def test_format_value(fmt: str, value: float, bits: int, floating: bool, expected: str) -> None:
    parts = parse_format(fmt)
    conv = parts[0]
    assert isinstance(conv, Conversion)
    text = format_value(value, conv, bits, floating) + "".join(p for p in parts[1:] if isinstance(p, str))
    assert text == expected


# -------------------------------------------------------------------------------------------------- build errors
def k(body: str) -> str:
    return f"__kernel void k(__global float* f, __global int* g, __global char* fmt) {{\n{body}}}\n"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (  # (a __global char* format: Clang's conversion error, printf's parameter is a __constant char*)
            k("    printf(fmt);\n"),
            "passing '__global char *__private' to parameter of type 'const __constant char *' changes address space",
        ),
        (k("    printf(1);\n"), "incompatible integer to pointer conversion passing 'int' to parameter of type"),
        (k("    printf(1.0f);\n"), "passing 'float' to parameter of incompatible type 'const __constant char *'"),
        (  # (a __constant pointer to other elements: Clang only warns; the simulator reads chars, so refuses it)
            "__constant int table[2] = {1, 2}; " + k("    printf(table);\n"),
            "the format of printf is a string literal or a __constant char*, not 'const __constant int[2]'",
        ),
        (k("    printf();\n"), "too few arguments to function call, at least argument 'st' must be specified"),
        (k('    printf("%*d\\n", 3, g[0]);\n'), "no '*' width or precision"),
        (k('    printf("%.*f\\n", 3, f[0]);\n'), "no '*' width or precision"),
        (k('    printf("%k\\n", 1);\n'), "invalid conversion specifier 'k'"),
        (k('    printf("%n\\n", g);\n'), "invalid conversion specifier 'n'"),
        (k('    printf("%llf\\n", f[0]);\n'), "length modifier 'll' is not OpenCL C's"),
        (k('    printf("%v2lld\\n", (long2)(0));\n'), "a vector conversion's length modifier is hh, h, hl or l"),
        (k('    printf("%v4f\\n", (float4)(0.0f));\n'), "a vector conversion needs a length modifier"),
        (k('    printf("%v5hld\\n", 1);\n'), "the widths are 2, 3, 4, 8 and 16"),
        (k('    printf("%hlf\\n", f[0]);\n'), "'hl' is only for vectors"),
        (k('    printf("%v2hhs\\n", "a");\n'), "a vector specifier cannot be used with %s"),
        (k('    printf("%d %d\\n", g[0]);\n'), "the format has 2 conversions but 1 arguments follow it"),
        (k('    printf("%s\\n", g[0]);\n'), "%s takes a pointer to chars, not '__global int'"),
        (k('    printf("%p\\n", g[0]);\n'), "%p takes a pointer"),
        (k('    printf("%v4hlf\\n", (float2)(0.0f));\n'), "expects a float4 (or its unsigned twin), not 'float2'"),
        (k('    printf("%v4hlf\\n", (int4)(0));\n'), "expects a float4"),
        (k('    printf("%v2hd\\n", (int2)(0));\n'), "expects a short2"),
        (k('    printf("%d\\n", (int2)(0));\n'), "expects an integer scalar, not 'int2'"),
        (k('    printf("%d");\n'), "the format has 1 conversions but 0 arguments"),
        (k('    printf("50%");\n'), "the format ends inside the conversion '%'"),
    ],
)
def test_build_errors(source: str, message: str) -> None:
    ctx = wia.create_context()
    with pytest.raises(wia.CompileError) as info:
        wia.compile_kernel(ctx, source, "k")
    assert "kernel.cl:2:" in str(info.value), str(info.value)
    assert message in str(info.value), str(info.value)


# ------------------------------------------------------------------------------------------------- against PoCL
def _device(key: str) -> Any:
    from tests.kernels import cldevices

    for device in cldevices.usable_devices():
        if device.key == key:
            return device
    pytest.skip(f"no usable {key} device: {cldevices.unusable_reasons() or 'not installed'}")


@pytest.mark.parametrize("key", ["pocl", "oclgrind"])
def test_the_same_lines_as_a_real_device(key: str, capfd: pytest.CaptureFixture[str]) -> None:
    """PoCL and Oclgrind run each work-item to its end in turn, the simulator in lockstep: the lines are the same,
    their order differs; each line starts with its work-item's id, so they are compared as sets of lines."""
    device = _device(key)
    import pyopencl as cl

    ctx = wia.create_context()
    launch(ctx, ALL, wia.tensor(A, ctx=ctx), wia.tensor(np.zeros(4, np.int32), ctx=ctx))
    sim = capfd.readouterr().out.splitlines()
    program = cl.Program(device.context, ALL).build()
    a = cl.Buffer(device.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=A)
    ret = np.full(4, 7, np.int32)
    r = cl.Buffer(device.context, cl.mem_flags.WRITE_ONLY, ret.nbytes)
    program.k(device.queue, (4,), (2,), a, r)
    cl.enqueue_copy(device.queue, ret, r)
    device.queue.finish()
    ctypes.CDLL(None).fflush(None)  # the device's printf goes through C's buffered stdout
    real = capfd.readouterr().out.splitlines()
    assert sorted(sim) == sorted(real)
    if key == "pocl":  # Oclgrind 21.10's printf returns arbitrary values (1, 10, ...) when other kernels ran before
        np.testing.assert_array_equal(ret, 0)


BYTES = r"""__kernel void k(__global int* x) {
    printf("[%010f|%05f|%-6f|%+F]\n", INFINITY, NAN, -INFINITY, INFINITY);
    printf("%.0a %.0a %.0a %.1a\n", 1.5f, 3.0f, 0.75f, 1.03125f);
    printf("[%s|%.3s]\n", "ab\0cd", "xy\0z");
    printf("\x41" "B" "\1" "23\n");
    printf("\u00e9|%c|\xe9|\101\n", (char)0xE9);
    printf("[%.1s|%3s]\n", "\u00e9", "\u00e9");
    printf("excess %d\n", 1, 2, x[0]);
    printf("end\0ignored\n");
}"""
BYTES_PRINTED = (
    b"[       inf|  nan|-inf  |+INF]\n0x2p+0 0x2p+1 0x2p-1 0x1.0p+0\n[ab|xy]\nAB\x0123\n"
    b"\xc3\xa9|\xe9|\xe9|A\n[\xc3| \xc3\xa9]\nexcess 1\nend"
)


def test_what_c_prints_byte_for_byte(ctx: wia.Context, capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    """C's printf writes bytes: a char of 0xE9 is that byte, a universal character name and other non-ASCII text
    its UTF-8 bytes, a precision counts bytes; a NUL ends the format and a %s; infinities and NaNs are never
    padded with zeros; %.0a rounds a tie on the leading digit; escapes are undone before adjacent literals are
    joined; arguments past the format are evaluated and ignored (6.12.13.2). PoCL and Oclgrind print the same
    bytes (``test_the_same_bytes_as_a_real_device``)."""
    launch(ctx, BYTES, wia.zeros(4, dtype="int32", ctx=ctx), n=1, wg=1)
    assert capfdbinary.readouterr().out == BYTES_PRINTED


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")  # (Clang warns of the excess arguments)
@pytest.mark.parametrize("key", ["pocl", "oclgrind"])
def test_the_same_bytes_as_a_real_device(key: str, capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    _print_on_device(key, BYTES, 1, 1)
    assert capfdbinary.readouterr().out == BYTES_PRINTED


def _print_on_device(key: str, source: str, n: int, wg: int) -> None:
    """Kernel ``k(__global int* x)`` of ``source`` run on a real device over ``n`` work-items, its printf flushed
    to the process's stdout."""
    device = _device(key)
    import pyopencl as cl

    program = cl.Program(device.context, source).build()
    x = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, 16)
    program.k(device.queue, (n,), (wg,), x)
    device.queue.finish()
    ctypes.CDLL(None).fflush(None)  # the device's printf goes through C's buffered stdout


@pytest.mark.parametrize(
    ("fmt", "bits", "expected"),
    [
        ("%f", 0x7FC00000, "nan"),
        ("%f", 0xFFC00000, "-nan"),  # the sign of a NaN, as glibc prints it (PoCL drops it, Oclgrind keeps it)
        ("%e", 0xFFC00000, "-nan"),
        ("%G", 0xFFC00000, "-NAN"),
        ("%a", 0xFFC00000, "-nan"),
        ("%08.2f", 0x7F800000, "     inf"),
    ],
)
def test_nan_and_infinity(fmt: str, bits: int, expected: str) -> None:
    parts = parse_format(fmt)
    assert isinstance(parts[0], Conversion)
    value = float(np.array([bits], np.uint32).view(np.float32)[0])
    assert format_value(value, parts[0], 0, True) == expected


def test_the_command_line_prints_the_output(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from wia_sim.cli import main

    path = tmp_path / "p.cl"
    path.write_text('__kernel void k(__global int* x) { printf("x=%d\\n", x[get_global_id(0)]); }\n')
    assert main(["kernel", str(path), "k", "3", "--global", "3", "--fill", "index"]) == 0
    assert capsys.readouterr().out.startswith("x=0\nx=1\nx=2\nkernel k:")


CONSTANT_FORMATS = r"""__constant char fmt[] = "v=%d %s\n";
__constant char word[] = "hi";
__constant char fmts[2][8] = {"a=%d\n", "b=%x\n"};
__kernel void k(__global int* x) {
    int i = get_global_id(0);
    printf(fmt, i, "lit");
    __constant char* p = fmt;
    printf(p, i + 7, word + (i & 1));
    printf(fmts[i & 1], 250 + i);
    printf("%s|%.1s|\n", word, word);
}"""
CONSTANT_FORMATS_PRINTED = sorted(
    [f"v={i} lit" for i in range(4)]
    + [f"v={i + 7} {'hi'[i & 1 :]}" for i in range(4)]
    + ["a=250", "b=fb", "a=252", "b=fd"]
    + ["hi|h|"] * 4
)


@pytest.mark.parametrize("key", ["sim", "pocl", "oclgrind"])
def test_a_format_in_constant_memory(key: str, capfd: pytest.CaptureFixture[str]) -> None:
    """printf's format is a ``__constant char*`` (6.12.13.2): a literal, or a __constant array or pointer read at
    run time, by each work-item its own (as are %s arguments that point to __constant memory)."""
    if key == "sim":
        ctx = wia.create_context()
        launch(ctx, CONSTANT_FORMATS, wia.zeros(4, dtype="int32", ctx=ctx))
    else:
        _print_on_device(key, CONSTANT_FORMATS, 4, 2)
    assert sorted(capfd.readouterr().out.splitlines()) == CONSTANT_FORMATS_PRINTED


@pytest.mark.parametrize(
    ("source", "code", "message"),
    [
        (
            '__constant char f[] = "%v2hld\\n";\n__kernel void k(__global float* x) { printf(f, x[0]); }',
            wia.ErrorCode.NOT_SUPPORTED,
            "printf argument 2 for '%v2hld' of the format read at run time: expects 2 element(s), not the 1 of 'float'",
        ),
        (
            '__constant char f[] = "%d %d\\n";\n__kernel void k(__global float* x) { printf(f, 1); }',
            wia.ErrorCode.NOT_SUPPORTED,
            "has more conversions than the 1 arguments that follow it",
        ),
        (
            '__constant char f[2] = "ab";\n__kernel void k(__global float* x) { printf(f); }',
            wia.ErrorCode.INVALID_MEMORY,
            "out-of-bounds read of 1 byte at offset 2 of a 2-byte __constant variable 'f'",
        ),
    ],
)
def test_a_format_read_at_run_time_is_checked_there(
    ctx: wia.Context, source: str, code: wia.ErrorCode, message: str
) -> None:
    """What the checker holds a literal format to, a format read at run time is held to when it is read; a
    string without its NUL reads past its object: the out-of-bounds finding."""
    with pytest.raises(wia.WiaError) as info:
        launch(ctx, source, wia.zeros(4, dtype="float32", ctx=ctx), n=1, wg=1)
        wia.context_synchronize(ctx)
    assert info.value.code == code
    assert message in str(info.value), str(info.value)


MISMATCHED = r"""__constant char fmt[] = "%d %lu %f|\n";
__kernel void k(__global int* x) {
    size_t g = get_global_id(0) + (1UL << 32) + 5;
    printf("%d %u %i|\n", g, g, (long)3 + (1L << 32));
    printf("%ld %lx %lu %d %c %lu %ld|\n", -1, -2, (char)-3, 5000000000L, 65L + 256, (uint)5, (short)-2);
    printf("%f %d %x %e|\n", 7, 2.5f, 3.0, 4L);
    printf(fmt, g, -1, 8);
}"""
MISMATCHED_PRINTED = [
    "5 5 3|",
    "-1 fffffffe 4294967293 705032704 A 5 -2|",
    "0.000000 0 0 1.976263e-323|",
    "5 4294967295 0.000000|",
]


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")  # (Clang warns of every mismatch)
@pytest.mark.parametrize("key", ["sim", "pocl", "oclgrind"])
def test_arguments_of_another_size_or_kind_print_as_oclgrind_prints_them(
    key: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """A scalar argument of another size or kind than its conversion takes is Clang's warning, not an error (the
    simulator refused ``printf("%d", get_global_id(0))``), and C leaves what prints undefined. The simulator
    prints what Oclgrind 21.10 prints, line for line: the bits the argument is passed as, read at the
    conversion's size and kind (``%d`` of a size_t: its low 32 bits; ``%lu`` of an int: its 32 bits, ``%ld``: its
    value; ``%e`` of a long: its bits as a double; ``%f`` of 7: a float's bits, 1e-44). PoCL 3.1 agrees on the
    first line only: it extends a narrower integer by the conversion's sign, not the argument's, and where the
    kinds differ it reads another register. A format read at run time prints the same way."""
    if key == "sim":
        ctx = wia.create_context()
        source = MISMATCHED
        log = compile_source(source).build_log.splitlines()
        assert log[0] == (
            "kernel.cl:4:27: warning: format specifies type 'int' but the argument has type 'size_t' (aka 'unsigned "
            "long')"
        )
        # Clang's 17 warnings, at its columns: the last 3 for the format in the __constant array, which it checks too
        assert len(log) == 17 and all("warning: format specifies type" in line for line in log)
        assert [line.split(": warning")[0] for line in log[3:5]] == ["kernel.cl:5:44", "kernel.cl:5:48"]
        assert [line.split(": warning")[0] for line in log[14:]] == [
            "kernel.cl:7:17",
            "kernel.cl:7:20",
            "kernel.cl:7:24",
        ]
        launch(ctx, source, wia.zeros(4, dtype="int32", ctx=ctx), n=1, wg=1)
    else:
        _print_on_device(key, MISMATCHED, 1, 1)
    printed = capfd.readouterr().out.splitlines()
    compared = [0] if key == "pocl" else [0, 1, 2, 3]
    assert [printed[k] for k in compared] == [MISMATCHED_PRINTED[k] for k in compared]


LONG_LONG = r"""__kernel void k(__global int* x) {
    long v = -2;
    printf("%lld|%#.16llx|%llu|%lli\n", v, v, (ulong)v, 7);
}"""


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")  # (Clang warns of each)
@pytest.mark.parametrize("key", ["sim", "oclgrind"])
def test_the_ll_length_modifier_is_clangs_warning_and_prints_as_l(key: str, capfd: pytest.CaptureFixture[str]) -> None:
    """C's ``ll`` is no OpenCL C length modifier, but Clang takes it, warning at every argument (its ``long long``
    is 128 bits on OpenCL targets: no OpenCL C type is one); Oclgrind 21.10 prints it as ``l``, PoCL 3.1 prints
    "printf format string error" (measured). The simulator refused the program."""
    if key == "sim":
        log = compile_source(LONG_LONG).build_log.splitlines()
        assert log == [
            "kernel.cl:3:41: warning: format specifies type 'long long' but the argument has type 'long'",
            "kernel.cl:3:44: warning: format specifies type 'unsigned long long' but the argument has type 'long'",
            "kernel.cl:3:47: warning: format specifies type 'unsigned long long' but the argument has type 'ulong' "
            "(aka 'unsigned long')",
            "kernel.cl:3:57: warning: format specifies type 'long long' but the argument has type 'int'",
        ]
        ctx = wia.create_context()
        launch(ctx, LONG_LONG, wia.zeros(4, dtype="int32", ctx=ctx), n=1, wg=1)
        wia.context_synchronize(ctx)
    else:
        _print_on_device(key, LONG_LONG, 1, 1)
    assert capfd.readouterr().out.splitlines() == ["-2|0xfffffffffffffffe|18446744073709551614|7"]


def test_arguments_past_the_format_are_clangs_warning() -> None:
    """Arguments past the format's conversions are evaluated and ignored (6.12.13.2): Clang warns at the first of
    each call's, for a format in a __constant array too (words and columns: PoCL 3.1's and Oclgrind 21.10's)."""
    source = (
        '__constant char f[] = "%d\\n";\n'
        '__kernel void k(__global int* x) { printf("%d\\n", 1, 2, x[0]); printf("%%|%5.2f\\n", 1.0f, 3); '
        'printf("no conversions\\n", 4); printf(f, 1, 2); }'
    )
    assert compile_source(source).build_log.splitlines() == [
        f"kernel.cl:2:{column}: warning: data argument not used by format string" for column in (54, 91, 122, 139)
    ]


STRINGS_ANYWHERE = """__kernel void k(__global int* x) {
    __local char word[4];
    if (get_local_id(0) == 0) { word[0] = 'o'; word[1] = 'k'; word[2] = 0; }
    barrier(CLK_LOCAL_MEM_FENCE);
    char mine[3] = {'a' + (char)get_global_id(0), '!', 0};
    __global char* none = 0;
    printf("%s %s %s|%s|\\n", word, mine, none, (void*)0);
    printf("[%.3s][%8s][%-8s]\\n", (void*)0, (void*)0, (void*)0);
}"""
STRINGS_ANYWHERE_PRINTED = ["ok a! (null)|(null)|", "ok b! (null)|(null)|", *["[][  (null)][(null)  ]"] * 2]


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")  # (Clang warns of the void* arguments)
@pytest.mark.parametrize("key", ["sim", "pocl", "oclgrind"])
def test_a_string_from_any_memory_and_a_null_one(key: str, capfd: pytest.CaptureFixture[str]) -> None:
    """``%s`` of chars in __local or __private memory, or of a __global char*, is no mismatch for Clang (the
    simulator refused anything but a __constant char*); a pointer to other elements is Clang's warning ("format
    specifies type 'char *' but the argument has type '__private void *'", PoCL's own printf test prints
    ``(void*)0``). A NULL string prints as glibc's printf prints it, "(null)", and nothing where a precision under 6
    cuts it: Oclgrind 21.10's output (its printf reads a %s of __local or __private memory as a __global address:
    an invalid read, or, from run to run, a read of other memory, such as the next format string: it runs the NULL
    line alone); PoCL 3.1 prints the strings as the simulator does (and
    "(nu" for ``%.3s``, ``%8s`` left-justified: its own printf, not glibc's)."""
    if key == "sim":
        log = compile_source(STRINGS_ANYWHERE).build_log.splitlines()
        assert log == [
            f"kernel.cl:{at}: warning: format specifies type 'char *' but the argument has type '__private void *'"
            for at in ("7:48", "8:35", "8:45", "8:55")
        ]
        ctx = wia.create_context()
        launch(ctx, STRINGS_ANYWHERE, wia.zeros(4, dtype="int32", ctx=ctx), n=2, wg=2)
    elif key == "oclgrind":
        _print_on_device(
            key, "\n".join(line for line in STRINGS_ANYWHERE.splitlines() if "word, mine" not in line), 2, 2
        )
    else:
        _print_on_device(key, STRINGS_ANYWHERE, 2, 2)
    printed = sorted(capfd.readouterr().out.splitlines())
    expected = sorted(STRINGS_ANYWHERE_PRINTED)
    if key != "sim":  # PoCL: the strings; Oclgrind: the NULL ones (a %s of __local memory is its invalid read)
        printed = [line for line in printed if line.startswith("[") == (key == "oclgrind")]
        expected = [e for e in expected if e.startswith("[") == (key == "oclgrind")]
    assert printed == expected


FLAGS_AND_SIGNS = (
    "__kernel void k(__global int* o) {\n"
    "    char4 c = (char4)(1); uchar4 uc = (uchar4)(1); int4 i = (int4)(1); uint4 u = (uint4)(1); float4 f = (float4)(1); long2 l = (long2)(1);\n"  # noqa: E501  (the columns are Clang's)
    '    printf("%v4hhu %v4hhd %v4hhx %v4hlu %v4hld %v4hlx %v2lu %v4hhd %v4hlo %v4hlX\\n", c, uc, c, i, u, i, l, c, i, i);\n'  # noqa: E501
    '    printf("%-05d|%+ d|%0-5d|% +d|%-0v4hld\\n", 1, 2, 3, 4, i);\n'
    "}\n"
)


def test_overridden_flags_and_vectors_of_the_other_sign_are_clangs_warnings() -> None:
    """Clang's -Wformat warnings (clang-15 -cc1, line for line): a flag another of its conversion overrides
    (``%-05d``: ``-`` wins over ``0``; ``%+ d``: ``+`` over the space), at the ignored flag in the string; an
    integer vector conversion of the other sign than its argument's elements (``%v4hlu`` of an ``int4``), but of
    chars, which a signed conversion takes of either sign. The simulator printed them without a word."""

    def vector(line_column: str, specified: str, width: int, argument: str, element: str) -> str:
        return (
            f"kernel.cl:{line_column}: warning: format specifies type '{specified} __attribute__((ext_vector_type("
            f"{width})))' but the argument has type '{argument}' (vector of {width} '{element}' values)"
        )

    assert compile_source(FLAGS_AND_SIGNS).build_log.splitlines() == [
        vector("3:86", "unsigned char", 4, "char4", "char"),
        vector("3:93", "unsigned char", 4, "char4", "char"),
        vector("3:96", "unsigned int", 4, "int4", "int"),
        vector("3:99", "int", 4, "uint4", "uint"),
        vector("3:102", "unsigned int", 4, "int4", "int"),
        vector("3:105", "unsigned long", 2, "long2", "long"),
        vector("3:111", "unsigned int", 4, "int4", "int"),
        vector("3:114", "unsigned int", 4, "int4", "int"),
        "kernel.cl:4:15: warning: flag '0' is ignored when flag '-' is present",
        "kernel.cl:4:21: warning: flag ' ' is ignored when flag '+' is present",
        "kernel.cl:4:25: warning: flag '0' is ignored when flag '-' is present",
        "kernel.cl:4:31: warning: flag ' ' is ignored when flag '+' is present",
        "kernel.cl:4:37: warning: flag '0' is ignored when flag '-' is present",
    ]


def test_a_flag_overridden_in_a_format_that_starts_with_a_space_is_clangs_warning_too() -> None:
    """The flag's column counted in the literal as written (``" | %+ i"``: CTS's printf fuzz formats); of
    literals pycparser joined (``"a" " %-05d"``), whose columns are not the source's, nothing is said."""
    source = (
        "__kernel void k(__global int* o) {\n"
        '    printf(" | %+ax=%+ i\\n", 1.0f, 2);\n'
        '    printf("a" " %-05d\\n", 3);\n'
        '    printf(" | %-0v4hd\\n", (short4)(1));\n}\n'
    )
    assert compile_source(source).build_log.splitlines() == [
        "kernel.cl:2:23: warning: flag ' ' is ignored when flag '+' is present",
        "kernel.cl:4:18: warning: flag '0' is ignored when flag '-' is present",
    ]
