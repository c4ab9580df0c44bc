"""Loops of private arithmetic run on the lanes still in them (``private_loops.py``) against the interpreter's trips.

Every loop here runs both ways, on its own arrays and trip by trip in the interpreter (``private_trips`` giving
none), with checks on and off, and must give the same bits, counts, steps (the lockstep count and the longest
lane's) and findings, or the same finding word for word. A spy asserts which loops took the path, so that no test
passes by never taking it; the loops it must leave to the interpreter are asserted to."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernel_backends import assert_same_runs, private_loops_off, private_trips_ran, run_on_copies

from wia_sim.kernels import progress
from wia_sim.kernels.lanes import Geometry

N, WG = 96, 32

HEAD = """
__kernel void k(__global const int* in, __global int* out, __global float* fout) {
    const int i = get_global_id(0);
    int a = in[i], b = in[i + N];
    float f = (float)a * 0.25f, g = (float)b / 8.0f;
    float4 v4 = (float4)(f, g, 1.5f, -2.0f);
"""
TAIL = """
    out[4 * i] = a; out[4 * i + 1] = b; out[4 * i + 2] = (int)(v4.x + v4.y * 3.0f); out[4 * i + 3] = (int)v4.w;
    fout[2 * i] = f; fout[2 * i + 1] = g;
}
"""


def _arrays(rng: np.random.Generator, n: int = N) -> list[np.ndarray]:
    ints = rng.integers(-300, 300, 2 * n).astype(np.int32)
    ints[rng.random(2 * n) < 0.1] = 0
    return [ints, np.zeros(4 * n, np.int32), np.zeros(2 * n, np.float32)]


def _run(src: str, arrays: list[np.ndarray], fused: bool, n: int = N, **options: Any) -> Any:
    src = src.replace("N]", f"{n}]")
    with private_loops_off(not fused):
        return run_on_copies(src, arrays, Geometry((n, 1, 1), (min(WG, n), 1, 1)), **options)


def _both(body: str, seed: int = 5, n: int = N, functions: str = "", **options: Any) -> tuple[Any, list[int]]:
    """The run on the loops' own arrays (``functions``: defined before the kernel), checked against the
    interpreter's, and the trips the path ran."""
    src = functions + HEAD + body + TAIL
    arrays = _arrays(np.random.default_rng(seed), n)
    with private_trips_ran() as ran:
        fused = _run(src, arrays, True, n, **options)
    assert_same_runs(fused, _run(src, arrays, False, n, **options))
    return fused, ran


