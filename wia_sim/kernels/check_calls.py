"""The checker's function calls: which function a call names, and the arguments of helper functions and of
built-ins (arity, conversions, vector loads and stores, atomics' pointers, the result types of ``signatures.py``;
``printf``, ``async_copy`` and the section 6.12 tables have their own modules).
"""

from __future__ import annotations

import re

from pycparser import c_ast
from pycparserext.ext_c_parser import FuncDeclExt

from wia_sim.kernels import async_copy, gnu_builtins, images, printf
from wia_sim.kernels.check_exprs import STORES
from wia_sim.kernels.check_state import OVERLOADED_TYPE, _coord_of, _Function, _promote
from wia_sim.kernels.check_vector_builtins import TYPED_PREFIXES, VectorBuiltinChecks
from wia_sim.kernels.clang_types import C_NAMES
from wia_sim.kernels.initializers import StringItems
from wia_sim.kernels.overloads import CONVERSION, EXACT, INTEGERS, SPLAT, best, candidates, floats, rank, unresolved
from wia_sim.kernels.signatures import (
    BUILTINS,
    CONVERT_RE,
    GNU_BUILTINS,
    MEMORY_BUILTINS,
    OVERLOADED,
    SINGLE_DECLARATIONS,
    UNSUPPORTED_BUILTINS,
    builtin_arity,
    conversion,
    is_builtin_function,
)
from wia_sim.kernels.structs import layout, size_align
from wia_sim.kernels.table_types import check_table_call, resolved_call
from wia_sim.kernels.types import (
    FLOAT,
    FLOATS,
    INT,
    LONG,
    UINT,
    ULONG,
    UNKNOWN,
    UNSIGNED_OF,
    VOID,
    TypeInfo,
    const_int,
    pointer_conversion,
    points_elsewhere,
    scalar_or_vector,
)

__all__ = ["CallChecks"]


_ATOMIC_ELEMENTS = {"atomic_": ("int", "uint"), "atom_": ("int", "uint", "long", "ulong")}
"""The element types of the atomic functions' overloads, by prefix (``atomic_xchg`` adds float)."""

_UNQUALIFIED = re.compile(r"'(?:(?:const|volatile) )+")
"""The qualifiers a spelled scalar type starts with (its aka's too)."""


