"""What each collective computes (``docs/collectives.md``), in NumPy: the one definition every backend uses.

Reductions follow the ops' rules (``docs/numerics.md``): float16, bfloat16 and float8 accumulate in float32 and
round once to the tensor's dtype, float32 in float32, float64 in float64; integers accumulate exactly (int64) and
wrap to their width. Inputs are combined in the order of the call's list. ``avg`` is the sum divided by the
number of devices (floating-point dtypes only).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)


def accumulator(dtype: np.dtype) -> np.dtype:
    """The dtype a reduction of ``dtype`` accumulates in."""
    if dtype == _F64:
        return _F64
    if dtype.kind in "iu":
        return np.dtype(np.int64)
    return _F32


def reduce(arrays: Sequence[np.ndarray], op: str, dtype: np.dtype) -> np.ndarray:
    """``op`` (sum, prod, max, min, avg) over ``arrays`` elementwise, rounded once to ``dtype``."""
    acc = accumulator(dtype)
    with np.errstate(all="ignore"):  # IEEE results (overflow is inf), as on hardware
        total = np.array(arrays[0], dtype=acc, copy=True)
        for a in arrays[1:]:
            x = a.astype(acc)
            if op in ("sum", "avg"):
                total += x
            elif op == "prod":
                total *= x
            elif op == "max":
                np.maximum(total, x, out=total)
            elif op == "min":
                np.minimum(total, x, out=total)
            else:
                raise ValueError(f"unknown reduction {op!r}")
        if op == "avg":
            total = total / acc.type(len(arrays))
        return total.astype(dtype, casting="unsafe")


def _blocks(a: np.ndarray, n: int) -> list[np.ndarray]:
    return np.split(a, n, axis=0) if a.ndim else [a] * n


def results(kind: str, inputs: Sequence[np.ndarray], op: str = "sum", root: int = 0) -> list[np.ndarray]:
    """Each participant's output of collective ``kind`` from the inputs, one per participant in list order:
    all_reduce: the reduction; reduce_scatter: block ``i`` (along axis 0) of the reduction; all_gather: the inputs
    concatenated along axis 0; broadcast: input ``root``; all_to_all: block ``i`` of every input, in order."""
    n = len(inputs)
    dtype = inputs[0].dtype
    if kind == "all_reduce":
        r = reduce(inputs, op, dtype)
        return [r.copy() for _ in range(n)]
    if kind == "reduce_scatter":
        return [b.copy() for b in _blocks(reduce(inputs, op, dtype), n)]
    if kind == "all_gather":
        gathered = np.concatenate([np.atleast_1d(a) for a in inputs], axis=0)
        return [gathered.copy() for _ in range(n)]
    if kind == "broadcast":
        return [np.array(inputs[root], copy=True) for _ in range(n)]
    if kind == "all_to_all":
        blocks = [_blocks(a, n) for a in inputs]
        return [np.concatenate([blocks[i][j] for i in range(n)], axis=0) for j in range(n)]
    raise ValueError(f"unknown collective {kind!r}")