FUSED = {
    "collatz": "uint x = (uint)abs(a) + 1u; int steps = 0;\n"
    "while (x != 1u) { x = (x & 1u) ? 3u * x + 1u : x >> 1; ++steps; }\n a = steps; b = (int)x;",
    "gcd, a declaration": "uint x = (uint)abs(a) + 1u, y = (uint)abs(b);\n"
    "while (y != 0u) { const uint t = x % y; x = y; y = t; }\n a = (int)x;",
    "do-while": "uint x = (uint)abs(a * b); int s = 0;\n"
    "do { s += (int)(x % 10u); x /= 10u; } while (x != 0u);\n a = s;",
    "a condition with && (a Mandelbrot's)": "float x = 0.0f, y = 0.0f; int n = 0;\n"
    "while (n < 50 && x * x + y * y <= 4.0f) { const float t = x * x - y * y + f / 80.0f;"
    " y = 2.0f * x * y + g / 40.0f; x = t; n++; }\n a = n; f = x;",
    "for, a step that differs": "for (int k = 0; k < (a & 15); k += 1 + (k & 1)) { f = f * 0.5f + g; b += k; }",
    "vector components": "int n = a & 7;\nwhile (n > 0) { v4.xy = v4.yx * 1.5f; v4.z -= v4.x; n--; }",
    "a uniform counter": "int k = 0;\nwhile (k < 5) { f += g; k++; }\n a = k;",
    "a condition the same in every lane": "int k = 3;\nwhile (k) { g = g * f - 1.0f; --k; }",
    "no lane enters": "while (a > 1000) { a -= 1; }",
    "in a branch, some lanes": "if (a > 0) {\n int k = a & 3;\n while (k < 6) { f += g; k++; }\n b = k; }",
    "in one branch, alike, the other longer": "if (a > 0) {\n int k = 0;\n while (k < 3) { f += g; k++; }\n}"
    " else { b += 1; b *= 3; b -= a; b ^= 5; b += 2; b *= 7; b -= 1; b += 9; b ^= a; b += 3; b -= 4; b *= 2; }",
    "the lanes dropped run longest after": "int k = ((a & 3) == 0) ? 0 : 6;\nwhile (k < 12) { k++; f += g; }\n"
    "if ((a & 3) != 0) { " + "b += 3; b ^= a; " * 10 + "}",
    "a branch": "int k = 0;\nwhile (k < (a & 7)) { if (k & 1) b++; k++; }",
    "a break": "int k = 0;\nwhile (k < 9) { k++; if (k == (a & 7)) break; }",
    "continue in a for": "for (int k = 0; k < 10; k++) { if ((k ^ a) & 1) continue; b += k; }",
    "if/else, declarations in the branches, nested": "int k = 0;\nwhile (k < (a & 15)) {\n"
    " if (k & 1) { const int t = k * b; b = t % 1000; if (b < 0) { b = -b; } }\n"
    " else { float h = f * 0.5f; f = h + g; if (f > 100.0f) break; }\n k++; }",
    "Newton's method, a break when it converges": "float x = fabs(g) + 1.0f; int it;\n"
    "for (it = 0; it < 30; it++) { const float d = (x * x - fabs(f) - 1.0f) / (2.0f * x); x -= d;"
    " if (fabs(d) < 1e-6f) break; }\n f = x; a = it;",
    "modular exponentiation": "uint r = 1u, base = (uint)b & 0xffffu, e = (uint)a & 63u;\n"
    "while (e) { if (e & 1u) r = r * base % 65521u; base = base * base % 65521u; e >>= 1; }\n a = (int)r;",
    "a block and an empty statement": "int k = 0;\nwhile (k < (a & 7)) { { int t = k * 2; b += t; } ; k++; }",
    "for (;;) left by a break": "int k = 0;\nfor (;;) { if (k > (a & 15)) break; k++; }\n b = k;",
    "inner for loops, their own declarations": "int acc = 0, r = 0;\nwhile (r < (a & 7)) {\n"
    " for (int c = r & 1; c < (b & 3) + r; c++) { const int p = r * c; acc += p ^ c; }\n r++; }\n a = acc;",
    "an inner loop's break and continue are its own": "int k = 0;\nwhile (k < (a & 15)) {\n"
    " int j = 0;\n while (j < 9) { j++; if (j == (b & 7)) break; if (j & 1) continue; f += g; }\n"
    " if (j > 5) { k += 2; continue; }\n k++; }\n b = k;",
    "an inner do-while and a for with an expression first clause": "int k = 0, t = 0;\n"
    "do { t = k; do { t -= 3; g *= 0.5f; } while (t > 0); for (t = 0; t < 2; t++) b += t; k++; } while (k < (a & 7));",
    "a few lanes leave early (no compaction)": "int k = (a & 15) == 0;\nwhile (k < 4) { k++; g -= f; }\n b = k;",
    "every lane leaves at once": "int k = a - a;\nwhile (k < 4) { k++; f -= g; }",
    "a counter declared without a value, set in a branch (others leave it undefined)": "int k; int s = 0;\n"
    "if (a > 0) {\n for (k = 0; k < 64; ++k) { if (k * k > (b & 255)) break; s += k; }\n b = k + s; }",
    "a switch": "int k = 0;\nwhile (k < (a & 7)) { switch (k) { case 1: b++; break; default: b--; } k++; }",
    "a switch falling through, default in the middle": "int k = 0;\nwhile (k < (a & 15)) {\n"
    " switch ((b + k) % 5) {\n case 0: b += 3;\n case 1: b ^= k; break;\n default: b -= 1;\n"
    " case 3: b *= 3; }\n k++; }",
    "a switch whose break leaves it, a continue the loop, a return the function": "int k = 0;\n"
    "for (k = 0; k < (a & 15); k++) {\n switch (k & 3) {\n case 0: continue;\n case 1: f += g; break;\n"
    " case 2: if (b > 200) return; b += 7; break; }\n b -= 2; }\n a = k;",
    "a switch on a char with ranges and no default": "int k = 0;\nwhile (k < (a & 7)) {\n"
    " switch ((char)(b + k)) {\n case -128 ... -1: b += 1; break;\n case 'A' ... 'Z': b += 100; break;\n"
    " case 0: b = 1; }\n k++; }",
    "switches nested, a loop in a case": "int k = 0;\nwhile (k < (a & 7)) {\n switch (k % 3) {\n"
    " case 0: switch (b & 1) { case 0: b += 5; break; case 1: b -= 5; } break;\n"
    " case 1: for (int j = 0; j < (k & 3); j++) { if (j == 2) break; b += j; } break;\n default: f *= 0.5f; }\n"
    " k++; }",
    "a switch the same in every lane": "int k = 0;\n"
    "while (k < 6) { switch (k) { case 2: f += g; break; case 4: b++; } k++; }",
    "wrapping ints, casts, a ternary": "short h = (short)a; uchar c = (uchar)b; int t = 0;\n"
    "while (t < (b & 31)) { h = (short)(h * 7 + c); c = (uchar)(c ^ (uchar)t); t += (h > 0) ? 1 : 2; }\n"
    " a = h; b = c;",
}


