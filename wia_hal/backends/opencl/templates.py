"""OpenCL C sources of the built-in ops: one template per family, specialised per data type.

- Data types (:class:`CType`): how a buffer stores an element and the type an op computes in. float16 is stored as
  ``half`` and read and written with ``vload_half``/``vstore_half_rte``, which are core OpenCL (no ``cl_khr_fp16``
  needed: that extension is for ``half`` arithmetic, which no op uses); bfloat16 is a ``ushort`` shifted into a
  float and rounded back to nearest even (NaN kept); bool is a ``uchar`` 0/1; int8/int32 compute in ``int`` and wrap
  through ``uint`` (signed overflow is undefined in OpenCL C). float16/bfloat16 compute in float and round once
  when stored; float64 computes in double.
- Index math: a tensor is (buffer, element offset, shape, element strides); kernels decompose a linear index over
  up to :data:`MAX_RANK` dimensions passed as ``long8`` vectors, so one kernel serves every rank and layout.
- Families: ``map`` (fill, copy, the element-wise ops and casts, batch_norm: one work-item per output element),
  ``reduce`` (sum, max: a work-group per output element, tree reduction in ``__local`` memory), ``softmax`` (a
  work-group per row; ``layer_norm`` and ``rms_norm`` too), ``gather`` (one work-item per output element),
  ``matmul`` (square ``__local`` tiles), ``conv2d`` (direct), ``pool2d``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_RANK = 8
"""Dimensions a kernel indexes itself (``long8``); the host splits off leading dimensions beyond it."""


@dataclass(frozen=True)
class CType:
    """An element type as kernels see it: ``storage`` in buffers, ``compute`` in registers, and C templates to load
    (``{p}``: pointer, ``{i}``: element index) and store (``{v}``: a value of the compute type)."""

    name: str
    storage: str
    compute: str
    load_: str
    store_: str
    lowest: str
    kind: str  # "float", "int", "bool" or "raw" (bits, for copies and fills)

    def load(self, p: str, i: str) -> str:
        return self.load_.format(p=p, i=i)

    def store(self, p: str, i: str, v: str) -> str:
        return self.store_.format(p=p, i=i, v=v)


def _plain(name: str, c: str, lowest: str, kind: str) -> CType:
    return CType(name, c, c, "{p}[{i}]", "{p}[{i}] = ({v})", lowest, kind)


CTYPES: dict[str, CType] = {
    "float32": _plain("float32", "float", "-INFINITY", "float"),
    "float64": _plain("float64", "double", "-(double)INFINITY", "float"),
    "float16": CType(
        "float16", "half", "float", "vload_half({i}, {p})", "vstore_half_rte({v}, {i}, {p})", "-INFINITY", "float"
    ),
    "bfloat16": CType(
        "bfloat16", "ushort", "float", "bf16_to_float({p}[{i}])", "{p}[{i}] = float_to_bf16({v})", "-INFINITY", "float"
    ),
    "int8": CType("int8", "char", "int", "(int){p}[{i}]", "{p}[{i}] = as_char((uchar)({v}))", "-128", "int"),
    "int32": CType("int32", "int", "int", "{p}[{i}]", "{p}[{i}] = as_int((uint)({v}))", "INT_MIN", "int"),
    "bool": CType("bool", "uchar", "int", "(int)({p}[{i}] != 0)", "{p}[{i}] = (uchar)(({v}) != 0)", "0", "bool"),
}
"""Every WIA data type by NumPy name."""

RAW: dict[int, CType] = {
    size: _plain(f"raw{size}", c, "0", "raw") for size, c in ((1, "uchar"), (2, "ushort"), (4, "uint"), (8, "ulong"))
}
"""Element bits by item size: copies and fills move bits, so NaN payloads and -0.0 survive."""


def prelude(fp64: bool) -> str:
    """What every op program starts with: exact float32 arithmetic (no contraction into FMA), double where the
    device has it, bfloat16 conversions and the operand roundings of matmul and conv2d."""
    double = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define WIA_FP64 1\n" if fp64 else ""
    return (
        double
        + r"""#pragma OPENCL FP_CONTRACT OFF

inline float bf16_to_float(ushort h) { return as_float(((uint)h) << 16); }

