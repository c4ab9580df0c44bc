"""Reads of partially initialized private vectors (issue 16): a vector declared without an initializer is tracked
per lane and per component, so that ``v.xz = ...`` initializes only those components, a swizzle reads only its
own, and a component never assigned stays undefined through arithmetic and assignments: its use (a store to memory,
a built-in that writes through a pointer) is ``uninitialized_private``, as Oclgrind's uninitialized-value plugin
reports it (``undef.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from wia_sim.kernels import compile_source
from wia_sim.kernels.executor import KernelFault, RunResult, run_kernel
from wia_sim.kernels.lanes import Geometry

KERNEL = """__kernel void k(__global float4* out, __global float* s) {{
    const int i = get_global_id(0);
    float4 f;
    {body}
}}"""


def run(body: str, n: int = 8) -> tuple[RunResult, np.ndarray, np.ndarray]:
    out, s = np.zeros(n * 8, np.float32), np.zeros(n, np.float32)
    src = KERNEL.format(body=body)
    result = run_kernel(
        compile_source(src), "k", [out.view(np.uint8), s.view(np.uint8)], Geometry((n, 1, 1), (4, 1, 1))
    )
    return result, out[: n * 4].reshape(n, 4), s


def test_components_assigned_by_swizzles_read_back_without_a_finding() -> None:
    result, out, s = run("f.xzw = 4.25f; f.y = (float)i;\n    s[i] = f.x + f.z; out[i] = f;")
    assert not result.findings
    i = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(out, np.stack([np.full(8, 4.25), i, np.full(8, 4.25), np.full(8, 4.25)], axis=1))
    np.testing.assert_array_equal(s, 8.5)


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("f.xzw = 4.25f;\n    out[i] = fract(f, out + 8);", 5),  # a built-in reads the whole vector
        ("f.xzw = 4.25f;\n    out[i] = f;", 5),
        ("f.xzw = 4.25f;\n    s[i] = f.w + f.y;", 5),  # a swizzle of the one component never assigned
        ("f.xzw = 4.25f;\n    f.y += 1.0f; s[i] = f.y;", 5),  # a compound assignment keeps it undefined
        ("f.x = 1.0f;\n    out[i] = f + 1.0f;", 5),
    ],
)
def test_reading_a_component_never_assigned_is_uninitialized_private(body: str, line: int) -> None:
    with pytest.raises(KernelFault) as info:
        run(body, n=8)
    f = info.value
    assert (f.check, f.line, f.work_items) == ("uninitialized_private", line, 8), str(f)
    assert "read of uninitialized __private variable 'f'" in str(f)


def test_divergent_assignment_counts_per_lane() -> None:
    body = "if (i & 1) f = (float4)(i); else f.x = 1.0f;\n    s[i] = f.x;\n    out[i] = f;"
    with pytest.raises(KernelFault) as info:
        run(body)
    f = info.value
    assert (f.check, f.line, f.work_items, f.work_item) == ("uninitialized_private", 6, 4, (0, 0, 0)), str(f)
    result, _, s = run(body.replace("f.x = 1.0f;", "{ f.x = 1.0f; f.yzw = (float3)(2.0f); }"))
    assert not result.findings
    np.testing.assert_array_equal(s, np.where(np.arange(8) & 1, np.arange(8), 1))
