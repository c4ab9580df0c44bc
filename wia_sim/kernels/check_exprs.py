"""The checker's expressions: each ``expr_<Node>`` method gives the type of one kind of pycparser node (as
``types.py`` models it) and reports what is wrong with it; also lvalues (what may be assigned) and the implicit
conversions of assignments, initializers and returns. Calls are in ``check_calls.py``.
"""

from __future__ import annotations

import contextlib
import re
from typing import cast

from pycparser import c_ast
from pycparser.c_parser import Coord
from pycparserext.ext_c_parser import TypeOfDeclaration, TypeOfExpression

from wia_sim.kernels import async_copy
from wia_sim.kernels.check_sequence import evaluated_nodes, modifies
from wia_sim.kernels.check_state import OVERLOADED_TYPE, CheckerState, _ctype, _promote, _Symbol
from wia_sim.kernels.clang_types import C_NAMES, clang_type, described
from wia_sim.kernels.constant_conversions import integer_change, integer_to_float, literal_change, literal_range
from wia_sim.kernels.conversions import floating_literal
from wia_sim.kernels.ctype import SCALARS, common_type, comparison_type, promoted
from wia_sim.kernels.ctype import lookup as ctype_lookup
from wia_sim.kernels.literals import c_string, char_constant
from wia_sim.kernels.signatures import BUILTIN_CONSTANTS, SINGLE_DECLARATIONS, constant_type, is_builtin_function
from wia_sim.kernels.structs import check_struct, layout, member_alignment, size_align
from wia_sim.kernels.tokens import Token
from wia_sim.kernels.types import (
    DOUBLE,
    FLOAT,
    FLOATS,
    INT,
    LONG,
    SCALAR_SIZES,
    UINT,
    ULONG,
    UNKNOWN,
    AddressSpace,
    SwizzleError,
    TypeInfo,
    const_int,
    int_constant,
    located,
    pointer_conversion,
    points_elsewhere,
    scalar_or_vector,
    swizzle_indices,
)
from wia_sim.kernels.typos import KEYWORDS, STATEMENT_KEYWORDS, builtin_names, callable_with, corrected, nearest

__all__ = ["ExpressionChecks"]

_STATEMENT_OPENERS = {
    "for": "expected '(' after 'for'",
    "while": "expected '(' after 'while'",
    "if": "expected '(' after 'if'",
    "switch": "expected '(' after 'switch'",
    "goto": "expected identifier",
}
"""Clang's error where a name corrected to one of these keywords starts a statement and what the keyword needs
(a ``(``; ``goto``'s label) does not follow: ``foo;`` is ``for ;``."""
_OPERAND_STARTS = frozenset({"(", "-", "+", "!", "~", "*", "&", "++", "--"})
"""Tokens besides names and constants that can start ``sizeof``'s operand."""
_INTEGER_ONLY_OPS = frozenset({"%", "<<", ">>", "&", "|", "^"})
_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})


