"""Atomic read-modify-writes of one lockstep step, applied in lane order.

All lanes of a launch issue an atomic at once; real hardware serializes the ones that hit one address in some
order. The simulator's order is the lane order (work-group by work-group), so results are deterministic and the
old value each lane sees is the one that order gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.ctype import CType

__all__ = ["apply_atomic", "stable_order"]

Array = NDArray[Any]


def apply_atomic(op: str, view: Array, idx: Array, ops: list[Array], t: CType) -> Array:
    """Apply an atomic to ``view[idx[k]]`` for k in lane order; return the old value each lane saw."""
    dtype = t.dtype
    n = idx.size
    order = stable_order(idx, view.size)
    iv = idx[order]  # lanes sorted by address, in lane order within an address: one run of lanes per address
    boundary = np.ones(n, dtype=bool)
    np.not_equal(iv[1:], iv[:-1], out=boundary[1:])
    starts = boundary.nonzero()[0]
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:] - 1
    ends[-1:] = n - 1
    lengths = ends - starts + 1
    run = np.repeat(np.arange(starts.size), lengths)  # each sorted lane's run
    first = np.zeros(n, dtype=bool)
    first[starts] = True
    old_sorted = np.empty(n, dtype=dtype)
    with np.errstate(over="ignore"):
        if op in ("add", "sub", "inc", "dec", "xor"):
            if op in ("inc", "dec"):
                vv = np.full(n, 1 if op == "inc" else -1).astype(dtype)
            else:
                vv = ops[0][order].astype(dtype)
                if op == "sub":
                    vv = (-vv.astype(np.int64)).astype(dtype) if dtype.kind == "i" else (~vv + dtype.type(1))
            init = view[iv]
            if op == "xor":
                cs = np.bitwise_xor.accumulate(vv)
                excl = cs ^ vv
                old_sorted = init ^ excl ^ excl[starts][run]
                new_sorted = old_sorted ^ vv
            else:
                cs = np.cumsum(vv, dtype=dtype)
                excl = (cs - vv).astype(dtype)
                old_sorted = (init + (excl - excl[starts][run])).astype(dtype)
                new_sorted = (old_sorted + vv).astype(dtype)
            view[iv] = new_sorted  # the last lane of each address writes the final value
        elif op == "cmpxchg":
            cmp = ops[0][order].astype(dtype)
            val = ops[1][order].astype(dtype)
            pending = np.ones(n, dtype=bool)
            position = np.arange(n)
            while pending.any():
                cur = view[iv]
                match = pending & (cmp == cur)
                pos = np.flatnonzero(match)
                winner = np.full(starts.size, n, dtype=np.int64)  # first matching lane of each run
                if pos.size:
                    np.minimum.at(winner, run[pos], pos)
                done = pending & (position <= winner[run])
                old_sorted[done] = cur[done]
                winners = pos[winner[run[pos]] == pos] if pos.size else pos
                view[iv[winners]] = val[winners]
                pending &= ~done
        else:  # xchg, min, max, and, or: a scan within each address's run of lanes
            vv = ops[0][order].astype(dtype)
            init = view[iv[starts]]
            if op == "xchg":
                old_sorted[1:] = vv[:-1]
                old_sorted[starts] = init
                final = vv[ends]
            else:
                fn = {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or}[op]
                running = _segmented_scan(fn, vv, np.arange(n) - starts[run])  # through lane k, old value aside
                old_sorted[:] = init[run]
                later = ~first
                old_sorted[later] = fn(init[run[later]], running[np.flatnonzero(later) - 1])
                final = fn(init, running[ends])
            view[iv[starts]] = final
    old = np.empty(n, dtype=dtype)
    old[order] = old_sorted
    return old


def stable_order(idx: Array, size: int) -> Array:
    """``np.argsort(idx, kind="stable")`` of element indices below ``size``: NumPy radix-sorts 16-bit keys (0.6 ms
    for 65,536 lanes, where a stable sort of int64 keys takes 3.4 ms), so indices are sorted 16 bits at a time,
    least significant first, for memory of up to 2**32 elements."""
    if size <= 1 << 16:
        return np.argsort(idx.astype(np.uint16), kind="stable")
    if size <= 1 << 32:
        low = np.argsort((idx & 0xFFFF).astype(np.uint16), kind="stable")
        return low[np.argsort((idx[low] >> 16).astype(np.uint16), kind="stable")]
    return np.argsort(idx, kind="stable")


def _segmented_scan(fn: np.ufunc, values: Array, reach: Array) -> Array:
    """``fn``'s inclusive scan of ``values`` within runs, ``reach[k]`` being how far lane k's run goes back: the
    Hillis-Steele doubling scan, log2(longest run) vectorized passes."""
    out = values.copy()
    d = 1
    while d <= int(reach.max(initial=0)):
        take = np.flatnonzero(reach[d:] >= d) + d
        out[take] = fn(out[take - d], out[take])  # the right side reads the previous pass: fancy indexing copies
        d *= 2
    return out