@pytest.mark.parametrize("checks", [True, False])
@pytest.mark.parametrize("name", sorted(FUSED))
def test_loops_give_the_interpreters_runs(name: str, checks: bool) -> None:
    _, ran = _both(FUSED[name], checks=checks)
    assert ran, "the loop did not run on its own arrays"


def test_every_lane_ran_its_own_trips() -> None:
    """The collatz loop's lanes leave at many trips: the longest lane's steps and the lockstep steps both."""
    result, ran = _both(FUSED["collatz"])
    assert max(ran) > 20
    assert result[1].counts["max_lane_steps"] > 2 * max(ran)


READS = {
    "a read": "int k = 0;\nwhile (k < (a & 7)) { b += in[k]; k++; }",
    "a read at an index read (a gather)": "int k = 0;\nwhile (k < (a & 7)) { b += in[(in[k + i] & 63) + 5]; k++; }",
    "an argmax: if on a value read": "int best = -1000, at = -1;\n"
    "for (int k = 0; k < (a & 15) + 1; k++) {\n const int w = in[(i + 3 * k) % N];\n"
    " if (w > best) { best = w; at = k; } }\n"
    " a = best; b = at;",
    "a search left by break and continue": "int j = 0;\nfor (; j < 8; ++j) {\n if (i + j >= 96) break;\n"
    " const int w = in[i + j];\n if (w < 0) continue;\n if (w == 0) break;\n if (w > 100) break; }\n b = j;",
    "a read in the condition, after &&": "int k = i;\nwhile (k < 191 && in[k] != 0) k++;\n b = k;",
    "a read through a private pointer": "__global const int* p = in + (i & 7);\nint k = 0;\n"
    "while (k < (a & 7)) { b += p[k] * k; k++; }",
    "floats read": "int k = 0;\nwhile (k < (b & 7)) { f = f * 0.5f + fout[(i + k) % 192]; k++; }",
    "an inner loop that reads": "int acc = 0;\nfor (int r = 0; r < (a & 3) + 1; r++)\n"
    " for (int c = 0; c < (b & 3); c++) acc += in[r * 4 + c];\n a = acc;",
    "a read by a few lanes": "if ((a & 31) == 3) {\n int k = 0;\n while (k < 5) { b ^= in[k + i]; k++; } }",
    "a __constant table (a CRC's)": "__constant uint T[8] = {3u, 1u, 4u, 1u, 5u, 9u, 2u, 6u};\nuint c = (uint)a;\n"
    "int k = 0;\nwhile (k < (b & 15)) { c = T[(c ^ (uint)k) & 7u] ^ (c >> 1); k++; }\n a = (int)c;",
    "float4s read": "__global const float4* q = (__global const float4*)fout;\nint k = 0;\n"
    "while (k < (a & 7)) { v4 = v4 * 0.5f + q[(k + i) % 48]; k++; }",
    "a component of a float4 read (its bytes alone)": "__global const float4* q = (__global const float4*)fout;\n"
    "int k = 0;\nwhile (k < (a & 7)) { f += q[(k + i) % 48].w * (float)k; g -= q[k].s1; k++; }",
    "float3s read": "__global const float3* q3 = (__global const float3*)fout;\nint k = 0;\n"
    "while (k < (b & 7)) { v4.xyz += q3[(k * 3 + i) % 24]; k++; }",
    "a __local array": "__local int L[32];\nL[get_local_id(0)] = a;\nbarrier(CLK_LOCAL_MEM_FENCE);\n"
    "int k = 0, t = 0;\nwhile (k < (b & 15)) { t += L[(k * 5 + a) & 31]; k++; }\n a = t;",
}
"""Loops that read memory (``_Compiler.read``): the same reads, by the lanes still in the loop."""


@pytest.mark.parametrize("checks", [True, False])
@pytest.mark.parametrize("name", sorted(READS))
def test_loops_that_read_memory_give_the_interpreters_runs(name: str, checks: bool) -> None:
    _, ran = _both(READS[name], checks=checks)
    assert ran and max(ran) > 0, "the loop did not run on its own arrays"