class ExpressionChecks(CheckerState):
    """The expression rules of ``Checker``: ``expr`` dispatches on the node's class to ``expr_<Node>`` (as the
    executor does), here or in ``CallChecks``."""

    # -- expressions
    def lookup(self, name: str) -> _Symbol | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def expr(self, node: c_ast.Node | None) -> TypeInfo:
        if node is None:
            return UNKNOWN
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            self.error(node, f"unsupported expression ({type(node).__name__})")
            return UNKNOWN
        t = cast(TypeInfo, method(node))
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
            self.arithmetic_types[id(node)] = t
        return t

    def expr_ID(self, node: c_ast.ID) -> TypeInfo:
        symbol = self.lookup(node.name)
        if symbol is not None:
            if symbol.value is not None:  # a const integer Clang folds: a constant here (``TypeResolver.named``)
                self.types.named[id(node)] = (symbol.value, promoted(ctype_lookup(symbol.type.name)).name)
            return symbol.type
        if node.name in BUILTIN_CONSTANTS:
            return TypeInfo("scalar", constant_type(node.name, self.fp64))
        function = self.function_named(node.name)  # a function's name not called: Clang's words (a pointer to a
        if function == "overloaded":  # function is no OpenCL C; where the value is stored: ``overloaded_ref``)
            self.error(node, "reference to overloaded function could not be resolved; did you mean to call it?")
            return UNKNOWN
        if function == "single":
            self.error(node, "taking address of function is not allowed")
            return UNKNOWN
        if node.name not in self.suppressed:
            self.undeclared(node, node.name)
        return UNKNOWN

    def undeclared(self, node: c_ast.Node, name: str, args: int | None = None) -> None:
        """Clang's error for the undeclared ``name`` at ``node`` (called with ``args`` arguments), with its typo
        correction (``typo_correction``). A correction to a keyword replaces the name in Clang's parser, which
        reads on as if the keyword stood there: the keyword's own syntax error follows, and in an expression the
        parser gives up the statement (``abandoned``)."""
        after = self.operator_marks.following(node)
        head = node.coord is not None and (node.coord.line, node.coord.column) == self.statement_head
        found = self.typo_correction(name, args, after, head)
        self.error(
            node, f"use of undeclared identifier '{name}'" + ("" if found is None else f"; did you mean '{found}'?")
        )
        if found not in KEYWORDS or node.coord is None:
            return
        if head:  # the keyword's statement: ``foo;``, ``for ;``
            words = _STATEMENT_OPENERS.get(found)
            needed = after is not None and (after.kind == "id" if found == "goto" else after.text == "(")
            if words is not None and after is not None and not needed:
                self.error(_placed(node, after), words)
            return
        at = node
        if found != "sizeof":  # a statement's keyword where an operand must be
            self.error(node, "expected expression")
            if after is not None and after.text == "]":  # (a subscript's: Clang's parser still wants its ``]``)
                self.error(node, "expected ']'")
        elif after is not None and after.kind not in ("id", "num", "str", "char") and after.text not in _OPERAND_STARTS:
            at = _placed(node, after)
            self.error(at, "expected expression")  # ``sizeof`` with no operand
        else:
            return
        self.abandoned = (at.coord.line, at.coord.column)

    def function_named(self, name: str) -> str | None:
        """What the name ``name``, declared as no variable, stands for: "overloaded" functions (a built-in's, or a
        program's declared overloadable), a "single" function, or None (``as_T`` is a macro of Clang's)."""
        if name in BUILTIN_CONSTANTS:
            return None
        builtin = name not in self.functions and (is_builtin_function(name) or name in SINGLE_DECLARATIONS)
        builtin = builtin and name not in self.undeclared_builtins  # (printf under -cl-std=CL1.1)
        if not (name in self.functions or (builtin and not name.startswith("as_"))):
            return None
        overloaded = name in self.overloads or (builtin and name not in SINGLE_DECLARATIONS)
        return "overloaded" if overloaded else "single"

    def overloaded_ref(self, node: c_ast.Node) -> str | None:
        """The name of overloaded functions that ``node`` is, as a value (not called), else None: stored (assigned,
        initialized, returned, passed) or cast, Clang's words are the store's or the cast's with the type
        '<overloaded function type>', not "reference to overloaded function could not be resolved"."""
        if not isinstance(node, c_ast.ID) or self.lookup(node.name) is not None:
            return None
        return node.name if self.function_named(node.name) == "overloaded" else None

    def typo_correction(self, name: str, args: int | None, after: Token | None, head: bool) -> str | None:
        """Clang's typo correction (``typos.py``) of the undeclared ``name`` before the token ``after``, in an
        expression (``head``: at the start of an expression statement) or in a call with ``args`` arguments, or
        None.

        What Clang weighs depends on where the name stands (measured with clang-15 -cc1 and its OpenCL header):
        - every name in scope (a call: every function that takes ``args`` arguments) and the built-in functions;
          the nearest is tried in the statement, and if the statement is then in error there is no correction (a
          built-in Clang's header overloads, a name of an overloadable function not called, a built-in not
          called): ``sqrtt(x)``, ``dott`` (beside ``dot``, not ``goto``) correct to nothing;
        - in a function, keywords: a statement's and ``sizeof`` in an expression, except right before a ``)``;
        - at the start of an expression statement, Clang's statement parser's choice by the token after the name
          (``StatementFilterCCC``: a statement's keywords before ``(``, ``;``, ``{`` or a name, ``sizeof`` before
          ``(``, ``.``, ``->`` or a name, nothing but variables before ``=``), and a correction there must be less
          than a third of the name's length away (``esle;`` corrects to nothing, ``o[0] = esle;`` to 'else')."""
        nxt = None if after is None else ("id" if after.kind == "id" else after.text)
        variables = {n for scope in self.scopes for n in scope}
        names = set(variables)
        if head and nxt == "=":  # (an assignment's target: a variable)
            return corrected(name, names, strict=True).name
        if args is None:
            names.update(fn.shown for fn in self.functions.values())
            names.update(builtin_names())
        else:  # the functions that take ``args`` arguments, the program's and the built-ins
            names = {
                fn.shown
                for fn in self.functions.values()
                if len(fn.params) == args or (fn.variadic and len(fn.params) <= args)
            }
            names.update(n for n in builtin_names() if callable_with(n, args))
        ctx = self.context
        if self.caller is not None:
            statements = nxt in ("(", ";", "{", "id") if head else nxt != ")"
            if statements:
                names.update(STATEMENT_KEYWORDS)
                if ctx is not None and (ctx.loops or ctx.switch is not None):  # (offered where they may stand)
                    names.update(("break", "continue") if ctx.loops else ("break",))
            if not head or nxt in ("(", ".", "->", "id"):
                names.add("sizeof")
        # the nearest names are tried in the statement: those it stays in error with drop out (a keyword where the
        # parser cannot take it in the name's place); one left is the correction, several are ambiguous: none
        valid = [n for n in nearest(name, names, strict=head) if self._corrects(n, args, nxt, head, variables)]
        return valid[0] if len(valid) == 1 else None

    def _corrects(self, found: str, args: int | None, nxt: str | None, head: bool, variables: set[str]) -> bool:
        """Whether the statement is right with ``found`` in the typo's place, as Clang tries it
        (``typo_correction``)."""
        if found in variables:
            return True
        if found in KEYWORDS:  # (before a ``)``: ``sizeof`` is tried in the expression, and fails)
            return head or nxt != ")"
        program = next((fn for fn in self.functions.values() if fn.shown == found), None)
        if program is None:  # a built-in: as a value, or called where the header overloads it, the statement fails
            return args is not None and found in SINGLE_DECLARATIONS
        return args is not None or found not in self.overloads

    def expr_Constant(self, node: c_ast.Constant) -> TypeInfo:
        kind = node.type
        value = node.value.lower()
        if kind == "char" or value.startswith("'"):  # an int (C99 6.4.4.4p10); pycparser types 'ab' as one
            try:
                char_constant(node.value)
            except ValueError as e:
                self.error(node, str(e))
            return INT
        if kind == "string":
            # (its chars are in __constant memory: read-only, but no const type to Clang, OpenCL C 1.2 6.5.3)
            return TypeInfo("pointer", target=TypeInfo("scalar", "char", space="constant", const=True, implied=True))
        if "float" in kind or "double" in kind:
            out_of_range = literal_range(node.value, single=value.endswith("f"))
            if out_of_range is not None:  # (Clang's -Wliteral-range, at the literal)
                self.warning(node, out_of_range)
            if value.endswith("f"):
                return FLOAT
            if value.endswith("h"):
                if not self.fp16:  # (Clang's words: supported and enabled, ``fp16_missing``)
                    self.error(node, "half precision constant requires cl_khr_fp16")
                return TypeInfo("scalar", "half")
            # an unsuffixed floating literal is a double in C and OpenCL C; a float on a device without doubles
            # (OpenCL 1.2, 6.1.1.1; Clang casts it to single precision likewise) or with
            # -cl-single-precision-constant
            return DOUBLE if self.double_constants else FLOAT
        unsigned = "unsigned" in kind  # pycparser spells the suffix out: "unsigned long int"
        if "long" in kind:
            return ULONG if unsigned else LONG
        number = int_constant(node.value)
        if number is not None and number > 0xFFFFFFFF:
            return ULONG if unsigned else LONG
        if number is not None and number > 0x7FFFFFFF and not unsigned:
            return UINT if value.startswith("0") else LONG
        return UINT if unsigned else INT

    def expr_ArrayRef(self, node: c_ast.ArrayRef) -> TypeInfo:
        base = self.expr(node.name)
        index = self.expr(node.subscript)
        if base.kind == "scalar" and base.name not in FLOATS and index.kind in ("pointer", "array"):
            # ``i[p]``: C99 6.5.2.1's E1[E2] is *(E1 + E2), either way round; the executor reads it as ``p[i]``
            node.name, node.subscript = node.subscript, node.name
            base, index = index, base
        integer = index.kind == "scalar" and index.name not in FLOATS
        if index.kind in ("vector", "pointer", "array", "struct") or (index.kind == "scalar" and not integer):
            self.error(self.operator(node), "array subscript is not an integer")
        if base.kind in ("pointer", "array") and base.target is not None:
            if base.target.kind == "void":
                self.error(node, "subscript of a pointer to void")
                return UNKNOWN
            self.loaded_half(node, base.target)
            if base.kind == "array" and base.length is not None:
                self.index_bounds(node, base.length)
            return base.target
        if base.kind == "vector":  # a component by its index (Clang's extension)
            self.vector_subscripts.add(id(node))
            return TypeInfo("scalar", base.name, space=base.space, const=base.const)
        if base.kind == "unknown":
            return UNKNOWN
        self.error(self.operator(node), "subscripted value is not an array, pointer, or vector")
        return UNKNOWN

    def index_bounds(self, node: c_ast.ArrayRef, length: int) -> None:
        """Clang's warning for a constant index outside an array of ``length`` elements (one past its end only
        where the element's address is taken: ``&a[n]``)."""
        index = const_int(node.subscript, self.enumerators, self.types)
        if index is None:
            return
        if index < 0:
            self.runtime_warning(self.start(node), f"array index {index} is before the beginning of the array")
        elif index > length or (index == length and id(node) not in self.unloaded):
            what = f"array index {index} is past the end of the array (which contains {length} elements)"
            self.runtime_warning(self.start(node), what)

    def unevaluated_expr(self, node: c_ast.Node) -> TypeInfo:
        """The type of ``node``, an operand that is never evaluated (of ``sizeof``, ``_Alignof``, ``_Generic``):
        Clang gives no warning about what it would do when it runs (``runtime_warning``)."""
        self.unevaluated += 1
        try:
            return self.expr(node)
        finally:
            self.unevaluated -= 1

    def side_effects_unevaluated(self, operand: c_ast.Node, bracket: c_ast.Node | None) -> None:
        """Clang's warning for an operand of ``sizeof``, ``_Alignof``, ``vec_step`` or ``_Generic`` (its controlling
        expression; not ``__typeof__``'s, of which Clang says nothing) that would modify something
        (an assignment, ``++``, ``--``; a call alone is not one to Clang), none of which happens: at the operand's
        ``(`` where it is written in brackets of its own, else at its operator."""
        if any(modifies(n) for n in evaluated_nodes(operand)):
            place = bracket or self.operator(operand)
            self.warning(place, "expression with side effects has no effect in an unevaluated context")

    def typeof_operand(self, node: c_ast.Node) -> tuple[TypeInfo, bool]:
        """The type ``__typeof__(node)`` names (``TypeResolver.typeof_operand``): the operand's, never evaluated
        and not read, as ``sizeof``'s; an object's with its qualifiers and address space, a value's without."""
        self.unloaded.add(id(node))
        t = self.unevaluated_expr(node)
        if self.is_lvalue(node):
            return t, True
        return TypeInfo(t.kind, t.name, t.width, t.target, "private", False, t.length, t.unnamed), False

    def member_alignment(self, node: c_ast.Node) -> int | None:
        """The alignment of a struct or union member ``s.m``/``p->m`` (``structs.member_alignment``), or None when
        ``node`` is not one."""
        if not isinstance(node, c_ast.StructRef):
            return None
        base = self.expr_quiet(node.name)
        if node.type == "->" and base.target is not None:
            base = base.target
        if base.kind != "struct" or base.name not in self.types.structs:
            return None
        return member_alignment(layout(base.name, self.types), node.field.name)

    def loaded_half(self, node: c_ast.Node, t: TypeInfo) -> None:
        """A ``half`` read or written through a pointer (``p[i]``, ``*p``) needs cl_khr_fp16 (Clang: "loading
        directly from pointer to type 'half' requires cl_khr_fp16. Use vector data load builtin functions
        instead"); taking its address (``&p[i]``, for ``vstore_half``) or its size does not."""
        if t.kind == "scalar" and t.name == "half" and not self.fp16 and id(node) not in self.unloaded:
            self.error(
                node,
                f"reading or writing a 'half' through a pointer needs {self.fp16_missing}; use vload_half/vstore_half",
            )

    def expr_StructRef(self, node: c_ast.StructRef) -> TypeInfo:
        base = self.expr(node.name)
        member = node.field.name
        if node.type == "->":
            if base.kind == "unknown":
                return UNKNOWN
            if base.kind not in ("pointer", "array") or base.target is None:  # (an array decays to a pointer)
                shown = self.operand_type(node.name, base)
                if base.kind == "struct":  # (a struct's ``.`` was meant: at the ``->``)
                    hint = "; did you mean to use '.'?"
                    self.error(self.operator(node), f"member reference type {shown} is not a pointer{hint}")
                else:
                    self.error(node.field, f"member reference type {shown} is not a pointer")
                return UNKNOWN
            base = base.target
        if base.kind == "vector":
            try:
                picked = swizzle_indices(member, base.width)
            except SwizzleError as e:
                self.error(self.operator(node), self.swizzle_problem(e, node, base))
                return UNKNOWN
            if member[0] in "rgba":  # (as Clang words it in OpenCL C 1.2, naming the first component)
                self.warning(
                    self.operator(node),
                    f"vector component name '{member[0]}' is a feature from OpenCL version 3.0 onwards",
                )
            return TypeInfo(
                "vector" if len(picked) > 1 else "scalar", base.name, len(picked), space=base.space, const=base.const
            )
        if base.kind == "struct":
            t = self.types.find_member(base.name, member)
            if t is not None:
                self.member_refs.add(id(node))
                return located(t, base.space, base.const, base.implied)
            if base.name in self.types.structs:
                near = corrected(member, [name for name, _ in self.types.fields(base.name) if name], strict=True).name
                did = "" if near is None else f"; did you mean '{near}'?"  # (Clang's typo correction of members)
                self.error(node.field, f"no member named '{member}' in '{self.spelled(base.name)}'{did}")
            else:
                self.error(self.operator(node), f"incomplete definition of type '{self.spelled(base.name)}'")
            return UNKNOWN
        if base.kind == "unknown":
            return UNKNOWN
        # (through ``->``: the type pointed to, with its address space)
        shown = described(base, self.spelled) if node.type == "->" else self.clang_type(node.name, base, as_value=True)
        if base.kind == "pointer" and base.target is not None and base.target.kind == "struct":
            self.error(self.operator(node), f"member reference type {shown} is a pointer; did you mean to use '->'?")
            return UNKNOWN
        self.error(self.operator(node), f"member reference base type {shown} is not a structure or union")
        return UNKNOWN

    def expr_GenericSelection(self, node: c_ast.GenericSelection) -> TypeInfo:
        """C11's ``_Generic(e, T1: e1, T2: e2, default: e3)`` (Clang takes it in OpenCL C): the association whose
        type is the type of ``e`` after lvalue conversion (qualifiers and the address space of the value dropped, an
        array decayed to a pointer; a pointer's pointee keeps its own), else ``default``. ``e`` is not evaluated;
        the chosen association is the executor's (``Program.generic_choices``)."""
        self.unloaded.add(id(node.expr))
        controlling = _unqualified(self.unevaluated_expr(node.expr))
        self.side_effects_unevaluated(node.expr, None)
        chosen: c_ast.Node | None = None
        default: c_ast.Node | None = None
        seen: list[TypeInfo] = []
        for assoc in node.associations:
            if assoc.type is None:
                if default is not None:
                    self.error(assoc, "duplicate default generic association")
                default = assoc.expr
                continue
            t = self.types.resolve(assoc.type)
            for earlier in seen:
                if _same_type(t, earlier):
                    self.error(
                        assoc,
                        f"type '{t}' in generic association compatible with previously specified type '{earlier}'",
                    )
            seen.append(t)
            if chosen is None and _same_type(t, controlling):
                chosen = assoc.expr
        types = [self.expr(assoc.expr) for assoc in node.associations]  # (each association is checked)
        chosen = chosen if chosen is not None else default
        if controlling.kind == "unknown" or any(t.kind == "unknown" for t in seen):
            return UNKNOWN
        if chosen is None:
            self.error(
                node.expr,
                f"controlling expression type '{controlling}' not compatible with any generic association type",
            )
            return UNKNOWN
        self.generic_choices[id(node)] = chosen
        return types[[assoc.expr for assoc in node.associations].index(chosen)]

    def expr_UnaryOp(self, node: c_ast.UnaryOp) -> TypeInfo:
        op = node.op
        if op in ("sizeof", "_Alignof", "alignof", "vec_step", "&"):
            self.unloaded.add(id(node.expr))  # its operand is not read (``loaded_half``)
        if op == "vec_step":
            return self.vec_step_of_name(node)
        if op in ("sizeof", "_Alignof", "alignof"):
            if isinstance(node.expr, c_ast.Typename):
                t = self.types.resolve(node.expr.type)
                self.check_type_usable(t, node, op, named=True)
                shown = op if op == "sizeof" else self.alignof_spelled(node)
                if t.kind == "void":  # (GNU C's 1: an error in OpenCL C, as Clang has it)
                    self.error(node, f"invalid application of '{shown}' to a void type")
                elif t.kind == "struct" and t.name not in self.types.structs:
                    self.error(node, f"invalid application of '{shown}' to the incomplete type '{t.name}'")
                elif op == "sizeof" and t.kind == "array" and t.length is None:
                    variable = _variable_length(node.expr.type, self)
                    if variable is not None:
                        self.error(variable, "variable length arrays are not supported in OpenCL")
                    else:
                        self.error(node, f"invalid application of 'sizeof' to an incomplete type '{t}'")
                elif op == "sizeof":  # the executor reads it here (one size rule: ``structs.size_align``)
                    with contextlib.suppress(ValueError):
                        self.sizes[id(node)] = size_align(t, self.types)[0]
            else:
                t = self.unevaluated_expr(node.expr)
                if op != "sizeof" and self.alignof_spelled(node) == "alignof":  # (GNU's spellings take one)
                    self.warning(node, "'_Alignof' applied to an expression is a GNU extension")
                self.side_effects_unevaluated(node.expr, self.operator_marks.bracket_after(node))
                string = isinstance(node.expr, c_ast.Constant) and node.expr.type == "string"
                if t.kind == "void":
                    self.error(node, f"invalid application of '{op}' to a void type")
                elif op == "sizeof" and not string:  # from the operand's type: never evaluated (C99 6.5.3.4p2)
                    with contextlib.suppress(ValueError):  # (no size known here: the executor works it out)
                        self.sizes[id(node)] = size_align(t, self.types)[0]
                elif op != "sizeof":  # GNU's alignment of an expression (its type's; a member's own), as Clang
                    try:
                        member = self.member_alignment(node.expr)
                        self.sizes[id(node)] = member if member is not None else size_align(t, self.types)[1]
                    except ValueError:
                        self.error(node, f"invalid application of '{op}' to an expression of type '{t}'")
            return ULONG
        operand = self.expr(node.expr)
        if op in ("++", "--", "p++", "p--"):
            verb = "increment" if "+" in op else "decrement"
            # Clang looks at the type first (no array, struct or float vector: integer vectors only), then the lvalue
            if operand.kind in ("array", "struct") or (operand.kind == "vector" and operand.name in FLOATS):
                self.error(self.operator(node), f"cannot {verb} value of type {self.clang_type(node.expr, operand)}")
            else:
                self.check_assignable(node.expr, node)
            return operand
        if op == "&":
            if isinstance(node.expr, c_ast.ID) and (
                node.expr.name in self.functions or is_builtin_function(node.expr.name)
            ):
                return UNKNOWN  # reported as a function pointer already
            if operand.kind == "unknown":
                return UNKNOWN
            if self.vector_element(node.expr):  # (VkFFT's double sincos(x, &w.x): refused by Clang)
                self.error(self.operator(node), "address of vector element requested")
                return UNKNOWN
            literal = isinstance(node.expr, c_ast.Constant) and node.expr.type == "string"  # (an array: an lvalue)
            if not literal and not self.is_lvalue(node.expr):  # (a constant, an operator's or a call's result)
                shown = self.clang_type(node.expr, operand, as_value=True)
                self.error(self.operator(node), f"cannot take the address of an rvalue of type {shown}")
                return UNKNOWN
            return TypeInfo("pointer", target=operand)
        if op == "*":
            if operand.kind in ("pointer", "array") and operand.target is not None:
                self.loaded_half(node, operand.target)
                return operand.target
            if operand.kind != "unknown":
                # (its value's type, as it is loaded: no qualifier)
                shown = re.sub(r"^'((?:const|volatile) )+", "'", self.operand_type(node.expr, operand))
                self.error(self.operator(node), f"indirection requires pointer operand ({shown} invalid)")
            return UNKNOWN
        invalid = f"invalid argument type {self.operand_type(node.expr, operand)} to unary expression"
        if op == "!":
            if operand.kind == "vector":
                return TypeInfo("vector", _signed_of_size(operand.name), operand.width, unnamed=True)
            if operand.kind == "struct":
                self.error(self.operator(node), invalid)
                return UNKNOWN
            return INT
        if op == "~" and operand.is_arithmetic and operand.name in FLOATS:
            self.error(self.operator(node), invalid)
            return UNKNOWN
        if op in ("-", "+", "~"):
            if operand.kind in ("pointer", "struct", "array"):
                self.error(self.operator(node), invalid)
                return UNKNOWN
            return _promote(operand)
        self.error(node, f"unsupported operator '{op}'")
        return UNKNOWN

    def vector_element(self, node: c_ast.Node) -> bool:
        """Whether ``node`` names components of a vector (``v.x``, ``v.s01``, ``v[i]``), which have no address."""
        if isinstance(node, c_ast.StructRef) and node.type == ".":
            return self.expr_quiet(node.name).kind == "vector"
        return isinstance(node, c_ast.ArrayRef) and self.expr_quiet(node.name).kind == "vector"

    def expr_BinaryOp(self, node: c_ast.BinaryOp) -> TypeInfo:
        op = node.op
        left = self.expr(node.left)
        right = self.expr(node.right)
        self.operator_warnings(node, left, right)
        if left.kind == "unknown" or right.kind == "unknown":
            if op in _COMPARISONS or op in ("&&", "||"):
                if left.kind == "vector" or right.kind == "vector":
                    v = left if left.kind == "vector" else right
                    return TypeInfo("vector", _signed_of_size(v.name), v.width, unnamed=True)
                return INT if "vector" not in (left.kind, right.kind) else UNKNOWN
            if op in ("+", "-") and "pointer" in (left.kind, right.kind):
                return left if left.kind == "pointer" else right if op == "+" else UNKNOWN
            if left.kind == "vector" or right.kind == "vector":
                v = left if left.kind == "vector" else right
                return TypeInfo("vector", "?", v.width)
            return UNKNOWN
        pointers = [t for t in (left, right) if t.kind in ("pointer", "array")]
        if pointers:
            return self.pointer_arithmetic(node, left, right)
        if not (left.is_arithmetic and right.is_arithmetic):
            self.error(self.operator(node), self.invalid_operands(node, left, right))
            return UNKNOWN
        if op in ("<<", ">>") and "vector" in (left.kind, right.kind):
            return _promote(left) if self.vector_shift(node, left, right) else UNKNOWN
        if op in _INTEGER_ONLY_OPS and (left.name in FLOATS or right.name in FLOATS):
            self.error(self.operator(node), self.invalid_operands(node, left, right))
            return UNKNOWN
        if _other_vectors(left, right):  # (a shift's: ``vector_shift``, above)
            self.error(self.operator(node), _vector_conversions(left, right))
            self.logical_operands(node, left, right)
            return UNKNOWN
        if op not in ("<<", ">>") and not self.scalar_fits_vector(node, left, right, (node.left, node.right)):
            self.logical_operands(node, left, right)
            return UNKNOWN
        if op in _COMPARISONS or op in ("&&", "||"):
            if left.kind == "vector" or right.kind == "vector":
                v = left if left.kind == "vector" else right
                return TypeInfo("vector", _signed_of_size(v.name), v.width, unnamed=True)
            return INT
        if op in ("<<", ">>"):
            return _promote(left)
        if op in ("/", "%"):
            self.zero_divisor(node, op, left, right, node.right)
        return _arithmetic(left, right)

    def logical_operands(self, node: c_ast.BinaryOp, left: TypeInfo, right: TypeInfo) -> None:
        """Clang's second error for ``&&`` and ``||`` whose vector operands do not convert to one type: after
        what the conversion says, "invalid operands" (it checks the logical operator's operands again as such)."""
        if node.op in ("&&", "||"):
            self.error(self.operator(node), self.invalid_operands(node, left, right))

    def vector_shift(self, node: c_ast.BinaryOp | c_ast.Assignment, left: TypeInfo, right: TypeInfo) -> bool:
        """Clang's checks of a shift with a vector operand (``checkVectorShift``), in its order, each error at the
        operator: the amount may be a vector only if the shifted value is one (both types as written), then both
        must be of integers, then two vectors of one length. Its operands' types as Clang has them then: a value's,
        of no address space, but a compound assignment's target, which stays an object."""
        at = self.operator(node)
        compound = isinstance(node, c_ast.Assignment)
        x, y = (node.lvalue, node.rvalue) if isinstance(node, c_ast.Assignment) else (node.left, node.right)
        if left.kind != "vector":
            shifted, amount = self.clang_type(x, left, as_value=True), self.clang_type(y, right, as_value=True)
            self.error(
                at, f"requested shift is a vector of type {amount} but the first operand is not a vector ({shifted})"
            )
            return False
        a = self.clang_type(x, left, as_value=True) if compound else self.operand_type(x, left)
        b = self.operand_type(y, right)
        for t, shown in ((left, a), (right, b)):
            if t.name in FLOATS:
                self.error(at, f"used type {shown} where integer is required")
                return False
        if right.kind == "vector" and right.width != left.width:
            self.error(at, f"vector operands do not have the same number of elements ({a} and {b})")
            return False
        return True

    def zero_divisor(self, node: c_ast.Node, op: str, left: TypeInfo, right: TypeInfo, divisor: c_ast.Node) -> None:
        """Clang's warning for an integer division or remainder (``op``, of scalars) by a constant zero, which it
        gives once the function is checked (``runtime_warning``)."""
        integers = all(t.kind == "scalar" and t.name not in FLOATS for t in (left, right))
        if integers and const_int(divisor, self.enumerators, self.types) == 0:
            what = "division" if op == "/" else "remainder"
            self.runtime_warning(self.operator(node), f"{what} by zero is undefined")

    def scalar_fits_vector(
        self, node: c_ast.Node, left: TypeInfo, right: TypeInfo, operands: tuple[c_ast.Node, c_ast.Node]
    ) -> bool:
        """A scalar beside a vector converts to the vector's element type only if that loses no rank: Clang's
        OpenCL rule (``char4 + 1``, ``int4 + 1u``, ``float4 * 2.0`` with doubles, ``int4 * 0.5f`` are errors;
        ``float4 * 2`` and ``uint4 + 1`` are not), for the operands of a binary operator, a compound assignment
        and ``?:`` alike: Clang's error at the operator, its operands' types in their order."""
        if (left.kind == "vector") == (right.kind == "vector"):
            return True
        vector, scalar = (left, right) if left.kind == "vector" else (right, left)
        ve, sc = _ctype(TypeInfo("scalar", vector.name)), _ctype(scalar)
        if ve is None or sc is None or sc.kind == "bool":
            return True
        if ve.kind == "float":
            worse = sc.kind == "float" and sc.rank > ve.rank
        else:  # C's integer conversion order: the rank, and unsigned above signed of one rank
            worse = sc.kind == "float" or (sc.rank, sc.kind == "uint") > (ve.rank, ve.kind == "uint")
        if worse:
            shown = " and ".join(self.operand_type(e, t) for e, t in zip(operands, (left, right), strict=True))
            self.error(
                self.operator(node),
                f"scalar operand type has greater rank than the type of the vector element. ({shown})",
            )
        return not worse

    def invalid_operands(self, node: c_ast.BinaryOp | c_ast.Assignment, left: TypeInfo, right: TypeInfo) -> str:
        """Clang's "invalid operands to binary expression" with the operands' types (a compound assignment's: its
        target's and value's), each an object's with its address space (its vector note once: Clang does not repeat
        what it said of the same type)."""
        x, y = (node.lvalue, node.rvalue) if isinstance(node, c_ast.Assignment) else (node.left, node.right)
        a, b = self.clang_type(x, left, as_value=True), self.clang_type(y, right, as_value=True)
        if b == a:
            b = b.split(" (", 1)[0]
        return f"invalid operands to binary expression ({a} and {b})"

    def operand_type(self, node: c_ast.Node, t: TypeInfo) -> str:
        """The type of operand ``node`` (of type ``t``) as Clang's operator errors spell it: its value's, of no
        address space, by the typedef a variable was declared with ('big' (aka 'long')); a constant's and the usual
        arithmetic conversions' scalar by C's name, as ``clang_type`` ('unsigned int' for ``1u``)."""
        symbol = self.lookup(node.name) if isinstance(node, c_ast.ID) else None
        if symbol is not None and symbol.declared is not None and symbol.type.kind in ("scalar", "vector", "struct"):
            return self.spell(symbol.declared, _unqualified(symbol.type, "default"), None, decayed=True)
        if t.kind == "scalar" and isinstance(node, c_ast.Constant | c_ast.TernaryOp | c_ast.BinaryOp):
            return self.clang_type(node, t, as_value=True)
        return self.value_type(t)

    def pointer_arithmetic(self, node: c_ast.BinaryOp, left: TypeInfo, right: TypeInfo) -> TypeInfo:
        op = node.op
        lp = left.kind in ("pointer", "array")
        rp = right.kind in ("pointer", "array")
        null = op in _COMPARISONS and (self.null_pointer(node.left) or self.null_pointer(node.right))
        if op in (*_COMPARISONS, "-") and points_elsewhere(left, right) and not null:
            what = "comparison between" if op in _COMPARISONS else "arithmetic operation with operands of type"
            self.error(self.operator(node), f"{what}  ({self.pointers(left, right)}) {_NON_OVERLAPPING}")
            return UNKNOWN
        if op in _COMPARISONS:
            self.compared_pointers(node, left, right, null)
        if op in _COMPARISONS or op in ("&&", "||"):
            return INT
        if op == "-" and lp and rp:
            return LONG
        integer = (right if lp else left).kind == "scalar" and (right if lp else left).name not in FLOATS
        if op == "+" and (lp != rp) and integer:
            p = left if lp else right
            return TypeInfo("pointer", target=p.target) if p.kind == "array" else p
        if op == "-" and lp and not rp and integer:
            return TypeInfo("pointer", target=left.target) if left.kind == "array" else left
        self.error(self.operator(node), self.invalid_operands(node, left, right))
        return UNKNOWN

    def compared_pointers(self, node: c_ast.BinaryOp, left: TypeInfo, right: TypeInfo, null: bool) -> None:
        """Clang's warnings for a comparison of a pointer with an integer that is no null pointer constant ("ordered"
        for ``<``, ``>``, ``<=``, ``>=``) or with a pointer to another type than its own (``types.pointer_conversion``:
        ``void*`` compares with any, a ``const`` pointee with its plain twin); the operands' types as values, in their
        order."""
        lp, rp = (t.kind in ("pointer", "array") for t in (left, right))
        if lp and rp:
            if pointer_conversion(left, right) in ("incompatible pointer", "pointer sign"):
                self.warning(
                    self.operator(node), f"comparison of distinct pointer types ({self.pointers(left, right)})"
                )
            return
        integer, operand = (right, node.right) if lp else (left, node.left)
        if null or integer.kind != "scalar" or integer.name in FLOATS:
            return
        spelled = [self.pointer_value(left if lp else right), self.operand_type(operand, integer)]
        shown = " and ".join(spelled if lp else spelled[::-1])
        ordered = "ordered " if node.op not in ("==", "!=") else ""
        self.warning(self.operator(node), f"{ordered}comparison between pointer and integer ({shown})")

    def expr_TernaryOp(self, node: c_ast.TernaryOp) -> TypeInfo:
        cond = self.expr(node.cond)
        a = cond if node.iftrue is node.cond else self.expr(node.iftrue)  # (GNU's ``x ?: y``: ``grammar``)
        b = self.expr(node.iffalse)
        if cond.kind in ("struct", "void"):
            shown = "'void'" if cond.kind == "void" else self.operand_type(node.cond, cond)
            self.error(self.operator(node), f"used type {shown} where arithmetic or pointer type is required")
        elif cond.kind in ("scalar", "vector") and cond.name in FLOATS and "unknown" not in (a.kind, b.kind):
            # (OpenCL C: Clang's error, at the '?', once the arms are checked; if/while take a float)
            shown = self.value_type(cond)
            self.error(self.operator(node), f"used type {shown} where floating point type is not allowed")
            return UNKNOWN
        if a.kind == "unknown" or b.kind == "unknown":
            return a if b.kind == "unknown" else b
        if a.is_arithmetic and b.is_arithmetic:
            if _other_vectors(a, b):
                self.error(self.operator(node), _vector_conversions(a, b))
                return UNKNOWN
            if not self.scalar_fits_vector(node, a, b, (node.iftrue, node.iffalse)):
                return UNKNOWN
            result = _arithmetic(a, b)
            if cond.kind == "vector":  # (two scalars of one type keep it, unpromoted, as Clang's)
                same = a.kind == b.kind == "scalar" and a.name == b.name
                return self.vector_selection(node, cond, TypeInfo("scalar", a.name) if same else result)
            return result
        if "struct" in (a.kind, b.kind) and (a.kind, a.name) != (b.kind, b.name):
            self.error(self.operator(node), f"incompatible operand types ('{a}' and '{b}') for '?:'")
            return UNKNOWN
        if points_elsewhere(a, b) and not (self.null_pointer(node.iftrue) or self.null_pointer(node.iffalse)):
            self.error(
                self.operator(node),
                f"conditional operator with the second and third operands of type  ({self.pointers(a, b)}) "
                + _NON_OVERLAPPING,
            )
            return UNKNOWN
        return a

    def swizzle_problem(self, e: SwizzleError, node: c_ast.StructRef, base: TypeInfo) -> str:
        """Clang's words for the invalid swizzle ``node`` of a vector of type ``base``."""
        if e.kind == "name":
            return f"illegal vector component name '{e.char}'"
        if e.kind == "range":
            shown = (
                described(base, self.spelled) if node.type == "->" else self.clang_type(node.name, base, as_value=True)
            )
            return f"vector component access exceeds type {shown}"
        if e.kind == "length":
            return f"vector component access has invalid length {e.count}.  Supported: 1,2,3,4,8,16."
        return str(e)

    def pointers(self, a: TypeInfo, b: TypeInfo) -> str:
        """Two pointer operands' types as Clang's errors give them: as values (an array decayed), quoted."""
        return f"{self.pointer_value(a)} and {self.pointer_value(b)}"

    def pointer_value(self, t: TypeInfo) -> str:
        """A pointer operand's type as Clang's errors give it: as a value (an array decayed), quoted."""
        return described(TypeInfo("pointer", target=t.target) if t.kind == "array" else t, self.spelled)

    def start(self, node: c_ast.Node) -> c_ast.Node:
        """Where an expression starts (``-x``: its ``-``), where Clang places errors about the whole of it."""
        return self.operator_marks.get((id(node), "start"), node)

    def operator(self, node: c_ast.Node) -> c_ast.Node:
        """Where an operator's errors stand: its ``?``, ``=``, ``++``, ``[`` or a call's ``(``, as Clang places them
        (``operator_marks``)."""
        return self.operator_marks.get(id(node), node)

    def vector_selection(self, node: c_ast.TernaryOp, cond: TypeInfo, result: TypeInfo) -> TypeInfo:
        """``c ? a : b`` with a vector ``c`` (OpenCL C 1.2 6.3 i): ``select(b, a, c)``, component by component on
        the most significant bit of ``c``'s; scalar operands widen to ``c``'s length. Clang's rules: an integer
        condition, as many components as the result and components of its size."""
        ct = _ctype(cond)
        if ct is None or ct.kind == "float":
            self.error(node.cond, f"a vector condition must have an integer type, not '{cond.type_name}'")
            return UNKNOWN
        if result.kind == "vector" and result.width != cond.width:
            self.error(
                self.operator(node),
                f"vector condition '{cond.type_name}' and result '{result.type_name}' differ in length",
            )
            return UNKNOWN
        widened = result if result.kind == "vector" else TypeInfo("vector", result.name, cond.width)
        if result.name in SCALAR_SIZES and SCALAR_SIZES[result.name] != ct.dtype.itemsize:
            self.error(
                self.operator(node),
                f"vector condition type '{cond.type_name}' and result type '{widened.type_name}' do not have "
                "elements of the same size",
            )
            return UNKNOWN
        return widened

    def expr_Assignment(self, node: c_ast.Assignment) -> TypeInfo:
        target = self.expr(node.lvalue)
        overloaded = node.op == "=" and self.overloaded_ref(node.rvalue) is not None
        value = UNKNOWN if overloaded else self.expr(node.rvalue)
        seen = len(self.diagnostics)
        self.check_assignable(node.lvalue, node)
        if self.errors_since(seen):  # (Clang checks the types only of a store to what may be assigned)
            return target
        if overloaded and target.kind != "unknown":
            self.report_store("incompatible", target, UNKNOWN, node, None, None, True, OVERLOADED_TYPE)
            return target
        if node.op == "=":
            self.check_assignment_types(target, value, node)
        elif target.kind != "unknown" and value.kind != "unknown" and value.name != "?":  # ('?': after an error)
            self.compound_assignment(node, target, value)
        return target

    def compound_assignment(self, node: c_ast.Assignment, target: TypeInfo, value: TypeInfo) -> None:
        """``x op= y``: Clang checks ``x op y`` as the binary operator's operands (in their words, each operand's
        type an object's with its address space), then the result stored back to ``x``; each error at the
        operator (found only for an error: ``operator_marks`` tokenizes the source again)."""
        op = node.op[:-1]
        if target.kind == "pointer":
            if op not in ("+", "-") or not (value.kind == "scalar" and value.name not in FLOATS):
                self.error(self.operator(node), self.invalid_operands(node, target, value))
        elif not (target.is_arithmetic and value.is_arithmetic):
            self.error(self.operator(node), self.invalid_operands(node, target, value))
        elif op in ("<<", ">>") and "vector" in (target.kind, value.kind):
            self.vector_shift(node, target, value)
        elif op in _INTEGER_ONLY_OPS and (target.name in FLOATS or value.name in FLOATS):
            self.error(self.operator(node), self.invalid_operands(node, target, value))
        elif op in ("<<", ">>"):
            return
        elif _other_vectors(target, value):
            self.error(self.operator(node), _vector_conversions(target, value))
        elif value.kind == "vector" and target.kind == "scalar":
            to = self.clang_type(node.lvalue, target, as_value=True)
            self.error(self.operator(node), f"assigning to {to} from incompatible type {self.value_type(value)}")
        elif self.scalar_fits_vector(node, target, value, (node.lvalue, node.rvalue)) and op in ("/", "%"):
            self.zero_divisor(node, op, target, value, node.rvalue)

    def expr_Cast(self, node: c_ast.Cast) -> TypeInfo:
        target = self.types.resolve(node.to_type.type)
        seen = len(self.diagnostics)
        self.check_type_usable(target, node, "cast")
        if self.errors_since(seen):  # (a type in error: Clang says nothing of the conversion to it)
            self.expr(node.expr)
            return UNKNOWN
        if isinstance(node.expr, c_ast.ExprList) and target.kind == "vector":
            self.vector_literal(node, target)
            return target
        overloaded = self.overloaded_ref(node.expr)
        if overloaded is not None:
            self.error(node.expr, f"address of overloaded function '{overloaded}' is ambiguous")
            return UNKNOWN
        value = self.expr(node.expr)
        if value.kind == "unknown":  # (an operand in error: Clang says nothing more of what is made of it)
            return UNKNOWN
        if target.kind == "vector" and value.kind == "vector":
            if value.width != target.width or value.name not in (target.name, "?"):  # (convert_ or as_ does it)
                shown = " and ".join(self.value_type(t) for t in (target, value))
                self.error(node, f"invalid conversion between ext-vector type {shown}")
        elif target.kind == "scalar" and target.name in FLOATS and value.kind == "pointer":
            self.error(node.expr, f"pointer cannot be cast to type '{target.name}'")
        elif target.kind == "scalar" and value.kind == "vector":
            vector, scalar = self.value_type(value), self.value_type(target)
            self.error(node, f"invalid conversion between vector type {vector} and scalar type {scalar}")
        elif target.kind in ("scalar", "vector", "pointer") and value.kind == "struct":
            self.error(node, f"operand of type '{value}' where arithmetic or pointer type is required")
        elif target.kind == "struct" and not (value.kind == "struct" and value.name == target.name):
            # (to its own type: Clang takes it, the value unchanged)
            self.error(node, f"used type '{target}' where arithmetic or pointer type is required")
        elif target.kind == "array":
            self.error(node, f"cast to '{target}' is not supported")
        elif target.kind == "pointer" and points_elsewhere(target, value):  # (NULL too: a cast is no conversion)
            # (an array as the pointer it decays to; a pointee in no space is __private)
            cast = [described(_unqualified(t) if t.kind == "array" else t, self.spelled) for t in (value, target)]
            self.error(node, f"casting {cast[0]} to type {cast[1]} changes address space of pointer")
        return TypeInfo(target.kind, target.name, target.width, target.target, "private", False, target.length)

    def vector_literal(self, node: c_ast.Cast, target: TypeInfo) -> None:
        parts = [self.expr(e) for e in node.expr.exprs]
        widths: list[int] = []
        for e, t in zip(node.expr.exprs, parts, strict=True):
            if t.kind == "vector" and t.name not in (target.name, "?"):  # (Clang converts scalars only; it counts on)
                shown = f"incompatible type {self.clang_type(e, t, as_value=True)}"
                self.error(self.start(e), f"initializing '{target.name}' with an expression of {shown}")
            if t.kind == "vector":
                widths.append(t.width)
            elif t.kind == "scalar":
                widths.append(1)
            elif t.kind != "unknown":
                self.error(e, f"vector literal component must be a scalar or vector, not '{t}'")
                return
        for e, t in reversed(list(zip(node.expr.exprs, parts, strict=True))):  # (Clang's order: the last part first)
            self.constant_conversion(e, t, TypeInfo("scalar", target.name))
        if len(widths) != len(parts):
            return
        total = sum(widths)
        if total == target.width or (len(parts) == 1 and total == 1):
            return
        # Clang's words: scalars past the end are excess items of the list, at the first of them; a vector item
        # makes the count the literal's, at its '('
        if total > target.width and max(widths) == 1:
            self.error(self.start(node.expr.exprs[target.width]), "excess elements in vector initializer")
            return
        few = "too few" if total < target.width else "too many"
        self.error(
            self.operator_marks.get((id(node), "("), node),
            f"{few} elements in vector initialization (expected {target.width} elements, have {total})",
        )

    def expr_ExprList(self, node: c_ast.ExprList) -> TypeInfo:
        result = UNKNOWN
        for k, e in enumerate(node.exprs):
            result = self.expr(e)
            if k < len(node.exprs) - 1:  # a comma operator's left operand
                self.unused_result(e, comma=True)
        return result

    def expr_CompoundLiteral(self, node: c_ast.CompoundLiteral) -> TypeInfo:
        """``(T){...}`` (C99 6.5.2.5): an unnamed object of type ``T`` initialized as a declaration is. The executor
        makes it private; Clang gives it no address space ("default"), so a pointer to it (``&(S){x}``, an array
        literal decayed) converts to no pointer type: indexing it and reading its members is what a kernel can do."""
        t = self.types.resolve(node.type.type)
        self.check_type_usable(t, node.type, "compound literal")
        if t.kind == "struct":
            problem = check_struct(t, self.types)
            if problem:
                self.error(node.type, problem)
                return UNKNOWN
        self.check_initializer(node.init, t, None)
        length = self.list_lengths.get(id(node.init), t.length) if t.kind == "array" else t.length
        return located(TypeInfo(t.kind, t.name, t.width, t.target, t.space, t.const, length), "default", t.const)

    def expr_InitList(self, node: c_ast.InitList) -> TypeInfo:
        self.error(node, "a brace-enclosed list is only allowed as an initializer")
        return UNKNOWN

    def expr_Typename(self, node: c_ast.Typename) -> TypeInfo:
        self.error(node, "a type name is not an expression")
        return UNKNOWN

    # -- lvalues
    def check_assignable(self, target: c_ast.Node, at: c_ast.Node) -> None:
        """Clang's error for an assignment (or increment) ``at`` of ``target`` that is not a modifiable lvalue, at
        its operator, in Clang's order (``Expr::isModifiableLvalue``): no lvalue, an array, a vector with a component
        twice, then const (``const_assignment``) or a struct with a const member."""
        if isinstance(target, c_ast.Cast):  # Clang's words and place for a cast itself (a vector literal's member: not)
            self.error(at, "assignment to cast is illegal, lvalue casts are not supported")
            return
        problem = self.not_assignable(target) or self.const_member(target)
        if problem:
            self.error(self.operator(at), problem)

    def const_member(self, target: c_ast.Node) -> str | None:
        """Clang's error for an assignment to a whole struct or union with a const member (C99 6.3.2.1p1: not a
        modifiable lvalue), at any depth."""
        t = self.expr_quiet(target)
        found = self._const_member(t) if t.kind == "struct" else None
        if found is None:
            return None
        name, nested = found
        if isinstance(target, c_ast.ID):
            what = f"variable '{target.name}'"
        elif isinstance(target, c_ast.StructRef):
            what = f"non-static data member '{target.field.name}'"
        else:
            what = "lvalue"
        return f"cannot assign to {what} with {'nested ' if nested else ''}const-qualified data member '{name}'"

    def _const_member(self, t: TypeInfo, depth: int = 0) -> tuple[str, bool] | None:
        """The first const member of the struct ``t`` (a member struct's, at any depth), and whether nested."""
        if depth > 64:  # (a struct cannot hold itself: reported elsewhere)
            return None
        for name, mt in self.types.fields(t.name):
            if mt.const:
                return name or "", depth > 0
            inner = mt.innermost
            if inner.kind == "struct":
                found = self._const_member(inner, depth + 1)
                if found is not None:
                    return found
        return None

    def not_assignable(self, node: c_ast.Node) -> str | None:
        if isinstance(node, c_ast.ID) and self.lookup(node.name) is None and node.name not in BUILTIN_CONSTANTS:
            return None  # undeclared: reported already
        if self.expr_quiet(node).kind == "unknown":  # (``s.x`` of an undeclared ``s``: in error already)
            return None
        if not self.is_lvalue(node):
            return "expression is not assignable"
        t = self.expr_quiet(node)
        if t.kind == "array":
            return f"array type {self.clang_type(node, t)} is not assignable"
        if self.repeats_components(node):
            return "vector is not assignable (contains duplicate components)"
        if t.const or t.space == "constant":
            return self.const_assignment(node)
        return None

    def is_lvalue(self, node: c_ast.Node) -> bool:
        """Whether ``node`` designates an object (C99 6.3.2.1): a variable, an element, a member or component of
        one, what a pointer points to; not an enumerator, a constant, a call or an operator's result."""
        if isinstance(node, c_ast.ID):
            symbol = self.lookup(node.name)
            return symbol is not None and symbol.kind != "enumerator"
        if isinstance(node, c_ast.ArrayRef):
            base = self.expr_quiet(node.name)
            return base.kind != "vector" or self.is_lvalue(node.name)
        if isinstance(node, c_ast.StructRef):
            return node.type == "->" or self.is_lvalue(node.name)
        if isinstance(node, c_ast.UnaryOp):
            return bool(node.op == "*")
        return isinstance(node, c_ast.CompoundLiteral)

    def repeats_components(self, node: c_ast.Node) -> bool:
        """Whether the lvalue ``node`` is, or is part of, a vector swizzle that names a component twice."""
        while isinstance(node, c_ast.StructRef | c_ast.ArrayRef):
            if isinstance(node, c_ast.StructRef) and node.type == ".":
                base = self.expr_quiet(node.name)
                if base.kind == "vector":
                    try:
                        picked = swizzle_indices(node.field.name, base.width)
                    except ValueError:
                        return False  # reported already
                    if len(set(picked)) != len(picked):
                        return True
            elif isinstance(node, c_ast.StructRef):
                return False
            node = node.name
        return False

    def const_assignment(self, node: c_ast.Node) -> str:
        """Clang's words for an assignment to a const-qualified lvalue (Sema's ``DiagnoseConstAssignment``, as
        PoCL's and Oclgrind's Clang give them): from the lvalue through members, components and elements of arrays
        to the variable they belong to, the first const member met (``non-static data member 'c'``), else the
        variable if its type is const (after ``->``: what its pointer points to), else "read-only variable"."""
        dereferenced = False
        while True:
            if isinstance(node, c_ast.StructRef):
                base = self.expr_quiet(node.name)
                arrow = node.type == "->"
                record = base.target if arrow and base.target is not None else base
                if record.kind == "struct":
                    field = node.field.name
                    member = self.types.find_member(record.name, field)
                    pointer = member is not None and dereferenced and member.kind == "pointer"
                    pointee = member.target if member is not None and pointer else member
                    if member is not None and pointee is not None and pointee.const:
                        declared = self.member_declaration(record.name, field)
                        shown = f"'{member}'" if declared is None else self.spell(declared, member, None)
                        return f"cannot assign to non-static data member '{field}' with const-qualified type {shown}"
                dereferenced, node = arrow, node.name
                continue
            if isinstance(node, c_ast.ArrayRef) and self.expr_quiet(node.name).kind in ("array", "vector"):
                dereferenced, node = False, node.name
                continue
            break
        symbol = self.lookup(node.name) if isinstance(node, c_ast.ID) else None
        if symbol is not None:
            t = symbol.type
            pointee = t.target if dereferenced and t.kind == "pointer" else t
            if pointee is not None and pointee.const and self.written_const(symbol.declared, dereferenced):
                return f"cannot assign to variable '{symbol.name}' with const-qualified type {self.clang_type(node, t)}"
        return "read-only variable is not assignable"

    def written_const(self, declared: c_ast.Node | None, dereferenced: bool) -> bool:
        """Whether the declaration ``declared`` (a type node) makes the variable's type (``dereferenced``: what its
        pointer points to) const-qualified: ``const`` written there or in its typedef, not only the __constant
        space, which Clang keeps apart (an assignment there is to a "read-only variable")."""
        node = declared
        if dereferenced and isinstance(node, c_ast.PtrDecl):
            node = node.type
        while isinstance(node, c_ast.ArrayDecl):
            node = node.type
        if isinstance(node, c_ast.PtrDecl):
            return "const" in node.quals
        if not isinstance(node, c_ast.TypeDecl):
            return False
        if isinstance(node.type, TypeOfExpression | TypeOfDeclaration):  # (``__typeof__``: the type it names)
            named = self.types.resolve(node.type)
            return "const" in node.quals or (named.const and named.space != "constant")
        names = node.type.names if isinstance(node.type, c_ast.IdentifierType) else []
        typedef = self.types.typedefs.get(names[0]) if len(names) == 1 else None
        return "const" in node.quals or (typedef is not None and typedef.const and typedef.space != "constant")

    def clang_type(self, node: c_ast.Node, t: TypeInfo, as_value: bool = False) -> str:
        """The type of the lvalue ``node`` (of type ``t``) as Clang's errors spell it: a variable's as declared, else
        ``t``'s. ``as_value``: the type of its value instead, an array's decayed to a pointer to its first element, and
        of no address space where ``node`` designates no object (an operator's result: 'int4', not '__private
        int4')."""
        symbol = self.lookup(node.name) if isinstance(node, c_ast.ID) else None
        if symbol is not None and symbol.declared is not None:
            return self.spell(symbol.declared, symbol.type, symbol.type.space, decayed=as_value)
        if isinstance(node, c_ast.Constant) and node.type == "string":  # an array of its chars and the NUL
            return f"'__constant char[{len(c_string(node.value)) + 1}]'"
        if isinstance(node, c_ast.Constant) and t.kind == "scalar":  # (C's own type: 1u is no OpenCL uint)
            return f"'{_C_SPELLINGS.get(t.name, t.name)}'"
        arithmetic = isinstance(node, c_ast.TernaryOp) or (isinstance(node, c_ast.BinaryOp) and node.op in _ARITHMETIC)
        if arithmetic and t.kind == "scalar":
            return f"'{_C_SPELLINGS.get(t.name, t.name)}'"  # (the usual arithmetic conversions' type: a typedef's none)
        if as_value and t.kind == "array":  # (a member's: decayed to its first element, its own const alone shown)
            return described(_unqualified(t), self.spelled)
        if as_value and t.kind != "pointer" and not self.is_lvalue(node):
            t = TypeInfo(t.kind, t.name, t.width, t.target, "default", False, t.length, t.unnamed)
        return described(t, self.spelled)

    def alignof_spelled(self, node: c_ast.Node) -> str:
        """How Clang's errors name the ``_Alignof`` at ``node``: 'alignof', or '__alignof' where the source spells
        it as GNU's ``__alignof`` or ``__alignof__`` (``frontend`` rewrites both to ``_Alignof``)."""
        coord = node.coord
        return "__alignof" if coord is not None and (coord.line, coord.column) in self.gnu_alignof else "alignof"

    def value_type(self, t: TypeInfo) -> str:
        """``t`` as Clang spells the type of a value (no address space; a vector's note, a typedef's aka)."""
        return described(_unqualified(t, "default"), self.spelled)

    def spell(self, declared: c_ast.Node, t: TypeInfo, space: AddressSpace | None, decayed: bool = False) -> str:
        return clang_type(declared, t, self.types, self.spelled, space, decayed)

    def member_declaration(self, tag: str, name: str) -> c_ast.Node | None:
        """The type node that declared member ``name`` of the struct or union ``tag`` (in an anonymous member too)."""
        pending = [self.types.structs.get(tag)]
        while pending:
            record = pending.pop()
            for decl in (record.decls or []) if record is not None else []:
                if decl.name == name:
                    return decl.type
                inner = decl.type.type if isinstance(decl.type, c_ast.TypeDecl) else None
                if decl.name is None and isinstance(inner, c_ast.Struct | c_ast.Union):
                    pending.append(inner if inner.decls is not None else self.types.structs.get(str(inner.name)))
        return None

    def vec_step_of_name(self, node: c_ast.UnaryOp) -> TypeInfo:
        """``vec_step(name)`` of a type name or a variable, as the scope has the name (``frontend``: the parser
        reads it as ``sizeof``'s operand): 1 for a scalar type, the components of a vector's, 4 for a 3-vector's
        (OpenCL C 1.2 6.12.12), a ``size_t`` the executor reads here; any other type is Clang's error."""
        if isinstance(node.expr, c_ast.Typename):  # (a typedef's aka: 'P' (aka '__global float *'))
            t = self.types.resolve(node.expr.type)
            shown = self.spell(node.expr.type, t, None)
        else:
            t = self.unevaluated_expr(node.expr)
            self.side_effects_unevaluated(node.expr, None)
            shown = self.clang_type(node.expr, t)
        if t.kind in ("scalar", "vector", "void"):
            self.sizes[id(node)] = 4 if t.width == 3 else max(t.width, 1)
        elif t.kind != "unknown":  # (at the operand, an expression's; at vec_step, a type's)
            where = node if isinstance(node.expr, c_ast.Typename) else node.expr
            self.error(where, f"'vec_step' requires built-in scalar or vector type, {shown} invalid")
        return ULONG

    def expr_quiet(self, node: c_ast.Node) -> TypeInfo:
        """The type of an expression already checked (its errors are not reported twice)."""
        saved = len(self.diagnostics)
        saved_calls = len(self.caller.calls) if self.caller is not None else 0
        saved_undefined, saved_held = len(self.used_undefined), len(self.held_warnings)
        t = self.expr(node)
        del self.diagnostics[saved:]
        del self.held_warnings[saved_held:]
        if self.caller is not None:
            del self.caller.calls[saved_calls:]
        del self.used_undefined[saved_undefined:]
        return t

    def null_pointer(self, node: c_ast.Node | None) -> bool:
        """Whether ``node`` is a null pointer constant (C99 6.3.2.3p3): an integer constant expression 0, or one cast
        to ``void *`` (``NULL``, Clang's ``((void*)0)``), which converts to a pointer into any address space."""
        if isinstance(node, c_ast.Cast):
            t = self.types.resolve(node.to_type)
            if t.kind != "pointer" or t.target is None or t.target.kind != "void" or t.target.const:
                return False
            node = node.expr
        return node is not None and const_int(node, self.enumerators, self.types) == 0

    def check_assignment_types(
        self,
        target: TypeInfo,
        value: TypeInfo,
        node: c_ast.Node,
        declared: c_ast.Node | None = None,
        place: c_ast.Node | None = None,
        initializer: bool = False,
    ) -> None:
        """``value`` stored to ``target`` by ``node``: an assignment, a ``return`` or (``initializer``) an
        initializer, which may itself be an assignment (``declared``: the type node of the variable initialized or
        of the function's result; ``place``: the declaration; a value of unknown elements comes of an operand
        already in error, as Clang's does: nothing more to say)."""
        if target.kind == "unknown" or value.kind == "unknown" or value.name == "?":
            return
        assigned = isinstance(node, c_ast.Assignment) and not initializer
        source = node.rvalue if assigned else node.expr if isinstance(node, c_ast.Return) else node
        if target.kind == "pointer" and points_elsewhere(target, value) and not self.null_pointer(source):
            self.report_store("address space", target, value, node, declared, place, assigned)
            return
        integer = value.kind == "scalar" and value.name not in FLOATS
        if target.kind == "pointer" and integer and not self.null_pointer(source):
            self.report_store("integer to pointer", target, value, node, declared, place, assigned)
            return
        converted = pointer_conversion(target, value) if target.kind == "pointer" else None
        if converted is not None:
            self.report_store(converted, target, value, node, declared, place, assigned)
            return
        if async_copy.event_mismatch(target, value, node):
            self.report_store("incompatible", target, value, node, declared, place, assigned)
            return
        mismatch = (
            (target.is_arithmetic and value.kind == "vector" and target.kind == "scalar")
            or (target.is_arithmetic and value.kind == "vector" and target.width != value.width)
            or (target.is_arithmetic and value.kind == "vector" and value.name not in (target.name, "?"))
            or (target.is_arithmetic and value.kind == "struct")
            or (target.kind == "pointer" and (value.kind == "vector" or value.name in FLOATS))
            or (target.kind == "struct" and (value.kind != "struct" or value.name != target.name))
        )
        if target.is_arithmetic and value.kind in ("pointer", "array"):
            if target.kind == "scalar" and target.name == "bool":  # (a pointer converts to bool: NULL or not)
                return
            integral = target.kind == "scalar" and target.name not in FLOATS
            problem = "pointer to integer" if integral else "incompatible"
            self.report_store(problem, target, value, node, declared, place, assigned)
        elif mismatch:
            self.report_store("incompatible", target, value, node, declared, place, assigned)
        else:
            self.constant_conversion(source, value, target)

    def constant_conversion(self, node: c_ast.Node, value: TypeInfo, target: TypeInfo) -> None:
        """Clang's warning where the implicit conversion of the constant ``node`` (of type ``value``) to the scalar
        or vector ``target`` changes it (``constant_conversions``): an integer constant expression's, a floating
        literal's (a sign before it too); each arm of a ``?:`` on its own, as Clang looks at them. At the constant
        (an operator's: at the operator); a literal's at once, an integer constant's once the function is checked
        (``runtime_warning``), as Clang gives them."""
        if target.kind not in ("scalar", "vector") or value.kind != "scalar" or value.name in ("?", "bool"):
            return
        if isinstance(node, c_ast.TernaryOp):
            for arm in {id(a): a for a in (node.iftrue, node.iffalse)}.values():  # (GNU's ``x ?: y``: one arm)
                self.constant_conversion(arm, self.expr_quiet(arm), target)
            return
        element = target.name
        if value.name in FLOATS:
            literal = _floating_literal(node, value.name)
            change = None if literal is None or element in FLOATS else literal_change(literal, value.name, element)
            if change is not None:
                self.warning(self.constant_place(node), self.conversion_words(value, target, *change))
            return
        number = const_int(node, self.enumerators, self.types)
        if number is None:
            return
        kept = integer_to_float(number, element) if element in FLOATS else integer_change(number, value.name, element)
        if kept is not None:
            words = self.conversion_words(value, target, str(number), str(kept))
            self.runtime_warning(self.constant_place(node), words)

    def constant_place(self, node: c_ast.Node) -> c_ast.Node:
        """Where Clang places a warning about the constant ``node``: at it (an operator's: at the operator). Asked
        only once there is one (``operator_marks`` tokenizes the source again)."""
        return self.operator(node) if isinstance(node, c_ast.BinaryOp) else self.start(node)

    def conversion_words(self, value: TypeInfo, target: TypeInfo, was: str, held: str | None) -> str:
        """Clang's words for a constant ``was`` of type ``value`` that ``target`` holds as ``held`` (None: out of
        its range, undefined)."""
        source, to = f"'{C_NAMES.get(value.name, value.name)}'", self.value_type(target)
        if held is None:
            return f"implicit conversion of out of range value from {source} to {to} is undefined"
        return f"implicit conversion from {source} to {to} changes value from {was} to {held}"

    def report_store(
        self,
        problem: str,
        target: TypeInfo,
        value: TypeInfo,
        node: c_ast.Node,
        declared: c_ast.Node | None,
        place: c_ast.Node | None,
        assigned: bool,
        spelled: str | None = None,
    ) -> None:
        """Clang's error (or, for ``_WARNED`` problems, its warning) for ``value`` stored to ``target`` by ``node``
        (``assigned``: an assignment, else a ``return`` or an initializer: ``check_assignment_types``' arguments),
        in its words (``STORES``, by ``problem``) and at its place: the assignment's operator, the returned
        expression, the initialized variable's name (an item of a member or element at the item). A warning spells
        an array as its type, not as the pointer it decays to; ``spelled``: the value's type as Clang spells it,
        where it is none the checker has (``OVERLOADED_TYPE``)."""
        warned = problem in _WARNED
        decayed = not (warned and value.kind == "array")
        if assigned:
            assert isinstance(node, c_ast.Assignment)
            verb, where = "assigning", self.operator(node)
            stored = node.rvalue
            passed = self.clang_type(stored, value, as_value=decayed)
            to = self.clang_type(node.lvalue, target, as_value=True)
        else:
            returned = isinstance(node, c_ast.Return)
            verb, where = ("returning", node.expr) if returned else ("initializing", place or node)
            stored = node.expr if returned else node
            passed = self.clang_type(stored, value, as_value=decayed)
            space = None if returned else target.space  # (a function's result is of no address space)
            to = described(target, self.spelled) if declared is None else self.spell(declared, target, space)
        if problem == "address space" and isinstance(stored, c_ast.Constant) and stored.type == "string":
            passed = "'__constant char *'"  # (a string literal decayed, as Clang spells it in this error alone)
        if spelled is not None:
            passed = spelled
        (self.warning if warned else self.error)(where, STORES[problem][verb].format(passed=passed, to=to))


