"""A bracket missing or left over in a statement, and the errors after it, as Clang reports them.

The simulator stopped at a cast without its ``)`` (``(float n * 2``) with "expected expression" at the parenthesis, at
``if i < n)`` with pycparser's "syntax error before 'i'", at ``if (i < n`` ending its line with "expected ';' after
expression", at a subscript without its ``]`` (the function given up), and at a ``)`` or ``]`` that closes nothing
inside a statement with "syntax error before ')'"; each hid the function's later errors. Clang reports each in its own
words and goes on: after a cast's missing ``)``, it skips to the next ``)`` (taking it) or the ``;`` and wants the
cast's operand there ("expected expression"); after ``if``, ``while``, ``for`` or ``switch`` without ``(``, it skips
the statement to its first ``;``; after a head without its ``)``, to the next ``)``, ``;`` (an empty body) or the
block's ``}`` ("expected statement"); after a subscript without its ``]``, what the brackets hold and the operand
before them are checked, nothing that waited for them; at a stray ``)`` or ``]`` the statement ends ("expected ';'
after expression") and the next begins with the bracket ("expected expression"); a ``for`` head short of a ``;``
(``for (int k = 0 k < n; k++)``) is "expected ';' in 'for' statement specifier", and goes on as if it stood there; a
``)`` or ``]`` that closes a bracket around the one open (``f(a[i);``) is "expected ']'" there, the statement skipped;
a ``}`` that closes nothing at file scope is "extraneous closing brace ('}')"; a parameter list without its ``)`` is
skipped to a ``;`` at file scope or to the end, where "expected function body after function declarator"; a ``do``
body followed by no ``while`` is "expected 'while' in do/while loop", the body checked and the rest skipped to its
``;``. A binary operator where an operand must be (``= / 2``) is "expected expression", not pycparser's "syntax error
before '/'", and a type's name there "unexpected type name 'float4': expected expression" (an invalid operand: the
statement goes on), where the simulator said "invalid digit 'f' in octal constant" of an operand its own recovery had
put before the name; a quote without its end is Clang's warning and "expected expression" (the simulator's error was
"missing terminating ' character", then "unmatched '"). Every expected line is ``clang-15 -cc1 -x cl -cl-std=CL1.2
-triple spir64 -fsyntax-only``'s, which PoCL 3.1 and Oclgrind 21.10 give too.
"""

from __future__ import annotations

import re

import pytest
from kernel_backends import build_error, compile_errors, refused_log

import wia_hal as wia

CASTS = """__kernel void k(__global float* o, int n) {
    int i = get_global_id(0);
    float x = (float i + 1;
    o[i] = (float n * 2.0f;
    o[i] = (const float n;
    o[i] = 1 + (float *o;
    float4 v = (float4 n, 1, 2, 3);
    int y = (int)(o[i] + (float n);
    o[i] = (uint x;
    o[i] = (__global float* o)[0];
    return (void n;
}
"""
CAST_ERRORS = [
    ("3:22", "expected ')'"),
    ("3:27", "expected expression"),
    ("4:19", "expected ')'"),
    ("4:27", "expected expression"),
    ("5:25", "expected ')'"),
    ("5:26", "expected expression"),
    ("6:24", "expected ')'"),
    ("6:25", "expected expression"),
    ("7:24", "expected ')'"),
    ("7:35", "expected expression"),  # (skipped past the vector's other parts to the ';')
    ("8:33", "expected ')'"),
    ("8:35", "expected expression"),  # (the ')' after ``n`` taken for the cast's: the operand is the ';')
    ("9:18", "expected ')'"),
    ("9:19", "expected expression"),
    ("10:29", "expected ')'"),
    ("10:31", "expected expression"),  # (after the ')' taken: '[' begins no expression)
    ("11:18", "expected ')'"),
    ("11:19", "expected expression"),
]

