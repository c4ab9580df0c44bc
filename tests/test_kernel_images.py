"""Images and samplers: a program that mixes image kernels (or an image helper no kernel calls, as Rodinia's
particle_single.cl has) with buffer kernels builds, as on PoCL 3.1 and Oclgrind 21.10, and its buffer kernels run
with the same values everywhere. The simulator has no image memory (nor has the HAL): creating a kernel that uses
images, itself or through a helper, is NOT_SUPPORTED there, naming what uses them. The simulator refused the whole
program ("samplers are not supported"). Misplaced image and sampler types are Clang's errors on every device."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source

SOURCE = r"""
const sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__constant sampler_t linear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;

float4 fetch(__read_only image2d_t img, int x, int y) { return read_imagef(img, nearest, (int2)(x, y)); }
float weight(sampler_t s, float x) { return 2.0f * x; }  /* a sampler parameter: this helper uses samplers */
float twice(float x) { return 2.0f * x; }

__kernel void smooth(__read_only image2d_t in, __write_only image2d_t out)
{
    const int x = get_global_id(0), y = get_global_id(1);
    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_FILTER_NEAREST;
    const float4 v = fetch(in, x, y) + read_imagef(in, s, (int2)(x + 1, y)) + read_imagef(in, linear, (float2)(0.5f));
    write_imagef(out, (int2)(x, y), v * 0.25f + (float)(get_image_width(in) + get_image_dim(in).y));
}

__kernel void weighted(__global float* out) { out[get_global_id(0)] = weight(nearest, 1.0f); }

__kernel void flags(__global const float* a, __global float* out)
{
    const int i = get_global_id(0);
    /* Clang's values (opencl-c-base.h): 0x20 + 6 * 100 + 1 * 1000 + 2 * 10000, and the channel codes */
    const int f = CLK_FILTER_LINEAR + CLK_ADDRESS_REPEAT * 100 + CLK_NORMALIZED_COORDS_TRUE * 1000
                  + (CLK_UNORM_INT8 - CLK_SNORM_INT8) * 10000 + (CLK_RGBA - CLK_R) * 100000;
    out[i] = twice(a[i]) + (float)f;
}
"""


def test_a_program_with_image_kernels_builds_and_runs_its_buffer_kernels(device_ctx: wia.Context) -> None:
    n = 32
    a = np.random.default_rng().uniform(-4, 4, n).astype(np.float32)
    _, out = run_arrays(device_ctx, SOURCE, "flags", [a, np.zeros(n, np.float32)], n, 16)
    np.testing.assert_array_equal(out, 2 * a + np.float32(32 + 600 + 1000 + 20000 + 500000))


@pytest.mark.parametrize(
    ("kernel", "what"),
    [
        ("smooth", "kernel parameter 'in' of type image2d_t"),
        ("weighted", "parameter 's' of type sampler_t in 'weight'"),
    ],
)
def test_the_simulator_refuses_to_create_a_kernel_that_uses_images(kernel: str, what: str) -> None:
    wia.set_backend("sim")
    ctx = wia.create_context()
    try:
        with pytest.raises(wia.WiaError) as info:
            wia.compile_kernel(ctx, SOURCE, kernel)
        assert info.value.code == wia.ErrorCode.NOT_SUPPORTED
        assert f"kernel '{kernel}': images and samplers are not supported by the simulator" in str(info.value)
        assert what in str(info.value)
    finally:
        wia.destroy_context(ctx)


def test_which_kernels_use_images_is_known_at_build() -> None:
    kernels = compile_source(SOURCE).kernels
    assert [name for name, info in kernels.items() if info.unsupported] == ["smooth", "weighted"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "__kernel void k(__global float* o, read_only image2d_t im) { image2d_t j = im; o[0] = 1; }",
            "can only be used as a function parameter",
        ),
        ("__global sampler_t g = 0;\n__kernel void k(__global float* o) { o[0] = 1; }", "sampler type cannot be used"),
        ("__kernel void k(__global float* o) { sampler_t s[2]; o[0] = 1; }", "array of 'sampler_t' type is invalid"),
        (
            "void h(image2d_t* p) { }\n__kernel void k(__global float* o) { o[0] = 1; }",
            "image2d_t' is invalid in OpenCL",
        ),
        (
            "struct S { image2d_t im; };\n__kernel void k(__global float* o) { o[0] = 1; }",
            "type cannot be used to declare a structure or union field",
        ),
    ],
    ids=["image-variable", "global-sampler", "sampler-array", "image-pointer", "image-member"],
)
def test_misplaced_images_and_samplers_are_refused_everywhere(
    device_ctx: wia.Context, source: str, message: str
) -> None:
    refusal = build_error(device_ctx, source, "k")
    assert message in refusal
