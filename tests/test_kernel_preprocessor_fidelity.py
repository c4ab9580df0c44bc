"""The corners of C99's preprocessor and lexer that Clang (PoCL 3.1, Oclgrind 21.10) implements and the simulator
once did not, found by a sweep of 179 cases against both devices: trigraphs (5.2.1.1) and digraphs (6.4.6),
``_Pragma`` (6.10.9), ``__LINE__`` on the physical line of a spliced one, the ``__STDC__`` family, ``__DATE__``,
``__TIME__`` and ``__COUNTER__``, ``#ident``, a comma and ``defined`` from a macro in ``#if``, and character
constants (6.4.4.4: ``int``, multi-character ones, a ``char``'s sign). On every backend, one expected answer."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source, macros
from wia_sim.kernels.preprocess import preprocess
from wia_sim.kernels.program import KernelCompileError


def _ints(ctx: wia.Context, body: str, prelude: str = "", n: int = 8, options: str = "") -> list[int]:
    source = prelude + "\n__kernel void k(__global int* out) {\n" + body + "\n}\n"
    (out,) = run_arrays(ctx, source, "k", [np.full(n, -7, np.int32)], 1, 1, options=options)
    return [int(v) for v in out]


def test_trigraphs_are_replaced_before_anything_else(device_ctx: wia.Context) -> None:
    body = 'int a??(2??) = ??<1, 2??>;\nout[0] = a??(1??) ??\' 3;\nout[1] = X;\nout[2] = sizeof("a??!b");'
    assert _ints(device_ctx, body, "??=define X 5")[:3] == [2 ^ 3, 5, 4]


def test_a_trigraph_backslash_splices_a_line(device_ctx: wia.Context) -> None:
    assert _ints(device_ctx, "out[0] = 1 + ??/\n2;")[0] == 3


def test_digraphs_are_the_punctuators_they_spell(device_ctx: wia.Context) -> None:
    prelude = "%:define X 4\n%:define CAT(a, b) a %:%: b\n%:define STR(a) %:a\n"
    body = (
        "int a<:2:> = <%1, 2%>;\nout[0] = a<:1:>;\nout[1] = X;\nout[2] = CAT(1, 2);\n"
        "out[3] = sizeof(STR(<:)) + 10 * sizeof(STR([));"  # (# keeps a digraph's spelling)
    )
    assert _ints(device_ctx, body, prelude)[:4] == [2, 4, 12, 3 + 10 * 2]


def test_pragma_operator_runs_a_pragma_and_leaves_nothing(device_ctx: wia.Context) -> None:
    prelude = "#define DO_PRAGMA(x) _Pragma(#x)\n#define ID(a) a\n"
    body = (
        '_Pragma("unroll") for (int i = 0; i < 2; i++) out[i] = i + 1;\n'
        "DO_PRAGMA(weird thing) out[2] = 3;\n"
        'out[3] = ID(_Pragma("x") 4);'
    )
    assert _ints(device_ctx, body, prelude)[:4] == [1, 2, 3, 4]


def test_line_is_the_physical_line_of_its_token(device_ctx: wia.Context) -> None:
    prelude = "#define F(a, b) b"  # the kernel's body starts on line 3
    body = "out[0] = 1 \\\n+ 0; out[1] = __LINE__;\nout[2] = F(1 \\\n, __LINE__); out[3] = __LINE__;"
    assert _ints(device_ctx, body, prelude)[:4] == [1, 4, 6, 6]


def test_standard_macros(device_ctx: wia.Context) -> None:
    prelude = "#define STR(x) #x\n#define XSTR(x) STR(x)\n"
    body = (
        "out[0] = __STDC__; out[1] = __STDC_VERSION__; out[2] = __STDC_HOSTED__;\n"
        "out[3] = sizeof(XSTR(__STDC_VERSION__));\n"
        "out[4] = sizeof(__DATE__) + 100 * sizeof(__TIME__);\n"
        "out[5] = __COUNTER__; out[6] = __COUNTER__ + 10 * __COUNTER__;\n"
        "#if defined(__LINE__) && defined __FILE__ && defined(__DATE__) && defined(__TIME__) && defined(__COUNTER__)\n"
        "out[7] = 1;\n#endif"
    )
    assert _ints(device_ctx, body, prelude)[:8] == [1, 199901, 1, 8, 12 + 100 * 9, 0, 1 + 20, 1]


def test_ident_directive_is_taken(device_ctx: wia.Context) -> None:
    assert _ints(device_ctx, "out[0] = 1;", '#ident "v1.2"\n#sccs "v1.2"')[0] == 1


def test_if_takes_a_comma_and_defined_from_a_macro(device_ctx: wia.Context) -> None:
    prelude = "#define X\n#define HAS_X defined(X)\n#define HAS_Y defined Y\n"
    body = (
        "#if (1, 0)\nout[0] = 1;\n#else\nout[0] = 2;\n#endif\n"
        "#if HAS_X\nout[1] = 1;\n#endif\n"
        "#if HAS_Y\nout[2] = 1;\n#else\nout[2] = 2;\n#endif"
    )
    assert _ints(device_ctx, body, prelude)[:3] == [2, 1, 2]


def test_character_constants_are_ints(device_ctx: wia.Context) -> None:
    body = (
        "out[0] = 'ab'; out[1] = '\\xe9'; out[2] = sizeof('a'); out[3] = max('a', 1); out[4] = '\\377';\n"
        "out[5] = 'abcd';\n"
        "#if 'ab' == 24930 && '\\xff' < 0 && 'abcd' == 0x61626364\nout[6] = 1;\n#endif"
    )
    assert _ints(device_ctx, body)[:7] == [0x6162, -23, 4, 97, -1, 0x61626364, 1]


def test_a_digraph_keeps_the_columns_of_what_follows(ctx: wia.Context) -> None:
    source = "__kernel void k(__global int* out) {\n int a<:2:> = <%1, 2%>; out[0] = a<:1:> + zz;\n}\n"
    with pytest.raises(wia.WiaError, match=r"kernel\.cl:2:43: error: use of undeclared identifier 'zz'"):
        wia.compile_kernel(ctx, source, "k")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("_Pragma(unroll) out[0] = 1;", "_Pragma takes a parenthesized string literal"),
        ("out[0] = '';", "empty character constant"),
        ("out[0] = '\\x100';", "hex escape sequence out of range"),
    ],
)
def test_malformed_ones_are_build_errors(ctx: wia.Context, body: str, message: str) -> None:
    source = "__kernel void k(__global int* out) {\n" + body + "\n}\n"
    refusal = build_error(ctx, source, "k")
    assert message in refusal


IF_WIDTH = [
    "(1 << 62) > 0",
    "(1 << 63) < 0",
    "(1 << 63) == 0",
    "0x7FFFFFFFFFFFFFFF + 1 < 0",
    "0xFFFFFFFFFFFFFFFF == -1",
    "0xFFFFFFFFFFFFFFFF > 0",
    "-1 == 0xFFFFFFFFFFFFFFFFu",
    "(0x7FFFFFFFFFFFFFFF * 2) < 0",
    "-9223372036854775807 - 1 < 0",
    "(1 << 127) < 0",
]


def test_if_computes_in_128_bits(device_ctx: wia.Context) -> None:
    """Clang's SPIR targets make intmax_t 128 bits wide, and #if computes in it: a 64-bit literal is a positive
    intmax_t, and nothing wraps at 64 bits (the simulator computed in 64)."""
    body = "".join(f"#if {c}\nout[{k}] = 1;\n#else\nout[{k}] = 2;\n#endif\n" for k, c in enumerate(IF_WIDTH))
    assert _ints(device_ctx, body, n=len(IF_WIDTH)) == [1, 2, 2, 2, 2, 1, 2, 2, 1, 1]


def test_an_unroll_hint_before_a_loop_is_taken(device_ctx: wia.Context) -> None:
    """``__attribute__((opencl_unroll_hint(N)))`` on a for, while or do loop: Clang takes it in OpenCL C 1.2 too
    (the simulator's parser refused it as an invalid declaration); lines stay where they were."""
    body = (
        "int s = 0;\n"
        "__attribute__((opencl_unroll_hint)) for (int k = 0; k < 4; k++) s += k;\n"
        "__attribute__((opencl_unroll_hint(2)))\nwhile (s < 10) s++;\n"
        "__attribute__((opencl_unroll_hint(4))) do s += 3; while (s < 17);\n"
        "out[0] = s; out[1] = __LINE__;"
    )
    assert _ints(device_ctx, body, options="-cl-std=CL1.2")[:2] == [19, 8]


BOMB = "#define A0 x x\n" + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 31)) + "int y = A30;\n"