HEADS = """__kernel void k(__global float* o, int n) {
    int i = get_global_id(0);
    if i >= n)
        return;
    o[i] = q1;
    while i < n) { o[i] = q2; i++; }
    o[i] = q3;
    if i < 3) { o[i] = 4; } else { o[i] = q4; }
    switch n) { case 1: o[i] = q5; }
    o[i] = q6;
}
"""
HEAD_ERRORS = [
    ("3:8", "expected '(' after 'if'"),  # (the statement skipped to its first ';': `return;` with it)
    ("5:12", "use of undeclared identifier 'q1'"),
    ("6:11", "expected '(' after 'while'"),  # (skipped to the ';' of `o[i] = q3;`: braces are skipped whole)
    ("8:8", "expected '(' after 'if'"),  # (skipped, the switch with it, to the ';' of `o[i] = q6;`)
]

UNCLOSED_HEADS = """__kernel void k(__global float* o, int n) {
    int i = get_global_id(0);
    for (int k = 0; k < n; k++
        o[k] = q1;
    o[i] = q2;
    if (i < n
        o[i] = q3;
    o[i] = q4;
    while (i < n
    {
        o[i] = q5;
        i++;
    }
    o[i] = q6;
    if (i < n;
    o[i] = q7;
    if (i < n {
        o[i] = q8;
    }
}
"""
UNCLOSED_HEAD_ERRORS = [
    ("4:9", "expected ')'"),  # (skipped to the ';': the loop's body is empty, q1 unreported)
    ("5:12", "use of undeclared identifier 'q2'"),
    ("7:9", "expected ')'"),
    ("8:12", "use of undeclared identifier 'q4'"),
    ("10:5", "expected ')'"),  # (the block skipped whole, then `o[i] = q6` to its ';')
    ("15:14", "expected ')'"),  # (the ';' is the body)
    ("16:12", "use of undeclared identifier 'q7'"),
    ("17:15", "expected ')'"),  # (the block skipped whole, to the function's '}': no statement for the body)
    ("20:1", "expected statement"),
]

SUBSCRIPTS = """__kernel void k(__global float* o, __local float* t, int n) {
    const int i = get_global_id(0);
    int j = 0;
    o[2 * i = o[0];
    o[i = 3;
    o[j = 3;
    if (n) o[j + 1;
    o[j] = q1;
    o[o[j] + 1;
    q2[j = 1;
    o[j][j = 2;
    o[i] = 2.0f * t[j] + 3.0f * t[j + 1;
    float w0 = o[2 * i], w1 = o[2 * i + 1;
    o[i] = w1;
}
"""
SUBSCRIPT_ERRORS = [
    ("4:13", "expression is not assignable"),  # (what the brackets hold is built and checked)
    ("4:19", "expected ']'"),
    ("5:9", "cannot assign to variable 'i' with const-qualified type 'const __private int'"),
    ("5:12", "expected ']'"),
    ("6:12", "expected ']'"),  # (no word of the unused results of what is never built)
    ("7:19", "expected ']'"),
    ("8:12", "use of undeclared identifier 'q1'"),
    ("9:15", "expected ']'"),  # (the float inside is no subscript: the subscript is never built)
    ("10:5", "use of undeclared identifier 'q2'"),  # (the operand before the '[' is built and checked)
    ("10:13", "expected ']'"),
    ("11:15", "expected ']'"),
    ("12:40", "expected ']'"),  # (``3.0f * t`` waited for the subscript: never built, no invalid operands)
    ("13:42", "expected ']'"),  # (w1 declared, its initializer skipped: line 14 uses it)
]

STRAYS = """__kernel void k(__global float* o, int n) {
    int j = 0;
    j++) o[j] = q1;
    o[j] = q2;
    j++] o[j] = q3;
    o[n] = (o[j] + 1));
    o[n] = o[j] + 1];
    o[n] = q4;
}
"""
STRAY_ERRORS = [
    ("3:8", "expected ';' after expression"),
    ("3:8", "expected expression"),  # (a statement begun by ')': skipped to its ';', q1 with it)
    ("4:12", "use of undeclared identifier 'q2'"),
    ("5:8", "expected ';' after expression"),
    ("5:8", "expected expression"),
    ("6:22", "extraneous ')' before ';'"),
    ("7:20", "extraneous ']' before ';'"),
    ("8:12", "use of undeclared identifier 'q4'"),
]


