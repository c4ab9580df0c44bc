"""Clang's typo correction where it depends on the statement around the name, and what its parser does with a
name corrected to a keyword (``check_exprs.typo_correction``, ``parsing._keyword_typo``).

Measured with ``clang-15 -cc1 -x cl -cl-std=CL1.2 -triple spir64 -fsyntax-only -finclude-default-header``:

- a name corrected to a keyword is replaced by it in Clang's parser, which reads on: ``o[0] = foo;`` is "did you
  mean 'for'?" then "expected expression" at the name, the rest of the statement skipped (``undecl1`` after it
  unreported, ``undecl2`` before it reported); ``foo;`` at a statement's start is ``for ;``: "expected '(' after
  'for'"; ``gotoo;`` "expected identifier"; ``sizeo;`` in an expression "expected expression" at the ``;``, and
  ``return foo;`` in a void function is no return of a value (the statement is given up); in an initializer
  (``float y = foo;``) the error is the same, and the next statement's errors all stand;
- a keyword is no correction right before a ``)`` (``(whiel)``), nor at a statement's start before a token that no
  statement keyword can precede (``foo + 1;``);
- at a statement's start the correction must be less than a third of the name's length away (``esle;`` and
  ``whiel (1) {}`` correct to nothing; ``o[0] = esle;`` to 'else'), and a call there that corrects to nothing is
  skipped to its ``;``, a block on the way with it (``whiel (1) {}`` takes the next line's ``retrun``);
- the nearest names are tried in the statement, and those it stays in error with drop out: a call of a built-in
  the header overloads (``sqrtt(x)``, ``madd``, ``lengthh``, ``dott(a, b)``: nothing, though ``get_global_idd(0)``
  and ``barier(...)``, declared once, correct), a built-in or an overloadable function not called (``dott``,
  ``onee``, ``get_global_idd``); a farther name is not tried then (``nann(1u)`` is not 'many').

The simulator used to offer every built-in in a call and every keyword everywhere, and to stop at one error for the
keyword's statement. The test holds each source against Clang's whole list of errors.
"""

from __future__ import annotations

import re

import pytest
from kernel_backends import compile_errors

KEYWORDS = """__kernel void k(__global float* o) {
    int count = 1;
    foo;
    whle;
    iff;
    gotoo;
    foo + 1;
    esle;
    o[0] = esle;
    o[0] = 1 + retrun;
    o[0] = foo + undecl1;
    o[0] = undecl2 + foo;
    o[0] = o[1] + (whiel);
    o[0] = sizeo;
    o[0] = sizeo(o[1]) + undecl3;
    o[0] = o[iff];
    o[0] = fmax(o[1], foo);
    whiel (1) {}
    o[0] = 1 + retrun;
    o[0] = ocunt;
    float y = foo;
    o[0] = undecl9;
    return foo;
}
"""

KEYWORD_ERRORS = [
    ("3:5", "use of undeclared identifier 'foo'; did you mean 'for'?"),
    ("3:8", "expected '(' after 'for'"),
    ("4:5", "use of undeclared identifier 'whle'; did you mean 'while'?"),
    ("4:9", "expected '(' after 'while'"),
    ("5:5", "use of undeclared identifier 'iff'; did you mean 'if'?"),
    ("5:8", "expected '(' after 'if'"),
    ("6:5", "use of undeclared identifier 'gotoo'; did you mean 'goto'?"),
    ("6:10", "expected identifier"),
    ("7:5", "use of undeclared identifier 'foo'"),
    ("8:5", "use of undeclared identifier 'esle'"),
    ("9:12", "expected expression"),
    ("9:12", "use of undeclared identifier 'esle'; did you mean 'else'?"),
    ("10:16", "expected expression"),
    ("10:16", "use of undeclared identifier 'retrun'; did you mean 'return'?"),
    ("11:12", "expected expression"),
    ("11:12", "use of undeclared identifier 'foo'; did you mean 'for'?"),
    ("12:12", "use of undeclared identifier 'undecl2'"),
    ("12:22", "expected expression"),
    ("12:22", "use of undeclared identifier 'foo'; did you mean 'for'?"),
    ("13:20", "use of undeclared identifier 'whiel'"),
    ("14:12", "use of undeclared identifier 'sizeo'; did you mean 'sizeof'?"),
    ("14:17", "expected expression"),
    ("15:12", "use of undeclared identifier 'sizeo'; did you mean 'sizeof'?"),
    ("15:26", "use of undeclared identifier 'undecl3'"),
    ("16:14", "expected ']'"),
    ("16:14", "expected expression"),
    ("16:14", "use of undeclared identifier 'iff'; did you mean 'if'?"),
    ("17:23", "use of undeclared identifier 'foo'"),
    ("18:5", "use of undeclared identifier 'whiel'"),
    ("20:12", "use of undeclared identifier 'ocunt'; did you mean 'count'?"),
    ("21:15", "expected expression"),
    ("21:15", "use of undeclared identifier 'foo'; did you mean 'for'?"),
    ("22:12", "use of undeclared identifier 'undecl9'"),
    ("23:12", "expected expression"),
    ("23:12", "use of undeclared identifier 'foo'; did you mean 'for'?"),
]

FUNCTIONS = """float helperfn(float a) { return a; }
float __attribute__((overloadable)) many(float a) { return a; }
int __attribute__((overloadable)) many(int a) { return a; }
float __attribute__((overloadable)) one(float a) { return a; }
__kernel void k(__global float* o, __global int* data) {
    float4 a = (float4)(1.0f), b = a;
    o[0] = sqrtt(o[1]);
    o[0] = madd(o[1], o[2], o[3]);
    o[0] = get_global_idd(0);
    barier(CLK_LOCAL_MEM_FENCE);
    o[0] = lengthh(a);
    o[0] = helperf(o[1]);
    o[0] = dott(a, b);
    o[0] = dott;
    o[0] = nann(1u);
    o[0] = manyy(o[1]);
    o[0] = onee;
    o[0] = get_global_idd;
}
"""

FUNCTION_ERRORS = [
    ("7:12", "use of undeclared identifier 'sqrtt'"),
    ("8:12", "use of undeclared identifier 'madd'"),
    ("9:12", "use of undeclared identifier 'get_global_idd'; did you mean 'get_global_id'?"),
    ("10:5", "use of undeclared identifier 'barier'; did you mean 'barrier'?"),
    ("11:12", "use of undeclared identifier 'lengthh'"),
    ("12:12", "use of undeclared identifier 'helperf'; did you mean 'helperfn'?"),
    ("13:12", "use of undeclared identifier 'dott'"),
    ("14:12", "use of undeclared identifier 'dott'"),
    ("15:12", "use of undeclared identifier 'nann'"),
    ("16:12", "use of undeclared identifier 'manyy'; did you mean 'many'?"),
    ("17:12", "use of undeclared identifier 'onee'"),
    ("18:12", "use of undeclared identifier 'get_global_idd'"),
]


def _at(line: str) -> tuple[str, str]:
    m = re.match(r"kernel\.cl:(\d+:\d+): error: (.*)$", line)
    assert m is not None, line
    return m.group(1), m.group(2)


@pytest.mark.parametrize(
    ("source", "expected"), [(KEYWORDS, KEYWORD_ERRORS), (FUNCTIONS, FUNCTION_ERRORS)], ids=["keywords", "functions"]
)
def test_typo_corrections_are_clangs_in_their_statement(source: str, expected: list[tuple[str, str]]) -> None:
    got = [_at(line) for line in compile_errors(source)]
    assert sorted(got) == sorted(expected)