READ_FINDINGS = {
    "out of bounds": "int k = 0;\nwhile (k < (a & 7)) { b += in[189 + k]; k++; }",
    "a race with another work-item's write": "out[4 * i] = a;\nint k = 0;\n"
    "while (k < (a & 3)) {\n b += 1;\n b += out[4 * ((i + 1 + k) % 96)];\n k++;\n}",
    "a race in a do-while's condition": "out[4 * i] = a;\nint k = 0;\n"
    "do {\n k++;\n} while (k < 3 &&\n out[4 * ((i + 1 + k) % 96)] > -100000);",
    "bytes nobody wrote, used": "int t[4];\nt[0] = a;\n__private int* p = t;\nint k = 0;\n"
    "while (k < (a & 3)) { b += p[k]; k++; }",
    "through NULL": "__global const int* p = 0;\nint k = 0;\nwhile (k < (a & 3)) { b += p[k]; k++; }",
    "a misaligned float4": "__global const float4* q = (__global const float4*)(fout + 1);\nint k = 0;\n"
    "while (k < (a & 7)) { v4 += q[k]; k++; }",
    "a float4 out of bounds": "__global const float4* q = (__global const float4*)fout;\nint k = 0;\n"
    "while (k < (a & 7)) { v4 += q[45 + k]; k++; }",
    "a variable the loop sets, read after it in lanes that skipped it": "int k;\n"
    "if (a > 0) { for (k = 0; k < (a & 7); ++k) b += 2; }\nb += k;",
    "out of a __local array": "__local int L[32];\nL[get_local_id(0)] = a;\nbarrier(CLK_LOCAL_MEM_FENCE);\n"
    "int k = 0;\nwhile (k < (b & 7)) {\n a += L[28 + k];\n k++;\n}",
}
"""Loops whose reads are findings: the interpreter's, word for word (a NULL pointer and bytes nobody wrote give the
trip back; the checks of an access report from the read itself)."""


@pytest.mark.parametrize("name", sorted(READ_FINDINGS))
def test_a_read_that_is_a_finding_is_reported_as_before(name: str) -> None:
    fused, ran = _both(READ_FINDINGS[name])
    assert isinstance(fused[1], Exception) and ran, "the loop did not run on its own arrays"


def test_a_component_of_a_private_vector_is_the_interpreters() -> None:
    """The interpreter reads a ``__private`` vector whole for one component: the trip is given back."""
    body = "float4 arr[4] = {v4, v4 * 2.0f, v4 + 1.0f, -v4};\n__private float4* pp = arr;\nint k = 0;\n"
    body += "while (k < (a & 3)) { f += pp[k].y; k++; }"
    _, ran = _both(body)
    assert ran and max(ran) == 0


def test_a_read_out_of_bounds_with_checks_off_reads_0() -> None:
    """With checks off an access outside its memory is no finding: it reads 0, by the lanes alone as by the
    interpreter's pass over every lane."""
    body = "int k = 0;\nwhile (k < (a & 7)) { b += in[189 + k] + 1; k++; }"
    ((ints, out, _), result), ran = _both(body, checks=False)
    assert not isinstance(result, Exception) and ran and max(ran) > 0
    padded = np.concatenate([ints, np.zeros(8, np.int32)]).astype(np.int64)  # (past the buffer: 0)
    for i in range(N):
        trips = int(ints[i]) & 7
        assert out[4 * i + 1] == ints[i + N] + sum(padded[189 + k] + 1 for k in range(trips))


def test_a_copy_of_bytes_nobody_wrote_gives_the_trip_back() -> None:
    """A trip that reads bytes nobody wrote into a variable (a copy, no finding) is given back: the interpreter keeps
    the undefined value, and the counts of the reads the path had made in it are taken back."""
    body = "__local int t[128];\nconst int lid = get_local_id(0);\nt[lid] = a;\n__local int* q = t;\n"
    body += "int last = 0, k = 0;\nwhile (k < (a & 3) + 1) { b += q[lid]; last = q[64 + k]; k++; }"
    fused, ran = _both(body)
    assert not isinstance(fused[1], Exception) and ran


