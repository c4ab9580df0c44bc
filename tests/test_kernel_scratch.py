"""The pool of large temporaries (``wia_sim/kernels/scratch.py``): an array goes out again only once nothing else
refers to it, a view or a value kept in a variable hold it, and launches that reuse it compute what fresh memory
would."""

from __future__ import annotations

import numpy as np

from wia_sim.kernels import compile_source, scratch
from wia_sim.kernels.executor import run_kernel
from wia_sim.kernels.lanes import Geometry

BIG = (1 << 18,)


def test_an_array_is_handed_out_again_only_when_nothing_refers_to_it() -> None:
    a = scratch.empty(BIG, np.float32)
    b = scratch.empty(BIG, np.float32)
    assert a is not b
    address = a.__array_interface__["data"][0]
    view = a[:10]
    del a
    c = scratch.empty(BIG, np.float32)  # the view still holds the first array
    assert c.__array_interface__["data"][0] != address and c is not b
    del view
    d = scratch.empty(BIG, np.float32)
    assert d.__array_interface__["data"][0] == address  # now free: the same memory again


def test_small_arrays_are_left_to_the_allocator() -> None:
    """Below the pool's size the heap reuses blocks anyway: nothing is kept (which would only hold memory)."""
    a = scratch.empty((16,), np.float32)
    assert a.shape == (16,) and a.dtype == np.float32
    assert ((16,), np.dtype(np.float32).str) not in scratch._POOL.arrays


def test_launches_reusing_their_temporaries_compute_what_fresh_ones_would() -> None:
    """Launches in a row over one NDRange large enough for the pool, with fresh data each: none may see an earlier
    one's values through a recycled array (the guard leaves the tail as it was: zeros)."""
    src = """__kernel void k(__global const float* a, __global const float* b, __global float* c, const int n) {
    const int i = get_global_id(0);
    const float s = a[i] * 2.0f + b[i];
    if (i < n) c[i] = s - (float)i;
}"""
    program = compile_source(src)
    rng = np.random.default_rng(11)
    n = 150_016
    geo = Geometry((n, 1, 1), (64, 1, 1))
    for _ in range(3):
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        c = np.zeros(n, np.float32)
        run_kernel(program, "k", [a.view(np.uint8), b.view(np.uint8), c.view(np.uint8), n - 7], geo)
        expected = (a.astype(np.float64) * 2 + b - np.arange(n)).astype(np.float32)
        expected[n - 7 :] = 0
        np.testing.assert_allclose(c, expected, rtol=1e-6, atol=1e-5)