def test_a_macro_bomb_ends_in_an_error_and_a_large_source_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """Expansion is bounded by the tokens macros make, beyond a credit for each of the source's own: 2**31
    tokens from 31 lines end in an error, where a long source of plain statements (hashcat's 2.4 MB
    inc_common.cl, 100,000 generated statements) or of many small macro uses builds. The bound had counted every
    token read, so a 1.3 MB kernel without a macro was "macro expansion exceeds 500000 tokens"."""
    monkeypatch.setattr(macros, "EXPANSION_LIMIT", 2_000)  # (the bound's shape, at a size a test reads quickly)
    bomb = preprocess(BOMB)
    assert [d.message for d in bomb.errors] == [
        "macro expansion makes more than 2000 tokens beyond 8 for each token of the source (runaway macro?)"
    ]
    plain = "__kernel void k(__global int* o) {\n  int x = o[0];\n" + "  x = x + 3;\n" * 2_000 + "  o[0] = x;\n}\n"
    assert preprocess(plain).errors == []
    many = "#define ADD(a, b) ((a) + (b))\n" + plain.replace("x + 3", "ADD(x, 3)")
    result = preprocess(many)
    assert result.errors == []
    assert result.text.count("((x) + (3))") == 2_000


REDEFINED = """\
#define Y 1
#define Y  1
#define F(a) a+1
#define F(b) b+1
#define Z 1 /* a comment is white space */ + 2
#define Z 1 + 2
#define U 1+2
#define U 1 +2
#define V(...) x
#define V(a...) x
#define NULL 0
__kernel void k(__global int* out) { out[0] = Y + F(1) + Z + U; }
"""