class CallChecks(VectorBuiltinChecks):
    """The call rules of ``Checker``: ``expr_FuncCall`` and the checks of helper and built-in calls."""

    # -- calls
    def expr_FuncCall(self, node: c_ast.FuncCall) -> TypeInfo:
        args = list(node.args.exprs) if node.args is not None else []
        if not isinstance(node.name, c_ast.ID):  # (OpenCL C has no pointers to functions: 6.9 a)
            callee = self.expr(node.name)
            for a in args:
                self.expr(a)
            if callee.kind != "unknown":  # (one in error said so)
                shown = self.value_type(callee)
                self.error(self.operator(node), f"called object type {shown} is not a function or function pointer")
            return UNKNOWN
        name = node.name.name
        if name == "vec_step" and len(args) == 1 and self.lookup(name) is None and name not in self.functions:
            self.side_effects_unevaluated(args[0], None)  # (of an expression: a name's is ``vec_step_of_name``)
        if name == "offsetof" and args and isinstance(args[0], c_ast.Typename):  # (``frontend``: Clang's spelling)
            return self.offsetof(node, args[0], args[1])
        gnu = name.startswith("__builtin_") and self.lookup(name) is None and name not in self.functions
        if gnu and name in TYPED_PREFIXES and args and isinstance(args[-1], c_ast.Typename):
            return self.typed_builtin(node, name, args)
        if gnu and name == "__builtin_shufflevector":
            return self.shufflevector(node, args)
        if gnu and name in GNU_BUILTINS:
            return self.gnu_builtin(node, name, args)
        if gnu and name in gnu_builtins.ARITIES:
            return self.unexpanded(node, name, args)
        if gnu and name in gnu_builtins.LIBRARY:
            for a in args:
                self.expr(a)
            called = gnu_builtins.LIBRARY[name]
            self.error(
                node,
                f"'{name}' is a call of the C library's '{called}', which no OpenCL device links (PoCL 3.1: "
                f'"Cannot find symbol {called} in kernel library")',
            )
            return UNKNOWN
        symbol = self.lookup(name)
        single = name in self.functions and name not in self.overloads
        single = single or (name in SINGLE_DECLARATIONS and name not in self.undeclared_builtins)
        if symbol is None and single and self.operator_marks.get((id(node), "wrapped"), None) is not None:
            for a in args:  # ``(g)(3)``: Clang takes a function's name in brackets as its address, not as a call
                self.expr(a)
            self.error(node.name, "taking address of function is not allowed")
            return UNKNOWN
        if symbol is None and name in self.overloads:
            return self.call_overload(node, name, args)
        if symbol is None and name in self.functions and self.caller is not None:
            self.caller.calls.append((name, _coord_of(node)[0]))  # before the arguments' calls: source order
        helper = symbol is None and name in self.functions  # (a name of overloads passed: ``call_helper``'s words)
        arg_types = [UNKNOWN if helper and self.overloaded_ref(a) else self.expr(a) for a in args]
        if symbol is not None:
            self.error(self.operator(node), f"called object type '{symbol.type}' is not a function or function pointer")
            return UNKNOWN
        if name in self.functions:
            return self.call_helper(node, name, args, arg_types)
        if name in self.undeclared_builtins:  # (an older ``-cl-std``'s)
            pass
        elif name == "printf" and not args:  # (``int printf(__constant const char* st, ...)``, opencl-c-base.h's)
            missing = self.operator_marks.get((id(node), ")"), node)
            self.error(missing, "too few arguments to function call, at least argument 'st' must be specified")
            return INT
        elif name == "printf":
            if printf.literal_format(args[0]) is None and not printf.constant_chars(arg_types[0]):
                seen = len(self.diagnostics)  # Clang's conversion errors for the format, where it has one
                self.check_argument(args[0], arg_types[0], printf.FORMAT, "the format of printf")
                if self.errors_since(seen):  # (not its warning: the check goes on)
                    return INT
            warn = lambda at, message: self.warning(self.start(at), message)  # noqa: E731 (Clang's column: the start)
            known = self.constant_string(args[0])
            spelling = self.operator_marks.spelling
            return printf.check_call(self.error, warn, self.argument_type, node, args, arg_types, known, spelling)
        elif name in images.BUILTINS:
            return self.image_call(node, name, args, arg_types)
        elif is_builtin_function(name):
            return self.builtin_call(node, name, args, arg_types)
        if name in UNSUPPORTED_BUILTINS:
            self.error(node, f"built-in function '{name}' is not supported by the simulator")
            return UNKNOWN
        if CONVERT_RE.fullmatch(name):
            self.error(node, f"'{name}': saturation applies only to integer destinations")
            return UNKNOWN
        if name in self.suppressed:
            return UNKNOWN
        # (one declared below it too, as Clang has it)
        self.undeclared(node, name, len(args))
        return UNKNOWN

    def gnu_builtin(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node]) -> TypeInfo:
        """Clang's GNU built-ins that real kernels use (``GNU_BUILTINS``): ``__builtin_expect(long e, long c)`` is
        ``e`` (a hint), ``__builtin_constant_p(x)`` 1 where ``x`` is an integer constant expression and 0 elsewhere
        (in ``sizes``, for the executor), ``__builtin_unreachable()`` nothing (reaching it is undefined)."""
        wanted = GNU_BUILTINS[name]
        types = [self.expr(a) for a in args]
        if name in MEMORY_BUILTINS:
            return self.memory_builtin(node, name, args, types)
        if len(args) != wanted:
            self.error(node, f"'{name}' takes {wanted} argument{'' if wanted == 1 else 's'}, but {_given(len(args))}")
            return UNKNOWN
        if name == "__builtin_constant_p":
            self.sizes[id(node)] = int(const_int(args[0], self.enumerators, self.types) is not None)
            return INT
        if name == "__builtin_expect":
            for a, t in zip(args, types, strict=True):
                if t.kind not in ("scalar", "unknown") or t.name in ("float", "double", "half"):
                    self.error(a, f"'__builtin_expect' takes integers, not '{t}'")
                    return UNKNOWN
            return LONG
        return VOID

    def memory_builtin(
        self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], types: list[TypeInfo]
    ) -> TypeInfo:
        """``__builtin_memcpy(void* dst, const void* src, size_t n)``, ``__builtin_memmove`` (the same) and
        ``__builtin_memset(void* dst, int c, size_t n)``: Clang takes pointers into any address space (its
        prototypes have none), gives a ``void*`` of none (which converts to no pointer of OpenCL C: the simulator
        makes the result ``void``) and these words, measured on PoCL 3.1 and Oclgrind 21.10."""
        if len(args) != 3:
            missing = self.operator_marks.get((id(node), ")"), node)
            self.error(args[3] if len(args) > 3 else missing, _arity_words(3, "", len(args)))
            return VOID
        pointers = (0,) if name == "__builtin_memset" else (0, 1)
        for k, (a, t) in enumerate(zip(args, types, strict=True)):
            if t.kind == "unknown":
                continue
            pointer = t.kind in ("pointer", "array")
            if k in pointers:
                wanted = "const void *" if k == 1 else "void *"
                if t.kind == "scalar" and t.name not in FLOATS:
                    self.error(
                        self.start(a),
                        f"incompatible integer to pointer conversion passing '{t.name}' to parameter of type "
                        f"'{wanted}'",
                    )
                elif not pointer:
                    passed = self.clang_type(a, t, as_value=True)
                    self.error(self.start(a), f"passing {passed} to parameter of incompatible type '{wanted}'")
                elif k == 0 and t.target is not None and t.target.const:
                    passed = self.clang_type(a, t, as_value=t.kind != "array")
                    self.warning(
                        self.start(a),
                        f"passing {passed} to parameter of type '__{t.target.space or 'private'} void *' discards "
                        "qualifiers",
                    )
            elif not t.is_arithmetic or t.kind != "scalar":
                wanted = "int" if k == 1 else "unsigned long"
                passed = self.clang_type(a, t, as_value=True)
                self.error(self.start(a), f"passing {passed} to parameter of incompatible type '{wanted}'")
        return VOID

    def unexpanded(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node]) -> TypeInfo:
        """A call of a GNU built-in the front end could not rewrite (``gnu_builtins.expand_all``): not its number of
        arguments (Clang's words and place: the first extra argument, or the ``)`` where one is missing), or a
        ``__builtin_nan`` of no string literal, which Clang cannot fold (PoCL 3.1 then finds no ``nanf`` to link)."""
        for a in args:
            self.expr(a)
        wanted = gnu_builtins.ARITIES[name]
        if len(args) != wanted:
            missing = self.operator_marks.get((id(node), ")"), node)
            self.error(args[wanted] if len(args) > wanted else missing, _arity_words(wanted, "", len(args)))
        else:
            self.error(self.start(args[0]), f"'{name}' takes a string literal (Clang folds it from none other)")
        return UNKNOWN

    def expr_Passed(self, node: gnu_builtins.Passed) -> TypeInfo:
        """An argument of a GNU built-in converted to its parameter's type (``gnu_builtins.Passed``): Clang's errors
        for what a call cannot convert, measured on PoCL 3.1 and Oclgrind 21.10."""
        if node.partner is not None or node.settled is not None:
            return self.ordered(node)
        value = self.expr(node.expr)
        at = self.start(node.expr)
        if value.kind == "unknown":
            return UNKNOWN
        if node.generic:
            if value.kind == "scalar" and value.name in FLOATS:
                node.to_type.type.type.names = [value.name]  # (unconverted: the executor's cast is to its type)
                return TypeInfo("scalar", value.name)
            self.error(
                at,
                f"floating point classification requires argument of floating point type (passed in "
                f"{self.value_type(value)})",
            )
            return UNKNOWN
        if node.signed is not None:  # (a 128-bit ``long long``'s upper half: ``gnu_builtins``)
            node.signed.value = "0" if value.kind == "scalar" and value.name.startswith("u") else "1"
        target = self.types.resolve(node.to_type.type)
        pointer = value.kind in ("pointer", "array")
        if pointer and target.name not in FLOATS:
            passed = self.clang_type(node.expr, value, as_value=True)
            self.error(
                at, f"incompatible pointer to integer conversion passing {passed} to parameter of type '{node.spelled}'"
            )
        elif pointer or value.kind in ("vector", "struct"):
            passed = self.clang_type(node.expr, value, as_value=True)
            self.error(at, f"passing {passed} to parameter of incompatible type '{node.spelled}'")
        return TypeInfo("scalar", target.name)

    def ordered(self, node: gnu_builtins.Passed) -> TypeInfo:
        """The arguments of an ordered comparison (``__builtin_isless(a, b)``), both at the first: converted to their
        common type, which must be a real floating type (Clang's ``SemaBuiltinUnorderedCompare``); the second gives
        what the first found."""
        partner = node.partner
        if partner is None:  # (the second: its type found at the first)
            assert node.settled is not None
            return node.settled
        first, second = self.expr(node.expr), self.expr(partner.expr)
        partner.settled = UNKNOWN
        if UNKNOWN in (first, second):
            return UNKNOWN
        floats = [t.name for t in (first, second) if t.kind == "scalar" and t.name in FLOATS]
        if not floats or any(t.kind != "scalar" for t in (first, second)):
            a, b = self.operand_type(node.expr, first), self.operand_type(partner.expr, second)
            if b.startswith(a.split(" (")[0] + " ("):  # (Clang says what a typedef is once)
                b = a.split(" (")[0]
            self.error(self.start(node.expr), f"ordered compare requires two args of floating point type ({a} and {b})")
            return UNKNOWN
        common = max(floats, key=("half", "float", "double").index)
        for argument in (node, partner):
            argument.to_type.type.type.names = [common]
        partner.settled = TypeInfo("scalar", common)
        return partner.settled

    def offsetof(self, node: c_ast.FuncCall, typename: c_ast.Typename, designator: c_ast.Node) -> TypeInfo:
        """``__builtin_offsetof(type, member-designator)`` (C99 7.17): the byte offset of a member, at any depth
        and through constant array subscripts, an integer constant (``sizes``: the executor reads it there)."""
        t = self.types.resolve(typename.type)
        path: list[c_ast.Node] = []
        d = designator
        while isinstance(d, c_ast.StructRef | c_ast.ArrayRef):
            path.append(d)
            d = d.name
        path.append(d)
        offset = 0
        for step in reversed(path):
            if isinstance(step, c_ast.ArrayRef):
                index = self.constant(step.subscript)
                if t.kind != "array" or t.target is None:
                    self.error(step, f"subscripted value is not an array (it is '{t}')")
                    return ULONG
                if index is None:
                    self.error(step, "the index in offsetof must be an integer constant")
                    return ULONG
                t = t.target
                offset += index * size_align(t, self.types)[0]
                continue
            member = step.field.name if isinstance(step, c_ast.StructRef) else step.name
            if t.kind != "struct" or t.name not in self.types.structs:
                self.error(step, f"offsetof requires struct, union, or class type, '{t}' invalid")
                return ULONG
            found = layout(t.name, self.types).member(member)
            mt = self.types.find_member(t.name, member)
            if found is None or mt is None:
                self.error(step, f"no member named '{member}' in '{self.spelled(t.name)}'")
                return ULONG
            offset += found.offset
            t = mt
        self.sizes[id(node)] = offset
        return ULONG

    def call_overload(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node]) -> TypeInfo:
        """A call to a family of overloadable functions (``check_decls.overload``): the member Clang's overload
        resolution picks (``overloads.best``), whose name the call takes; an ambiguous call or one no member takes
        is Clang's error. The program's functions named like a built-in join the built-in's overloads, as Clang
        adds them to ``opencl-c.h``'s: ``sign(i)`` calls a program's ``float sign(int)``, ``sign(2.0f)`` the
        built-in, and ``sign((long)i)`` is ambiguous between them."""
        arg_types = [self.expr(a) for a in args]
        if any(t.kind == "unknown" for t in arg_types):
            return UNKNOWN
        viable: list[tuple[str, list[int]]] = []
        for fn in self.overloads[name]:
            if len(fn.params) != len(args):
                continue
            ranks = [_argument_rank(a, p) for a, p in zip(arg_types, fn.params, strict=True)]
            if all(r is not None for r in ranks):
                viable.append((fn.name, [r for r in ranks if r is not None]))
        if self.shadows_builtin(name):
            if not viable:  # (the built-in's own diagnostics)
                return self.builtin_call(node, name, args, arg_types)
            exact = any(all(r == EXACT for r in ranks) for _, ranks in viable)
            viable += [
                ("", ranks)  # (no function's name: the built-in)
                for ranks in self.builtin_candidates(node, name, args, arg_types)
                if not (exact and all(r == EXACT for r in ranks))  # an overloadable redeclaration replaces it
            ]
        chosen = best(viable)
        if isinstance(chosen, str):
            self.error(node, unresolved(name, chosen))
            return UNKNOWN
        target = viable[chosen][0]
        if not target:
            return self.builtin_call(node, name, args, arg_types)
        node.name.name = target
        if self.caller is not None:
            self.caller.calls.append((target, _coord_of(node)[0]))
        return self.call_helper(node, target, args, arg_types)

    def shadows_builtin(self, name: str) -> bool:
        """Whether a program's function named ``name`` joins a built-in's overloads (``call_overload``)."""
        return (
            is_builtin_function(name)
            and not name.startswith("as_")  # (macros in Clang's headers: a declaration of one is a syntax error)
            and name not in self.undeclared_builtins
            and name not in async_copy.ASYNC_BUILTINS
            and name not in ("barrier", "mem_fence", "read_mem_fence", "write_mem_fence", "vec_step")
        )

    def builtin_candidates(
        self, node: c_ast.Node, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]
    ) -> list[list[int]]:
        """Each argument's rank (``overloads.rank``) for each overload of the built-in ``name`` that the arguments
        can call: exact for the families of ``OVERLOADED``. The other built-ins' checkers pick a result type but
        no overload, so the call is tried: a scalar argument beside vectors is splatted, and a scalar argument
        of a call without vectors is an exact match if the call still checks with it made a 2-vector (a vector
        converts to nothing but itself), else a conversion; a call the checker finds ambiguous is a conversion
        for every argument."""
        if name in OVERLOADED:
            if not all(t.is_arithmetic and t.name != "?" for t in arg_types):
                return []
            family, forms = OVERLOADED[name]
            shapes = [(t.name, t.width if t.kind == "vector" else 1) for t in arg_types]
            return [ranks for _, ranks in candidates(shapes, self.elements(family), forms)]
        verdict = self.tried(node, name, args, arg_types)
        if verdict != "ok":
            return [[CONVERSION] * len(args)] if verdict == "ambiguous" else []
        if conversion(name) is not None:  # convert_T has an overload for every source type it takes
            return [[EXACT]]
        vectors = any(t.kind == "vector" for t in arg_types)
        ranks = []
        for k, t in enumerate(arg_types):
            if t.kind != "scalar" or t.name == "?":
                ranks.append(EXACT)
            elif vectors:
                ranks.append(SPLAT)
            else:
                widened = [*arg_types[:k], TypeInfo("vector", t.name, 2), *arg_types[k + 1 :]]
                ranks.append(EXACT if self.tried(node, name, args, widened) == "ok" else CONVERSION)
        return [ranks]

    def tried(self, node: c_ast.Node, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]) -> str:
        """Whether a call of the built-in ``name`` with arguments of ``arg_types`` checks: "ok", "ambiguous" or
        "no" (its diagnostics dropped)."""
        seen = len(self.diagnostics)
        result = self.builtin_call(node, name, args, arg_types)
        found = [d for d in self.diagnostics[seen:] if d.severity == "error"]  # (a warning does not refuse it)
        del self.diagnostics[seen:]
        if found:
            return "ambiguous" if any("ambiguous" in d.message for d in found) else "no"
        return "no" if result.kind == "unknown" else "ok"

    def image_call(
        self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]
    ) -> TypeInfo:
        """An image built-in (``images.py``): typed, and its caller marked as one that uses images."""
        low, high = images.BUILTINS[name]
        if not low <= len(args) <= high:
            wanted = str(low) if low == high else f"{low} to {high}"
            self.error(node, f"built-in function '{name}' takes {wanted} arguments, but {_given(len(args))}")
            return UNKNOWN
        self.uses_images(f"a call of {name}")
        return images.check_call(name, args, arg_types, self.error, node)

    def builtin_call(
        self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]
    ) -> TypeInfo:
        if any(
            t.kind in ("pointer", "array") and t.target is not None and t.target.space == "default" for t in arg_types
        ):
            # (a compound literal's address: no built-in's pointer parameter takes Clang's default space)
            self.error(node, f"no matching function for call to '{name}'")
            return UNKNOWN
        return self.call_builtin(node, name, args, arg_types)

    def call_helper(
        self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]
    ) -> TypeInfo:
        fn = self.functions[name]
        called = self.kernels.get(name) if fn.is_kernel else None
        if called is not None and called.local_vars:  # OpenCL C 1.2 6.9: implementation-defined
            self.error(node, f"calling the kernel '{name}', which declares __local variables, is not supported")
        if fn.node is None:
            self.used_undefined.append((name, node))
        wanted = len(fn.params)
        if len(args) != wanted and not (fn.variadic and len(args) >= wanted):
            # Clang's place: the first extra argument, or the ``)`` where one is missing
            missing = self.operator_marks.get((id(node), ")"), node)
            self.error(args[wanted] if len(args) > wanted else missing, _arity(fn, len(args)))
            return fn.return_type
        declared = _parameters(fn)
        for k, (a, t, p) in enumerate(zip(args, arg_types, fn.params, strict=False)):
            if self.overloaded_ref(a) and p.kind != "unknown":
                spelt = f"'{p}'" if not declared else self.spell(declared[k], p, None)
                self.error(self.start(a), f"passing {OVERLOADED_TYPE} to parameter of incompatible type {spelt}")
                continue
            self.check_argument(a, t, p, f"argument {k + 1} of '{fn.shown}'", declared[k] if declared else None)
        return fn.return_type

    def check_argument(
        self, node: c_ast.Node, value: TypeInfo, param: TypeInfo, what: str, declared: c_ast.Node | None = None
    ) -> None:
        """``declared``: the parameter's type node, which Clang's errors spell."""
        if value.kind == "unknown" or param.kind == "unknown":
            return
        pointer_param = param.kind in ("pointer", "array")
        pointer_value = value.kind in ("pointer", "array")
        null = self.null_pointer(node)
        integer = value.kind == "scalar" and value.name not in FLOATS
        integer_param = param.kind == "scalar" and param.name not in FLOATS
        if (pointer_param and integer and not null) or (pointer_value and integer_param):
            wanted = f"'{param}'" if declared is None else self.spell(declared, param, None)
            passed = self.clang_type(node, value, as_value=True)
            which = "integer to pointer" if pointer_param else "pointer to integer"
            self.error(
                self.start(node), f"incompatible {which} conversion passing {passed} to parameter of type {wanted}"
            )
        elif pointer_param and not pointer_value and not null:
            wanted = f"'{param}'" if declared is None else self.spell(declared, param, None)
            passed = self.clang_type(node, value, as_value=True)
            self.error(self.start(node), f"passing {passed} to parameter of incompatible type {wanted}")
        elif pointer_param and points_elsewhere(param, value) and not null:
            wanted = f"'{param}'" if declared is None else self.spell(declared, param, None)
            passed = self.clang_type(node, value, as_value=True)
            self.error(
                self.start(node),
                f"passing {passed} to parameter of type {wanted} changes address space of pointer",
            )
        elif pointer_param and pointer_value and not null and (converted := pointer_conversion(param, value)):
            wanted = f"'{param}'" if declared is None else self.spell(declared, param, None)
            passed = self.clang_type(node, value, as_value=value.kind != "array")  # (an array as declared: Clang's)
            self.warning(self.start(node), STORES[converted]["passing"].format(passed=passed, to=wanted))
        elif pointer_value and not pointer_param:
            self.error(node, f"{what} must be '{param}', not the pointer '{value}'")
        elif (
            param.is_arithmetic
            and value.kind == "vector"
            and value.name != "?"
            and (param.kind, param.name, param.width) != (value.kind, value.name, value.width)
        ) or ("struct" in (param.kind, value.kind) and (param.kind, param.name) != (value.kind, value.name)):
            wanted = self.value_type(param) if declared is None else self.spell(declared, param, None)
            passed = self.clang_type(node, value, as_value=True)
            self.error(self.start(node), f"passing {passed} to parameter of incompatible type {wanted}")
        elif param.is_arithmetic:
            self.constant_conversion(node, value, param)

    def atomic_overload(
        self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], types: list[TypeInfo]
    ) -> TypeInfo:
        """The type an atomic call updates, as Clang resolves its overloads (OpenCL C 1.2 6.12.11: int and uint,
        float for ``atomic_xchg``; the ``atom_`` names of the 1.0 extensions long and ulong too): the overload
        whose pointer parameter points to the argument's type; else, the pointer converted with Clang's warning,
        the one the values take best (``atomic_min(float_p, 2u)``: uint; ``atomic_add(float_p, 1.0f)`` and
        ``atomic_inc(char_p)`` are ambiguous). Measured on PoCL 3.1 and Oclgrind 21.10."""
        p = types[0]
        assert p.target is not None
        elements = _ATOMIC_ELEMENTS["atom_" if name.startswith("atom_") else "atomic_"]
        if name == "atomic_xchg":
            elements = (*elements, "float")
        if (p.target.kind == "scalar" and p.target.name in elements) or p.target.name == "?":
            return p.target
        values = types[1:]
        if any(t.kind == "unknown" or t.name == "?" for t in values):
            return UNKNOWN
        viable: list[tuple[str, list[int]]] = []
        for element in elements:
            ranks = [rank((t.name, t.width), element, 1) if t.is_arithmetic else None for t in values]
            if all(r is not None for r in ranks):
                viable.append((element, [r for r in ranks if r is not None]))
        chosen = best(viable)
        if isinstance(chosen, str):
            self.error(node, unresolved(name, chosen))
            return UNKNOWN
        element = viable[chosen][0]
        self.pointer_converted(node, args[0], p, TypeInfo("scalar", element), "volatile")
        return TypeInfo("scalar", element, space=p.target.space)

    def constant_string(self, node: c_ast.Node) -> str | None:
        """The text up to its first NUL of the program-scope ``__constant`` char array ``node`` names, where a
        string literal initializes it (as the checker left it: ``StringItems``, one constant per byte)."""
        decl = self.constants.get(node.name) if isinstance(node, c_ast.ID) else None
        symbol = self.lookup(node.name) if decl is not None else None
        if decl is None or symbol is None or symbol.kind != "global" or not isinstance(decl.init, StringItems):
            return None  # (a local name may hide it)
        values = [-int(e.expr.value) if isinstance(e, c_ast.UnaryOp) else int(e.value) for e in decl.init.exprs]
        return bytes(v & 0xFF for v in values).split(b"\0")[0].decode("latin-1")

    def argument_type(self, node: c_ast.Node, t: TypeInfo) -> str:
        """The type of the value the argument ``node`` (of type ``t``) passes, as Clang's format warnings spell it:
        a variable's as declared (a typedef's name with its aka), without its qualifiers or the address space it lives
        in (an lvalue's value has neither)."""
        symbol = self.lookup(node.name) if isinstance(node, c_ast.ID) and t.kind in ("scalar", "vector") else None
        if symbol is not None and symbol.declared is not None:
            return _UNQUALIFIED.sub("'", self.spell(symbol.declared, symbol.type, None))
        return self.clang_type(node, t, as_value=True)

    def halves_through(self, node: c_ast.Node, p: TypeInfo, writes: bool) -> None:
        """vload_half's or vstore_half's pointer ``p`` (at ``node``): one to elements other than halves converts to
        the half pointer of its address space (the halves are its bytes: ``exec_calls``), a store's a ``const`` one
        too (its qualifier discarded)."""
        target = p.target if p.kind in ("pointer", "array") else None
        if target is not None and target.name != "?" and (target.name != "half" or (writes and target.const)):
            self.pointer_converted(None, node, p, TypeInfo("scalar", "half"), "" if writes else "const")

    def vstore(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]) -> None:
        """vstoreN(data, offset, p) and vstore_half: Clang's overloads, one per element type and address space
        but ``__constant``, chosen by ``data`` (a vector of N, or a scalar, which the pointer's overload takes):
        another length, a ``__constant`` pointer or a null pointer constant match none or all; a pointer to
        other elements (or to ``const`` ones) converts, with Clang's warning, and the store is the data's type
        through it (``converted_pointers``)."""
        data, p = arg_types[0], arg_types[2]
        if p.kind not in ("pointer", "array"):
            if p.kind != "unknown":
                why = "the call is ambiguous" if self.null_pointer(args[2]) else "no matching function"
                self.error(node, unresolved(name, why))
            return
        target = p.target
        m = re.fullmatch(r"vstore(\d+)", name)
        n = int(m.group(1)) if m else None
        if (target is not None and target.space == "constant") or (
            n is not None and data.kind == "vector" and data.width != n and data.name != "?"
        ):
            self.error(node, unresolved(name, "no matching function"))
        elif n is None:
            self.halves_through(args[2], p, writes=True)
        elif target is None or target.name == "?" or data.name == "?":
            return
        elif data.kind == "vector":
            if (target.kind, target.name) != ("scalar", data.name) or target.const:
                self.pointer_converted(node, args[2], p, TypeInfo("scalar", data.name), typedef=True)
        elif target.kind != "scalar":  # (a scalar converts to every overload's vector: the pointer decides none)
            self.error(node, unresolved(name, "the call is ambiguous"))
        elif target.const:
            self.pointer_converted(node, args[2], p, TypeInfo("scalar", target.name), typedef=True)

    def pointer_converted(
        self,
        call: c_ast.FuncCall | None,
        node: c_ast.Node,
        p: TypeInfo,
        pointee: TypeInfo,
        qualifier: str = "",
        typedef: bool = False,
    ) -> None:
        """Clang's warning for the pointer argument ``p`` at ``node`` converted to a pointer to ``pointee`` (in its
        address space; ``qualifier``: the parameter's own, as the header declares it) that a built-in's parameter
        takes: between integers that differ only in sign "converts between pointers to integer types with
        different sign", a ``const`` pointee lost "discards qualifiers", else "incompatible pointer types"; an
        unsigned pointee by C's name, or (``typedef``: the header's declaration says ``uint``) by OpenCL's with its
        aka. The executor takes the pointee from ``call``'s entry in ``converted_pointers`` (vload_half's, without
        one, always reads halves)."""
        target = p.target
        assert target is not None
        if call is not None:
            self.converted_pointers[id(call)] = (pointee.name, pointee.width)
        head = f"{qualifier + ' ' if qualifier else ''}__{target.space}"
        c_name = C_NAMES.get(pointee.name) if pointee.kind == "scalar" else None
        if c_name is None:
            param = f"'{head} {pointee.type_name} *'"
        elif typedef:
            param = f"'{head} {pointee.name} *' (aka '{head} {c_name} *')"
        else:
            param = f"'{head} {c_name} *'"
        passed = self.clang_type(node, p, as_value=p.kind != "array")  # (an array as declared, Clang's words)
        problem = pointer_conversion(TypeInfo("pointer", target=pointee), p) or "incompatible pointer"
        words = STORES[problem]["passing"]
        self.warning(self.start(node), words.format(passed=passed, to=param))

    def call_builtin(
        self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]
    ) -> TypeInfo:
        arity = builtin_arity(name)
        assert arity is not None
        low, high = arity
        if not low <= len(args) <= high:
            named = _SINGLE_PARAMETER.get(name)
            missing = self.operator_marks.get((id(node), ")"), node)
            if named is not None:  # Clang's words for a function of one declaration, as for the program's own
                self.error(args[1] if args else missing, _arity_words(1, named, len(args)))
            elif low == high and (name.startswith("get_") or name == "wait_group_events"):
                # one declaration whose parameters PoCL 3.1's header leaves unnamed (Oclgrind's names them)
                self.error(args[low] if len(args) > low else missing, _arity_words(low, "", len(args)))
            else:  # an overloaded built-in
                self.error(node, unresolved(name, "no matching function"))
            return UNKNOWN
        if name in async_copy.ASYNC_BUILTINS:
            return async_copy.check_call(self.error, node, name, args, arg_types)
        convert = conversion(name)
        if convert:
            base = convert.group(1)
            width = int(convert.group(2) or 1)
            source = arg_types[0]
            result = scalar_or_vector(base, width)
            if source.kind in ("pointer", "struct", "array"):
                self.error(node, unresolved(name, "no matching function"))
                return UNKNOWN
            if name.startswith("as_"):
                have, need = source.element_size, result.element_size
                if have is not None and need is not None and have != need:
                    shown = f"{self.value_type(result)} and {self.clang_type(args[0], source, True)}"
                    self.error(node, f"invalid reinterpretation: sizes of {shown} must match")
            elif source.kind == "vector" and source.width != width:  # (convert_T4 takes 4 components)
                self.error(node, unresolved(name, "no matching function"))
                return UNKNOWN
            elif source.kind == "scalar" and width > 1:  # a scalar converts to every overload's vector alike
                self.error(node, unresolved(name, "the call is ambiguous"))
                return UNKNOWN
            return result
        rule = BUILTINS[name].result
        if rule == "table":
            return check_table_call(
                name, args, arg_types, self.error, node, self.pointer_converted, floats(self.fp64, self.fp16)
            )
        if rule == "size_t":
            return ULONG
        if rule == "uint":
            return UINT
        if rule == "void" and not name.startswith("vstore"):
            return VOID
        if rule == "pointee":
            p = arg_types[0]
            if p.kind == "array" and p.target is not None:  # an array's name: a pointer to its first element
                p = TypeInfo("pointer", target=p.target)
                arg_types = [p, *arg_types[1:]]
            if p.kind not in ("pointer", "unknown"):
                self.error(args[0], f"the first argument of '{name}' must be a pointer to __global or __local memory")
                return UNKNOWN
            if p.kind == "pointer" and p.target is not None:
                if p.target.space not in ("global", "local"):
                    where = p.target.space
                    self.error(args[0], f"'{name}' needs a pointer to __global or __local memory, not __{where}")
                elif p.target.const:
                    self.error(args[0], f"'{name}' cannot modify read-only memory")
                return self.atomic_overload(node, name, args, arg_types)
            return UNKNOWN
        if name.startswith("vstore"):
            self.vstore(node, name, args, arg_types)
            return VOID
        if rule.startswith("vload_half"):
            p = arg_types[1]
            if p.kind not in ("pointer", "array", "unknown"):
                self.error(args[1], f"the second argument of '{name}' must be a pointer")
            else:
                self.halves_through(args[1], p, writes=False)
            width = int(rule[len("vload_half") :])
            return FLOAT if width == 1 else TypeInfo("vector", "float", width)
        if rule.startswith("vload"):
            p = arg_types[1]
            width = int(rule[5:])
            if p.kind not in ("pointer", "array", "unknown"):
                self.error(node, unresolved(name, "no matching function"))
                return UNKNOWN
            if p.target is not None and p.target.kind == "scalar":
                return TypeInfo("vector", p.target.name, width)
            return TypeInfo("vector", "?", width)
        if any(t.kind in ("pointer", "struct", "array") for t in arg_types):
            self.error(node, unresolved(name, "no matching function"))
            return UNKNOWN
        if any(t.kind == "unknown" for t in arg_types) and rule not in ("first", "own"):
            if rule == "scalar":
                return TypeInfo("scalar", "?")
            width = max((t.width for t in arg_types if t.kind == "vector"), default=0)
            return TypeInfo("vector", "?", width) if width else UNKNOWN
        first = arg_types[0]
        if rule == "intn":  # ilogb(gentype) -> intn
            width = first.width if first.kind == "vector" else 1
            return scalar_or_vector("int", width)
        if name in OVERLOADED and all(t.is_arithmetic and t.name != "?" for t in arg_types):
            return self.overloaded_builtin(node, name, arg_types)
        if rule == "first":
            return _promote(first) if first.kind != "unknown" else UNKNOWN
        if rule == "own":  # the argument's own type, not promoted
            return TypeInfo(first.kind, first.name, first.width) if first.kind != "unknown" else UNKNOWN
        if rule == "scalar":
            return TypeInfo("scalar", first.name)
        if rule == "ugentype":
            return TypeInfo(first.kind, UNSIGNED_OF.get(first.name, first.name), first.width)
        widths = {t.width for t in arg_types if t.kind == "vector"}
        if len(widths) > 1:
            self.error(node, f"built-in function '{name}' has vector arguments of different sizes")
            return UNKNOWN
        if rule == "samegentype" and widths and any(t.kind == "scalar" for t in arg_types):
            self.error(node, f"built-in function '{name}' needs both arguments of the same type (no scalar form)")
            return UNKNOWN
        names = {t.name for t in arg_types}
        element = names.pop() if len(names) == 1 else "?"
        width = widths.pop() if widths else 1
        return scalar_or_vector(element, width) if element != "?" or width > 1 else TypeInfo("scalar", "?")

    def overloaded_builtin(self, node: c_ast.FuncCall, name: str, arg_types: list[TypeInfo]) -> TypeInfo:
        """The result of a call to one of the ``OVERLOADED`` built-ins: its overload's gentype, picked as Clang
        picks it (``overloads.resolve``); an ambiguous call or one no overload takes is Clang's error."""
        family, forms = OVERLOADED[name]
        r = resolved_call(name, arg_types, self.elements(family), forms, self.error, node)
        if name == "abs" and r.kind != "unknown":  # ugentype abs(gentype)
            return TypeInfo(r.kind, UNSIGNED_OF.get(r.name, r.name), r.width)
        return r

    def elements(self, family: str) -> tuple[str, ...]:
        """The element types of an ``OVERLOADED`` family on this device."""
        return {
            "all": (*INTEGERS, *floats(self.fp64, self.fp16)),
            "floats": floats(self.fp64, self.fp16),
            "float": ("float",),
            "integers": INTEGERS,
            "uint": ("uint",),
        }[family]


