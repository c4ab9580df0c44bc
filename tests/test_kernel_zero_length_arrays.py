"""Zero-length arrays (GNU C's ``T a[0]``, which Clang takes in OpenCL C without a diagnostic): they build and run,
with ``sizeof`` 0, as on PoCL 3.1 and Oclgrind 21.10; an access of one has no element to touch, so the simulator
reports it out of bounds (undefined behaviour; the devices read whatever lies there). CLBlast's Xgemm declares
``realN bpm[NWI/VWN]`` and, with a tuning set where ``NWI < VWN``, never touches it: the simulator refused to build
it ("must have a positive size"). A negative size is Clang's error."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import assert_refused, run_arrays

import wia_hal as wia
from wia_sim.kernels.executor import KernelFault, run_kernel
from wia_sim.kernels.frontend import compile_source
from wia_sim.kernels.lanes import Geometry


@pytest.mark.parametrize(
    ("body", "value"),
    [
        ("float bpm[NWI / VWN]; o[i] = 1.0f + i;", lambda i: 1.0 + i),  # (CLBlast's, never accessed)
        ("float t[0]; o[i] = (float)sizeof(t) + i;", lambda i: 0.0 + i),
        ("float t[2][0]; o[i] = (float)sizeof(t) + 2 * i;", lambda i: 2.0 * i),
        ("__local float t[0]; o[i] = (float)sizeof(t) - i;", lambda i: -1.0 * i),
        ("typedef struct { int n; float v[0]; } R; R r = {3}; o[i] = (float)sizeof(R) + r.n;", lambda i: 7.0),
    ],
    ids=["never accessed", "sizeof", "of arrays", "__local", "last member"],
)
def test_zero_length_arrays_build_and_run(device_ctx: wia.Context, body: str, value: object) -> None:
    source = (
        f"#define NWI 4\n#define VWN 8\n__kernel void k(__global float* o) {{ int i = get_global_id(0); {body} }}\n"
    )
    (got,) = run_arrays(device_ctx, source, "k", [np.full(8, np.nan, np.float32)], 8, 4)
    assert callable(value)
    np.testing.assert_array_equal(got, np.array([value(i) for i in range(8)], np.float32))


def test_an_access_of_one_is_out_of_bounds() -> None:
    program = compile_source("__kernel void k(__global float* o) { float t[0]; o[get_global_id(0)] = t[0]; }")
    out = np.zeros(4, np.float32)
    with pytest.raises(KernelFault) as info:
        run_kernel(program, "k", [out.view(np.uint8)], Geometry((4, 1, 1), (4, 1, 1)))
    assert info.value.check == "out_of_bounds_private"
    assert "out-of-bounds read at index 0 of a 0-element array, __private array 't'" in str(info.value)


def test_a_negative_size_is_clangs_error(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    source = "__kernel void k(__global float* o) { float t[-1]; o[0] = 1; }"
    assert_refused(device_ctx, request, source, "'t' declared as an array with a negative size", "1:46")