FUNCTIONS = """
int first_above(__global const int* v, int start, int len, int total, int limit) {
    for (int j = 0; j < len; ++j) {
        if (start + j >= total) break;
        const int w = v[start + j];
        if (w < 0) continue;
        if (w == 0) break;
        if (w > limit) return j;
    }
    return -1;
}
float4 doubled(float4 x, int n) {
    for (int k = 0; k < n; k++) {
        if (x.x > 100.0f)
            return x * 0.5f;
        x *= 2.0f;
    }
    return x;
}
uint steps_to_one(uint v, uint cap) {
    uint s = 0u;
    while (v != 1u) {
        int t = 0;
        while (t < 3) { t++; if (s == cap) return 0xffffffffu; }
        v = (v & 1u) ? 3u * v + 1u : v >> 1;
        s++;
    }
    return s;
}
int returned_or_divided(int a, int b) {
    int k = 0, q = 0;
    while (k < 8) {
        if (k == (a & 7)) return k * 10 + q;
        q += 100 / ((b & 7) + 1 - k);
        k++;
    }
    return -1;
}
"""
RETURNS = {
    "a search's return (control_flow's first_above)": "a = first_above(in, i, 8, 2 * N - 1, 100);",
    "a vector returned": "v4 = doubled(v4, a & 15);",
    "a return inside an inner loop": "b = (int)steps_to_one((uint)abs(a) + 1u, (uint)(b & 31));",
    "a return from the kernel": "int k = 0;\nwhile (k < 9) { k++; if (k == (a & 7)) return; }",
    "a return, then a division by zero in the trip": "b = returned_or_divided(a, b);",
}
"""Loops left by ``return``: from a function (its value, of some lanes at each trip), and from the kernel."""


STRUCTS = """
typedef struct { float s; float q; } Moments;
typedef struct { int n; float lo[2]; Moments m; } Acc;
typedef struct { float4 pos; float3 vel; int tag; } Body;
typedef union { float f; uint u; } Bits;
"""

STRUCT_LOOPS = {
    "members read and written, nested, an array member at constant indices": "Acc acc = {0, {1e30f, 1e30f},"
    " {0.0f, 0.0f}};\nint k = 0;\nwhile (k < (a & 15)) {\n const float v = (float)((b + k * 7) % 23) - 11.0f;\n"
    " acc.n += v > 0.0f;\n if (v < acc.lo[0]) { acc.lo[1] = acc.lo[0]; acc.lo[0] = v; }\n"
    " else if (v < acc.lo[1]) acc.lo[1] = v;\n acc.m.s += v;\n acc.m.q += v * v;\n k++; }\n"
    "a = acc.n; f = acc.lo[0] + acc.lo[1]; g = acc.m.s * 0.5f + acc.m.q;",
    "vector members, components read": "Body p = {v4, (float3)(f, g, 1.0f), a};\nint k = 0;\n"
    "while (k < (b & 7)) { p.pos += p.pos.wzyx * 0.25f; p.tag ^= k; f += p.vel.y - p.pos.w; g = p.vel.z; k++; }\n"
    "v4 = p.pos; a = p.tag;",
    "members incremented and decremented (prefix, postfix, an array member's, a float's)": "Acc acc = {0, {1.5f,"
    " 2.5f}, {0.0f, 0.0f}};\nint k = 0;\nwhile (k < (a & 15)) { acc.n++; --acc.n; acc.n++; acc.lo[1]--; ++acc.m.s;"
    " k++; }\na = acc.n; f = acc.lo[1] + acc.m.s;",
    "a union's members": "Bits x = {f};\nint k = 0;\nwhile (k < (a & 7)) { x.u ^= (uint)k << 3; b += (int)(x.u & 255u);"
    " k++; }\nf = x.f;",
    "lanes leave at different trips (the columns of the lanes still in)": "Acc acc = {1, {0.0f, 0.0f}, {f, g}};\n"
    "int k = 0;\nwhile (k < (a & 31)) { acc.m.s = acc.m.s * 0.5f + (float)k; acc.n += k; k++; }\n"
    "a = acc.n; f = acc.m.s;",
    "a struct argument's members": "Moments m = {f, g};\nint k = 0;\n"
    "while (k < (b & 7)) { f += m.s * (float)k - m.q; k++; }",
    "components of vector members written (a run, one by one, out of order, one)": "Body p = {v4, (float3)(f, g,"
    " 1.0f), a};\nint k = 0;\nwhile (k < (b & 15)) {\n p.vel.xyz = p.vel.xyz * 0.5f + p.pos.xyz * 0.25f;\n"
    " p.pos.xy += p.vel.yz;\n p.pos.wz = p.vel.zx * (float)k;\n p.vel.y -= 1.0f;\n k++; }\n"
    "v4 = p.pos + (float4)(p.vel, 0.0f);",
}


@pytest.mark.parametrize("checks", [True, False])
@pytest.mark.parametrize("name", sorted(STRUCT_LOOPS))
def test_loops_of_struct_members_give_the_interpreters_runs(name: str, checks: bool) -> None:
    result, ran = _both(STRUCT_LOOPS[name], functions=STRUCTS, checks=checks)
    assert ran and any(ran), "the loop did not run on its own arrays"
    assert not isinstance(result[1], Exception), result[1]