def test_a_macro_defined_again_otherwise_is_clangs_warning(
    device_ctx: wia.Context, request: pytest.FixtureRequest
) -> None:
    """C99 6.10.3p2 lets a macro be defined again only as it was: the same parameters, the same tokens with white
    space between the same ones. Clang warns "macro redefined" at the name otherwise, an error with ``-Werror``
    (GROMACS's PME build defines ``warp_size`` on the command line and in its source; LuxCore defines ``NULL``
    again). The simulator said nothing, and built under ``-Werror`` what PoCL refuses (found by the GROMACS and
    LuxCore probe)."""
    assert _ints(device_ctx, "out[0] = Y + F(1) + Z + U;", REDEFINED.split("__kernel")[0])[0] == 1 + 2 + 3 + 3
    if request.node.callspec.params.get("device_ctx") == "oclgrind":
        return  # (Oclgrind 21.10 takes -Werror and builds anyway, with its warnings)
    assert "'F' macro redefined" in build_error(device_ctx, REDEFINED, options="-Werror")
    assert "'W' macro redefined" in build_error(device_ctx, "__kernel void k() {}", options="-DW=1 -DW=2 -Werror")
    assert compile_source(REDEFINED).build_log.splitlines() == [
        f"kernel.cl:{line}:9: warning: '{name}' macro redefined"
        for line, name in [(4, "F"), (8, "U"), (10, "V"), (11, "NULL")]
    ]


RELINED = (
    "\n" * 10
    + """#line 2 "bvh_kernel.cl"

__kernel void k(__global const int* restrict a, __global float* o)
{
    __global int* p = a;
    float b1;
    if (o[0] > 1.0f) b1 = 2.0f;
    o[1] = b1 + p[0];
}
#warning relined
"""
)


def test_messages_name_the_file_and_line_a_line_directive_gives() -> None:
    """C99 6.10.4: ``#line 2 "bvh_kernel.cl"`` renames the lines after it for diagnostics too, as Clang's and
    Oclgrind's name them: LuxCore glues about 14 files into one program, each after such a directive, and every
    simulator message named ``kernel.cl`` and the line of the whole (found by the LuxCore probe). Build warnings and
    errors, the preprocessor's and the checker's, and a finding at run time, which still quotes the line's text."""
    assert compile_source(RELINED).build_log.splitlines() == [
        "bvh_kernel.cl:5:19: warning: initializing '__global int *__private' with an expression of type "
        "'const __global int *restrict __private' discards qualifiers",  # (Clang's, restrict too)
        "bvh_kernel.cl:10:2: warning: relined",
    ]
    with pytest.raises(KernelCompileError) as info:
        compile_source(RELINED.replace("p[0]", "q[0]"))
    assert "bvh_kernel.cl:8:17: error: use of undeclared identifier 'q'" in info.value.build_log.splitlines()
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    with pytest.raises(wia.WiaError) as found:
        run_arrays(ctx, RELINED, "k", [np.ones(1, np.int32), np.zeros(2, np.float32)], 1, 1)
    message = str(found.value)
    assert message.startswith("bvh_kernel.cl:8: read of uninitialized __private variable 'b1'")
    assert message.endswith("\n    o[1] = b1 + p[0];")


LINE_IN_A_CALL = """\
#define AT(x) (x + __LINE__)
#define ID(x) x
#define TWICE(x) (AT(x) * 1000 + __LINE__)
#define HERE __LINE__
#define LATER(x) (HERE * 100 + x)"""


