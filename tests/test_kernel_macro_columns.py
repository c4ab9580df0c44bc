"""Where a build error stands when macros expanded on its line: as Clang says it, in the source's columns, not the
expanded text's (which once put "unknown type name 'Q'" of a 45-character line at column 50): a token the macro
expansion only moved keeps its own column, a token of a macro argument its place in the argument, a token of a
macro's replacement list the place of the macro's name (Clang's expansion location). Found by the OpenCV sweep
(arithm.cl: 409:58 against Clang's 409:13). On every backend, Clang's line and column (PoCL prints the expansion
location with the spelling after it, ``3:12 <Spelling=3:14>``: one of the two)."""

from __future__ import annotations

import re

import pytest
from kernel_backends import build_error

import wia_hal as wia

CASES = {
    "after a longer expansion": (
        "#define NAME a_much_longer_kernel_name\n__kernel void NAME(__global Q * a) { a[0] = 1; }\n",
        "a_much_longer_kernel_name",
        "2:29",
        "unknown type name 'Q'",
    ),
    "in an argument": (
        "#define F(x) ((x) + 1)\n__kernel void k(__global int* o) {\n    o[0] = F(nope) + F(2);\n}\n",
        "k",
        "3:14",
        "use of undeclared identifier 'nope'",
    ),
    "after a multi-line invocation": (
        "#define F(x, y) ((x) + (y))\n__kernel void k(__global int* o) {\n"
        "    o[0] = F(1,\n             2) + nope;\n}\n",
        "k",
        "4:19",
        "use of undeclared identifier 'nope'",
    ),
    "in a replacement list": (
        "#define BAD (nope + 1)\n__kernel void k(__global int* o) {\n    o[0] = 2 * BAD;\n}\n",
        "k",
        "3:16",
        "use of undeclared identifier 'nope'",
    ),
    "in a nested argument": (
        "#define F(x) (x)\n#define G(y) F(y * 2)\n__kernel void k(__global int* o) {\n    o[0] = G(3 + nope);\n}\n",
        "k",
        "4:18",
        "use of undeclared identifier 'nope'",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_error_where_macros_expanded_is_at_the_sources_column(device_ctx: wia.Context, case: str) -> None:
    source, kernel, at, message = CASES[case]
    refusal = build_error(device_ctx, source, kernel)
    assert message in refusal
    assert re.search(rf":{at}[:> ]", refusal), refusal


TERNARY = "__kernel void k(__global uchar4* o, __global const float4* a) {\n    o[0] = %s;\n}\n"


@pytest.mark.parametrize(
    ("expression", "at"),
    [
        ("a[0] < a[1] ? (uchar4)(255) : (uchar4)(0)", "2:24"),
        ("(a[0] < a[1]) ? (uchar4)(255) : (uchar4)(0)", "2:26"),
        ("PICK(a[0] < a[1])", "2:12"),
    ],
    ids=["plain", "parenthesized condition", "in a macro"],
)
def test_a_conditional_operators_error_stands_at_its_question_mark(
    device_ctx: wia.Context, expression: str, at: str
) -> None:
    """Clang places the errors of ``?:`` at its ``?`` (pycparser's node stands at the condition); from a macro's
    replacement list, at the macro's name (OpenCV's PICK-like helpers: 2:12, where the condition would say 2:17)."""
    source = "#define PICK(c) (c ? (uchar4)(255) : (uchar4)(0))\n" + TERNARY % expression
    line, column = at.split(":")
    at = f"{int(line) + 1}:{column}"  # (the #define's line above)
    refusal = build_error(device_ctx, source)
    assert "do not have elements of the same size" in refusal
    assert re.search(rf":{at}[:> ]", refusal), refusal


MISSING_AFTER_MACROS = """#define FIELDS 12
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define ID(x) x
__kernel void k(__global int* o, int a)
{
    int x = 0;
    x = a * FIELDS
    x = MAX(a, 3)
    x = ID(a + 1)
    x = ID(MAX(a, 2))
    x = MAX( a , 2 ) + FIELDS
    x = ID( a )
    barrier(CLK_LOCAL_MEM_FENCE)
    o[0] = x;
}
"""


def test_a_missing_semicolon_after_a_macro_is_after_its_invocation(device_ctx: wia.Context) -> None:
    """Just after the last token as the source spells it: past an object-like macro's name, past the ')' of the
    outermost invocation whose expansion ends there, past a token the expansion only moved (the simulator counted
    the expanded text's columns: 7:13, 8:9, 9:16, ...)."""
    refusal = build_error(device_ctx, MISSING_AFTER_MACROS)
    for at in ("7:19", "8:18", "9:18", "10:22", "11:30", "12:16", "13:33"):
        assert re.search(rf":{at}: (error: )?expected ';' after expression", refusal), (at, refusal)
