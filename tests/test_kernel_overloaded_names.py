"""An overloaded function's name used as a value (a call's ``(`` forgotten: ``x = fmax;``), in Clang's words.

The simulator said "reference to overloaded function could not be resolved; did you mean to call it?" at the name
wherever it stood. Clang says so only where the value is an operand; where it is stored, it names the store and
the type '<overloaded function type>' at the store's place (an assignment's operator, the variable initialized,
the value returned or passed), and a cast of it is "address of overloaded function 'fmax' is ambiguous". And a
``?:`` whose condition is a float: Clang's error is at the ``?``, once the arms are checked (none where an arm is
in error), the type spelled as its other errors spell it. Every expected line is ``clang-15 -cc1 -x cl
-cl-std=CL1.2 -triple spir64 -fsyntax-only``'s, which PoCL 3.1 and Oclgrind 21.10 give too.
"""

from __future__ import annotations

import re

import pytest
from kernel_backends import build_error, compile_errors

import wia_hal as wia

NAMES = """float g(float a) { return a; }
float h(float a) { return fmax; }
__kernel void k(__global float* o, __global float4* v, int n) {
    int i = get_global_id(0);
    o[i] = fmax;
    float y = fmax;
    o[i] = g(fmax);
    o[i] = 1 + fmax;
    o[i] = (float)fmax;
    fmax;
    v[i] = sign;
    float4 z = sign, w;
    int q = min;
    o[i] = fmax, 1;
    o[i] += fmax;
    if (fmax) o[i] = 2;
    o[i] = y ? fmax : 1.0f;
    o[i] = -fmax;
    o[i] = y ? 2.0f : 1.0f;
    v[i] = z ? v[0] : v[1];
}
"""
UNRESOLVED = "reference to overloaded function could not be resolved; did you mean to call it?"
OVERLOADED = "'<overloaded function type>'"
INCOMPATIBLE = f"incompatible type {OVERLOADED}"
NAME_ERRORS = [
    ("2:27", f"returning {OVERLOADED} from a function with incompatible result type 'float'"),
    ("5:10", f"assigning to '__global float' from incompatible type {OVERLOADED}"),
    ("6:11", f"initializing '__private float' with an expression of incompatible type {OVERLOADED}"),
    ("7:14", f"passing {OVERLOADED} to parameter of incompatible type 'float'"),
    ("8:16", UNRESOLVED),
    ("9:19", "address of overloaded function 'fmax' is ambiguous"),
    ("10:5", UNRESOLVED),
    ("11:10", f"assigning to '__global float4' (vector of 4 'float' values) from incompatible type {OVERLOADED}"),
    ("12:12", f"initializing '__private float4' (vector of 4 'float' values) with an expression of {INCOMPATIBLE}"),
    ("13:9", f"initializing '__private int' with an expression of incompatible type {OVERLOADED}"),
    ("14:10", f"assigning to '__global float' from incompatible type {OVERLOADED}"),  # (``=`` binds before ``,``)
    ("15:13", UNRESOLVED),  # (a compound assignment's operand)
    ("16:9", UNRESOLVED),
    ("17:16", UNRESOLVED),  # (an arm in error: no word of the float condition)
    ("18:13", UNRESOLVED),
    ("19:14", "used type 'float' where floating point type is not allowed"),  # (at the '?')
    ("20:14", "used type 'float4' (vector of 4 'float' values) where floating point type is not allowed"),
]


def test_the_simulator_words_each_use_as_clang_does() -> None:
    got = []
    for line in compile_errors(NAMES):
        m = re.match(r"kernel\.cl:(\d+:\d+): error: (.*)$", line)
        assert m is not None, line
        got.append((m.group(1), m.group(2)))
    assert sorted(got) == sorted(NAME_ERRORS)


@pytest.mark.parametrize(("at", "message"), [NAME_ERRORS[1], NAME_ERRORS[2], NAME_ERRORS[5]])
def test_every_device_words_a_stored_or_cast_name_as_clang_does(
    device_ctx: wia.Context, request: pytest.FixtureRequest, at: str, message: str
) -> None:
    """PoCL spells the name as its header renames it (``_cl_fmax``): the cast's error is held to its words before
    the name there."""
    refusal = build_error(device_ctx, NAMES)
    if request.node.callspec.params["device_ctx"] == "pocl":
        message = message.split(" 'fmax'")[0]
    assert re.search(rf":{at}[: ].*{re.escape(message)}", refusal), refusal