inline ushort float_to_bf16(float f) {
    uint u = as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);  /* NaN stays a (quiet) NaN */
    return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);                  /* to nearest, ties to even */
}

/* matmul/conv2d operands as the arithmetic reads them: rounded to nearest, ties to even */
inline float round_tf32(float x) {
    uint u = as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u) return x;
    return as_float((u + 0x0fffu + ((u >> 13) & 1u)) & 0xffffe000u);
}

inline float round_f16(float x) {
    ushort h;
    vstore_half_rte(x, 0, (half *)&h);
    return vload_half(0, (const half *)&h);
}

inline float round_bf16(float x) { return bf16_to_float(float_to_bf16(x)); }

/* float8 e4m3fn as ml_dtypes rounds: no infinities (inf and overflow past 464 are NaN), subnormals from 2^-9 */
inline float round_fp8(float x) {
    if (isnan(x) || isinf(x)) return NAN;
    float a = fabs(x), r;
    if (a < 0x1p-6f) {
        r = rint(a * 512.0f) * 0x1p-9f;
    } else {
        uint u = as_uint(a);
        r = as_float((u + 0x7ffffu + ((u >> 20) & 1u)) & 0xfff00000u);
    }
    return r > 448.0f ? NAN : copysign(r, x);
}

#define MAX_NAN(a, b) ((isnan(b) || (b) > (a)) ? (b) : (a))

inline float sigmoid_f(float x) { float e = exp(-fabs(x)); return x >= 0 ? 1 / (1 + e) : e / (1 + e); }
inline float silu_f(float x) { float e = exp(-fabs(x)); return x >= 0 ? x / (1 + e) : x * e / (1 + e); }
inline float gelu_tanh_f(float x) {
    float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return x / (1 + exp(-2 * u));
}
#ifdef WIA_FP64
inline double sigmoid_d(double x) { double e = exp(-fabs(x)); return x >= 0 ? 1 / (1 + e) : e / (1 + e); }
inline double silu_d(double x) { double e = exp(-fabs(x)); return x >= 0 ? x / (1 + e) : x * e / (1 + e); }
inline double gelu_tanh_d(double x) {
    double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
    return x / (1 + exp(-2 * u));
}
inline double gelu_erf_d(double x) { return 0.5 * x * erfc(-x * M_SQRT1_2); }
inline float gelu_erf_f(float x) { return (float)gelu_erf_d((double)x); }
#else
inline float gelu_erf_f(float x) { return 0.5f * x * erfc(-x * M_SQRT1_2_F); }
#endif
"""
    )


def _decompose(index: str, rank: str, shape: str, walks: Sequence[tuple[str, str]]) -> str:
    """C statements turning linear ``index`` (consumed) into offsets: for each ``(offset, strides)`` of ``walks``,
    ``offset += i[d] * strides.s<d>`` over the first ``rank`` dimensions of ``shape`` (the last one fastest)."""
    lines = []
    for d in reversed(range(MAX_RANK)):
        adds = " ".join(f"{off} += q * {st}.s{d};" for off, st in walks)
        lines.append(f"    if ({rank} > {d}) {{ long q = {index} % {shape}.s{d}; {index} /= {shape}.s{d}; {adds} }}")
    return "\n".join(lines)


# -- map: one work-item per output element ---------------------------------------------------------------------------


def map_source(
    name: str, out: CType, inputs: Sequence[CType], expr: str, scalars: Sequence[tuple[str, str]] = ()
) -> str:
    """Kernel ``name``: ``out[i] = expr`` over the output's elements, ``expr`` reading ``x0, x1, ...`` (the inputs
    at the same index, broadcast by zero strides, loaded in their compute types) and the ``(type, name)`` scalars.

    Arguments: ``out, out_off, (in_k, off_k)*, n, rank, shape, st_out, st_k*, scalars*``."""
    params = [f"__global {out.storage} *out", "long out_off"]
    for k, t in enumerate(inputs):
        params += [f"__global const {t.storage} *in{k}", f"long off{k}"]
    params += ["long n", "int rank", "long8 shape", "long8 st_out"]
    params += [f"long8 st{k}" for k in range(len(inputs))]
    params += [f"{t} {n}" for t, n in scalars]
    walks = [("o", "st_out")] + [(f"i{k}", f"st{k}") for k in range(len(inputs))]
    offsets = " ".join(f"long i{k} = off{k};" for k in range(len(inputs)))
    loads = "\n".join(f"    {t.compute} x{k} = {t.load(f'in{k}', f'i{k}')};" for k, t in enumerate(inputs))
    return f"""