def _argument_rank(arg: TypeInfo, param: TypeInfo) -> int | None:
    """How an argument converts to a parameter of an overloadable function (``overloads.rank``; a pointer only to
    one into the same space of the same type, or to ``void``), None when it does not."""
    if param.kind in ("pointer", "array"):
        if arg.kind not in ("pointer", "array") or arg.target is None or param.target is None:
            return None
        if points_elsewhere(param, arg):
            return None
        if arg.target.type_name == param.target.type_name and arg.target.kind == param.target.kind:
            return EXACT
        return CONVERSION if param.target.kind == "void" else None
    if param.is_arithmetic and arg.is_arithmetic:
        return rank((arg.name, arg.width if arg.kind == "vector" else 1), param.name, param.width)
    if param.kind == "struct" and arg.kind == "struct":
        return EXACT if param.name == arg.name else None
    return None


def _parameters(fn: _Function) -> list[c_ast.Node] | None:
    """The type nodes that declare ``fn``'s parameters (None: not known, or another count than its parameters)."""
    decl = fn.node.decl.type if fn.node is not None else None
    params = decl.args.params if isinstance(decl, c_ast.FuncDecl | FuncDeclExt) and decl.args is not None else []
    types = [p.type for p in params if isinstance(p, c_ast.Decl)]
    return types if len(types) == len(fn.params) else None