_SIGN = "converts between pointers to integer types with different sign"

STORES = {
    "address space": {
        "assigning": "assigning {passed} to {to} changes address space of pointer",
        "returning": "returning {passed} from a function with result type {to} changes address space of pointer",
        "initializing": "initializing {to} with an expression of type {passed} changes address space of pointer",
    },
    "incompatible": {
        "assigning": "assigning to {to} from incompatible type {passed}",
        "returning": "returning {passed} from a function with incompatible result type {to}",
        "initializing": "initializing {to} with an expression of incompatible type {passed}",
    },
    "integer to pointer": {
        "assigning": "incompatible integer to pointer conversion assigning to {to} from {passed}",
        "returning": "incompatible integer to pointer conversion returning {passed} from a function with result "
        "type {to}",
        "initializing": "incompatible integer to pointer conversion initializing {to} with an expression of type "
        "{passed}",
    },
    "pointer to integer": {
        "assigning": "incompatible pointer to integer conversion assigning to {to} from {passed}",
        "returning": "incompatible pointer to integer conversion returning {passed} from a function with result "
        "type {to}",
        "initializing": "incompatible pointer to integer conversion initializing {to} with an expression of type "
        "{passed}",
    },
    # Clang's warnings (``types.pointer_conversion``), for arguments too
    "incompatible pointer": {
        "assigning": "incompatible pointer types assigning to {to} from {passed}",
        "returning": "incompatible pointer types returning {passed} from a function with result type {to}",
        "initializing": "incompatible pointer types initializing {to} with an expression of type {passed}",
        "passing": "incompatible pointer types passing {passed} to parameter of type {to}",
    },
    "pointer sign": {
        "assigning": "assigning to {to} from {passed} " + _SIGN,
        "returning": "returning {passed} from a function with result type {to} " + _SIGN,
        "initializing": "initializing {to} with an expression of type {passed} " + _SIGN,
        "passing": "passing {passed} to parameter of type {to} " + _SIGN,
    },
    "discards qualifiers": {
        "assigning": "assigning to {to} from {passed} discards qualifiers",
        "returning": "returning {passed} from a function with result type {to} discards qualifiers",
        "initializing": "initializing {to} with an expression of type {passed} discards qualifiers",
        "passing": "passing {passed} to parameter of type {to} discards qualifiers",
    },
}
"""Clang's words for a value stored to an object of another type, by problem and by the kind of store."""
_WARNED = frozenset(("incompatible pointer", "pointer sign", "discards qualifiers"))
"""The problems Clang only warns about."""
"""Clang's words for a value stored where its type does not go, by problem and by what stores it."""