FOR_HEADS = """__kernel void k(__global float* o, int n) {
    int i = get_global_id(0);
    for (int k = 0 k < n; k++) o[k] = q1;
    o[i] = q2;
    for (int k = 0; k < n k++) o[k] = q3;
    o[i] = q4;
}
"""
FOR_HEAD_ERRORS = [
    ("3:20", "expected ';' in 'for' statement specifier"),  # (then as if it stood there: the body checked)
    ("3:39", "use of undeclared identifier 'q1'"),
    ("4:12", "use of undeclared identifier 'q2'"),
    ("5:27", "expected ';' in 'for' statement specifier"),
    ("5:39", "use of undeclared identifier 'q3'"),
    ("6:12", "use of undeclared identifier 'q4'"),
]

CROSSED = """__kernel void k(__global float* o, __global int* b, int n) {
    int i = get_global_id(0);
    o[i] = fmax(o[i, 1.0f);
    o[i] = q1;
    b[(i >> 2 & 3] = 1;
    o[i] = q2;
    o[2 * i = o[0];
    const int j = 0;
    o[j = 1.0f;
}
"""
CROSSED_ERRORS = [
    ("3:26", "expected ']'"),  # (a ')' that closes the call around the open '[': the statement skipped)
    ("4:12", "use of undeclared identifier 'q1'"),
    ("5:18", "expected ')'"),
    ("6:12", "use of undeclared identifier 'q2'"),
    ("7:13", "expression is not assignable"),  # (and no word of the stored value's type, as Clang)
    ("7:19", "expected ']'"),
    ("9:9", "cannot assign to variable 'j' with const-qualified type 'const __private int'"),
    ("9:15", "expected ']'"),
]
FILE_SCOPE = [
    (
        """__kernel void k(__global float* o) {
    o[0] = 1;
}
}
int x;
""",
        [
            ("4:1", "extraneous closing brace ('}')"),
            ("5:5", "program scope variable must reside in constant address space"),
        ],
    ),
    (  # (a parameter list without its ')': skipped to the end of the input, the body expected there)
        """float g(float a) { return a; }
__kernel void k(__global float* o,
    int n
{
    o[0] = q1;
}
""",
        [("4:1", "expected ')'"), ("6:2", "expected function body after function declarator")],
    ),
    (  # (skipped to a ';' at file scope: the declaration ends there, the kernel after it checked)
        """float g(float a { return a; }
int x;
__kernel void k(__global float* o) { o[0] = q2; }
""",
        [("1:17", "expected ')'"), ("3:45", "use of undeclared identifier 'q2'")],
    ),
]

DO_WHILE = """__kernel void k(__global int* o, int n) {
    int i = 0;
    do {
        o[i] = q1;
        i++;
    } whize (i < n);
    o[0] = q2;
    do o[1] = q3; wile (i);
    o[0] = q4;
}
"""
DO_WHILE_ERRORS = [
    ("4:16", "use of undeclared identifier 'q1'"),  # (the body checked before the 'while' is found missing)
    ("6:7", "expected 'while' in do/while loop"),  # (then skipped to the ';')
    ("7:12", "use of undeclared identifier 'q2'"),
    ("8:15", "use of undeclared identifier 'q3'"),
    ("8:19", "expected 'while' in do/while loop"),
    ("9:12", "use of undeclared identifier 'q4'"),
]

TYPE_NAMES = """float g(float a) { return float4; }
__kernel void k(__global float4* o, float x) {
    o[0] =  float4)(x, x, x, x);
    o[1] = q1;
    float4 v = float4;
    x + float4;
    o[0] = x * uint;
    o[2] = q2;
}
"""
TYPE_NAME_ERRORS = [
    ("1:27", "unexpected type name 'float4': expected expression"),
    ("3:13", "unexpected type name 'float4': expected expression"),  # (a vector literal's '(' left out)
    ("3:19", "expected ';' after expression"),  # (the type name an operand in error: the ')' ends the statement)
    ("3:19", "expected expression"),
    ("4:12", "use of undeclared identifier 'q1'"),
    ("5:16", "unexpected type name 'float4': expected expression"),
    ("6:9", "unexpected type name 'float4': expected expression"),  # (no word of an unused result)
    ("7:16", "unexpected type name 'uint': expected expression"),
    ("8:12", "use of undeclared identifier 'q2'"),
]