def test_a_struct_of_a_helper_called_twice_is_each_calls_own() -> None:
    """A helper's loop over its own struct, called twice: each run of the loop finds its call's struct (the columns
    are found once per run, not kept from the last)."""
    helper = (
        "float halves(float f, float g, int n) {\n Moments m = {f, g};\n int k = 0;\n"
        " while (k < n) { m.s += m.q * 0.5f; m.q -= 1.0f; k++; }\n return m.s; }\n"
    )
    result, ran = _both("f = halves(f, g, a & 7) + halves(g, f, b & 7);", functions=STRUCTS + helper)
    assert len(ran) >= 2 and not isinstance(result[1], Exception)


def test_a_trip_given_back_puts_the_members_it_wrote_back() -> None:
    """A trip writes members, then reads a component of a ``__private`` vector (which the interpreter reads whole:
    the trip is given back, every trip): the interpreter runs the trip again from the members as they were, so none
    is written twice. Some lanes do not enter (the columns of the lanes in the loop), then all do."""
    for cond in ("(a & 7)", "5"):
        body = (
            "Acc acc = {0, {0.0f, 0.0f}, {0.0f, 0.0f}};\nfloat4 arr[2] = {v4, v4 * 2.0f};\n"
            f"__private float4* pp = arr;\nint k = 0;\n"
            f"while (k < {cond}) {{ acc.n += 3; acc.m.s += 1.5f; f += pp[k & 1].y; k++; }}\n"
            "a = acc.n; g = acc.m.s;"
        )
        result, ran = _both(body, functions=STRUCTS)
        assert not isinstance(result[1], Exception) and ran and not any(ran)  # (entered; every trip given back)


STRUCT_INTERPRETED = {
    "a struct declared without a value": "Acc acc;\nacc.n = 0;\nint k = 0;\nwhile (k < (a & 7)) { acc.n += k; k++; }"
    "\na = acc.n;",
    "a member array at an index the loop computes": "Acc acc = {0, {1.0f, 2.0f}, {0.0f, 0.0f}};\nint k = 0;\n"
    "while (k < (a & 3)) { f += acc.lo[k & 1]; k++; }",
    "the undefined w of a float3 member written (.hi)": "Body p = {v4, (float3)(f, g, 1.0f), a};\nint k = 0;\n"
    "while (k < (b & 7)) { p.vel.hi = (float2)(f, g); k++; }\nf = p.vel.z;",
}


@pytest.mark.parametrize("name", sorted(STRUCT_INTERPRETED))
def test_other_struct_loops_are_the_interpreters(name: str) -> None:
    _, ran = _both(STRUCT_INTERPRETED[name], functions=STRUCTS)
    assert not ran


@pytest.mark.parametrize("checks", [True, False])
@pytest.mark.parametrize("name", sorted(RETURNS))
def test_loops_left_by_return_give_the_interpreters_runs(name: str, checks: bool) -> None:
    _, ran = _both(RETURNS[name].replace("2 * N", str(2 * N)), functions=FUNCTIONS, checks=checks)
    assert ran and max(ran) > 0, "the loop did not run on its own arrays"


INTERPRETED = {
    "two components of a vector read": "__global const float4* q = (__global const float4*)fout;\nint k = 0;\n"
    "while (k < (a & 7)) { v4.xy += q[k].zx; k++; }",
    "a read of a declared array": "int t[4] = {1, 2, 3, 4};\nint k = 0;\nwhile (k < (a & 3)) { b += t[k]; k++; }",
    "a read of a two-dimensional __local array": "__local int M[4][8];\n"
    "M[get_local_id(0) >> 3][get_local_id(0) & 7] = a;\nbarrier(CLK_LOCAL_MEM_FENCE);\n"
    "int k = 0;\nwhile (k < (b & 7)) { a ^= M[k & 3][k]; k++; }",
    "a store": "int k = 0;\nwhile (k < (a & 7)) { fout[2 * i] = (float)k; k++; }",
    "a switch with a declaration in its body": "int k = 0;\n"
    "while (k < (a & 7)) { switch (k) { case 1: b++; break; default: ; int t = k; b -= t; } k++; }",
    "a switch with a label inside a nested statement (Duff's device)": "int k = 0;\n"
    "while (k < (a & 7)) { switch (k & 3) { case 0: do { b++; case 1: b += 2; } while (0); break; } k++; }",
    "a declaration that shadows": "int k = 0, t = 2;\nwhile (k < (a & 7)) { int t = k * 2; b += t; k++; }\n a = t;",
    "a call of the program's function": "int k = 0;\nwhile (k < (a & 7)) { k = bump(k); }",
    "a lane in the loop whose counter is undefined": "int k;\nif (a > 0) k = 0;\nwhile (k < 3) k++;",
}


