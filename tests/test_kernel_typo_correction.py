"""Clang's typo correction in build errors: "use of undeclared identifier 'coutn'; did you mean 'count'?", and
"unknown type name 'sizet'; did you mean 'size_t'?" where a declaration starts (``wia_sim/kernels/typos.py``).

Every expectation was measured on PoCL 3.1 (``-cl-std=CL1.2``) and Oclgrind 21.10 and is checked on each device
that gives it: Oclgrind's older Clang declares a called unknown function implicitly ("implicit declaration of
function ... is invalid in OpenCL") and corrects fewer names in conditions; PoCL renames the math built-ins (to
``_cl_sqrt`` and the like), so its correction never finds them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kernel_backends import assert_refused, build_error, compile_errors, refused_log

import wia_hal as wia
from wia_sim.kernels.typos import corrected, edit_distance

CL12 = "-cl-std=CL1.2"
HEAD = (
    "int helper(int x) { return x; }\nint helper2(int x, int y) { return x + y; }\n"
    "typedef struct { int a; } Pair;\ntypedef float real;\nenum Color { RED, GREEN };\n"
)
ALL, POCL = ("sim", "pocl", "oclgrind"), ("sim", "pocl")


def _kernel(body: str) -> str:
    return HEAD + f"__kernel void k(__global float* o, __global int* p) {{ {body} }}"


CASES = [
    # (the kernel's body, Clang's line:column, its words, the devices that give them)
    ("int count = 3; p[0] = coutn * 2;", "6:77", "use of undeclared identifier 'coutn'; did you mean 'count'?", ALL),
    ("int count = 1; while (coutn) {}", "6:77", "use of undeclared identifier 'coutn'; did you mean 'count'?", POCL),
    ("int width = 4; p[0] = widht;", "6:77", "use of undeclared identifier 'widht'; did you mean 'width'?", ALL),
    ("int height = 4; p[0] = heigth;", "6:78", "use of undeclared identifier 'heigth'; did you mean 'height'?", POCL),
    ("int lid = 0; p[lidd] = 1;", "6:70", "use of undeclared identifier 'lidd'; did you mean 'lid'?", ALL),
    ("int idx = 1; p[0] = idz;", "6:75", "use of undeclared identifier 'idz'; did you mean 'idx'?", ALL),
    ("int xyzw = 1; p[0] = xyz;", "6:76", "use of undeclared identifier 'xyz'; did you mean 'xyzw'?", ALL),
    ("p[0] = GREEN + REDD;", "6:70", "use of undeclared identifier 'REDD'; did you mean 'RED'?", ALL),
    ("p[0] = helpr;", "6:62", "use of undeclared identifier 'helpr'; did you mean 'helper'?", ALL),
    ("p[0] = iff;", "6:62", "use of undeclared identifier 'iff'; did you mean 'if'?", ALL),
    ("retrun;", "6:55", "use of undeclared identifier 'retrun'; did you mean 'return'?", ALL),
    ("o[0] = flase;", "6:62", "use of undeclared identifier 'flase'; did you mean 'else'?", ALL),
    # a tie corrects nothing; so does a name too short, or too far from every other
    ("int sum1 = 1, sum2 = 2; p[0] = sum3;", "6:86", "use of undeclared identifier 'sum3'", ALL),
    ("int total = 1; int totals = 2; p[0] = totalx;", "6:93", "use of undeclared identifier 'totalx'", ALL),
    ("int gid = 1; p[0] = gdi;", "6:75", "use of undeclared identifier 'gdi'", ALL),
    ("int i = 0; p[0] = i + fx;", "6:77", "use of undeclared identifier 'fx'", ALL),
    # a call: the functions that take that many arguments, and keywords
    ("p[0] = helpr(1);", "6:62", "use of undeclared identifier 'helpr'; did you mean 'helper'?", POCL),
    ("p[0] = helper3(1, 2);", "6:62", "use of undeclared identifier 'helper3'; did you mean 'helper2'?", POCL),
    ("p[0] = helpr(1, 2);", "6:62", "use of undeclared identifier 'helpr'", POCL),
    ("int value = 1; p[0] = valeu(1);", "6:77", "use of undeclared identifier 'valeu'", POCL),
    (
        "p[0] = get_num_group(0);",
        "6:62",
        "use of undeclared identifier 'get_num_group'; did you mean 'get_num_groups'?",
        POCL,
    ),
    ("p[0] = get_local_idd(0, 1);", "6:62", "use of undeclared identifier 'get_local_idd'", POCL),
    ("o[0] = sizof(1);", "6:62", "use of undeclared identifier 'sizof'; did you mean 'sizeof'?", POCL),
    # (a built-in the header overloads: Clang tries it and gives it up, PoCL renames it)
    ("float f = 1; o[0] = sqrtt(f);", "6:75", "use of undeclared identifier 'sqrtt'", POCL),
    # where a declaration starts: a type name, nearer than a third of its length, else the expression's error
    ("sizet x = 1; p[0] = x;", "6:55", "unknown type name 'sizet'; did you mean 'size_t'?", ALL),
    ("Pairr q; q.a = 1; p[0] = q.a;", "6:55", "unknown type name 'Pairr'; did you mean 'Pair'?", ALL),
    ("const sizet x = 1; p[0] = x;", "6:61", "unknown type name 'sizet'; did you mean 'size_t'?", ALL),
    ("const unit x = 1; p[0] = x;", "6:61", "unknown type name 'unit'", ALL),
    ("unit x = 1; o[0] = x;", "6:55", "use of undeclared identifier 'unit'", ALL),
    ("rael x = 1; o[0] = x;", "6:55", "use of undeclared identifier 'rael'", ALL),
    ("float5 x = 1; o[0] = x;", "6:61", "expected ';' after expression", ALL),  # float2, float3, ... tie
]


@pytest.mark.parametrize(("body", "at", "message", "devices"), CASES)
def test_typos_in_clangs_words(
    device_ctx: wia.Context, request: pytest.FixtureRequest, body: str, at: str, message: str, devices: tuple[str, ...]
) -> None:
    device = request.node.callspec.params["device_ctx"]
    if device not in devices:
        pytest.skip(f"{device} words this typo otherwise (the module docstring says why)")
    assert_refused(device_ctx, request, _kernel(body), message, at, CL12)


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (HEAD + "sizet g(int x) { return x; }\n__kernel void k(__global int* p) { p[0] = g(1); }", "6:1", "sizet"),
        (HEAD + "__kernel void k(__global int* p, sizet n) { p[0] = n; }", "6:34", "sizet"),
        (HEAD + "__kernel void k(__global rael* p) { p[0] = 1; }", "6:26", "rael"),
        (HEAD + "typedef struct { rael a; } T;\n__kernel void k(__global int* p) { p[0] = 1; }", "6:18", "rael"),
    ],
)
def test_unknown_type_names_outside_functions(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """At file scope, in a parameter list, in a struct: corrected to a type name when one is near enough."""
    words = f"unknown type name '{message}'" + ("; did you mean 'size_t'?" if message == "sizet" else "")
    assert_refused(device_ctx, request, source, words, at, CL12)


@pytest.mark.parametrize(
    ("source", "at", "message", "devices"),
    [
        (
            "__kernel void k(__global int* p) { p[0] = helpr(1); }\nint helper(int x) { return x; }",
            "1:43",
            "use of undeclared identifier 'helpr'",
            POCL,
        ),
        (
            "int helper2(int x) { return x; }\n__kernel void k(__global int* p) { p[0] = helper(1); }\n"
            "int helper(int x) { return x; }",
            "2:43",
            "use of undeclared identifier 'helper'; did you mean 'helper2'?",
            POCL,
        ),
        (
            "__kernel void k(__global int* p) { p[0] = cnt2; int cnt = 1; p[1] = cnt; }",
            "1:43",
            "use of undeclared identifier 'cnt2'",
            ALL,
        ),
        (
            "__constant int limit = 3;\n__kernel void k(__global int* p) { p[0] = limt; }",
            "2:43",
            "use of undeclared identifier 'limt'; did you mean 'limit'?",
            ALL,
        ),
        (
            "__kernel void k(__global int* data) { dat[0] = 1; }",
            "1:39",
            "use of undeclared identifier 'dat'; did you mean 'data'?",
            POCL,
        ),
    ],
)
def test_only_names_declared_before_the_typo_correct_it(
    device_ctx: wia.Context,
    request: pytest.FixtureRequest,
    source: str,
    at: str,
    message: str,
    devices: tuple[str, ...],
) -> None:
    """A function or variable declared after the typo is not in scope there: no correction to it (a call of a
    function defined below is an undeclared identifier too); file-scope constants and parameters are."""
    device = request.node.callspec.params["device_ctx"]
    if device not in devices:
        pytest.skip(f"{device} words this typo otherwise (the module docstring says why)")
    assert_refused(device_ctx, request, source, message, at, CL12)


def _levenshtein(a: str, b: str) -> int:
    """The textbook recurrence, without bounds."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


