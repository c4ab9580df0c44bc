"""What any lockstep NumPy executor must spend on a kernel: a floor under issue 16's ratio target.

The simulator runs a kernel's work-items at once, one NumPy array per private variable, and a loop until its last
work-item leaves it (DESIGN.md, the custom-kernel executor). Each function here is a corpus kernel written by hand in
that form, as lean as NumPy allows: every work-item of the launch at once, the loops lockstep with the lanes that left
dropped from the arrays (not masked: fewer elements per operation), a work-group's ``__local`` array one row of a
2-D array, and nothing else: no checks, no operation counts, no statement dispatch, no launch. Each is held to its
case's reference before it is timed (``benchmarks/kernels.py``, part 3).

Where a kernel's floor is itself over 30x PoCL's time, no executor of this design meets the target on it, however
little it spends beyond the floor; where the floor is far below, the rest is the executor's overhead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from tests.kernels import corpus

Floor = Callable[[Mapping[str, np.ndarray | int | float]], dict[str, np.ndarray]]
_U1 = np.uint32(1)


def collatz_steps(v: np.ndarray) -> np.ndarray:
    """Each lane's steps to 1. A step without a branch (``x >> 1``, plus ``3x + 1 - (x >> 1)`` where x is odd: a
    random low bit is what ``np.where`` mispredicts); the lanes that reached 1 counted out by a mask and dropped from
    the arrays once a quarter of them has (each drop is a gather per array, which every trip would pay)."""
    steps = np.zeros(v.size, np.int32)
    lanes = np.flatnonzero(v != _U1)
    x, s = v[lanes], np.zeros(lanes.size, np.int32)
    live = np.ones(lanes.size, bool)
    while lanes.size:
        half = x >> _U1
        x = half + (x & _U1) * (x * np.uint32(3) + _U1 - half)  # (uint32 wraps as the kernel's does)
        s += live
        live &= x != _U1
        going = int(np.count_nonzero(live))
        if going <= 3 * lanes.size // 4:  # (a lane that reached 1 cycles 4, 2, 1 uncounted until then)
            steps[lanes[~live]] = s[~live]
            lanes, x, s = lanes[live], x[live], s[live]
            live = np.ones(lanes.size, bool)
    return steps


def _gcd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = a.copy()
    lanes = np.flatnonzero(b != 0)
    x, y = a[lanes], b[lanes]
    while lanes.size:
        x, y = y, x % y
        done = y == 0
        if done.any():
            out[lanes[done]] = x[done]
            going = ~done
            lanes, x, y = lanes[going], x[going], y[going]
    return out


def _digit_sum(v: np.ndarray) -> np.ndarray:
    s = np.zeros(v.size, np.int32)
    lanes = np.arange(v.size)
    x = v.copy()
    while lanes.size:  # a do-while: every lane's first trip
        s[lanes] += (x % np.uint32(10)).astype(np.int32)
        x //= np.uint32(10)
        going = x != 0
        if not going.all():
            lanes, x = lanes[going], x[going]
    return s


def _first_above(v: np.ndarray, start: np.ndarray, length: int, total: int, limit: int) -> np.ndarray:
    found = np.full(start.size, -1, np.int32)
    lanes = np.arange(start.size)
    for j in range(length):
        at = start[lanes] + j
        inside = at < total
        w = v[np.minimum(at, total - 1)]
        stop = ~inside | (w == 0)
        hit = inside & (w > limit)
        found[lanes[hit]] = j
        going = ~(stop | hit)
        lanes = lanes[going]
        if not lanes.size:
            break
    return found


def control_flow(args: Mapping[str, np.ndarray | int | float]) -> dict[str, np.ndarray]:
    """``control_flow.cl``: four helpers with data-dependent loops, one row of five per work-item."""
    n = int(args["n"])
    a, b = np.asarray(args["a"])[:n], np.asarray(args["b"])[:n]
    out = np.empty((n, 5), np.int32)
    out[:, 0] = collatz_steps(a)
    out[:, 1] = _gcd(a, b).view(np.int32)
    out[:, 2] = _digit_sum(a * np.uint32(7919) + b)
    out[:, 3] = _first_above(np.asarray(args["v"]), np.arange(n), 8, n, int(args["limit"]))
    out[:, 4] = np.where(a > b, 1, np.where(a == b, 0, -1))
    return {"out": out}


def _tree_argmax(best: np.ndarray, where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A work-group per row: the halving tree of ``reduce_max.cl`` and ``struct_local_argmax.cl`` (the larger
    value, the smaller index on a tie), each step one operation per array over the rows' active halves."""
    offset = best.shape[1] // 2
    while offset:
        mine, other = best[:, :offset], best[:, offset : 2 * offset]
        mine_at, other_at = where[:, :offset], where[:, offset : 2 * offset]
        take = (other > mine) | ((other == mine) & (other_at < mine_at))
        np.copyto(mine, other, where=take)
        np.copyto(mine_at, other_at, where=take)
        offset //= 2
    return best[:, 0], where[:, 0]


