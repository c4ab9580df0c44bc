"""The checker's declarations: typedefs, enumerators, static assertions, program-scope ``__constant``
variables, function signatures and definitions (kernel and helper parameters, ``reqd_work_group_size``), recursion
between functions, and local variables with their array sizes and initializers.
"""

from __future__ import annotations

from pycparser import c_ast
from pycparserext.ext_c_parser import (
    AttributeSpecifier,
    FuncDeclExt,
    RangeExpression,
    TypeDeclExt,
    TypeOfDeclaration,
    TypeOfExpression,
)

from wia_sim.kernels import images
from wia_sim.kernels.check_state import OVERLOADED_TYPE, CheckerState, _Context, _coord_of, _Function, _Symbol
from wia_sim.kernels.clang_types import described
from wia_sim.kernels.ctype import lookup, wrap
from wia_sim.kernels.fallthrough import falls_off
from wia_sim.kernels.initializers import (
    StringItems,
    designated_member,
    excess_kind,
    nested_designation,
    own_list,
)
from wia_sim.kernels.jumps import jump_problems
from wia_sim.kernels.keywords import keyword_name
from wia_sim.kernels.literals import c_string
from wia_sim.kernels.overloads import EXACT
from wia_sim.kernels.parsing import ast_nodes
from wia_sim.kernels.preprocess import Diagnostic
from wia_sim.kernels.program import FunctionInfo, KernelInfo, LocalVar, Param, ParamKind
from wia_sim.kernels.signatures import BUILTIN_CONSTANTS, UNSUPPORTED_BUILTINS, is_builtin_function
from wia_sim.kernels.structs import check_struct, size_align
from wia_sim.kernels.types import (
    FLOATS,
    OPAQUE_TYPES,
    SCALAR_SIZES,
    SPACES,
    UNKNOWN,
    TypeInfo,
    TypeResolver,
    const_int,
    enum_underlying,
    enumerator_types,
    makes_vector,
)

__all__ = ["DeclarationChecks"]

# names OpenCL forbids as kernel arguments (OpenCL C 1.2, 6.9 k)
_NOT_KERNEL_ARG_TYPES = frozenset({"bool", "_Bool", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "event_t"})
"""The types OpenCL C 1.2 6.9 k keeps out of kernel parameters (by name: ``size_t`` is an ``unsigned long`` that
may not be one, ``ulong`` may), through typedefs of them too."""
_ACCESS_QUALIFIERS = frozenset({"read_only", "write_only", "read_write", "__read_only", "__write_only", "__read_write"})


def _declarations(nodes: list[c_ast.Node]) -> list[c_ast.Decl]:
    """Every declaration in ``nodes`` and beneath them (parameters, locals, a for loop's), in source order."""
    found: list[c_ast.Decl] = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        if isinstance(node, c_ast.Decl):
            found.append(node)
        stack.extend(reversed([child for _, child in node.children()]))
    return found


def _is_string(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Constant) and node.type == "string"


def _adjusted(t: TypeInfo) -> TypeInfo:
    """A parameter's or result's type as a function's type has it (C99 6.7.5.3p15): an array as a pointer to its
    element, without the qualifiers and address space of the object itself."""
    if t.kind == "array" and t.target is not None:
        return TypeInfo("pointer", target=t.target)
    return TypeInfo(t.kind, t.name, t.width, t.target, length=t.length)


def _same_signature(a: _Function, b: _Function) -> bool:
    """Whether two declarations of a function give it one type (its result's and its parameters'): Clang's
    "conflicting types" otherwise."""
    if len(a.params) != len(b.params) or _adjusted(a.return_type) != _adjusted(b.return_type):
        return False
    return all(_adjusted(x) == _adjusted(y) for x, y in zip(a.params, b.params, strict=True))


def _innermost_names(node: c_ast.Node | None) -> list[str]:
    while node is not None and not isinstance(node, c_ast.IdentifierType):
        node = getattr(node, "type", None)
    return list(node.names) if isinstance(node, c_ast.IdentifierType) else []


def _address_spaces(node: c_ast.Node, types: TypeResolver) -> list[str]:
    """The address spaces on the innermost type of a declaration, type name or cast, each as often as it is
    given: written there (``__local __global float* p`` has two), carried by the typedef named there (``__local GI*
    p`` of ``typedef __global int GI``) or by the ``__typeof__`` of an object it names (``__local __typeof__(*p)``
    of a ``__global`` ``p``)."""
    inner = getattr(node, "to_type", node)
    while not isinstance(inner, c_ast.TypeDecl) and getattr(inner, "type", None) is not None:
        inner = inner.type
    if not isinstance(inner, c_ast.TypeDecl):
        return []
    return _carried(inner.type, types) + _written(inner.quals)


def _written(quals: list[str]) -> list[str]:
    """The address spaces among a declarator's qualifiers, as written: ``__local`` for ``local`` too."""
    return [f"__{SPACES[q]}" for q in quals if q in SPACES]


def _carried(base: c_ast.Node | None, types: TypeResolver) -> list[str]:
    """The address space a type specifier brings along: a typedef's, an object's ``__typeof__``'s."""
    if isinstance(base, TypeOfExpression | TypeOfDeclaration) and id(base) in types.typeof_spaced:
        return [f"__{types.resolve(base).space}"]
    if isinstance(base, c_ast.IdentifierType) and len(base.names) == 1 and base.names[0] in types.spaced_typedefs:
        return [types.spaced_typedefs[base.names[0]]]
    return []


def _given_space(node: c_ast.Node | None, types: TypeResolver) -> str | None:
    """The address space a typedef's type is given, if one is (``typedef __global int GI[4];``, ``typedef int*
    __local LP;``; not ``typedef __global int* GP;``, a private pointer)."""
    while isinstance(node, c_ast.ArrayDecl):  # (an array is where its elements are)
        node = node.type
    if isinstance(node, c_ast.PtrDecl):
        spaces = _written(node.quals)
    elif isinstance(node, c_ast.TypeDecl):
        spaces = _address_spaces(node, types)
    else:
        return None
    return spaces[-1] if spaces else None


def _has_function_pointer(t: TypeInfo) -> bool:
    while t.target is not None:
        if t.kind in ("pointer", "array") and t.target.kind == "function":
            return True
        t = t.target
    return False


def _overloadable(decl: c_ast.Decl) -> bool:
    """Whether a function declaration carries ``__attribute__((overloadable))``."""
    return any(
        isinstance(spec, AttributeSpecifier)
        and spec.exprlist is not None
        and any(isinstance(e, c_ast.ID) and e.name in ("overloadable", "__overloadable__") for e in spec.exprlist.exprs)
        for spec in decl.funcspec
    )


def _rename(decl: c_ast.Decl, name: str) -> None:
    """Give a function declaration another name (its ``Decl`` and the declarator inside it)."""
    decl.name = name
    inner = decl.type
    while inner is not None and not isinstance(inner, c_ast.TypeDecl):
        inner = getattr(inner, "type", None)
    if isinstance(inner, c_ast.TypeDecl):
        inner.declname = name


