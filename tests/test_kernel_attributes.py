"""The arguments of the kernel attributes of OpenCL C 1.2 6.7.2, checked as Clang checks them: ``vec_type_hint``
takes a built-in scalar or vector type of a vectorizable kind (a typedef of one too; not ``bool``, ``void``, a
pointer, a struct or an opaque type such as ``event_t``), ``work_group_size_hint`` and ``reqd_work_group_size``
take exactly three integer constants greater than 0. The simulator built ``vec_type_hint(bool)`` and
``work_group_size_hint(0, 0, 0)``, which PoCL 3.1 and Oclgrind 21.10 refuse; each refusal here is Clang's words
on every backend (at Clang's column on the simulator)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import assert_refused, run_arrays

import wia_hal as wia

BODY = "void k(__global int* a) { a[get_global_id(0)] = 7; }"
NOT_VECTORIZABLE = "a non-vector or non-vectorizable scalar type is an invalid argument to attribute 'vec_type_hint'"


@pytest.mark.parametrize(
    ("prelude", "attribute", "message", "column"),
    [
        ("", "vec_type_hint(bool)", NOT_VECTORIZABLE, 25),
        ("", "vec_type_hint(void)", NOT_VECTORIZABLE, 25),
        ("", "vec_type_hint(int*)", NOT_VECTORIZABLE, 25),
        ("", "vec_type_hint(event_t)", NOT_VECTORIZABLE, 25),
        ("typedef struct { int x; } S; ", "vec_type_hint(S)", NOT_VECTORIZABLE, 54),
        ("typedef bool B; ", "vec_type_hint(B)", NOT_VECTORIZABLE, 41),
        ("", "vec_type_hint(foo4)", "unknown type name 'foo4'", 39),
        ("", "work_group_size_hint(0, 0, 0)", "'work_group_size_hint' attribute must be greater than 0", 25),
        ("", "work_group_size_hint(8, 1, 0)", "'work_group_size_hint' attribute must be greater than 0", 25),
        (
            "",
            "work_group_size_hint(-1, 1, 1)",
            "'work_group_size_hint' attribute requires a non-negative integral compile time constant expression",
            25,
        ),
        ("", "work_group_size_hint(1, 1)", "'work_group_size_hint' attribute requires exactly 3 arguments", 25),
        ("", "reqd_work_group_size(0, 1, 1)", "'reqd_work_group_size' attribute must be greater than 0", 25),
        (
            "",
            "reqd_work_group_size(2.0, 1, 1)",
            "'reqd_work_group_size' attribute requires parameter 0 to be an integer constant",
            25,
        ),
    ],
)
def test_attribute_arguments_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, prelude: str, attribute: str, message: str, column: int
) -> None:
    assert_refused(
        device_ctx, request, f"{prelude}__kernel __attribute__(({attribute})) {BODY}", message, f"1:{column}"
    )


@pytest.mark.parametrize(
    "attribute",
    [
        "vec_type_hint(float4)",
        "vec_type_hint(uint3)",
        "vec_type_hint(size_t)",
        "vec_type_hint(unsigned int)",
        "vec_type_hint(F4)",
        "work_group_size_hint(8, 1, 1)",
        "work_group_size_hint(4, 2, 1), vec_type_hint(double2)",
    ],
)
def test_attribute_arguments_clang_takes(device_ctx: wia.Context, attribute: str) -> None:
    """Hints change nothing the kernel computes."""
    source = f"typedef float4 F4; __kernel __attribute__(({attribute})) {BODY}"
    (out,) = run_arrays(device_ctx, source, "k", [np.zeros(16, np.int32)], 16, 8)
    assert out.tolist() == [7] * 16


@pytest.mark.parametrize(
    "attribute", ["reqd_work_group_size(8, 1, 1)", "work_group_size_hint(8, 1, 1)", "vec_type_hint(float4)"]
)
def test_a_kernel_attribute_on_another_function_is_clangs_error(
    device_ctx: wia.Context, request: pytest.FixtureRequest, attribute: str
) -> None:
    """OpenCL C 1.2 6.7.2 gives these attributes to kernels; the simulator took them on any function (and on a
    prototype), which PoCL 3.1 and Oclgrind 21.10 refuse."""
    message = f"attribute '{attribute.split('(')[0]}' can only be applied to an OpenCL kernel function"
    helper = f"__attribute__(({attribute})) void h(__global int* a)"
    kernel = "__kernel void k(__global int* a) { h(a); }"
    column = len(f"__attribute__(({attribute})) void ") + 1
    assert_refused(device_ctx, request, f"{helper} {{ *a = 1; }}\n{kernel}", message, f"1:{column}")
    assert_refused(device_ctx, request, f"{helper};\nvoid h(__global int* a) {{ *a = 1; }}\n{kernel}", message)


@pytest.mark.parametrize(
    ("declaration", "column"),
    [
        ("__attribute__((work_group_size_hint(8, 1, 1))) int x = 1;", 16),
        ("int x __attribute__((reqd_work_group_size(1, 1, 1))) = 1;", 22),
        ("__local int x __attribute__((vec_type_hint(float4)));", 30),
    ],
)
def test_a_kernel_attribute_on_a_variable_is_clangs_error(
    device_ctx: wia.Context, request: pytest.FixtureRequest, declaration: str, column: int
) -> None:
    """The simulator took these on a variable, which PoCL 3.1 and Oclgrind 21.10 refuse."""
    called = declaration.split("__attribute__((")[1].split("(")[0]
    source = f"__kernel void k(__global int* a) {{\n{declaration}\n    a[0] = 1;\n}}\n"
    assert_refused(device_ctx, request, source, f"'{called}' attribute only applies to functions", f"2:{column}")


LOOP = "for (int i = 0; i < 4; i++) a[i] = i;"
HINT = "__attribute__((opencl_unroll_hint{}))"
HINTED = "'opencl_unroll_hint' attribute"


@pytest.mark.parametrize(
    ("hints", "message", "at"),
    [
        ("#pragma unroll 0", "invalid value '0'; must be positive", "2:16"),
        ("#pragma unroll (-1)", "invalid value '-1'; must be positive", "2:17"),  # (inside the parentheses)
        ("#pragma unroll Z", "invalid value '0'; must be positive", "2:16"),
        ("#pragma unroll n", "expression is not an integer constant expression", "2:16"),
        ("#pragma unroll 2.5f", "invalid argument of type 'float'; expected an integer type", "2:16"),
        (
            "#pragma unroll 2\n#pragma unroll 4",
            "duplicate directives '#pragma unroll(2)' and '#pragma unroll(4)'",
            "3:9",
        ),
        ("#pragma nounroll\n#pragma unroll", "duplicate directives '#pragma nounroll' and '#pragma unroll'", "3:9"),
        ("#pragma unroll 2\na[0] = 1;", "expected a for, while, or do-while loop to follow '#pragma unroll'", "3:1"),
        (HINT.format("(0)"), f"{HINTED} requires a positive integral compile time constant expression", "2:16"),
        (HINT.format("(n)"), f"{HINTED} requires an integer constant", "2:16"),
        ("#pragma unroll 2-2", "invalid value '0'; must be positive", "2:17"),  # (at a binary operator)
        ("#pragma unroll 3 - 1 - 2", "invalid value '0'; must be positive", "2:22"),
        ("#pragma unroll (1 - 1)", "invalid value '0'; must be positive", "2:19"),  # (the parentheses the hint's)
        ('_Pragma("unroll 0")', "invalid value '0'; must be positive", "2:1"),
        ('_Pragma("unroll Z")', "invalid value '0'; must be positive", "2:1"),
        (
            '_Pragma("unroll 2") _Pragma("unroll 4")',
            "duplicate directives '#pragma unroll(2)' and '#pragma unroll(4)'",
            "2:21",
        ),
        (
            '_Pragma("nounroll") a[0] = 1;',
            "expected a for, while, or do-while loop to follow '#pragma nounroll'",
            "2:21",
        ),
        (
            "__attribute__((opencl_unroll_hint(0), opencl_unroll_hint))",
            f"{HINTED} requires a positive integral compile time constant expression",
            "2:16",
        ),
        (HINT.format("") + " a[0] = 1;", f"{HINTED} only applies to 'for', 'while', and 'do' statements", "2:16"),
    ],
)
def test_loop_hints_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, hints: str, message: str, at: str
) -> None:
    """Clang checks ``#pragma unroll``'s count (an integer constant expression above zero, macros expanded),
    one hint of each kind on a loop, and that a loop follows, in ``_Pragma("unroll ...")`` too (named at the
    operator), and ``opencl_unroll_hint``'s alike; the simulator dropped the line (the operator) unread, and the
    attribute anywhere but before a loop was a syntax error."""
    source = "__kernel void k(__global int* a, int n) {\n" + hints + "\n" + LOOP + "\n}\n"
    assert_refused(device_ctx, request, source, message, at, options="-DZ=0")


@pytest.mark.parametrize(
    ("body", "messages"),
    [
        ("a[0] = 1;\n#pragma unroll 2\n  }", [("4:3", "expected statement")]),  # (at the block's brace)
        ("#pragma unroll 2\n#pragma nounroll\n\n   }", [("5:4", "expected statement")]),
        (
            "#pragma unroll 2\n#pragma nounroll\n    a[0] = 1;\n}",  # (no duplicate without a loop: each hint's)
            [
                ("4:5", "expected a for, while, or do-while loop to follow '#pragma unroll'"),
                ("4:5", "expected a for, while, or do-while loop to follow '#pragma nounroll'"),
            ],
        ),
    ],
)
def test_a_hint_without_its_loop_is_named_where_clang_names_it(
    device_ctx: wia.Context, request: pytest.FixtureRequest, body: str, messages: list[tuple[str, str]]
) -> None:
    source = "__kernel void k(__global int* a) {\n" + body + "\n"
    refusal = ""
    for at, message in messages:
        refusal = assert_refused(device_ctx, request, source, message, at)
    if request.node.callspec.params.get("device_ctx") == "sim":
        assert refusal.count("error:") == len(messages), refusal


@pytest.mark.parametrize("hint", ["#pragma unroll (0) 5", "#pragma unroll (2)*2"])
def test_tokens_after_a_parenthesized_count_drop_the_hint_with_a_warning(device_ctx: wia.Context, hint: str) -> None:
    """Clang warns about what follows ``(N)`` and ignores the pragma: its count is not checked."""
    source = "__kernel void k(__global int* a, int n) {\n" + hint + "\n" + LOOP + "\n}\n"
    (out,) = run_arrays(device_ctx, source, "k", [np.full(4, -1, np.int32)], 1, 1, np.int32(1))
    assert out.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "body",
    [
        f"#pragma unroll N\n{LOOP}",
        f"#pragma unroll(4)\n{LOOP}",
        f"#pragma unroll sizeof(int)\n{LOOP}",
        f"#pragma unroll\n#pragma unroll_and_jam 2\n{LOOP}",
        "for (int j = 0; j < 2; j++)\n#pragma unroll 2\n  for (int i = 0; i < 2; i++) a[2 * j + i] = 2 * j + i;",
        "int i = 0;\n#pragma nounroll\nwhile (i < 4) { a[i] = i; i++; }",
        "int i = 0;\nif (n)\n#pragma unroll 2\n  do { a[i] = i; i++; } while (i < 4);",
        f"{HINT.format('(N)')}\n{LOOP}",
        f"for (int j = 0; j < 2; j++) {HINT.format('')}\n  for (int i = 0; i < 2; i++) a[2 * j + i] = 2 * j + i;",
        "int i = 0; __attribute__((__opencl_unroll_hint__(2))) while (i < 4) { a[i] = i; i++; }",
        f"__attribute__((opencl_unroll_hint(2), opencl_unroll_hint(N)))\n{LOOP}",
        f'_Pragma("unroll N") {LOOP}',
        'int i = 0;\nif (n) _Pragma("nounroll") while (i < 4) { a[i] = i; i++; }',
        f"__attribute__((opencl_unroll_hint, opencl_unroll_hint(4))) {LOOP}",
        "int u = ({ int v = 0;\n#pragma unroll 2\n  for (int i = 0; i < 4; i++) { a[i] = i; v += i; }\n  v; });",
    ],
)
def test_loop_hints_clang_takes(device_ctx: wia.Context, body: str) -> None:
    """Hints change nothing the kernel computes, a loop the parser wrapped with its hint included."""
    source = "__kernel void k(__global int* a, int n) {\n" + body + "\n}\n"
    (out,) = run_arrays(device_ctx, source, "k", [np.full(4, -1, np.int32)], 1, 1, np.int32(1), options="-DN=4")
    assert out.tolist() == [0, 1, 2, 3]