@pytest.mark.parametrize("name", sorted(INTERPRETED))
def test_other_loops_are_the_interpreters(name: str) -> None:
    body = INTERPRETED[name]
    _, ran = _both(body, functions="int bump(int k) { return k + 1; }\n" if "bump" in body else "")
    assert not ran


def test_a_division_by_zero_is_the_interpreters_finding() -> None:
    """A lane divides by zero on a later trip: the trees give the trip back, the interpreter reports it as it
    would have, and the trips before it were the path's."""
    body = "int t = 0, d = (b & 3) + 2;\nwhile (t < 6) { a += 100 / d; d -= 1; t++; }"
    result, ran = _both(body, checks=True)
    assert ran and ran[0] == 2  # (d reaches 0 on the third trip of the lanes with b & 3 == 0)
    assert [f.check for f in result[1].findings] == ["division_by_zero"]


def test_a_division_by_zero_in_a_branch() -> None:
    body = "int t = 0, d = (b & 3) + 2;\nwhile (t < 6) { if (t & 1) a += 100 / d; else d -= 1; t++; }"
    result, ran = _both(body, checks=True)
    assert ran and [f.check for f in result[1].findings] == ["division_by_zero"]


@pytest.mark.parametrize(
    "body",
    [
        "uint x = (uint)abs(a) + 5000u;\nwhile (x != 0u) { x -= 1u; }",
        "uint x = (uint)abs(a) + 5000u;\nwhile (x != 0u) { if (x & 1u) { x -= 1u; } else { { x -= 2u; b++; } } }",
        "uint x = (uint)abs(a) + 50u;\nwhile (x != 0u) { for (int j = 0; j < 40; j++) { b += j; } x -= 1u; }",
    ],
)
def test_the_step_limit_is_passed_in_the_interpreters_trip(body: str) -> None:
    result, ran = _both(body, step_limit=3000)
    assert isinstance(result[1], Exception) and "step limit of 3,000" in str(result[1])
    assert ran and 0 < ran[0] < 3000


@pytest.mark.parametrize(
    "body",
    [
        "int k = 0;\nwhile (k < 6) { if (k & 1) { b++; } else { b--; b *= 2; } for (int j = 0; j < k; j++) a ^= j;"
        " k++; }\n a += k; b += 1;",
        "int k = 0;\nwhile (k < 6) { switch (k + (a & 1)) { case 5: b++; case 4: b--; case 3: b *= 2; case 2: b ^= 3;"
        " case 1: b += k; } k++; }\n a += k; b += 1;",
    ],
)
def test_the_step_limit_at_each_step(body: str) -> None:
    """Wherever the limit falls, in a trip's branch, a switch's labels or after the loop, the same finding at the
    same place."""
    src = HEAD + body + TAIL
    arrays = _arrays(np.random.default_rng(2), 32)
    for limit in range(1, 70):
        assert_same_runs(_run(src, arrays, True, 32, step_limit=limit), _run(src, arrays, False, 32, step_limit=limit))


def test_a_loop_that_cannot_end_is_found_as_before() -> None:
    """An iteration that changes nothing (``progress.py``): the path gives the loop back before the trip whose
    state the interpreter compares, which finds it."""
    body = "int x = a;\nwhile (x > -1000) { x = x | 0; }"
    result, ran = _both(body)
    assert isinstance(result[1], Exception) and "never leaves this loop" in str(result[1])
    (trips,) = ran  # the trip before one the interpreter compares the state at
    assert trips + 1 >= progress.FIRST_CHECK and not (trips + 1) & trips


def test_the_path_takes_the_loop_again_after_a_comparison() -> None:
    """A long loop whose state changes: the interpreter runs the trips around each comparison of the launch's
    state, and the path the trips between them (each run starts at the trip the interpreter left it)."""
    body = "int x = 0;\nwhile (x < 1500 + (a & 7)) { x += 1; b ^= x; }"
    _, ran = _both(body)
    assert len(ran) >= 3 and sum(ran) > 1400, ran


def test_a_hang_in_an_inner_loop_is_found_as_before() -> None:
    """The inner loop reaches a trip at which the interpreter compares the state: the outer trip is given back,
    and the inner loop, run by the interpreter's outer trip, on its own arrays, gives itself back there too."""
    body = "int k = 0;\nwhile (k < 3) { int x = a; while (x > -1000) { x = x | 0; } k++; }"
    result, ran = _both(body)
    assert isinstance(result[1], Exception) and "never leaves this loop" in str(result[1])
    assert ran[0] == 0 and len(ran) == 2