def _constant_initializer(node: c_ast.Node, enumerators: dict[str, int]) -> bool:
    """Whether an initializer is made of constants (literals, enumerators, ``sizeof``, operators, casts, vector
    literals and brace lists of those), as a ``__constant`` variable's must be (C99 6.7.8p4)."""
    match node:
        case c_ast.Constant():
            return True
        case c_ast.ID():
            return node.name in enumerators or node.name in BUILTIN_CONSTANTS
        case c_ast.InitList() | c_ast.ExprList():
            return all(_constant_initializer(e, enumerators) for e in node.exprs)
        case c_ast.NamedInitializer():
            return _constant_initializer(node.expr, enumerators)
        case c_ast.UnaryOp():
            return node.op in ("sizeof", "vec_step", "_Alignof") or (
                node.op in ("-", "+", "~", "!") and _constant_initializer(node.expr, enumerators)
            )
        case c_ast.Cast():
            return _constant_initializer(node.expr, enumerators)
        case c_ast.BinaryOp():
            return _constant_initializer(node.left, enumerators) and _constant_initializer(node.right, enumerators)
        case c_ast.TernaryOp():
            return all(_constant_initializer(e, enumerators) for e in (node.cond, node.iftrue, node.iffalse))
    return False


class DeclarationChecks(CheckerState):
    """The declaration rules of ``Checker``; the program-scope ones are called from ``Checker.run``, the local
    ones from ``StatementChecks.statement``."""

    # -- program scope
    def storage_classes(self, items: list[c_ast.Node]) -> None:
        """Clang's storage-class rules for OpenCL C (6.8): ``auto`` and ``register`` are refused in every version,
        ``static`` and ``extern`` before 1.2 (``-cl-std=CL1.1``). Each refused keyword is reported where it stands,
        once, and dropped from its declarations, as Clang drops it: what follows is checked as without it."""
        refused = {"auto", "register"} | ({"static", "extern"} if self.c_version < 120 else set())
        version = f"{self.c_version // 100}.{self.c_version // 10 % 10}"
        reported: set[tuple[int | None, int | None]] = set()
        for decl in _declarations(items):
            bad = [s for s in decl.storage if s in refused]
            if not bad:
                continue
            decl.storage = [s for s in decl.storage if s not in refused]
            at = _coord_of(decl)
            for keyword in bad:
                place: tuple[int | None, int | None] = at
                if at[0] is not None and at[1] is not None:
                    here = (at[0], at[1])
                    before = [
                        (line, col) for line, col, k in self.keyword_places if k == keyword and (line, col) < here
                    ]
                    place = before[-1] if before else at
                if place not in reported:
                    reported.add(place)
                    message = f"OpenCL C version {version} does not support the '{keyword}' storage class specifier"
                    self.diagnostics.append(Diagnostic(self.filename, place[0], place[1], message))

    def typedef(self, node: c_ast.Typedef) -> None:
        t = self.types.resolve(node.type)
        if t.kind == "function" or _has_function_pointer(t):
            self.error(node, f"function pointers are not supported (typedef '{node.name}')")
        self.check_type_usable(t, node, f"typedef '{node.name}'", named=True)
        self.types.typedefs[node.name] = t
        space = _given_space(node.type, self.types)
        if space is not None:
            self.types.spaced_typedefs[node.name] = space
        else:
            self.types.spaced_typedefs.pop(node.name, None)  # (one of a block's, over the file's of the same name)
        names = _innermost_names(node.type) if isinstance(node.type, c_ast.TypeDecl) else []
        if len(names) == 1:
            self.types.aliases[node.name] = names[0]
        if t.kind == "vector" and makes_vector(node.type):
            self.types.vector_typedefs.add(node.name)
        if t.kind == "struct" and "<anonymous" in t.name:
            self.struct_names.setdefault(t.name, node.name)  # how kernel argument info names it
        self.register_enumerators(node.type)

    def local_typedef(self, node: c_ast.Typedef) -> None:
        """A typedef in a function body (pyopencl's special functions: ``typedef __constant const double*
        data_t;``; PoCL's tests: ``typedef char2 gtype;`` in one function, ``typedef char gtype;`` in the next): it
        holds in its block (``compound`` restores the typedefs after it), shadowing one of the same name outside,
        and each use of it is bound to it (``TypeResolver.bound``). Defining it again in the same block as another
        type is Clang's error."""
        t = self.types.resolve(node.type)
        scope = self.typedef_scopes[-1] if self.typedef_scopes else None
        known = self.types.typedefs.get(node.name)
        if scope is not None and node.name in scope and known is not None and known != t:
            self.error(node, f"typedef redefinition with different types ('{t}' vs '{known}')")
            return
        if scope is not None:
            scope.add(node.name)
        self.typedef(node)

    def register_enumerators(self, node: c_ast.Node | None) -> None:
        while node is not None and not isinstance(node, c_ast.Enum | c_ast.IdentifierType | c_ast.Struct):
            node = getattr(node, "type", None)
        if isinstance(node, c_ast.Struct | c_ast.Union) and node.decls:
            for member in node.decls:
                self.register_enumerators(member.type)
        if not isinstance(node, c_ast.Enum) or node.values is None:
            return
        value = 0
        names = []
        for enumerator in node.values.enumerators:
            if enumerator.value is not None:
                v = self.constant(enumerator.value)
                if v is None:
                    self.error(enumerator, f"enumerator '{enumerator.name}' is not an integer constant")
                    v = value
                value = v
            if enumerator.name in self.enumerators or enumerator.name in self.scopes[0]:
                self.error(enumerator, f"redefinition of enumerator '{enumerator.name}'")
            self.enumerators[enumerator.name] = value
            names.append(enumerator.name)
            value += 1
        values = [self.enumerators[name] for name in names]
        types = enumerator_types(values)
        self.types.enum_types[node.name if node.name else id(node)] = enum_underlying(values)
        for enumerator, name, type_name in zip(node.values.enumerators, names, types, strict=True):
            self.enumerator_types[name] = type_name
            self.scopes[0][name] = _Symbol(name, "enumerator", TypeInfo("scalar", type_name), _coord_of(enumerator)[0])

    def constant(self, node: c_ast.Node) -> int | None:
        """The value of an integer constant expression that nothing has checked yet: a ``sizeof`` of an
        expression in it is known once its operand's type is (``sizes``), whose errors are the caller's to
        report (as "not a constant")."""
        value = const_int(node, self.enumerators, self.types)
        if value is None:
            self.expr_quiet(node)
            value = const_int(node, self.enumerators, self.types)
        return value

    def static_assert(self, node: c_ast.StaticAssert) -> None:
        value = self.constant(node.cond)
        if value is None:
            self.error(node, "static assertion expression is not an integral constant expression")
        elif value == 0:
            message = node.message.value if node.message is not None else ""
            self.error(node, f"static assertion failed{': ' + message if message else ''}")

    def file_scope_decl(self, node: c_ast.Decl) -> None:
        if isinstance(node.type, c_ast.FuncDecl | FuncDeclExt):
            fn = self.declare_function(node, None)
            if fn.is_kernel:
                fn.reqd = self.reqd_work_group_size(node) or fn.reqd
            return
        self.sized_dims(node)
        t = self.types.resolve(node.type)
        self.register_enumerators(node.type)
        if node.name is None:
            return  # struct, union or enum declaration
        self.function_attributes_refused(node)
        if _has_function_pointer(t):
            self.error(node, "function pointers are not supported")
            return
        self.check_type_usable(t, node, f"variable '{node.name}'")
        if t.kind == "opaque":  # a sampler (``images.usable``): const or __constant (Clang's rule)
            if not (t.const or t.space == "constant") and t.name == images.SAMPLER:
                self.error(node, f"a program-scope sampler must be const or __constant ('{node.name}')")
            self.scopes[0][node.name] = _Symbol(node.name, "global", t, _coord_of(node)[0])
            return
        reserved = keyword_name(node.name, "variable")
        if reserved:
            self.error(node, reserved)
            return
        if t.space != "constant":  # Clang's error; the name is still declared, its initializer still checked
            which = "extern" if "extern" in node.storage else "program scope"
            self.error(node, f"{which} variable must reside in constant address space")
            if node.init is not None:
                self.check_initializer(node.init, t, node)
            self.scopes[0].setdefault(node.name, _Symbol(node.name, "global", t, _coord_of(node)[0], None, node.type))
            return
        if "extern" in node.storage:
            self.error(node, f"extern variables are not supported ('{node.name}')")
            return
        value = None
        if node.init is None:
            self.error(node, "variable in constant address space must be initialized")
        else:
            self.check_initializer(node.init, t, node)
            value = self.folded_constant(t, node.init)
        self.check_array_dims(node, None)
        if node.name in self.scopes[0] or node.name in self.functions:
            self.error(node, f"redefinition of '{node.name}'")
        self.scopes[0][node.name] = _Symbol(node.name, "global", t, _coord_of(node)[0], value, node.type)
        self.constants[node.name] = node

    def fallthrough(self, node: c_ast.FuncDef) -> None:
        """Clang's warning, at its closing brace, for a function that returns a value and whose body a path runs
        off the end of (``fallthrough.falls_off``): "in all control paths" where some path returns."""
        if not falls_off(node.body, lambda e: const_int(e, self.enumerators, self.types)):
            return
        returns = any(isinstance(n, c_ast.Return) for n in ast_nodes(node.body))
        where = self.operator_marks.get((id(node.body), "}"), node.body)
        message = "non-void function does not return a value" + (" in all control paths" if returns else "")
        self.warning(where, message, analysis=True)

    def half_refused(self, t: TypeInfo, node: c_ast.Node, what: str) -> tuple[c_ast.Node, str]:
        """Clang's error (and where) for a ``half`` value without cl_khr_fp16 supported and enabled: a variable or
        a parameter declared of the type, a cast to it; the simulator's words elsewhere (``fp16_missing``)."""
        if what.startswith("variable") and isinstance(node, c_ast.Decl):
            return node, f"declaring variable of type {self.spell(node.type, t, t.space)} is not allowed"
        if what.startswith("parameter") and isinstance(node, c_ast.Decl | c_ast.Typename):
            shown = self.spell(node.type, t, "private")
            return node, f"declaring function parameter of type {shown} is not allowed; did you forget * ?"
        if what == "cast" and isinstance(node, c_ast.Cast):
            return node.expr, f"casting to type '{t.name}' is not allowed"
        return node, (
            f"'{t.innermost.name}' values need {self.fp16_missing}; without it half is only a storage type behind a "
            f"pointer, read and written with vload_half/vstore_half ({what})"
        )

    def space_written(self, node: c_ast.Node) -> tuple[int | None, int | None]:
        """Where the last address-space keyword of ``node``'s type is written (the one Clang finds the type
        already has a space at): the last one before the declared name, the cast's operand or the type name's
        declarator, on its line; else where ``node`` is."""
        end = node.expr if isinstance(node, c_ast.Cast) else node
        while isinstance(end, c_ast.Decl | c_ast.Typedef | c_ast.PtrDecl | c_ast.ArrayDecl | c_ast.FuncDecl):
            end = end.type  # (to the declared name)
        line, column = _coord_of(end)
        if line is None or column is None:
            return line, column
        written = [
            (at_line, at_column)
            for at_line, at_column, keyword in self.keyword_places
            if keyword in SPACES and at_line == line and at_column < column
        ]
        return written[-1] if written else (line, column)

    def check_type_usable(self, t: TypeInfo, node: c_ast.Node, what: str, named: bool = False) -> None:
        """Clang's errors for a type it does not take here; ``named``: only named (a typedef, ``sizeof``,
        ``_Alignof``), where ``half`` needs no cl_khr_fp16, as in Clang."""
        pointers = getattr(node, "to_type", node)
        levels = [_address_spaces(node, self.types)]
        while pointers is not None and not isinstance(pointers, c_ast.TypeDecl):
            if isinstance(pointers, c_ast.PtrDecl):  # (``int* __local __global p``: the pointer's own, twice)
                levels.append(_written(pointers.quals))
            pointers = getattr(pointers, "type", None)
        spaces = max(levels, key=lambda level: (len(set(level)), len(level)))
        if len(spaces) > 1:  # Clang's words, at the last address space written
            clash = list(dict.fromkeys(spaces))
            line, column = self.space_written(node)
            if len(clash) > 1:
                message = f"multiple address spaces specified for type ({' and '.join(clash)}; {what})"
                self.diagnostics.append(Diagnostic(self.filename, line, column, message))
                return
            message = f"multiple identical address spaces specified for type ({clash[0]}; {what})"
            self.diagnostics.append(Diagnostic(self.filename, line, column, message, "warning"))
        inner: TypeInfo | None = t
        behind_pointer = False
        outer = ""  # the kind of type ``inner`` is the target of
        while inner is not None:
            if inner is t and inner.kind == "opaque" and images.usable(t, what):
                if not what.startswith("typedef") and what not in images.MEASURED:
                    self.uses_images(f"{what} of type {t.name}")
                return
            if inner.kind == "opaque" and inner.name != "event_t":  # events: async_copy.py
                problem = images.misuse(inner, outer) or f"{OPAQUE_TYPES.get(inner.name, inner.name)} are not supported"
                self.error(node, f"{problem} ({what})")
                return
            if not self.fp64 and inner.name.startswith("double"):
                self.error(
                    node, f"type '{inner.name}' needs the cl_khr_fp64 extension, which the device lacks ({what})"
                )
                return
            if not self.fp16 and inner.name.startswith("half") and not behind_pointer and not named:
                self.error(*self.half_refused(t, node, what))
                return
            behind_pointer = behind_pointer or inner.kind == "pointer"
            outer = inner.kind
            inner = inner.target

    # -- functions
    def signature(self, decl: c_ast.Decl, is_kernel: bool) -> tuple[_Function, list[c_ast.Node]]:
        fdecl = decl.type
        ret = self.types.resolve(fdecl.type)
        params: list[TypeInfo] = []
        nodes: list[c_ast.Node] = []
        variadic = False
        if fdecl.args is not None:
            items = list(fdecl.args.params)
            if len(items) == 1 and isinstance(items[0], c_ast.Typename) and self.types.resolve(items[0]).kind == "void":
                items = []
            for p in items:
                if isinstance(p, c_ast.EllipsisParam):
                    variadic = True
                    continue
                t = self.types.resolve(p.type) if hasattr(p, "type") else UNKNOWN
                if t.kind == "array":  # C99 6.7.5.3p7: an array parameter is a pointer to its element
                    t = TypeInfo("pointer", target=t.target)
                params.append(t)
                nodes.append(p)
        fn = _Function(decl.name, params, ret, is_kernel, _coord_of(decl)[0], variadic)
        return fn, nodes

    def declare_function(self, decl: c_ast.Decl, definition: c_ast.FuncDef | None) -> _Function:
        is_kernel = any(spec in ("__kernel", "kernel") for spec in decl.funcspec if isinstance(spec, str))
        fn, nodes = self.signature(decl, is_kernel)
        plain = not _overloadable(decl)
        if not is_kernel and (not plain or self.shadows_builtin(decl.name)):
            fn = self.overload(decl, fn, nodes, plain)
        name = decl.name
        if any(isinstance(p, c_ast.ID) for p in nodes) or (definition is not None and definition.param_decls):
            self.error(decl, f"old-style (K&R) parameter lists are not supported ('{name}')")
        if fn.variadic:
            self.error(decl, f"variadic functions are not supported ('{name}')")
        for _, called in [] if is_kernel else _kernel_attributes(decl):  # (OpenCL C 1.2 6.7.2: a kernel's alone)
            self.error(decl, f"attribute '{called}' can only be applied to an OpenCL kernel function")
        if is_kernel and name == "main":
            self.error(decl, "kernel cannot be called 'main'")
        if (is_builtin_function(name) or name in UNSUPPORTED_BUILTINS or name == "printf") and (
            name not in self.undeclared_builtins
        ):
            self.error(decl, f"redefinition of built-in function '{name}'")
        if _has_function_pointer(fn.return_type) or fn.return_type.kind == "function":
            self.error(decl, f"function pointers are not supported (return type of '{name}')")
        result = fn.return_type
        if result.kind in ("scalar", "vector") and result.name == "half" and not self.fp16:  # (Clang's blank too)
            shown = self.value_type(result)
            self.error(decl, f"declaring function return value of type {shown} is not allowed ; did you forget * ?")
        previous = self.functions.get(name)
        if previous is not None:
            if previous.node is not None and definition is not None:
                self.error(decl, f"redefinition of '{name}'")
            elif previous.is_kernel != fn.is_kernel or not _same_signature(previous, fn):
                self.error(decl, f"conflicting types for '{name}'")
        elif name in self.scopes[0]:
            self.error(decl, f"redefinition of '{name}'")
        fn.node = definition if definition is not None else (previous.node if previous else None)
        if previous is not None and definition is None:
            return previous
        if previous is not None:
            fn.reqd = previous.reqd
        self.functions[name] = fn
        for p, pt in zip(nodes, fn.params, strict=True):
            if _has_function_pointer(pt) or pt.kind == "function":
                self.error(p, "function pointers are not supported")
        return fn

    def overload(self, decl: c_ast.Decl, fn: _Function, nodes: list[c_ast.Node], plain: bool) -> _Function:
        """A function declared ``__attribute__((overloadable))`` (Clang's C extension, used by OpenCL libraries for
        typed helpers): one of a family sharing its name, told apart by parameter types. Each is renamed
        ``name.k`` in the AST (a name no C identifier has), and a call to the family is renamed to the one
        ``call_overload`` picks, so that the executor runs it as any helper. A function named like a built-in is
        one of the built-in's overloads, as in Clang, with or without the attribute (``plain``): one of them may
        lack it, and that one may not repeat a built-in overload's parameter types (PoCL 3.1 and Oclgrind 21.10
        agree)."""
        family = self.overloads.setdefault(decl.name, [])
        signature = [str(t) for t in fn.params]
        # a redeclaration (or the definition) of a member has its parameter types
        k = next((j for j, member in enumerate(family) if [str(t) for t in member.params] == signature), len(family))
        if k == len(family):
            if plain and any(member.plain for member in family):
                self.error(decl, "at most one overload for a given name may lack the 'overloadable' attribute")
            elif plain and any(
                all(r == EXACT for r in ranks) for ranks in self.builtin_candidates(decl, decl.name, nodes, fn.params)
            ):
                self.error(decl, f"redeclaration of '{decl.name}' must have the 'overloadable' attribute")
            fn.plain = plain
            family.append(fn)
        mangled = f"{decl.name}.{k}"
        _rename(decl, mangled)
        fn.name = mangled
        return fn

    def function_definition(self, node: c_ast.FuncDef) -> None:
        decl = node.decl
        if not isinstance(decl.type, c_ast.FuncDecl | FuncDeclExt):
            self.error(decl, f"invalid function definition ('{decl.name}' has no parameter list)")
            return
        fn = self.declare_function(decl, node)
        fn.node = node
        _, param_nodes = self.signature(decl, fn.is_kernel)
        self.caller = fn  # (for its parameters' ``uses_images``)
        params: list[Param] = []
        for p, t in zip(param_nodes, fn.params, strict=True):
            param = self.kernel_param(p, t, decl.name) if fn.is_kernel else self.helper_param(p, t)
            if param is not None:
                params.append(param)
        if fn.is_kernel and fn.return_type.kind != "void":
            self.error(decl, "kernel must have void return type")
        if fn.is_kernel and "static" in decl.storage:
            self.error(decl, f"kernel function '{decl.name}' cannot be static")
        reqd = (self.reqd_work_group_size(decl) or fn.reqd) if fn.is_kernel else None
        ctx = self.context = _Context(fn)
        scope: dict[str, _Symbol] = {}
        for p, t in zip(param_nodes, fn.params, strict=True):
            if not isinstance(p, c_ast.Decl) or p.name is None:  # (unnamed: C23's, Clang's extension in OpenCL C)
                continue
            if p.name in scope:
                self.error(p, f"redefinition of parameter '{p.name}'")
            reserved = keyword_name(p.name, "parameter")
            if reserved:
                self.error(p, reserved)
            scope[p.name] = _Symbol(p.name, "param", t, _coord_of(p)[0], declared=p.type)
        self.scopes.append(scope)  # the parameters share the body's outermost scope (C99 6.2.1)
        self.compound(node.body, ctx, new_scope=False)
        for at, problem in jump_problems(node.body):
            undeclared = isinstance(at, c_ast.Goto) and problem.startswith("use of undeclared label")
            self.error(self.operator(at) if undeclared else at, problem)  # (Clang's place: the label's name)
        if not fn.is_kernel and fn.return_type.kind not in ("void", "unknown"):
            self.fallthrough(node)
        self.give_held_warnings(node.body)
        self.caller = None
        self.context = None
        self.scopes.pop()
        line = _coord_of(decl)[0] or 0
        if fn.is_kernel:
            if decl.name in self.kernels:
                return
            self.kernels[decl.name] = KernelInfo(decl.name, params, node, line, reqd, ctx.local_vars)
        else:
            calls = tuple(dict.fromkeys(name for name, _ in fn.calls))
            self.helpers[decl.name] = FunctionInfo(decl.name, params, fn.return_type, node, line, calls)

    def function_attributes_refused(self, decl: c_ast.Decl) -> None:
        """OpenCL C 1.2 6.7.2's function attributes on a variable: Clang's error at the attribute's name."""
        for attr, called in _kernel_attributes(decl):
            self.error(attr, f"'{called}' attribute only applies to functions")

    def reqd_work_group_size(self, decl: c_ast.Decl) -> tuple[int, int, int] | None:
        reqd = None
        for attr in _function_attributes(decl):
            if (
                isinstance(attr, c_ast.FuncCall)
                and isinstance(attr.name, c_ast.ID)
                and attr.name.name in ("reqd_work_group_size", "work_group_size_hint")
            ):
                size = self.work_group_size(attr, attr.name.name)
                if attr.name.name == "reqd_work_group_size" and reqd is None:
                    reqd = size
        return reqd

    def work_group_size(self, attr: c_ast.FuncCall, name: str) -> tuple[int, int, int] | None:
        """The three sizes of ``reqd_work_group_size`` or ``work_group_size_hint`` (OpenCL C 1.2 6.7.2), or None
        after Clang's error for a wrong count, a non-integer, a negative number or a zero."""
        args = attr.args.exprs if attr.args is not None else []
        if len(args) != 3:
            self.error(attr, f"'{name}' attribute requires exactly 3 arguments")
            return None
        values = []
        for k, arg in enumerate(args):
            v = const_int(arg, self.enumerators, self.types)
            if v is None:
                seen = len(self.diagnostics)
                self.expr(arg)  # (an undeclared name is Clang's error there, not the attribute's)
                if not self.errors_since(seen):
                    self.error(attr, f"'{name}' attribute requires parameter {k} to be an integer constant")
                return None
            if v < 0:
                what = "a non-negative integral compile time constant expression"
                self.error(attr, f"'{name}' attribute requires {what}")
                return None
            values.append(v)
        if 0 in values:
            self.error(attr, f"'{name}' attribute must be greater than 0")
            return None
        x, y, z = values
        return (x, y, z)

    def kernel_param(self, p: c_ast.Node, t: TypeInfo, kernel: str) -> Param | None:
        if isinstance(p, c_ast.ID):
            return None  # a K&R parameter list: reported
        if not isinstance(p, c_ast.Typename | c_ast.Decl):
            self.error(p, f"parameter name omitted in kernel '{kernel}'")
            return None
        name = p.name or ""  # (unnamed: C23's, Clang's extension in OpenCL C; its argument is passed and unused)
        line = _coord_of(p)[0] or 0
        if _has_function_pointer(t) or t.kind == "function":
            self.error(p, f"function pointers are not supported (kernel parameter '{name}')")
            return None
        if t.kind in ("scalar", "vector") and t.name == "half" and not self.fp16:
            self.error(*self.half_refused(t, p, f"parameter '{name}'"))
            return None
        spelled = _innermost_names(p.type)
        forbidden = len(spelled) == 1 and bool(_NOT_KERNEL_ARG_TYPES & set(self.types.alias_chain(spelled[0])))
        if t.kind in ("scalar", "opaque") and forbidden:
            self.error(p, f"{self.spell(p.type, t, 'private')} cannot be used as the type of a kernel parameter")
            return None
        if any(q in _ACCESS_QUALIFIERS for q in p.quals) and not any(n in OPAQUE_TYPES for n in spelled):
            self.error(p, f"access qualifiers (read_only/write_only) apply only to images (parameter '{name}')")
        if t.kind == "opaque" and images.usable(t, "parameter"):  # (the kernel is refused when created)
            self.uses_images(f"kernel parameter '{name}' of type {t.name}")
            return Param(name, "scalar", t.name, 1, "private", t.const, line, t)
        inner: TypeInfo | None = t
        while inner is not None:
            if inner.kind == "opaque":
                what = OPAQUE_TYPES.get(inner.name, inner.name)
                self.error(p, f"{what} are not supported (kernel parameter '{name}' of type {inner.name})")
                return None
            inner = inner.target
        if t.kind == "struct" or (t.kind == "pointer" and t.target is not None and t.target.kind == "struct"):
            struct = t if t.kind == "struct" else t.target or UNKNOWN
            problem = check_struct(struct, self.types, by_value=t.kind == "struct")
            if problem and t.kind == "struct" and struct.name not in self.types.structs:
                self.error(p, f"variable has incomplete type {self.spell(p.type, t, 'private')}")
                return None
            if problem and struct.name in self.types.structs:  # (behind a pointer, an incomplete one is Clang's)
                self.error(p, f"kernel parameter '{name}': {problem}")
                return None
        if t.kind == "struct":
            if t.space != "private":
                self.error(p, f"struct kernel parameter '{name}' cannot be in the __{t.space} address space")
                return None
            spelled_as = self.spelled(t.name)
            return Param(name, "scalar", spelled_as, 1, "private", t.const, line, t, size_align(t, self.types)[0])
        if t.kind == "pointer":
            target = t.target or UNKNOWN
            if target.space == "private":  # (a pointer without an address space points to __private memory)
                self.error(
                    p,
                    "pointer arguments to kernel functions must reside in '__global', '__constant' or '__local' "
                    "address space",
                )
                return None
            if target.kind in ("pointer", "array"):  # (OpenCL C 1.2 6.9 a)
                self.error(p, "kernel parameter cannot be declared as a pointer to a pointer")
                return None
            kind: ParamKind = "local" if target.space == "local" else "buffer"
            elem = target.name if target.kind in ("scalar", "vector", "struct") else target.kind
            elem = self.spelled(elem)
            return Param(name, kind, elem, target.width, target.space, target.const, line, t)
        if t.space != "private":
            self.error(p, f"scalar kernel parameter '{name}' cannot be in the __{t.space} address space")
            return None
        if t.kind not in ("scalar", "vector"):
            self.error(p, f"kernel parameter '{name}' has unsupported type '{t}'")
            return None
        return Param(name, "scalar", t.name, t.width, "private", t.const, line, t)

    def helper_param(self, p: c_ast.Node, t: TypeInfo) -> Param | None:
        if not isinstance(p, c_ast.Decl | c_ast.Typename):
            return None
        name = p.name or ""  # (unnamed, as ``kernel_param``'s)
        line = _coord_of(p)[0] or 0
        self.check_type_usable(t, p, f"parameter '{name}'")
        if t.kind in ("pointer", "array"):
            target = t.target or UNKNOWN
            elem = target.name if target.kind in ("scalar", "vector", "struct") else target.kind
            return Param(name, "pointer", elem, target.width, target.space, target.const, line, t)
        elem = t.name if t.kind in ("scalar", "vector", "struct") else t.kind
        return Param(name, "scalar", elem, t.width, "private", t.const, line, t)

    # -- recursion
    def check_recursion(self) -> None:
        defined = [name for name, fn in self.functions.items() if fn.node is not None]
        order = sorted(defined, key=lambda name: _coord_of(self.functions[name].node)[0] or 0)
        graph = {name: list(dict.fromkeys(c for c, _ in self.functions[name].calls if c in defined)) for name in order}
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        components: list[list[str]] = []

        def visit(v: str) -> None:
            index[v] = low[v] = len(index)
            stack.append(v)
            on_stack.add(v)
            for w in graph.get(v, []):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                components.append(component)

        for v in order:
            if v not in index:
                visit(v)
        for component in components:
            members = set(component)
            first = min(component, key=order.index)
            if len(component) == 1 and first not in graph.get(first, []):
                continue
            cycle = self.cycle_from(first, members, graph)
            fn = self.functions[first]
            node = fn.node.decl if fn.node is not None else None
            if len(cycle) == 2:
                self.error(node, f"recursion is not supported: '{first}' calls itself")
            else:
                path = " -> ".join(f"'{c}'" for c in cycle)
                self.error(node, f"recursion is not supported: {path}")

    @staticmethod
    def cycle_from(start: str, members: set[str], graph: dict[str, list[str]]) -> list[str]:
        """The shortest call path from ``start`` back to itself within its strongly connected component."""
        paths: dict[str, list[str]] = {start: [start]}
        queue = [start]
        while queue:
            v = queue.pop(0)
            for w in graph.get(v, []):
                if w == start:
                    return [*paths[v], start]
                if w in members and w not in paths:
                    paths[w] = [*paths[v], w]
                    queue.append(w)
        return [start, start]

    # -- local declarations
    def local_decl(self, node: c_ast.Decl, ctx: _Context) -> None:
        self.sized_dims(node)
        t = self.types.resolve(node.type)
        self.register_enumerators(node.type)
        if node.name is None:
            return  # a struct/union/enum declaration
        if isinstance(node.type, c_ast.FuncDecl | FuncDeclExt):  # a prototype (C99 6.7.5.3), as at file scope
            self.declare_function(node, None)
            return
        self.function_attributes_refused(node)
        if _has_function_pointer(t):
            self.error(node, f"function pointers are not supported ('{node.name}')")
        self.check_type_usable(t, node, f"variable '{node.name}'")
        space = t.space
        if "extern" in node.storage:  # (a __constant one is Clang's, and needs a definition no program can give)
            if space != "constant":
                self.error(node, "extern variable must reside in constant address space")
            else:
                self.error(node, f"extern variables inside functions are not supported ('{node.name}')")
        if "static" in node.storage:  # OpenCL C 1.2 6.8 (2.0 allows __global and __constant ones)
            self.error(node, "variables in function scope cannot be declared static")
        inner = t.innermost
        if inner.kind == "struct" and space != "local":
            problem = check_struct(inner, self.types)
            if problem and inner.name not in self.types.structs:  # (behind a pointer, Clang takes it)
                if t.kind == "struct":
                    self.error(node, f"variable has incomplete type {self.spell(node.type, t, space)}")
                elif t.kind == "array":  # (at its ``[``)
                    where = self.operator(node.type)
                    self.error(where, f"array has incomplete element type '{self.spelled(inner.name)}'")
            elif problem:
                self.error(node, f"variable '{node.name}': {problem}")
        if space == "local":
            self.local_variable(node, t, ctx)
        elif space == "global":
            self.error(node, "function scope variable cannot be declared in global address space")
        elif space == "constant":
            self.local_constant(node, ctx)
        self.check_array_dims(node, t)
        scope = self.scopes[-1]
        reserved = keyword_name(node.name, "variable")
        if reserved:
            self.error(node, reserved)
        previous = scope.get(node.name)
        if previous is not None:  # (of another type: both named, as Clang's message names them)
            now = self.spell(node.type, t, t.space)
            before = self.spell(previous.declared, previous.type, previous.type.space) if previous.declared else now
            other = f" with a different type: {now} vs {before}" if now != before else ""
            self.error(node, f"redefinition of '{node.name}'{other}")
        if t.kind == "void" or (t.kind == "array" and t.target is not None and t.target.kind == "void"):
            what = "variable has incomplete type" if t.kind == "void" else "array has incomplete element type"
            self.error(node if t.kind == "void" else self.operator(node.type), f"{what} 'void'")
        symbol = scope[node.name] = _Symbol(node.name, "var", t, _coord_of(node)[0], declared=node.type)
        if node.init is not None and space != "local":
            seen = len(self.diagnostics)
            self.check_initializer(node.init, t, node)
            symbol.value = self.folded_constant(t, node.init)
            self.unsequenced(node.init, seen)

    def local_constant(self, node: c_ast.Decl, ctx: _Context) -> None:
        """A ``__constant`` variable in a function: only at a kernel's outermost scope (OpenCL C 1.2 6.5.3), one
        object for the whole launch, as a program-scope one (its initializer a constant)."""
        if not ctx.function.is_kernel:
            self.error(node, "non-kernel function variable cannot be declared in constant address space")
            return
        if ctx.depth != 1:
            self.error(
                node,
                "variables in the constant address space can only be declared in the outermost scope of a kernel "
                "function",
            )
            return
        if node.init is None:
            self.error(node, "variable in constant address space must be initialized")
        elif not _constant_initializer(node.init, self.enumerators):
            self.error(node.init, "initializer element is not a compile-time constant")

    def local_variable(self, node: c_ast.Decl, t: TypeInfo, ctx: _Context) -> None:
        fn = ctx.function
        if not fn.is_kernel:
            self.error(node, "non-kernel function variable cannot be declared in local address space")
            return
        if ctx.depth != 1:
            self.error(
                node,
                "variables in the local address space can only be declared in the outermost scope of a kernel function",
            )
            return
        if node.init is not None:
            self.error(node, "'__local' variable cannot have an initializer")
        shape: list[int] = []
        element = t
        while element.kind == "array" and element.target is not None:
            shape.append(element.length or 0)
            element = element.target
        if element.kind not in ("scalar", "vector", "struct", "pointer"):
            self.error(
                node,
                f"__local variable '{node.name}' must be of scalar, vector, struct or pointer type, not '{element}'",
            )
            return
        struct_size = 8 if element.kind == "pointer" else 0  # a pointer kept in memory (``pointers.py``)
        if element.kind == "struct":
            problem = check_struct(element, self.types)
            if problem:
                self.error(node, f"__local variable '{node.name}': {problem}")
                return
            struct_size = size_align(element, self.types)[0]
        if all(n > 0 for n in shape):
            line = _coord_of(node)[0] or 0
            ctx.local_vars.append(
                LocalVar(node.name, element.name, element.width, tuple(shape), line, node, struct_size)
            )

    def folded_constant(self, t: TypeInfo, init: c_ast.Node) -> int | None:
        """The value of a ``const`` integer variable whose initializer is an integer constant expression, in its
        type: Clang folds such a variable where C wants a constant (``const int N = 4; float buf[N];``)."""
        integer = t.kind == "scalar" and t.name in SCALAR_SIZES and t.name not in FLOATS
        if not integer or not t.const or isinstance(init, c_ast.InitList):
            return None
        value = const_int(init, self.enumerators, self.types)
        return None if value is None else wrap(value, lookup(t.name))

    def sized_dims(self, node: c_ast.Decl) -> None:
        """Look at an array's dimensions quietly before its type is resolved, so that a ``sizeof`` of an
        expression in one is known (``sizes``) when the length is computed; ``check_array_dims`` reports."""
        arr = node.type
        while isinstance(arr, c_ast.ArrayDecl):
            if arr.dim is not None:
                self.expr_quiet(arr.dim)
            arr = arr.type

    def check_array_dims(self, node: c_ast.Decl, t: TypeInfo | None) -> None:
        arr = node.type
        first = True
        while isinstance(arr, c_ast.ArrayDecl):
            if arr.dim is None:
                if not (first and node.init is not None):
                    self.error(node, f"array '{node.name}' has no size")
            else:
                seen = len(self.diagnostics)
                self.expr(arr.dim)
                size = const_int(arr.dim, self.enumerators, self.types)
                if size is None:
                    if not self.errors_since(seen):  # (a dimension in error is no more to Clang)
                        self.error(arr.dim, "variable length arrays are not supported in OpenCL")
                elif size < 0:  # (zero is GNU C's zero-length array, which Clang takes: no element to access)
                    self.error(self.start(arr.dim), f"'{node.name}' declared as an array with a negative size")
            first = False
            arr = arr.type

    def expand_ranges(self, init: c_ast.Node) -> None:
        """GNU's designator ranges in ``init``'s brace lists, at any depth, written out: ``[1 ... 3] = x`` as ``[1] = x,
        [2] = x, [3] = x`` (``x`` evaluated for each element, where GCC evaluates it once: the same unless it has side
        effects). Bounds that are not integer constants, or a range past 65,536 elements, are an error."""
        lists = [init]
        while lists:
            node = lists.pop()
            if isinstance(node, c_ast.NamedInitializer):
                lists.append(node.expr)
                continue
            if not isinstance(node, c_ast.InitList):
                continue
            items: list[c_ast.Node] = []
            for item in node.exprs:
                ranged = isinstance(item, c_ast.NamedInitializer) and any(
                    isinstance(d, RangeExpression) for d in item.name
                )
                items.extend(self.range_items(item) if ranged else [item])
            node.exprs = items
            lists.extend(items)

    def range_items(self, item: c_ast.NamedInitializer) -> list[c_ast.Node]:
        """The designations one with a designator range stands for (``expand_ranges``)."""
        k = next(k for k, d in enumerate(item.name) if isinstance(d, RangeExpression))
        span = item.name[k]
        low, high = (const_int(e, self.enumerators, self.types) for e in (span.first, span.last))
        if low is None or high is None or not 0 <= high - low < 65536:
            self.error(span, "a designator range needs integer constant bounds, at most 65,536 elements apart")
            return []
        out: list[c_ast.Node] = []
        for v in range(low, high + 1):
            name = [*item.name[:k], c_ast.Constant("int", str(v), span.coord), *item.name[k + 1 :]]
            one = c_ast.NamedInitializer(name, item.expr, item.coord)
            out.extend(self.range_items(one) if any(isinstance(d, RangeExpression) for d in name) else [one])
        return out

    def check_initializer(self, init: c_ast.Node, t: TypeInfo, decl: c_ast.Decl | None, nested: bool = False) -> None:
        if not nested:
            self.expand_ranges(init)
        braced = isinstance(init, c_ast.InitList) and len(init.exprs) == 1 and t.kind == "array"
        if braced and decl is not None and decl.init is init and _is_string(init.exprs[0]):
            decl.init = init = init.exprs[0]  # ``char s[4] = {"abc"};``: the string itself (C99 6.7.8p14)
        string = _is_string(init)
        if string and t.kind == "array" and decl is not None and decl.init is init:
            listed = self.string_initializer(init, t)
            if listed is None:
                return
            decl.init = init = listed
        if isinstance(init, c_ast.InitList) and t.kind == "vector":
            self.vector_braces(init, t)
            return
        if isinstance(init, c_ast.InitList) and t.kind == "scalar":  # ``float s = {x};`` (C99 6.7.8p11)
            items = list(init.exprs)
            if not items:
                self.error(init, "scalar initializer cannot be empty")
                return
            if isinstance(items[0], c_ast.NamedInitializer):
                self.error(init, f"a '{t}' takes one initializer in braces")
                return
            if isinstance(items[0], c_ast.InitList):  # ``{{x}}``: Clang's warning for each extra pair
                self.warning(items[0], "too many braces around scalar initializer")
            elif nested:  # a scalar member or element in braces of its own: Clang's warning too
                self.warning(init, "braces around scalar initializer")
            if len(items) > 1:
                self.warning(items[1], "excess elements in scalar initializer")
            self.check_initializer(items[0], t, decl)  # (its pairs warned about: no more for the inner ones)
            return
        if isinstance(init, c_ast.InitList):
            if t.kind in ("array", "struct"):
                self.check_fill(t, init.exprs, 0, True, decl, sized=init)  # (the AST's own list: strings replaced)
                return
            for item in init.exprs:  # a type the checker does not know: the items on their own
                self.check_initializer(item.expr if isinstance(item, c_ast.NamedInitializer) else item, UNKNOWN, decl)
            if t.kind != "unknown":
                self.error(init, f"braces around an initializer of '{t}' are not supported; use (type)(...)")
            return
        whole = decl is not None and decl.init is init  # (else a member's or an element's: Clang names its type)
        declared = decl.type if decl is not None and whole else None
        if self.overloaded_ref(init) and t.kind not in ("array", "unknown"):
            self.report_store(
                "incompatible", t, UNKNOWN, init, declared, decl if whole else None, False, OVERLOADED_TYPE
            )
            return
        value = self.expr(init)
        if t.kind == "array":
            self.error(decl if decl is not None else init, "array initializer must be an initializer list")
            return
        self.check_assignment_types(t, value, init, declared, decl if whole else None, initializer=True)

    def string_initializer(self, init: c_ast.Constant, t: TypeInfo) -> StringItems | None:
        """``char s[] = "ab"`` (C99 6.7.8p14): the string's bytes, then its terminating NUL if the array has room
        (an array of unknown size is sized for it), as the brace list the executor initializes from; None (and the
        error) for an array of another element type or a string too long for it."""
        element = t.target if t.kind == "array" else None
        if element is None or element.kind != "scalar" or element.name not in ("char", "uchar"):
            self.error(init, f"a string literal initializes an array of char, not '{t}'")
            return None
        try:
            data = [ord(c) for c in c_string(str(init.value))]
        except ValueError as exc:
            self.error(init, str(exc))
            return None
        if t.length is not None and len(data) > t.length:
            self.warning(init, "initializer-string for char array is too long")  # (C's: the excess dropped)
            data = data[: t.length]
        if t.length is None or len(data) < t.length:
            data.append(0)
        signed = element.name == "char"
        items: list[c_ast.Node] = []
        for b in data:
            value = b - 256 if signed and b > 127 else b
            literal = c_ast.Constant("int", str(abs(value)), init.coord)
            items.append(c_ast.UnaryOp("-", literal, init.coord) if value < 0 else literal)
        return StringItems(items, init.coord)

    def vector_braces(self, init: c_ast.InitList, t: TypeInfo) -> None:
        """``float4 v = {a, b, c, d}``: scalars and vectors whose components add up to the vector's, as Clang
        requires in OpenCL C (no splat, no zero fill: that is ``(float4)(x)``)."""
        total = 0
        for item in init.exprs:
            if isinstance(item, c_ast.InitList | c_ast.NamedInitializer):
                self.error(item, f"a component of a '{t}' initializer must be a scalar or a vector expression")
                return
            part = self.expr(item)
            if part.kind == "unknown":
                return
            if part.kind not in ("scalar", "vector"):
                self.error(item, f"a component of a '{t}' initializer must be a scalar or a vector, not '{part}'")
                return
            total += part.width if part.kind == "vector" else 1
        if total != t.width:
            few = "too few elements" if total < t.width else "excess elements"
            self.error(init, f"{few} in vector initialization (expected {t.width} elements, have {total})")

    def excess_item(self, item: c_ast.Node) -> None:
        """Type-check an item past the end of its list (its errors are Clang's too), a nested list's items each."""
        if isinstance(item, c_ast.InitList):
            for inner in item.exprs:
                self.excess_item(inner)
        elif isinstance(item, c_ast.NamedInitializer):
            self.excess_item(item.expr)
        else:
            self.expr(item)

    def check_fill(
        self,
        t: TypeInfo,
        items: list[c_ast.Node],
        pos: int,
        braced: bool,
        decl: c_ast.Decl | None,
        designated: bool = False,
        sized: c_ast.InitList | None = None,
    ) -> int:
        """Check the items that initialize the array or struct ``t`` from ``items[pos:]`` (``braced``: the list is
        ``t``'s own, else its braces were left out; ``designated``: its first item's designator names a part of
        ``t``, the rest of a nested one) as the executor places them (``initializers.py``); returns the position
        after them. Items past the end of a braced list are Clang's warning, and dropped. ``sized``: the list of an
        array of unknown length, whose length (``Program.list_lengths``) the items reached give."""
        subs = self.sub_objects(t)
        union = t.kind == "struct" and t.name.startswith("union")
        k = longest = 0
        first = pos
        seen = len(self.diagnostics)
        while pos < len(items):
            item = items[pos]
            rest = items
            named = item if isinstance(item, c_ast.NamedInitializer) else None
            at = pos
            if isinstance(item, c_ast.NamedInitializer):
                if not braced and not (designated and pos == first):
                    return pos  # a designator belongs to the enclosing list
                problem = self.designator_problem(item, t)
                if problem:
                    self.error(item.name[0], problem)  # (at the designator, as Clang)
                    pos += 1
                    continue
                k, anonymous = self.designated(item, t)
                if anonymous:  # ``.i = x`` for a member of an anonymous member: a list of its own, inside it
                    assert subs is not None
                    self.check_fill(subs[k], [item], 0, True, decl)
                    pos, k = pos + 1, len(subs) if union else k + 1
                    continue
                if len(item.name) > 1:  # ``.a.b = x``: ``a`` is filled from ``.b = x`` on, braces elided (6.7.8p17)
                    inner = nested_designation(item)
                    rest = [*items[:pos], inner, *items[pos + 1 :]]
                    sub = (t.target or UNKNOWN) if subs is None else subs[k]
                    pos = self.check_fill(sub, rest, pos, False, decl, designated=True)
                    item.expr = inner.expr  # (what the copy ``rest`` took in place of strings goes back)
                    items[at + 1 :] = rest[at + 1 :]
                    k = len(subs) if union and subs is not None else k + 1
                    longest = max(longest, k)
                    continue
                rest = [*items[:pos], item.expr, *items[pos + 1 :]]  # the designated object starts at its value
                item = item.expr
            if subs is not None and k >= len(subs):
                if braced:
                    for extra in items[pos:]:  # (Clang checks them as it parses them, and drops them)
                        self.excess_item(extra)
                    if not self.errors_since(seen):  # (a list in error: Clang's initialization gives no warning)
                        self.warning(items[pos], f"excess elements in {excess_kind(t)} initializer")
                    return len(items)
                return pos
            sub = (t.target or UNKNOWN) if subs is None else subs[k]
            if subs is not None:  # a member: of no address space of its own (Clang names its type so)
                sub = TypeInfo(sub.kind, sub.name, sub.width, sub.target, "default", sub.const, sub.length)
            if isinstance(item, c_ast.Constant) and item.type == "string" and sub.kind == "array":
                listed = self.string_initializer(item, sub)  # ``char names[2][4] = {"ab", "cd"}`` (6.7.8p14)
                if listed is None:
                    pos, k = pos + 1, k + 1
                    continue
                rest[pos] = item = listed
            flexible = t.kind == "struct" and sub.kind == "array" and sub.length is None  # a flexible array member
            if flexible and isinstance(item, c_ast.InitList) and not item.exprs:  # ``{}``: nothing to place
                pos += 1
            elif flexible and not self.static_object(decl):
                self.error(item, "initialization of flexible array member is not allowed")
                return len(items)
            elif flexible:  # (GNU C: a __constant object holds the elements given, past the struct's size)
                pos, length = self.flexible_fill(sub, rest, pos, decl)
                if sized is not None:  # (designated again: the most it is given)
                    self.list_lengths[id(sized)] = max(length, self.list_lengths.get(id(sized), 0))
            elif isinstance(item, c_ast.InitList) and own_list(item, sub):
                self.check_initializer(item, sub, decl, nested=True)
                pos += 1
            elif sub.kind == "array" or (sub.kind == "struct" and not self.whole_value(item)):
                pos = self.check_fill(sub, rest, pos, False, decl)
            else:
                self.check_initializer(item, sub, decl, nested=True)
                pos += 1
            if named is not None:  # what the list copy ``rest`` took in place of strings goes back into the AST
                named.expr = rest[at]
                items[at + 1 :] = rest[at + 1 :]
            k = len(subs) if union and subs is not None else k + 1  # a union's list initializes one member
            longest = max(longest, k)
        if sized is not None and subs is None:
            self.list_lengths[id(sized)] = longest
        return pos

    def flexible_fill(self, t: TypeInfo, items: list[c_ast.Node], pos: int, decl: c_ast.Decl | None) -> tuple[int, int]:
        """Check the items that initialize a ``__constant`` object's flexible array member of type ``t`` from
        ``items[pos]``, in braces of their own or elided; returns the position after them and how many elements
        they give it."""
        item = items[pos]
        if isinstance(item, c_ast.InitList) and own_list(item, t):
            self.check_initializer(item, t, decl, nested=True)
            return pos + 1, self.list_lengths.get(id(item), 0)
        element = t.target or UNKNOWN
        end = self.check_fill(t, items, pos, False, decl)
        if element.kind not in ("scalar", "vector", "pointer"):  # (each item one element only for these)
            self.error(
                item,
                f"a flexible array member of '{element}' initialized without braces of its own is not "
                "supported; put its elements in braces",
            )
        return end, end - pos

    def static_object(self, decl: c_ast.Decl | None) -> bool:
        """Whether ``decl`` declares an object for the whole launch (``__constant``), whose flexible array member
        an initializer may fill (GNU C, as Clang takes it); None: a compound literal's, automatic."""
        return decl is not None and self.types.resolve(decl.type).space == "constant"

    def sub_objects(self, t: TypeInfo) -> list[TypeInfo] | None:
        """The element or member types a list for ``t`` fills in order (None: an array of unknown length)."""
        if t.kind == "array":
            return None if t.length is None else [t.target or UNKNOWN] * t.length
        return [mt for _, mt in self.types.fields(t.name)]  # (a union's list fills one of them: ``check_fill``)

    def whole_value(self, item: c_ast.Node) -> bool:
        """Whether an item of struct type initializes a struct sub-object whole (noted for the executor,
        ``Program.whole_items``)."""
        if isinstance(item, c_ast.InitList | c_ast.NamedInitializer) or self.expr(item).kind != "struct":
            return False
        self.whole_items.add(id(item))
        return True

    def designated(self, item: c_ast.NamedInitializer, t: TypeInfo) -> tuple[int, bool]:
        """The position in ``t`` of the object a valid designator (``designator_problem``) names, and whether it is
        an anonymous member holding the named one (``initializers.designated_member``)."""
        d = item.name[0]
        if isinstance(d, c_ast.ID):
            found = designated_member(self.types, t, d.name)
            assert found is not None
            return found
        k = const_int(d, self.enumerators, self.types)
        assert k is not None
        return k, False

    def designator_problem(self, item: c_ast.NamedInitializer, t: TypeInfo) -> str | None:
        """What is wrong with the first designator (``.m`` or ``[k]``) of ``item`` in a list for ``t`` (None: fine;
        the ones after it are checked in the object it names)."""
        d = item.name[0]
        if isinstance(d, c_ast.ID):
            if t.kind != "struct":
                return f"member designator '.{d.name}' in an initializer of '{t}', which is not a struct or union"
            if designated_member(self.types, t, d.name) is None:
                return f"field designator '{d.name}' does not refer to any field in type {described(t, self.spelled)}"
            return None
        if t.kind != "array":
            return f"array designator in an initializer of '{t}', which is not an array"
        k = const_int(d, self.enumerators, self.types)
        if k is not None and t.length is not None and k >= t.length:
            return f"array designator index ({k}) exceeds array bounds ({t.length})"
        if k is not None and k < 0:
            return f"array designator value '{k}' is negative"
        if k is None:
            return "expression is not an integer constant expression"
        return None


_KERNEL_ATTRIBUTES = ("reqd_work_group_size", "work_group_size_hint", "vec_type_hint")
"""OpenCL C 1.2 6.7.2's attributes of a kernel function."""


def _kernel_attributes(decl: c_ast.Decl) -> list[tuple[c_ast.FuncCall, str]]:
    """The ``_KERNEL_ATTRIBUTES`` among ``decl``'s attributes, with their names."""
    return [
        (attr, attr.name.name)
        for attr in _function_attributes(decl)
        if isinstance(attr, c_ast.FuncCall) and isinstance(attr.name, c_ast.ID) and attr.name.name in _KERNEL_ATTRIBUTES
    ]


def _function_attributes(decl: c_ast.Decl) -> list[c_ast.Node]:
    """The ``__attribute__((...))`` entries before a function's declarator and after its parameter list (before
    and after a variable's declarator)."""
    attributes: list[c_ast.Node] = []
    for spec in decl.funcspec:
        if isinstance(spec, AttributeSpecifier) and spec.exprlist is not None:
            attributes.extend(spec.exprlist.exprs)
    if isinstance(decl.type, FuncDeclExt | TypeDeclExt) and decl.type.attributes is not None:
        attributes.extend(decl.type.attributes.exprs)
    return attributes
