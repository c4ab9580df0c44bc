"""SPEC 3.6.1 and 3.7 operations.

Each validates on the host, allocates its output and enqueues one kernel in ``stream``'s order (the context's
default stream when none is given), returning at once; results are valid after synchronization
(``Tensor.numpy()`` synchronizes). Layout ops that can be views are views: no kernel, no device time.
"""

from wia_hal.ops.assign import copy_into
from wia_hal.ops.attention import scaled_dot_product_attention
from wia_hal.ops.common import explain
from wia_hal.ops.elementwise import add, gelu, mul, relu, sigmoid
from wia_hal.ops.indexing import embedding, gather
from wia_hal.ops.layout import concat, reshape, slice, transpose
from wia_hal.ops.linalg import batch_matmul, matmul, matmul_optimized
from wia_hal.ops.nn import batch_norm, conv2d, pool2d
from wia_hal.ops.norms import layer_norm, rms_norm
from wia_hal.ops.reductions import max, softmax, sum

__all__ = [
    "add",
    "batch_matmul",
    "batch_norm",
    "concat",
    "conv2d",
    "copy_into",
    "embedding",
    "explain",
    "gather",
    "gelu",
    "layer_norm",
    "matmul",
    "matmul_optimized",
    "max",
    "mul",
    "pool2d",
    "relu",
    "reshape",
    "rms_norm",
    "scaled_dot_product_attention",
    "sigmoid",
    "slice",
    "softmax",
    "sum",
    "transpose",
]