@pytest.mark.parametrize(
    "body",
    [
        "int x = 0, s = 0;\nwhile (x < (i & 63)) { x += 3; s ^= x + i; }\n a = s; b = x;",
        "int x = 0, s = 0;\nwhile (x < (i & 63)) { x += 3; s ^= in[(x + i) % 9000]; }\n a = s;",
    ],
)
def test_work_item_ids_as_coefficients(body: str) -> None:
    """Past ``affine.MIN_LANES`` the id is coefficients, not an array, where every lane enters: the trees read its
    values (the trips are the path's, not given back at the first)."""
    _, ran = _both(body, n=4608)
    assert ran and max(ran) > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.sampled_from([1, 5, 32, 96, 224]),
    step=st.integers(1, 9),
    mult=st.integers(-5, 5),
    jump=st.sampled_from(
        [
            "",
            "if (((acc ^ t) & 7) == 0) break;",
            "if (t & 4) { t -= 1; continue; }",
            "if (s > 3.0f) { acc += 2; } else if (t & 1) { s -= 1.0f; break; }",
            "for (int j = 0; j < (t & 7); j++) { acc ^= j; if (j == 3) break; if (j & 1) continue; s += 1.0f; }",
            "if (in[(t + i) % N] < 0) { acc -= in[(acc & 63) % N]; t -= 1; continue; }",
            "for (int j = t & 3; j < in[i] % 5; j++) { acc ^= in[(j + t) % N]; if (in[(j + 1) % N] > 200) break; }",
            "switch (acc & 7) { case 0: t -= 1; continue; case 1: acc += 3; case 2 ... 4: s -= 1.0f; break;"
            " default: if (t & 2) break; acc ^= t; case 6: acc -= in[(t + i) % N]; }",
            "st.m.s += s * 0.5f; if (st.lo[1] > s) { st.lo[0] = st.lo[1]; st.lo[1] = s; } acc += st.n;"
            " if (st.m.s > 100.0f) { st.n--; t -= 1; continue; } st.m.q = st.m.s - (float)acc;",
        ]
    ),
    checks=st.booleans(),
)
def test_random_trip_counts(seed: int, n: int, step: int, mult: int, jump: str, checks: bool) -> None:
    body = (
        f"int t = a, acc = b; float s = g; Acc st = {{b, {{g, 0.5f}}, {{f, 1.0f}}}};\n"
        f"while (t > 0) {{ const int d = (t & 3) + {step}; acc = acc * {mult} + (t ^ d); {jump}"
        f" s = s * 0.5f + (float)d; t -= d; }}\n a = acc; b = t; f = s + st.m.s; g = st.lo[0] - st.lo[1];"
    )
    src = STRUCTS + HEAD + body + TAIL
    arrays = _arrays(np.random.default_rng(seed), n)
    with private_trips_ran() as ran:
        fused = _run(src, arrays, True, n, checks=checks)
    assert_same_runs(fused, _run(src, arrays, False, n, checks=checks))
    assert ran


@pytest.mark.parametrize("inner", ["", "if (t & 1) { s += 1; }"], ids=["one mask", "and a branch"])
def test_long_loops_count_every_lanes_steps(inner: str) -> None:
    """Trips past the 255 steps a lane's byte tally holds (``PrivateLoops._stepped``), the lanes leaving at
    different trips but too few to compact the arrays: each lane's steps, and the launch's, as the interpreter's."""
    body = (
        "int t = 0, s = 0; uint v = (uint)(a + 1000);\n"
        f"while (t < 200 + (i % 7 == 3 ? 40 : 310)) {{ v = (v & 1u) ? 3u * v + 1u : v >> 1; {inner} t++; }}\n"
        "a = (int)v; b = t + s;"
    )
    (_, result), ran = _both(body, n=96)
    assert sum(ran) > 500, ran
    assert result.counts["max_lane_steps"] > 3 * 500, result.counts


def test_a_trip_of_more_statements_than_a_byte_counts() -> None:
    """300 statements under one mask in a trip: more steps than a lane's byte tally holds, counted as they are."""
    body = "int t = 0, s = 0;\nwhile (t < 3 + (i & 1)) { " + "s += t;\n" * 300 + "t++; }\na = s; b = t;"
    (_, result), ran = _both(body, n=32)
    assert sum(ran) >= 3, ran
    assert result.counts["max_lane_steps"] > 4 * 300, result.counts