__kernel void {name}({", ".join(params)}) {{
    long rem = get_global_id(0);
    if (rem >= n) return;
    long o = out_off; {offsets}
{_decompose("rem", "rank", "shape", walks)}
{loads}
    {out.store("out", "o", expr)};
}}
"""


def _compute_suffix(t: CType) -> str:
    return "d" if t.compute == "double" else "f"


def unary_expr(op: str, t: CType, approximate: str = "none") -> str:
    """The expression of a unary element-wise op on ``x0`` in ``t``'s compute type (float for float16/bfloat16,
    rounded once when stored): ``relu``, ``sigmoid``, ``gelu`` (erf or ``approximate="tanh"``), ``neg``, ``abs``
    or a floating-point function."""
    s = _compute_suffix(t)
    if op == "relu":
        return "x0" if t.kind == "bool" else f"(x0 < 0 ? ({t.compute})0 : x0)"  # NaN stays NaN
    if op == "sigmoid":
        return f"sigmoid_{s}(x0)"
    if op == "gelu":
        return f"gelu_tanh_{s}(x0)" if approximate == "tanh" else f"gelu_erf_{s}(x0)"
    if op == "neg":
        return "as_int(0u - (uint)x0)" if t.name == "int32" else "(-x0)"
    if op == "abs":
        if t.kind == "bool":
            return "x0"
        return "as_int(abs(x0))" if t.kind == "int" else "fabs(x0)"  # abs(INT_MIN) wraps to INT_MIN
    one = "1.0" if t.compute == "double" else "1.0f"
    return {
        "exp": "exp(x0)",
        "log": "log(x0)",
        "sqrt": "sqrt(x0)",
        "rsqrt": f"({one} / sqrt(x0))",  # OpenCL's rsqrt may err by 2 ulp; this is two correctly rounded steps
        "tanh": "tanh(x0)",
        "silu": f"silu_{s}(x0)",
    }[op]


def binary_expr(op: str, t: CType, a: str = "x0", b: str = "x1") -> str:
    """``op`` of ``a`` and ``b`` (values in ``t``'s compute type: inputs or scalar arguments): arithmetic (bool
    ``add``/``maximum`` or, ``mul``/``minimum`` and; int32 wrapping through uint; maximum/minimum propagate NaN) or a
    comparison (0 or 1, stored as bool)."""
    if op in COMPARISONS:
        return f"({a} {COMPARISONS[op]} {b})"
    if t.kind == "bool":
        return f"({a} | {b})" if op in ("add", "maximum") else f"({a} & {b})"
    if op in ("maximum", "minimum"):
        wins = ">" if op == "maximum" else "<"
        if t.kind == "int":
            return f"({a} {wins} {b} ? {a} : {b})"
        return f"((isnan({a}) || {a} {wins} {b}) ? {a} : {b})"  # NaN of either operand propagates
    symbol = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[op]
    if t.name == "int32":
        return f"as_int((uint){a} {symbol} (uint){b})"
    return f"({a} {symbol} {b})"  # int8 cannot overflow an int; floats in their compute type


COMPARISONS = {"equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">="}
"""The comparison ops as C operators (IEEE: every comparison with NaN is false but ``!=``)."""


def cast_expr(src: CType, dst: CType) -> str:
    """``x0`` of ``src``'s compute type converted for ``dst``'s store: C's conversions (floats to integers truncate
    toward zero; to bool the store takes ``!= 0``; to a narrower float the store rounds to nearest even, double to
    bfloat16 through float)."""
    if dst.kind == "bool" or src.compute == dst.compute or (src.kind == dst.kind == "float"):
        return "x0"  # a float stays wide until the store rounds it once (double to half directly)
    return f"({dst.compute})x0"  # to an int first, then the store wraps (a float to uchar would be undefined)


WHERE_EXPR = "(x0 ? {x} : {y})"
"""``where`` as a map over the bool condition ``x0`` and the two choices (inputs or scalar arguments)."""


BATCH_NORM_EXPR = "(x0 - x3) * (x1 / sqrt(x4 + eps)) + x2"
"""``batch_norm`` as a map over ``x, scale, bias, mean, variance`` (the parameters broadcast along axis 1)."""


# -- reductions: a work-group per output element ----------------------------------------------------------------------


def reduce_source(op: str, x: CType, out: CType) -> str:
    """``sum`` or ``max`` of ``x`` over the reduced dimensions into ``out``: group ``g`` makes output element ``g``;
    its work-items stride over the ``k`` reduced elements, then halve a ``__local`` array (size a power of 2).
    Sums of int8/int32/bool accumulate in uint (int32 results, wrapping); other sums and all maxima in the compute
    type (float for float16/bfloat16)."""
    if op == "sum":
        acc = "uint" if x.kind in ("int", "bool") else x.compute
        init, combine = f"({acc})0", "(a) + (b)"
    else:
        acc = x.compute
        init = x.lowest
        combine = "(a) | (b)" if x.kind == "bool" else ("MAX_NAN(a, b)" if x.kind == "float" else "max(a, b)")
    return f"""