_NON_OVERLAPPING = "which are pointers to non-overlapping address spaces"
"""(Clang's message has two spaces before the types: its text leaves room for an empty selection there.)"""


_C_SPELLINGS = {"uint": "unsigned int", "ulong": "unsigned long"}
"""How Clang spells the type of an integer constant of OpenCL's unsigned types: as C's, not by their typedefs."""

_ARITHMETIC = frozenset(("+", "-", "*", "/", "%", "&", "|", "^"))
"""The binary operators whose result is the usual arithmetic conversions' type, which Clang spells without the
typedef an operand's has (``a + b`` of two uints is 'unsigned int', as ``c ? a : b``; a shift keeps its left
operand's)."""


def _floating_literal(node: c_ast.Node, name: str) -> float | None:
    """The value of a floating literal of type ``name``, a ``-`` or ``+`` before it too; None for any other
    expression."""
    negative = False
    while isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        negative ^= node.op == "-"
        node = node.expr
    if not (isinstance(node, c_ast.Constant) and ("float" in node.type or "double" in node.type)):
        return None
    value = float(floating_literal(node.value, SCALARS[name]))
    return -value if negative else value


def _variable_length(declared: c_ast.Node, checker: ExpressionChecks) -> c_ast.Node | None:
    """The length of an array type written in ``declared`` (``int[n]``) that is no integer constant, if any."""
    while isinstance(declared, c_ast.ArrayDecl):
        if declared.dim is not None and const_int(declared.dim, checker.enumerators, checker.types) is None:
            return cast(c_ast.Node, declared.dim)
        declared = declared.type
    return None


