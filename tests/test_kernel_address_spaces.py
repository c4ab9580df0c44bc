"""Pointers keep their address space (OpenCL C 1.2 6.5): no initialization, assignment, argument, return value or
cast makes a pointer into one space point into another, pointers into different spaces are not compared,
subtracted or chosen between by ``?:``, and an unqualified pointee is ``__private`` (the generic space is OpenCL
C 2.0's). The simulator built all of the refused kernels below, which real devices refuse to build. Each source
is built on the simulator and, where installed, on PoCL and Oclgrind through the public HAL: every backend must
refuse the same ones and build the others."""

from __future__ import annotations

import pytest
from kernel_backends import build_error

import wia_hal as wia

HEAD = "void g(__global float* p) { }\n__kernel void k(__global float* o, __local float* l, __constant float* c) {\n"

REFUSED = {
    "init-local-as-global": ("__global float* p = l;", "changes address space of pointer"),
    "init-local-array": ("__local float t[4]; __global float* p = t;", "changes address space of pointer"),
    "init-constant-as-global": ("__global float* p = c;", "changes address space of pointer"),
    "init-private-address": ("float x; __global float* p = &x;", "changes address space of pointer"),
    "init-global-as-private": ("float* p = o;", "changes address space of pointer"),
    "init-string-as-private": ('char* s = "abc";', "changes address space of pointer"),
    "init-void-pointer": ("__global void* v = l;", "changes address space of pointer"),
    "assign": ("__global float* p; p = l;", "changes address space of pointer"),
    "nested-pointer": ("__global float* __private* pp; __local float* q; pp = &q;", "changes address space"),
    "argument": ("g(l);", "changes address space of pointer"),
    "cast": ("__global float* p = (__global float*)l;", "casting"),
    "comparison": ("o[0] = (o == l);", "pointers to non-overlapping address spaces"),
    "subtraction": ("o[0] = o - l;", "pointers to non-overlapping address spaces"),
    "conditional": ("__global float* p = get_global_id(0) ? o : l;", "pointers to non-overlapping address spaces"),
}

BUILT = {
    "same-space": "__constant float* p = c; const __global float* q = o; __local float* r = l + 1; o[0] = *q;",
    "private-to-private": "float x; float* p = &x; __private float* q = p; *q = 1; o[0] = x;",
    "null-constants": "__local float* v = (__local float*)0; __global int* q = (__global int*)o; o[0] = (o == 0);",
    "string-as-constant": '__constant char* s = "abc"; o[0] = s[1];',
}


def _source(body: str) -> str:
    return HEAD + "    " + body + "\n}\n"


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_every_backend_refuses_a_change_of_address_space(device_ctx: wia.Context, case: str) -> None:
    body, message = REFUSED[case]
    refusal = build_error(device_ctx, _source(body), "k")
    if wia.get_backend().name == "sim":
        assert message in refusal


@pytest.mark.parametrize("case", sorted(BUILT))
def test_every_backend_builds_pointers_that_stay_in_their_space(device_ctx: wia.Context, case: str) -> None:
    wia.compile_kernel(device_ctx, _source(BUILT[case]), "k")


def test_the_message_names_both_types_and_the_place() -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    try:
        with pytest.raises(wia.WiaError) as info:
            wia.compile_kernel(ctx, _source("__global float* p = l;"), "k")
    finally:
        wia.destroy_context(ctx)
    assert (
        "kernel.cl:3:25: error: initializing 'p': '__local float *' as '__global float *' changes address space "
        "of pointer" in str(info.value)
    )