_SINGLE_PARAMETER = {"barrier": "flags", "mem_fence": "flags", "read_mem_fence": "flags", "write_mem_fence": "flags"}
"""Built-ins of one declaration and one parameter, by the name Clang's arity errors give it (opencl-c.h's)."""


def _arity(fn: _Function, given: int) -> str:
    """Clang's words for a call of ``fn`` with ``given`` arguments, not as many as it has parameters (a single one
    by its name, where its definition gives one)."""
    wanted = len(fn.params)
    named = ""
    if wanted == 1 and fn.node is not None:
        declared = getattr(fn.node.decl.type, "args", None)
        first = declared.params[0] if declared is not None and declared.params else None
        named = getattr(first, "name", None) or ""
    return _arity_words(wanted, named, given)


def _arity_words(wanted: int, named: str, given: int) -> str:
    """Clang's words for a call with ``given`` arguments of a function of ``wanted`` parameters (the single one
    ``named``, where its declaration names it)."""
    if given > wanted:
        if named:
            return f"too many arguments to function call, expected single argument '{named}', have {given} arguments"
        return f"too many arguments to function call, expected {wanted}, have {given}"
    if named:
        return f"too few arguments to function call, single argument '{named}' was not specified"
    return f"too few arguments to function call, expected {wanted}, have {given}"


def _given(count: int) -> str:
    return f"{count} {'was' if count == 1 else 'were'} given"