OPERANDS = """__kernel void k(__global float* o, int n) {
    int i = get_global_id(0);
    for (int k = 0;  <= n; k++) o[k] = 1;
      += 2;
    o[i] =  / 2;
    int j =  == 2;
    if ( < n) o[i] = 3;
    char c = 'x;
    o[i] = q1;
    o[i] = "abc;
    o[i] = q2;
    o[i] = q3;
}
"""
OPERAND_ERRORS = [
    ("3:22", "expected expression"),  # (a binary operator where an operand must be: Clang's words, not pycparser's)
    ("4:7", "expected expression"),
    ("5:13", "expected expression"),
    ("6:14", "expected expression"),
    ("7:10", "expected expression"),
    ("8:14", "expected expression"),  # (after the warning: the rest of the line is one invalid token; the
    ("10:12", "expected expression"),  # statement ends at the next ';', a line on: q1 and q2 skipped with it)
    ("12:12", "use of undeclared identifier 'q3'"),
]


def test_an_unterminated_quote_is_clangs_warning_then_expected_expression() -> None:
    """Clang's lexer warns of a quote without its end ("missing terminating ' character", a double quote spelled
    '"'), takes the rest of its line for one invalid token, and its parser wants an expression there."""
    log = "\n".join(refused_log(OPERANDS))
    assert "kernel.cl:8:14: warning: missing terminating ' character" in log
    assert "kernel.cl:10:12: warning: missing terminating '\"' character" in log


_IDS = [
    "casts",
    "heads",
    "unclosed heads",
    "subscripts",
    "strays",
    "operands",
    "for heads",
    "crossed",
    "do while",
    "type names",
]


def _at(line: str) -> tuple[str, str]:
    m = re.match(r"kernel\.cl:(\d+:\d+): error: (.*)$", line)
    assert m is not None, line
    return m.group(1), m.group(2)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (CASTS, CAST_ERRORS),
        (HEADS, HEAD_ERRORS),
        (UNCLOSED_HEADS, UNCLOSED_HEAD_ERRORS),
        (SUBSCRIPTS, SUBSCRIPT_ERRORS),
        (STRAYS, STRAY_ERRORS),
        (OPERANDS, OPERAND_ERRORS),
        (FOR_HEADS, FOR_HEAD_ERRORS),
        (CROSSED, CROSSED_ERRORS),
        (DO_WHILE, DO_WHILE_ERRORS),
        (TYPE_NAMES, TYPE_NAME_ERRORS),
        *FILE_SCOPE,
    ],
    ids=[*_IDS, "stray brace", "parameters to the end", "parameters to a ';'"],
)
def test_the_simulator_reports_clangs_errors_and_goes_on(source: str, expected: list[tuple[str, str]]) -> None:
    """The simulator's errors are Clang's, every one at its place, none of what Clang skips (q1 after a stray
    bracket; q2 to q6 in the statements skipped for a missing '(')."""
    got = [_at(line) for line in compile_errors(source)]
    assert sorted(got) == sorted(expected)


@pytest.mark.parametrize(
    ("source", "first"),
    [
        (CASTS, "3:22: error: expected ')'"),
        (HEADS, "3:8: error: expected '(' after 'if'"),
        (UNCLOSED_HEADS, "4:9: error: expected ')'"),
        (SUBSCRIPTS, "4:19: error: expected ']'"),
        (OPERANDS, "3:22: error: expected expression"),
        (FOR_HEADS, "3:20: error: expected ';' in 'for' statement specifier"),
        (CROSSED, "3:26: error: expected ']'"),
        (DO_WHILE, "6:7: error: expected 'while' in do/while loop"),
        (TYPE_NAMES, "1:27: error: unexpected type name 'float4': expected expression"),
        (FILE_SCOPE[0][0], "4:1: error: extraneous closing brace ('}')"),
        (FILE_SCOPE[1][0], "4:1: error: expected ')'"),
        (STRAYS, "3:8: error: expected ';' after expression"),
    ],
    ids=[*_IDS, "stray brace", "parameters"],
)
def test_every_device_refuses_the_program_in_clangs_words(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, first: str
) -> None:
    """The first error in each device's refusal, at Clang's place (PoCL and Oclgrind name their own file)."""
    refusal = build_error(device_ctx, source)
    place, message = first.split(": error: ")
    assert re.search(rf":{place}: (error: )?{re.escape(message)}", refusal), refusal