def reduce_max(args: Mapping[str, np.ndarray | int | float]) -> dict[str, np.ndarray]:
    """``reduce_max.cl``: a work-group's maximum and its first index, a tree in two ``__local`` arrays."""
    x, n, wg = np.asarray(args["x"]), int(args["n"]), 128
    groups = -(-n // wg)
    best = np.full(groups * wg, -np.inf, np.float32)
    best[:n] = x[:n]
    where = np.full(groups * wg, n, np.int32)
    where[:n] = np.arange(n)
    value, at = _tree_argmax(best.reshape(groups, wg), where.reshape(groups, wg))
    return {"group_max": value.copy(), "group_arg": at.copy()}


def struct_local_argmax(args: Mapping[str, np.ndarray | int | float]) -> dict[str, np.ndarray]:
    """``struct_local_argmax.cl``: the same tree on an array of (value, index) structs."""
    x, n, wg = np.asarray(args["x"]), int(args["n"]), 64
    groups = -(-n // wg)
    value = np.full(groups * wg, -np.inf, np.float32)
    value[:n] = x[:n]
    index = np.arange(groups * wg, dtype=np.int32)
    best, where = _tree_argmax(value.reshape(groups, wg), index.reshape(groups, wg))
    return {"best": best.copy(), "where": where.copy()}


def struct_nested_private(args: Mapping[str, np.ndarray | int | float]) -> dict[str, np.ndarray]:
    """``struct_nested_private.cl``: per row a count, the two smallest values and two sums, over twelve trips."""
    rows, width = int(args["rows"]), 12
    x = np.asarray(args["x"]).reshape(rows, width)
    positive = np.zeros(rows, np.int32)
    low0 = np.full(rows, np.inf, np.float32)
    low1 = np.full(rows, np.inf, np.float32)
    total = np.zeros(rows, np.float32)
    squares = np.zeros(rows, np.float32)
    for k in range(width):
        v = x[:, k]
        positive += v > 0
        below0 = v < low0
        below1 = ~below0 & (v < low1)
        low1 = np.where(below0, low0, np.where(below1, v, low1))
        low0 = np.where(below0, v, low0)
        total += v
        squares += v * v
    out = np.stack([positive.astype(np.float32), low0, low1, total, squares], axis=1)
    return {"out": out}


def async_float4_axpy(args: Mapping[str, np.ndarray | int | float]) -> dict[str, np.ndarray]:
    """``async_float4_axpy.cl``: blocks of 32 float4 copied in, updated and copied back, four groups striding over
    them: a trip of the grid-stride loop is four blocks at once."""
    n, a, wg, groups = int(args["n"]), np.float32(args["a"]), 32, 4
    x, y = np.asarray(args["x"]), np.asarray(args["y"]).copy()
    tag = np.empty((n, 4), np.int32)
    for first in range(0, n, wg * groups):
        trip = slice(first, min(first + wg * groups, n))
        y[trip] = a * x[trip] + y[trip]
        element = np.arange(trip.start, trip.stop)
        start = element // wg * wg
        tag[trip] = np.stack([element, start // wg % groups, np.minimum(wg, n - start), start - element], axis=1)
    return {"y": y, "tag": tag}


FLOORS: dict[str, Floor] = {
    "control_flow": control_flow,
    "reduce_max": reduce_max,
    "struct_local_argmax": struct_local_argmax,
    "struct_nested_private": struct_nested_private,
    "async_float4_axpy": async_float4_axpy,
}
"""The corpus kernels with a floor: the worst ratios to PoCL of the corpus at the end of stop 59 (control flow,
``__local`` trees, private structs, async copies)."""


def arguments(launch: corpus.Launch) -> dict[str, np.ndarray | int | float]:
    """The launch's arguments as a floor takes them: buffers as arrays (copies: a floor may write them), scalars
    as numbers."""
    values: dict[str, np.ndarray | int | float] = {}
    for name, arg in launch.args.items():
        if isinstance(arg, corpus.Buffer):
            values[name] = arg.array.copy()
        elif isinstance(arg, corpus.Scalar):
            values[name] = arg.numpy().item()
    return values
