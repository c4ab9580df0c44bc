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

__all__ = ["apply_atomic"]

Array = NDArray[Any]


def apply_atomic(op: str, view: Array, idx: Array, ops: list[Array], t: CType) -> Array:
    """Apply an atomic to ``view[idx[k]]`` for k in lane order; return the old value each lane saw."""
    dtype = t.dtype
    n = idx.size
    order = np.argsort(idx, kind="stable")
    iv = idx[order]
    starts = np.flatnonzero(np.r_[True, iv[1:] != iv[:-1]])
    unique = starts.size == n
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
                seg = np.repeat(excl[starts], np.diff(np.r_[starts, n]))
                old_sorted = init ^ excl ^ seg
                new_sorted = old_sorted ^ vv
            else:
                cs = np.cumsum(vv, dtype=dtype)
                excl = (cs - vv).astype(dtype)
                seg = np.repeat(excl[starts], np.diff(np.r_[starts, n]))
                old_sorted = (init + (excl - seg)).astype(dtype)
                new_sorted = (old_sorted + vv).astype(dtype)
            view[iv] = new_sorted  # the last lane of each address writes the final value
        elif unique and op != "cmpxchg":
            init = view[iv]
            vv = ops[0][order].astype(dtype)
            old_sorted = init
            if op == "xchg":
                view[iv] = vv
            else:
                fn = {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or}[op]
                view[iv] = fn(init, vv)
        elif op == "cmpxchg":
            cmp = ops[0][order].astype(dtype)
            val = ops[1][order].astype(dtype)
            pending = np.ones(n, dtype=bool)
            seg_id = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, n]))
            while pending.any():
                cur = view[iv]
                match = pending & (cmp == cur)
                pos = np.flatnonzero(match)
                first = np.full(starts.size, n, dtype=np.int64)
                if pos.size:
                    np.minimum.at(first, seg_id[pos], pos)
                limit = first[seg_id]
                position = np.arange(n)
                done = pending & (position <= limit)
                old_sorted[done] = cur[done]
                winners = pos[first[seg_id[pos]] == pos] if pos.size else pos
                view[iv[winners]] = val[winners]
                pending &= ~done
        else:  # xchg, min, max, and, or where lanes share an address: a scan within each address's run of lanes
            vv = ops[0][order].astype(dtype)
            init = view[iv[starts]]
            if op == "xchg":
                old_sorted[1:] = vv[:-1]
                old_sorted[starts] = init
                final = vv[np.r_[starts[1:], n] - 1]
            else:
                fn = {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or}[op]
                running = _segmented_scan(fn, vv, starts)  # through lane k of the run, without the old value
                first = np.zeros(n, dtype=bool)
                first[starts] = True
                seg = np.cumsum(first) - 1
                old_sorted[:] = init[seg]
                later = ~first
                old_sorted[later] = fn(init[seg[later]], running[np.flatnonzero(later) - 1])
                final = fn(init, running[np.r_[starts[1:], n] - 1])
            view[iv[starts]] = final
    old = np.empty(n, dtype=dtype)
    old[order] = old_sorted
    return old


def _segmented_scan(fn: np.ufunc, values: Array, starts: Array) -> Array:
    """``fn``'s inclusive scan of ``values`` restarted at each index in ``starts`` (which begins with 0): the
    Hillis-Steele doubling scan, log2(longest run) vectorized passes."""
    n = values.size
    lengths = np.diff(np.r_[starts, n])
    run_start = np.repeat(starts, lengths)
    reach = np.arange(n) - run_start  # how far back this lane's run goes
    out = values.copy()
    d = 1
    while d < int(lengths.max()):
        take = np.flatnonzero(reach[d:] >= d) + d
        out[take] = fn(out[take - d], out[take])  # the right side reads the previous pass: fancy indexing copies
        d *= 2
    return out