def _other_vectors(a: TypeInfo, b: TypeInfo) -> bool:
    """Whether ``a`` and ``b`` are vectors of another length or element type, which no operator (but a shift)
    converts between; not where one is already in error (elements '?': nothing more to say)."""
    return a.kind == b.kind == "vector" and "?" not in (a.name, b.name) and (a.width, a.name) != (b.width, b.name)


def _vector_conversions(a: TypeInfo, b: TypeInfo) -> str:
    """Clang's error for operands of two vector types (of other lengths or element types)."""
    shown = (f"'{t.written}' (vector of {t.width} '{t.name}' values)" for t in (a, b))
    return f"implicit conversions between vector types ({' and '.join(shown)}) are not permitted"


def _signed_of_size(name: str) -> str:
    """The signed scalar of ``name``'s size (the element type of a vector comparison's result)."""
    return comparison_type(ctype_lookup(name).vector(2)).name if name in SCALAR_SIZES else "int"


def _arithmetic(a: TypeInfo, b: TypeInfo) -> TypeInfo:
    """The usual arithmetic conversions (C99 6.3.1.8) with OpenCL's scalar-to-vector widening, as the executor
    applies them (:func:`wia_sim.kernels.ctype.common_type`); "?" where an operand's type is not known."""
    if a.kind == "vector" and b.kind == "vector" and a.name != b.name:
        return TypeInfo("vector", "?", a.width)
    ca, cb = _ctype(a), _ctype(b)
    if ca is None or cb is None:
        v = a if a.kind == "vector" else b
        return TypeInfo("vector", v.name, v.width) if v.kind == "vector" else TypeInfo("scalar", "?")
    try:
        c = common_type(ca, cb)
    except TypeError:
        return TypeInfo("vector", "?", max(a.width, b.width))
    if c.width > 1 and (a if a.kind == "vector" else b).unnamed:  # (Clang's: the first vector operand's type)
        return TypeInfo("vector", c.name, c.width, unnamed=True)
    return scalar_or_vector(c.name, c.width)


def _unqualified(t: TypeInfo, space: AddressSpace = "private") -> TypeInfo:
    """``t`` after lvalue conversion (C11 6.3.2.1): an array as a pointer to its element, else without const and
    without the address space the value was read from (``space``: "default" for none at all, as Clang spells an
    operand's type)."""
    if t.kind == "array" and t.target is not None:
        return TypeInfo("pointer", target=t.target)
    return TypeInfo(t.kind, t.name, t.width, t.target, space, False, t.length, t.unnamed)


def _same_type(a: TypeInfo, b: TypeInfo) -> bool:
    """Whether ``a`` and ``b`` are one type (C11 6.2.7's compatibility, for ``_Generic``), qualifiers included."""
    if (a.kind, a.name, a.width, a.const, a.length) != (b.kind, b.name, b.width, b.const, b.length):
        return False
    if {a.space, b.space} - {"private", "default"} and a.space != b.space:
        return False
    if a.target is None or b.target is None:
        return a.target is b.target
    return _same_type(a.target, b.target)


def _placed(node: c_ast.Node, token: Token) -> c_ast.Node:
    """A node at ``token``'s place in ``node``'s file: where an error after a name is reported."""
    return c_ast.ID(token.text, Coord(node.coord.file, token.line, token.column))