def test_line_in_a_macro_call_over_several_lines_is_the_line_it_ends_on(device_ctx: wia.Context) -> None:
    """``__LINE__`` that a macro's replacement brings is the line the invocation's closing parenthesis stands on
    (Clang's expansion location; the outermost call's through nested ones and object-like macros); one an argument
    brings is its own line (the simulator gave the line of the macro's name; found by the CTS probe)."""
    body = """out[0] = AT(0
    );
out[1] = ID(__LINE__
    );
out[2] = TWICE(0

    );
out[3] = ID(
    AT(0)
    );
out[4] = LATER(
    1);"""
    assert _ints(device_ctx, body, LINE_IN_A_CALL)[:5] == [8, 9, 13013, 15, 18 * 100 + 1]


def test_null_characters_are_clangs_warnings() -> None:
    """Halide embeds its kernel source with its terminating NUL; Clang ignores a NUL outside a literal (a warning)
    and keeps one in a literal (a warning too); the simulator refused the build ("illegal character"). The values
    are Oclgrind 21.10's ([98, 4, 0]; PoCL 3.1 through PyOpenCL stops reading the source at the first NUL)."""
    source = '__kernel void k(__global char *o) {\0 o[0] = "a\0b"[2]; o[1] = sizeof("a\0b"); o[2] = \'\0\'; }\n\0'
    program = compile_source(source)
    assert program.build_log.splitlines() == [
        "kernel.cl:1:36: warning: null character ignored",
        "kernel.cl:1:47: warning: null character(s) preserved in string literal",
        "kernel.cl:1:71: warning: null character(s) preserved in string literal",
        "kernel.cl:1:85: warning: null character(s) preserved in char literal",
        "kernel.cl:2:1: warning: null character ignored",
    ]
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    with pytest.warns(wia.KernelBuildWarning):
        (out,) = run_arrays(ctx, source, "k", [np.full(4, 9, np.int8)], 1, 1)
    assert out.tolist() == [98, 4, 0, 9]
    comment = compile_source("// a\0b\n/* c\0d */\n__kernel void k(__global int* o) { o[0] = 1; }\n")
    assert comment.build_log == ""  # (gone with the comment, as in Clang)
    wia.destroy_context(ctx)


def test_pragma_once_in_the_main_source_is_clangs_warning() -> None:
    """``#pragma once`` in the source being built (not in a header it includes): Clang's warning at ``once``."""
    log = compile_source("#pragma once\n__kernel void k(__global int* o) { o[0] = 1; }\n").build_log
    assert log == "kernel.cl:1:9: warning: #pragma once in main file"


SPACED_BACKSLASHES = (
    "#define A(x) (x + \\ \n"
    "  1)\n"
    "#define B(x) (x * \\\t\n"
    "  2)\n"
    "/* block \\ \n"
    " still */\n"
    "#if 0\n"
    "#define X a \\ \n"
    " b\n"
    "#endif\n"
    "__kernel void k(__global int* out) {\n"
    "    int a = A(1) + B(2); // comment \\  \n"
    "    a += 100;\n"
    "    int b = 3 \\   \n"
    "    ;\n"
    "    out[0] = a + b;\n"
    "}\n"
)


def test_a_backslash_before_blanks_continues_its_line(device_ctx: wia.Context) -> None:
    """A backslash with only spaces or tabs after it splices its line to the next, as Clang (and GCC) do: a macro
    definition continued so, and a ``//`` comment, which then takes the next line too (sgminer's skein256.cl; the
    simulator refused the macro and ran the line the comment hides: 101 where PoCL 3.1 and Oclgrind 21.10 give
    1)."""
    (out,) = run_arrays(device_ctx, SPACED_BACKSLASHES, "k", [np.zeros(1, np.int32)], 1, 1)
    assert out.tolist() == [(1 + 1) + 2 * 2 + 3]


def test_a_spaced_backslash_is_clangs_warning_where_clang_gives_it() -> None:
    """Clang's -Wbackslash-newline-escape, by script from ``clang-15 -cc1``: at the blank after the backslash, at
    the backslash itself in a ``//`` comment; not in a ``/* */`` comment, nor in a block ``#if 0`` skips."""
    assert compile_source(SPACED_BACKSLASHES).build_log.splitlines() == [
        "kernel.cl:1:20: warning: backslash and newline separated by space",
        "kernel.cl:3:20: warning: backslash and newline separated by space",
        "kernel.cl:12:37: warning: backslash and newline separated by space",
        "kernel.cl:14:16: warning: backslash and newline separated by space",
    ]
