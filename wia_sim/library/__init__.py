"""The machine's built-in kernels: for each op, how it computes (NumPy, rounding like hardware) and what it costs.

An op is an :class:`OpSpec`: ``cost(model, inputs, output, attrs)`` gives the kernel's :class:`KernelCost` from
shapes and dtypes alone (so timing-only runs cost the same), and ``compute(arrays, attrs, out_dtype)`` gives the
result from NumPy views of the inputs, read when the kernel starts. The result is rounded once into the output.
"""

from __future__ import annotations

from wia_sim.library.attention import ATTENTION_OPS
from wia_sim.library.conv import CONV_OPS
from wia_sim.library.elementwise import ELEMENTWISE_OPS
from wia_sim.library.indexing import INDEXING_OPS
from wia_sim.library.layout import LAYOUT_OPS
from wia_sim.library.math import MATH_OPS
from wia_sim.library.matmul import MATMUL_OPS
from wia_sim.library.nn import NN_OPS
from wia_sim.library.norms import NORM_OPS
from wia_sim.library.reductions import REDUCTION_OPS
from wia_sim.library.spec import Attrs, Operand, OpSpec

OPS: dict[str, OpSpec] = {
    spec.name: spec
    for group in (
        ELEMENTWISE_OPS,
        MATH_OPS,
        REDUCTION_OPS,
        LAYOUT_OPS,
        MATMUL_OPS,
        CONV_OPS,
        NN_OPS,
        NORM_OPS,
        INDEXING_OPS,
        ATTENTION_OPS,
    )
    for spec in group
}

__all__ = ["OPS", "Attrs", "OpSpec", "Operand"]