words = st.text("abcdx_", max_size=9)


@given(words, words, st.integers(0, 6))
def test_edit_distance_is_levenshtein_up_to_its_limit(a: str, b: str, limit: int) -> None:
    exact = _levenshtein(a, b)
    assert edit_distance(a, b, limit) == (exact if exact <= limit else limit + 1)


@given(words, st.lists(words, max_size=8))
def test_a_correction_is_the_unique_nearest_name_within_a_third(typo: str, names: list[str]) -> None:
    """Held to the rules by brute force: at most (len + 2) / 3 edits, a length within a third of the typo's, none
    for a typo under 3 characters, the nearest name unless two are as near."""
    found = corrected(typo, names)
    n = len(typo)
    near = {
        name: _levenshtein(typo, name)
        for name in set(names)
        if name != typo and not (abs(len(name) - n) and n // abs(len(name) - n) < 3)
    }
    near = {name: d for name, d in near.items() if d <= (n + 2) // 3}
    best = min(near.values(), default=None)
    nearest = [name for name, d in near.items() if d == best]
    if n < 3 or not nearest:
        assert found.name is None and not found.tied
    elif len(nearest) > 1:
        assert found.name is None and found.tied
    else:
        assert found.name == nearest[0]


KEYWORD_TYPOS = "int k(__global int* o, int a)\n{\n    for (;;) {\n        %s\n    }\nend:\n    return a;\n}\n"


@pytest.mark.parametrize(
    ("statement", "errors"),
    [
        ("brek;", ["4:9: error: use of undeclared identifier 'brek'; did you mean 'break'?"]),
        ("contine;", ["4:9: error: use of undeclared identifier 'contine'; did you mean 'continue'?"]),
        (
            "whle (a + zz) { a = yy; }",
            [
                "4:9: error: use of undeclared identifier 'whle'; did you mean 'while'?",
                "4:19: error: use of undeclared identifier 'zz'",
                "4:29: error: use of undeclared identifier 'yy'",
            ],
        ),
        ("iff (a) a = 1;", ["4:9: error: use of undeclared identifier 'iff'; did you mean 'if'?"]),
        (
            "gto end; a = qq;",
            [
                "4:9: error: use of undeclared identifier 'gto'; did you mean 'goto'?",
                "4:22: error: use of undeclared identifier 'qq'",
            ],
        ),
        (
            "retrn a + zz;",
            [
                "4:9: error: use of undeclared identifier 'retrn'; did you mean 'return'?",
                "4:19: error: use of undeclared identifier 'zz'",
            ],
        ),
        ("swich (a) { default: break; }", ["4:9: error: use of undeclared identifier 'swich'; did you mean 'switch'?"]),
        (
            "aonst float v = 1.0f; o[0] = v;",
            ["4:9: error: use of undeclared identifier 'aonst'", "4:38: error: use of undeclared identifier 'v'"],
        ),
    ],
)
def test_a_misspelt_keyword_at_a_statements_start(statement: str, errors: list[str]) -> None:
    """Clang offers the statements' keywords (``break`` inside a loop or switch, ``continue`` inside a loop) and,
    where the keyword fits what follows, parses on as if it stood there: the errors after it, at their own columns
    (the simulator said "syntax error before '{'" or nothing more, and warned that ``brek;``'s result is unused).
    A misspelt qualifier before a type at a statement's start is an undeclared name, the statement skipped."""
    assert refused_log(KEYWORD_TYPOS % statement) == [f"kernel.cl:{e}" for e in errors]


def test_a_misspelt_qualifier_in_a_parameter_list(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    """An unknown name before a type in a parameter list is Clang's "unknown type name", corrected where a keyword
    is near (``aonst`` for ``const``), and the parameter taken without it: each parameter's own errors follow (the
    simulator said "invalid declaration" at the first)."""
    source = (
        "__kernel void k(__global float* o, aonst float* x, __xlobal int* y, constt int n)\n{\n    o[0] = x[0];\n}\n"
    )
    refusal = build_error(device_ctx, source)
    assert "unknown type name 'aonst'; did you mean 'const'?" in refusal
    if request.node.callspec.params.get("device_ctx") == "sim":
        space = (
            "pointer arguments to kernel functions must reside in '__global', '__constant' or '__local' address space"
        )
        assert compile_errors(source) == [
            "kernel.cl:1:36: error: unknown type name 'aonst'; did you mean 'const'?",
            f"kernel.cl:1:49: error: {space}",
            "kernel.cl:1:52: error: unknown type name '__xlobal'",
            f"kernel.cl:1:66: error: {space}",
            "kernel.cl:1:69: error: unknown type name 'constt'; did you mean 'const'?",
        ]


@pytest.mark.parametrize(
    ("access", "suggested"),
    [
        ("p.ialue", "value"),
        ("q->ndex", "index"),
        ("p.vale", "value"),
        ("p.indexx", "index"),
        ("p.vlaue", None),
        ("p.idx", None),
    ],
)
def test_a_misspelt_member_is_corrected_as_clang_corrects_it(access: str, suggested: str | None) -> None:
    """Clang's "no member named 'ialue' in 'Pair'; did you mean 'value'?" (the simulator named no member): the one
    member near enough, as a type name is judged (``strict``: a transposition of a 5-letter name is too far)."""
    source = (
        f"typedef struct {{ int value; int index; }} Pair;\nint k(Pair p, __global Pair* q) {{ return {access}; }}\n"
    )
    (error,) = compile_errors(source)
    assert error.endswith("in 'Pair'" + ("" if suggested is None else f"; did you mean '{suggested}'?")), error