#define COMBINE(a, b) ({combine})
__kernel void {op}_reduce(__global {out.storage} *out, long out_off, __global const {x.storage} *x, long x_off,
                     int orank, long8 oshape, long8 ost_out, long8 ost_x,
                     long k, int rrank, long8 rshape, long8 rst_x, __local {acc} *scratch) {{
    long rem = get_group_id(0);
    int l = get_local_id(0), size = get_local_size(0);
    long o = out_off, xo = x_off;
{_decompose("rem", "orank", "oshape", [("o", "ost_out"), ("xo", "ost_x")])}
    {acc} a = {init};
    for (long j = l; j < k; j += size) {{
        long r = j, xi = xo;
{_decompose("r", "rrank", "rshape", [("xi", "rst_x")])}
        {acc} b = ({acc})({x.load("x", "xi")});
        a = COMBINE(a, b);
    }}
    scratch[l] = a;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = size >> 1; s > 0; s >>= 1) {{
        if (l < s) {{ {acc} b = scratch[l + s]; a = scratch[l]; scratch[l] = COMBINE(a, b); }}
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    if (l == 0) {{ {out.store("out", "o", "scratch[0]")}; }}
}}
"""


def softmax_source(t: CType) -> str:
    """``softmax`` along one axis: group ``g`` takes row ``g`` (the other dimensions), finds its maximum, sums
    ``exp(x - max)`` (both reduced in ``__local`` memory) and writes ``exp(x - max) / sum``, all in the compute
    type, rounded once."""
    c = t.compute
    return f"""
__kernel void softmax(__global {t.storage} *out, long out_off, __global const {t.storage} *x, long x_off,
                      int orank, long8 oshape, long8 ost_out, long8 ost_x,
                      long k, long kst_out, long kst_x, __local {c} *scratch) {{
    long rem = get_group_id(0);
    int l = get_local_id(0), size = get_local_size(0);
    long o = out_off, xo = x_off;
{_decompose("rem", "orank", "oshape", [("o", "ost_out"), ("xo", "ost_x")])}
    {c} m = {t.lowest};
    for (long j = l; j < k; j += size) {{ {c} v = {t.load("x", "xo + j * kst_x")}; m = MAX_NAN(m, v); }}
    scratch[l] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = size >> 1; s > 0; s >>= 1) {{
        if (l < s) {{ {c} a = scratch[l], b = scratch[l + s]; scratch[l] = MAX_NAN(a, b); }}
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    m = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    {c} total = 0;
    for (long j = l; j < k; j += size) total += exp({t.load("x", "xo + j * kst_x")} - m);
    scratch[l] = total;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = size >> 1; s > 0; s >>= 1) {{
        if (l < s) scratch[l] += scratch[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    total = scratch[0];
    for (long j = l; j < k; j += size) {{
        {c} e = exp({t.load("x", "xo + j * kst_x")} - m);
        {t.store("out", "o + j * kst_out", "e / total")};
    }}
}}
"""


# -- normalization and gather (docs/ops.md "Beyond the spec") --------------------------------------------------------


def _local_sum(total: str, value: str) -> str:
    """C statements: the work-group's sum of each work-item's ``value``, read by all into ``total``."""
    return f"""    scratch[l] = {value};
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = size >> 1; s > 0; s >>= 1) {{
        if (l < s) scratch[l] += scratch[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    {total} = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);"""


def norm_source(kind: str, t: CType, weight: bool, bias: bool) -> str:
    """``layer_norm`` or ``rms_norm`` of a row (the last axis) per work-group, like ``softmax``: ``layer_norm``
    sums the row for its mean, then the squares of the centred values for the biased variance (two passes: no
    cancellation), then writes ``(x - mean) / sqrt(var + eps) * w + b``; ``rms_norm`` sums the squares and writes
    ``x / sqrt(mean + eps) * w``. All in the compute type, rounded once."""
    c = t.compute
    params = [f"__global {t.storage} *out", "long out_off", f"__global const {t.storage} *x", "long x_off"]
    params += ["int orank", "long8 oshape", "long8 ost_out", "long8 ost_x", "long k", "long kst_out", "long kst_x"]
    if weight:
        params += [f"__global const {t.storage} *w", "long w_off", "long w_st"]
    if bias:
        params += [f"__global const {t.storage} *b", "long b_off", "long b_st"]
    params += [f"{c} eps", f"__local {c} *scratch"]
    v = t.load("x", "xo + j * kst_x")
    if kind == "layer_norm":
        stats = f"""    {c} part = 0, total;
    for (long j = l; j < k; j += size) part += {v};
{_local_sum("total", "part")}
    {c} mean = total / ({c})k;
    part = 0;
    for (long j = l; j < k; j += size) {{ {c} d = {v} - mean; part += d * d; }}
{_local_sum("total", "part")}
    {c} denom = sqrt(total / ({c})k + eps);"""
        value = "(" + v + " - mean) / denom"
    else:
        stats = f"""    {c} part = 0, total;
    for (long j = l; j < k; j += size) {{ {c} d = {v}; part += d * d; }}
{_local_sum("total", "part")}
    {c} denom = sqrt(total / ({c})k + eps);"""
        value = v + " / denom"
    if weight:
        value = f"({value}) * {t.load('w', 'w_off + j * w_st')}"
    if bias:
        value = f"({value}) + {t.load('b', 'b_off + j * b_st')}"
    return f"""
__kernel void {kind}({", ".join(params)}) {{
    long rem = get_group_id(0);
    int l = get_local_id(0), size = get_local_size(0);
    long o = out_off, xo = x_off;
{_decompose("rem", "orank", "oshape", [("o", "ost_out"), ("xo", "ost_x")])}
{stats}
    for (long j = l; j < k; j += size) {{ {c} y = {value}; {t.store("out", "o + j * kst_out", "y")}; }}
}}
"""


def gather_source(data: CType, index: CType) -> str:
    """``gather``: one work-item per output element, whose position decomposes into the offsets of ``out``, of
    ``a`` (the dimensions before and after the axis) and of ``indices`` (the index dimensions); the index, counted
    from the end when negative, picks the element along the axis; one outside ``[-n, n)`` stores zero bits.
    ``data`` is a raw type (the bits move unchanged)."""
    return f"""
__kernel void gather(__global {data.storage} *out, long out_off, __global const {data.storage} *a, long a_off,
                     __global const {index.storage} *idx, long idx_off, long n, int rank, long8 shape,
                     long8 st_out, long8 st_a, long8 st_idx, long axis_len, long axis_st) {{
    long rem = get_global_id(0);
    if (rem >= n) return;
    long o = out_off, ai = a_off, ii = idx_off;
{_decompose("rem", "rank", "shape", [("o", "st_out"), ("ai", "st_a"), ("ii", "st_idx")])}
    long j = (long){index.load("idx", "ii")};
    if (j < 0) j += axis_len;
    out[o] = (j >= 0 && j < axis_len) ? a[ai + j * axis_st] : ({data.storage})0;
}}
"""


# -- matmul and conv2d: operands rounded to the arithmetic, accumulated in its accumulator ----------------------------


@dataclass(frozen=True)
class Arithmetic:
    """How a matmul or convolution reads its operands (``operand``: a function of the loaded value) and
    accumulates (``acc``: type; ``mac``: ``acc + a * b`` as the arithmetic does it)."""

    operand_type: str
    operand: str
    acc: str
    mac: str


ARITHMETICS: dict[str, Arithmetic] = {
    "float32": Arithmetic("float", "{v}", "float", "{acc} + {a} * {b}"),
    "tf32": Arithmetic("float", "round_tf32({v})", "float", "{acc} + {a} * {b}"),
    "float16": Arithmetic("float", "round_f16({v})", "float", "{acc} + {a} * {b}"),
    "bfloat16": Arithmetic("float", "round_bf16({v})", "float", "{acc} + {a} * {b}"),
    "float8": Arithmetic("float", "round_fp8({v})", "float", "{acc} + {a} * {b}"),
    "int8": Arithmetic("int", "{v}", "uint", "{acc} + (uint)({a} * {b})"),
    "float64": Arithmetic("double", "{v}", "double", "{acc} + {a} * {b}"),
}
"""The arithmetics of ``docs/backend.md`` (int8 products fit an int; their sum wraps in uint)."""


def matmul_source(data: CType, out: CType, arithmetic: str, tile: int) -> str:
    """Batched ``out = a @ b`` with ``tile`` x ``tile`` work-groups, each staging a tile of ``a`` and of ``b`` in
    ``__local`` memory per step along K (operands rounded as they are staged). Group dimension 2 is the batch
    index, decomposed over the broadcast batch shape. Matrices are given by element strides, so transposed and
    1-D operands (a row / a column: a size-1 side) need no copy."""
    ar = ARITHMETICS[arithmetic]
    op = ar.operand_type

    def operand(ptr: str, index: str) -> str:
        return f"({op})({ar.operand.format(v=data.load(ptr, index))})"

    return f"""
__kernel __attribute__((reqd_work_group_size({tile}, {tile}, 1)))
void matmul(__global {out.storage} *out, long out_off, __global const {data.storage} *a, long a_off,
            __global const {data.storage} *b, long b_off, long M, long N, long K,
            long a_rs, long a_cs, long b_rs, long b_cs, long o_rs, long o_cs,
            int brank, long8 bshape, long8 a_bst, long8 b_bst, long8 o_bst) {{
    __local {op} As[{tile}][{tile}];
    __local {op} Bs[{tile}][{tile}];
    int tx = get_local_id(0), ty = get_local_id(1);
    long col = (long)get_group_id(0) * {tile} + tx, row = (long)get_group_id(1) * {tile} + ty;
    long rem = get_group_id(2), ao = a_off, bo = b_off, oo = out_off;
{_decompose("rem", "brank", "bshape", [("ao", "a_bst"), ("bo", "b_bst"), ("oo", "o_bst")])}
    {ar.acc} acc = 0;
    for (long t = 0; t < K; t += {tile}) {{
        long ka = t + tx, kb = t + ty;
        As[ty][tx] = (row < M && ka < K) ? {operand("a", "ao + row * a_rs + ka * a_cs")} : ({op})0;
        Bs[ty][tx] = (kb < K && col < N) ? {operand("b", "bo + kb * b_rs + col * b_cs")} : ({op})0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < {tile}; ++k) acc = {ar.mac.format(acc="acc", a="As[ty][k]", b="Bs[k][tx]")};
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    if (row < M && col < N) {{ {out.store("out", "oo + row * o_rs + col * o_cs", "acc")}; }}
}}
"""


def conv2d_source(data: CType, out: CType, bias: CType | None, arithmetic: str) -> str:
    """Direct cross-correlation, one work-item per output element (n, o, i, j): zero padding (a padded tap still
    multiplies its weight, as the padded input of the definition does), groups, stride, dilation, the bias added
    to the accumulator unrounded. Strides of x, w and out are the ``s0..s3`` of ``xs``, ``ws``, ``os``."""
    ar = ARITHMETICS[arithmetic]
    op = ar.operand_type

    def operand(ptr: str, index: str) -> str:
        return f"({op})({ar.operand.format(v=data.load(ptr, index))})"

    bias_params = f", __global const {bias.storage} *bias, long b_off, long b_st" if bias else ""
    add_bias = f"acc = acc + ({ar.acc})({bias.load('bias', 'b_off + o * b_st')});" if bias else ""
    return f"""
__kernel void conv2d(__global {out.storage} *out, long out_off, __global const {data.storage} *x, long x_off,
                     __global const {data.storage} *w, long w_off{bias_params},
                     long N, long O, long H, long W, long OH, long OW, long CG, long KH, long KW, long OG,
                     long8 xs, long8 ws, long8 os, long ph, long pw, long sh, long sw, long dh, long dw) {{
    long gid = get_global_id(0);
    if (gid >= N * O * OH * OW) return;
    long j = gid % OW, t = gid / OW;
    long i = t % OH; t /= OH;
    long o = t % O, n = t / O;
    long cbase = (o / OG) * CG;
    {ar.acc} acc = 0;
    for (long c = 0; c < CG; ++c) {{
        for (long p = 0; p < KH; ++p) {{
            long y = i * sh - ph + p * dh;
            for (long q = 0; q < KW; ++q) {{
                long z = j * sw - pw + q * dw;
                {op} xv = (y >= 0 && y < H && z >= 0 && z < W)
                    ? {operand("x", "x_off + n * xs.s0 + (cbase + c) * xs.s1 + y * xs.s2 + z * xs.s3")} : ({op})0;
                {op} wv = {operand("w", "w_off + o * ws.s0 + c * ws.s1 + p * ws.s2 + q * ws.s3")};
                acc = {ar.mac.format(acc="acc", a="xv", b="wv")};
            }}
        }}
    }}
    {add_bias}
    {out.store("out", "out_off + n * os.s0 + o * os.s1 + i * os.s2 + j * os.s3", "acc")};
}}
"""


def pool2d_source(kind: str, t: CType) -> str:
    """MAX or AVG windows, one work-item per output element (n, c, i, j). MAX skips padded positions (they never
    win) and propagates NaN; AVG sums the real positions in the compute type and divides by the whole window."""
    c = t.compute
    if kind == "MAX":
        combine = "MAX_NAN(acc, v)" if t.kind == "float" else "max(acc, v)"
        init, result = t.lowest, "acc"
    else:
        combine, init, result = "acc + v", f"({c})0", f"acc / ({c})(KH * KW)"
    return f"""
__kernel void pool2d(__global {t.storage} *out, long out_off, __global const {t.storage} *x, long x_off,
                     long N, long C, long H, long W, long OH, long OW, long KH, long KW,
                     long8 xs, long8 os, long sh, long sw, long ph, long pw) {{
    long gid = get_global_id(0);
    if (gid >= N * C * OH * OW) return;
    long j = gid % OW, t = gid / OW;
    long i = t % OH; t /= OH;
    long ch = t % C, n = t / C;
    {c} acc = {init};
    for (long p = 0; p < KH; ++p) {{
        long y = i * sh - ph + p;
        if (y < 0 || y >= H) continue;
        for (long q = 0; q < KW; ++q) {{
            long z = j * sw - pw + q;
            if (z < 0 || z >= W) continue;
            {c} v = {t.load("x", "x_off + n * xs.s0 + ch * xs.s1 + y * xs.s2 + z * xs.s3")};
            acc = {combine};
        }}
    }}
    {t.store("out", "out_off + n * os.s0 + ch * os.s1 + i * os.s2 + j * os.s3", result)};
}}
"""


# -- attention: a work-group per (batch, head, query) row, online softmax --------------------------------------------


def attention_source(data: CType, arithmetic: str, mask: CType | None, additive: bool) -> str:
    """``scaled_dot_product_attention``: group ``g`` makes output row ``g`` (query ``i`` of head ``h`` in batch
    ``b``, decomposed over ``(*batch, Hq, Lq)``) and reads key/value head ``h / group``. Its work-items take the keys
    ``size`` at a time: each scores one (a D-term dot product in the arithmetic's accumulator, scaled, plus an
    additive mask; minus infinity where the causal or bool mask hides it) into ``__local`` memory; then every
    work-item updates the running maximum and sum (online softmax: Milakov and Gimelshein, "Online normalizer
    calculation for softmax", 2018) and the output columns it owns (``acc`` in ``__local`` memory, rescaled by
    ``exp(old max - new max)``), so no score reaches global memory. ``exp(s - max)`` is rounded to the arithmetic
    as the second product's operand. A row that sees no key is zeros."""
    ar = ARITHMETICS[arithmetic]
    op, c = ar.operand_type, data.compute

    def operand(value: str) -> str:
        return f"({op})({ar.operand.format(v=value)})"

    q_d, k_jd = operand(data.load("q", "qo + d * q_d")), operand(data.load("k", "ko + j * k_j + d * k_d"))
    score_mac = ar.mac.format(acc="dot", a=q_d, b=k_jd)
    value_mac = ar.mac.format(
        acc="a", a=operand("exp(s[t] - top)"), b=operand(data.load("v", "vo + (j0 + t) * v_j + col * v_d"))
    )
    walks = [("qo", "q_b"), ("ko", "k_b"), ("vo", "v_b"), ("oo", "o_b")]
    mask_params = visible = mask_term = mask_offset = ""
    if mask is not None:
        mask_params = f", __global const {mask.storage} *mask, long m_off, long m_h, long m_i, long m_j, long8 m_b"
        walks.append(("mo", "m_b"))
        mask_offset = "long mo = m_off;"
        if additive:
            mask_term = f" + ({c})({mask.load('mask', 'mo + j * m_j')})"
        else:
            visible = f" && {mask.load('mask', 'mo + j * m_j')}"
    return f"""
__kernel void attention(__global {data.storage} *out, long o_off, __global const {data.storage} *q, long q_off,
                        __global const {data.storage} *k, long k_off, __global const {data.storage} *v,
                        long v_off{mask_params}, long Hq, long group, long Lq, long Lk, long D, long Dv,
                        long q_h, long q_i, long q_d, long k_h, long k_j, long k_d, long v_h, long v_j, long v_d,
                        long o_h, long o_i, long o_d, int brank, long8 bshape, long8 q_b, long8 k_b, long8 v_b,
                        long8 o_b, {c} scale, int causal, __local {c} *s, __local {ar.acc} *acc) {{
    long rem = get_group_id(0);
    int l = get_local_id(0), size = get_local_size(0);
    long i = rem % Lq; rem /= Lq;
    long h = rem % Hq; rem /= Hq;
    long qo = q_off, ko = k_off, vo = v_off, oo = o_off; {mask_offset}
{_decompose("rem", "brank", "bshape", walks)}
    long hk = h / group;
    qo += h * q_h + i * q_i; ko += hk * k_h; vo += hk * v_h; oo += h * o_h + i * o_i;
    {"mo += h * m_h + i * m_i;" if mask is not None else ""}
    long last = causal ? i + Lk - Lq : Lk - 1;
    for (long col = l; col < Dv; col += size) acc[col] = 0;
    {c} m = {data.lowest}, total = 0;
    for (long j0 = 0; j0 < Lk; j0 += size) {{
        long j = j0 + l;
        {c} sj = {data.lowest};
        if (j < Lk && j <= last{visible}) {{
            {ar.acc} dot = 0;
            for (long d = 0; d < D; ++d) {{
                dot = {score_mac};
            }}
            sj = ({c})dot * scale{mask_term};
        }}
        barrier(CLK_LOCAL_MEM_FENCE);
        s[l] = sj;
        barrier(CLK_LOCAL_MEM_FENCE);
        long n = min((long)size, Lk - j0);
        {c} top = m;
        for (long t = 0; t < n; ++t) top = MAX_NAN(top, s[t]);
        if (top == {data.lowest}) continue;  /* nothing seen yet: the same for every work-item */
        {c} alpha = exp(m - top);
        total *= alpha;
        for (long t = 0; t < n; ++t) total += exp(s[t] - top);
        for (long col = l; col < Dv; col += size) {{
            {ar.acc} a = acc[col] * alpha;
            for (long t = 0; t < n; ++t) {{
                a = {value_mac};
            }}
            acc[col] = a;
        }}
        m = top;
    }}
    for (long col = l; col < Dv; col += size) {{
        {c} r = m == {data.lowest} ? ({c})0 : ({c})acc[col] / total;
        {data.store("out", "oo + col * o_d", "r")};
    }}
}}
"""


__all__ = [
    "ARITHMETICS",
    "BATCH_NORM_EXPR",
    "CTYPES",
    "MAX_RANK",
    "RAW",
    "CType",
    "attention_source",
    "binary_expr",
    "conv2d_source",
    "gather_source",
    "map_source",
    "matmul_source",
    "norm_source",
    "pool2d_source",
    "prelude",
    "reduce_source",
    "softmax_source",
    "unary_expr",
]
