"""The type checker: walks the parsed program and reports, by line, what the language forbids and what the
executor does not support.

``Checker.run`` fills in the kernels, helper functions, program-scope ``__constant`` variables and enumerators a
``Program`` holds, and the diagnostics for the build log; ``frontend.py``'s docstring lists what a clean check
guarantees the executor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, cast

from pycparser import c_ast
from pycparserext.ext_c_parser import Asm, AttributeSpecifier, FuncDeclExt

from wia_sim.kernels import async_copy, printf
from wia_sim.kernels.ctype import CType, common_type, comparison_type, promoted, wrap
from wia_sim.kernels.ctype import lookup as ctype_lookup
from wia_sim.kernels.keywords import keyword_name
from wia_sim.kernels.parsing import BUILTIN_FILE
from wia_sim.kernels.preprocess import FLOAT_EXTENSIONS, Diagnostic
from wia_sim.kernels.program import FunctionInfo, KernelInfo, LocalVar, Param, ParamKind
from wia_sim.kernels.signatures import (
    BUILTIN_CONSTANTS,
    BUILTINS,
    CONVERT_RE,
    UNSUPPORTED_BUILTINS,
    builtin_arity,
    conversion,
    is_builtin_function,
)
from wia_sim.kernels.structs import check_struct, size_align
from wia_sim.kernels.table_types import check_table_call
from wia_sim.kernels.types import (
    DOUBLE,
    FLOAT,
    FLOATS,
    INT,
    LONG,
    OPAQUE_TYPES,
    SCALAR_SIZES,
    SPACES,
    UINT,
    ULONG,
    UNKNOWN,
    UNSIGNED_OF,
    VOID,
    TypeInfo,
    TypeResolver,
    const_int,
    int_constant,
    scalar_or_vector,
    swizzle_indices,
)

__all__ = ["Checker"]

# names OpenCL forbids as kernel arguments (OpenCL C 1.2, 6.9 k)
_NOT_KERNEL_ARG_TYPES = frozenset({"bool", "_Bool", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t"})
_ACCESS_QUALIFIERS = frozenset({"read_only", "write_only", "read_write", "__read_only", "__write_only", "__read_write"})


def _coord_of(node: c_ast.Node | None) -> tuple[int | None, int | None]:
    """Line and column of a node, falling back on its first child that has them (pycparser leaves some None)."""
    if node is None:
        return None, None
    coord = getattr(node, "coord", None)
    if coord is not None and getattr(coord, "line", None):
        return coord.line, coord.column
    for _, child in node.children():
        line, column = _coord_of(child)
        if line is not None:
            return line, column
    return None, None


def _innermost_names(node: c_ast.Node | None) -> list[str]:
    while node is not None and not isinstance(node, c_ast.IdentifierType):
        node = getattr(node, "type", None)
    return list(node.names) if isinstance(node, c_ast.IdentifierType) else []


def _has_function_pointer(t: TypeInfo) -> bool:
    while t.target is not None:
        if t.kind in ("pointer", "array") and t.target.kind == "function":
            return True
        t = t.target
    return False


@dataclass
class _Symbol:
    name: str
    kind: Literal["var", "param", "global", "enumerator"]
    type: TypeInfo
    line: int | None


@dataclass
class _Function:
    name: str
    params: list[TypeInfo]
    return_type: TypeInfo
    is_kernel: bool
    line: int | None
    variadic: bool = False
    node: c_ast.FuncDef | None = None
    calls: list[tuple[str, int | None]] = field(default_factory=list)


@dataclass
class _Switch:
    """A switch statement being checked: its controlling expression's promoted type (None where that is not a
    known integer type), the case values seen (converted to that type) with their lines, the default's line."""

    type: CType | None
    cases: dict[int, int | None] = field(default_factory=dict)
    default: int | None = None
    has_default: bool = False


@dataclass
class _Context:
    function: _Function
    loops: int = 0
    switches: int = 0  # enclosing switch statements ('break' leaves the innermost loop or switch)
    depth: int = 0  # 1 in the function's outermost block
    local_vars: list[LocalVar] = field(default_factory=list)


_INTEGER_ONLY_OPS = frozenset({"%", "<<", ">>", "&", "|", "^"})
_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})


class Checker:
    def __init__(self, filename: str, suppressed: set[str], extensions: frozenset[str] = FLOAT_EXTENSIONS) -> None:
        self.filename = filename
        self.suppressed = suppressed
        self.fp64 = "cl_khr_fp64" in extensions
        self.fp16 = "cl_khr_fp16" in extensions
        self.diagnostics: list[Diagnostic] = []
        self.types = TypeResolver()
        self.scopes: list[dict[str, _Symbol]] = [{}]
        self.functions: dict[str, _Function] = {}
        self.constants: dict[str, c_ast.Decl] = {}
        self.kernels: dict[str, KernelInfo] = {}
        self.helpers: dict[str, FunctionInfo] = {}
        self.later_functions: set[str] = set()
        self.used_undefined: list[tuple[str, c_ast.Node]] = []
        self.caller: _Function | None = None  # the function whose body is being checked
        self.enumerators = self.types.enumerators
        self.member_refs: set[int] = set()  # StructRef nodes that read a struct's member (Program.member_refs)
        self.struct_names: dict[str, str] = {}  # tag of an anonymous struct -> the typedef that names it

    # -- diagnostics
    def error(self, node: c_ast.Node | None, message: str) -> None:
        if isinstance(node, c_ast.Decl):
            # point at the declared name, not at the '*' of a pointer declarator
            inner = node.type
            while inner is not None and not isinstance(inner, c_ast.TypeDecl):
                inner = getattr(inner, "type", None)
            if isinstance(inner, c_ast.TypeDecl) and _coord_of(inner)[0] is not None:
                node = inner
        line, column = _coord_of(node)
        self.diagnostics.append(Diagnostic(self.filename, line, column, message))

    # -- the translation unit
    def run(self, ast: c_ast.FileAST) -> None:
        items = [n for n in ast.ext if _coord_of(n)[0] is None or getattr(n.coord, "file", None) != BUILTIN_FILE]
        ast.ext = items
        for node in items:
            if isinstance(node, c_ast.FuncDef):
                self.later_functions.add(node.decl.name)
            elif isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl | FuncDeclExt):
                self.later_functions.add(node.name)
        for node in items:
            if isinstance(node, c_ast.FuncDef):
                self.function_definition(node)
            elif isinstance(node, c_ast.Decl):
                self.file_scope_decl(node)
            elif isinstance(node, c_ast.Typedef):
                self.typedef(node)
            elif isinstance(node, c_ast.StaticAssert):
                self.static_assert(node)
            elif isinstance(node, c_ast.Pragma):
                pass
            else:
                self.error(node, f"unsupported program-scope construct ({type(node).__name__})")
        for name, node in self.used_undefined:
            fn = self.functions.get(name)
            if fn is not None and fn.node is None:
                self.error(node, f"function '{name}' is declared but never defined")
        self.check_recursion()

    def typedef(self, node: c_ast.Typedef) -> None:
        t = self.types.resolve(node.type)
        if t.kind == "function" or _has_function_pointer(t):
            self.error(node, f"function pointers are not supported (typedef '{node.name}')")
        self.check_type_usable(t, node, f"typedef '{node.name}'")
        self.types.typedefs[node.name] = t
        if t.kind == "struct" and "<anonymous" in t.name:
            self.struct_names.setdefault(t.name, node.name)  # how kernel argument info names it
        self.register_enumerators(node.type)

    def register_enumerators(self, node: c_ast.Node | None) -> None:
        while node is not None and not isinstance(node, c_ast.Enum | c_ast.IdentifierType | c_ast.Struct):
            node = getattr(node, "type", None)
        if isinstance(node, c_ast.Struct | c_ast.Union) and node.decls:
            for member in node.decls:
                self.register_enumerators(member.type)
        if not isinstance(node, c_ast.Enum) or node.values is None:
            return
        value = 0
        for enumerator in node.values.enumerators:
            if enumerator.value is not None:
                v = const_int(enumerator.value, self.enumerators, self.types)
                if v is None:
                    self.error(enumerator, f"enumerator '{enumerator.name}' is not an integer constant")
                    v = value
                value = v
            if enumerator.name in self.enumerators or enumerator.name in self.scopes[0]:
                self.error(enumerator, f"redefinition of '{enumerator.name}'")
            self.enumerators[enumerator.name] = value
            self.scopes[0][enumerator.name] = _Symbol(enumerator.name, "enumerator", INT, _coord_of(enumerator)[0])
            value += 1

    def static_assert(self, node: c_ast.StaticAssert) -> None:
        value = const_int(node.cond, self.enumerators, self.types)
        if value is None:
            self.error(node, "static assertion expression is not an integral constant expression")
        elif value == 0:
            message = node.message.value if node.message is not None else ""
            self.error(node, f"static assertion failed{': ' + message if message else ''}")

    def file_scope_decl(self, node: c_ast.Decl) -> None:
        if isinstance(node.type, c_ast.FuncDecl | FuncDeclExt):
            self.declare_function(node, None)
            return
        t = self.types.resolve(node.type)
        self.register_enumerators(node.type)
        if node.name is None:
            return  # struct, union or enum declaration
        if _has_function_pointer(t):
            self.error(node, "function pointers are not supported")
            return
        self.check_type_usable(t, node, f"variable '{node.name}'")
        reserved = keyword_name(node.name, "variable")
        if reserved:
            self.error(node, reserved)
            return
        if "extern" in node.storage:
            self.error(node, f"extern variables are not supported ('{node.name}')")
            return
        if t.space != "constant":
            self.error(node, f"program-scope variable '{node.name}' must be declared in the __constant address space")
            return
        if node.init is None:
            self.error(node, f"program-scope __constant variable '{node.name}' must be initialized")
        else:
            self.check_initializer(node.init, t, None)
        self.check_array_dims(node, None)
        if node.name in self.scopes[0] or node.name in self.functions:
            self.error(node, f"redefinition of '{node.name}'")
        self.scopes[0][node.name] = _Symbol(node.name, "global", t, _coord_of(node)[0])
        self.constants[node.name] = node

    def check_type_usable(self, t: TypeInfo, node: c_ast.Node, what: str) -> None:
        inner: TypeInfo | None = t
        behind_pointer = False
        while inner is not None:
            if inner.kind == "opaque" and inner.name != "event_t":  # events: async_copy.py
                self.error(node, f"{OPAQUE_TYPES.get(inner.name, inner.name)} are not supported ({what})")
                return
            if not self.fp64 and inner.name.startswith("double"):
                self.error(
                    node, f"type '{inner.name}' needs the cl_khr_fp64 extension, which the device lacks ({what})"
                )
                return
            if not self.fp16 and inner.name.startswith("half") and not behind_pointer:
                self.error(
                    node,
                    f"'{inner.name}' values need the cl_khr_fp16 extension, which the device lacks; without it half "
                    f"is only a storage type behind a pointer, read and written with vload_half/vstore_half ({what})",
                )
                return
            behind_pointer = behind_pointer or inner.kind == "pointer"
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
        name = decl.name
        if any(isinstance(p, c_ast.ID) for p in nodes) or (definition is not None and definition.param_decls):
            self.error(decl, f"old-style (K&R) parameter lists are not supported ('{name}')")
        if fn.variadic:
            self.error(decl, f"variadic functions are not supported ('{name}')")
        if is_builtin_function(name) or name in UNSUPPORTED_BUILTINS or name == "printf":
            self.error(decl, f"redefinition of built-in function '{name}'")
        if _has_function_pointer(fn.return_type) or fn.return_type.kind == "function":
            self.error(decl, f"function pointers are not supported (return type of '{name}')")
        previous = self.functions.get(name)
        if previous is not None:
            if previous.node is not None and definition is not None:
                self.error(decl, f"redefinition of '{name}'")
            elif len(previous.params) != len(fn.params) or previous.is_kernel != fn.is_kernel:
                self.error(decl, f"conflicting types for '{name}'")
        elif name in self.scopes[0]:
            self.error(decl, f"redefinition of '{name}'")
        fn.node = definition if definition is not None else (previous.node if previous else None)
        if previous is not None and definition is None:
            return previous
        self.functions[name] = fn
        for p, pt in zip(nodes, fn.params, strict=True):
            if _has_function_pointer(pt) or pt.kind == "function":
                self.error(p, "function pointers are not supported")
        return fn

    def function_definition(self, node: c_ast.FuncDef) -> None:
        decl = node.decl
        if not isinstance(decl.type, c_ast.FuncDecl | FuncDeclExt):
            self.error(decl, f"invalid function definition ('{decl.name}' has no parameter list)")
            return
        fn = self.declare_function(decl, node)
        fn.node = node
        _, param_nodes = self.signature(decl, fn.is_kernel)
        params: list[Param] = []
        for p, t in zip(param_nodes, fn.params, strict=True):
            param = self.kernel_param(p, t, decl.name) if fn.is_kernel else self.helper_param(p, t)
            if param is not None:
                params.append(param)
        if fn.is_kernel and fn.return_type.kind != "void":
            self.error(decl, f"kernel function '{decl.name}' must return void (returns '{fn.return_type}')")
        if fn.is_kernel and "static" in decl.storage:
            self.error(decl, f"kernel function '{decl.name}' cannot be static")
        reqd = self.reqd_work_group_size(decl) if fn.is_kernel else None
        ctx = _Context(fn)
        scope: dict[str, _Symbol] = {}
        for p, t in zip(param_nodes, fn.params, strict=True):
            if not isinstance(p, c_ast.Decl) or p.name is None:
                if not fn.is_kernel and not isinstance(p, c_ast.ID):  # kernel_param reported it
                    self.error(p, f"parameter name omitted in the definition of '{decl.name}'")
                continue
            if p.name in scope:
                self.error(p, f"redefinition of parameter '{p.name}'")
            reserved = keyword_name(p.name, "parameter")
            if reserved:
                self.error(p, reserved)
            scope[p.name] = _Symbol(p.name, "param", t, _coord_of(p)[0])
        self.scopes.append(scope)  # the parameters share the body's outermost scope (C99 6.2.1)
        self.caller = fn
        self.compound(node.body, ctx, new_scope=False)
        self.caller = None
        self.scopes.pop()
        line = _coord_of(decl)[0] or 0
        if fn.is_kernel:
            if decl.name in self.kernels:
                return
            self.kernels[decl.name] = KernelInfo(decl.name, params, node, line, reqd, ctx.local_vars)
        else:
            calls = tuple(dict.fromkeys(name for name, _ in fn.calls))
            self.helpers[decl.name] = FunctionInfo(decl.name, params, fn.return_type, node, line, calls)

    def reqd_work_group_size(self, decl: c_ast.Decl) -> tuple[int, int, int] | None:
        attributes: list[c_ast.Node] = []
        for spec in decl.funcspec:
            if isinstance(spec, AttributeSpecifier) and spec.exprlist is not None:
                attributes.extend(spec.exprlist.exprs)
        ftype = decl.type
        if isinstance(ftype, FuncDeclExt) and ftype.attributes is not None:
            attributes.extend(ftype.attributes.exprs)
        for attr in attributes:
            if (
                isinstance(attr, c_ast.FuncCall)
                and isinstance(attr.name, c_ast.ID)
                and attr.name.name == "reqd_work_group_size"
            ):
                args = attr.args.exprs if attr.args is not None else []
                values = [const_int(a, self.enumerators, self.types) for a in args]
                if len(values) != 3 or any(v is None or v < 1 for v in values):
                    self.error(attr, "reqd_work_group_size needs three positive integer constants")
                    return None
                x, y, z = (cast(int, v) for v in values)
                return (x, y, z)
        return None

    def kernel_param(self, p: c_ast.Node, t: TypeInfo, kernel: str) -> Param | None:
        if isinstance(p, c_ast.ID):
            return None  # a K&R parameter list: reported
        if isinstance(p, c_ast.Typename) or not isinstance(p, c_ast.Decl) or p.name is None:
            self.error(p, f"parameter name omitted in kernel '{kernel}'")
            return None
        name = p.name
        line = _coord_of(p)[0] or 0
        if _has_function_pointer(t) or t.kind == "function":
            self.error(p, f"function pointers are not supported (kernel parameter '{name}')")
            return None
        if any(q in _ACCESS_QUALIFIERS for q in p.quals) and not any(
            n in OPAQUE_TYPES for n in _innermost_names(p.type)
        ):
            self.error(p, f"access qualifiers (read_only/write_only) apply only to images (parameter '{name}')")
        inner: TypeInfo | None = t
        while inner is not None:
            if inner.kind == "opaque":
                what = OPAQUE_TYPES.get(inner.name, inner.name)
                self.error(p, f"{what} are not supported (kernel parameter '{name}' of type {inner.name})")
                return None
            inner = inner.target
        if t.kind == "struct" or (t.kind == "pointer" and t.target is not None and t.target.kind == "struct"):
            struct = t if t.kind == "struct" else t.target or UNKNOWN
            problem = check_struct(struct, self.types, kernel_arg=True)
            if problem:
                self.error(p, f"kernel parameter '{name}': {problem}")
                return None
        if t.kind == "struct":
            if t.space != "private":
                self.error(p, f"struct kernel parameter '{name}' cannot be in the __{t.space} address space")
                return None
            spelled_as = self.struct_names.get(t.name, t.name)
            return Param(name, "scalar", spelled_as, 1, "private", t.const, line, t, size_align(t, self.types)[0])
        spelled = _innermost_names(p.type)
        if t.kind == "pointer":
            target = t.target or UNKNOWN
            if target.kind in ("pointer", "array"):
                self.error(p, f"pointer-to-pointer kernel parameters are not supported ('{name}')")
                return None
            if target.space == "private":
                explicit = any(SPACES.get(q) == "private" for q in p.quals)
                why = "" if explicit else " (a pointer without an address space points to __private memory)"
                self.error(
                    p,
                    f"kernel pointer parameter '{name}' must point to __global, __constant or __local memory, "
                    f"not __private{why}",
                )
                return None
            if len(spelled) == 1 and spelled[0] in _NOT_KERNEL_ARG_TYPES:
                self.error(p, f"kernel parameter '{name}' cannot point to {spelled[0]} (its size is not portable)")
                return None
            kind: ParamKind = "local" if target.space == "local" else "buffer"
            elem = target.name if target.kind in ("scalar", "vector", "struct") else target.kind
            elem = self.struct_names.get(elem, elem)
            return Param(name, kind, elem, target.width, target.space, target.const, line, t)
        if len(spelled) == 1 and spelled[0] in _NOT_KERNEL_ARG_TYPES:
            self.error(p, f"kernel parameter '{name}' cannot be of type {spelled[0]}")
            return None
        if t.space != "private":
            self.error(p, f"scalar kernel parameter '{name}' cannot be in the __{t.space} address space")
            return None
        if t.kind not in ("scalar", "vector"):
            self.error(p, f"kernel parameter '{name}' has unsupported type '{t}'")
            return None
        return Param(name, "scalar", t.name, t.width, "private", t.const, line, t)

    def helper_param(self, p: c_ast.Node, t: TypeInfo) -> Param | None:
        if not isinstance(p, c_ast.Decl) or p.name is None:
            return None
        line = _coord_of(p)[0] or 0
        self.check_type_usable(t, p, f"parameter '{p.name}'")
        if t.kind in ("pointer", "array"):
            target = t.target or UNKNOWN
            elem = target.name if target.kind in ("scalar", "vector", "struct") else target.kind
            return Param(p.name, "pointer", elem, target.width, target.space, target.const, line, t)
        elem = t.name if t.kind in ("scalar", "vector", "struct") else t.kind
        return Param(p.name, "scalar", elem, t.width, "private", t.const, line, t)

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

    # -- statements
    def compound(self, node: c_ast.Compound, ctx: _Context, new_scope: bool = True) -> None:
        if new_scope:
            self.scopes.append({})
        ctx.depth += 1
        for item in node.block_items or []:
            self.statement(item, ctx)
        ctx.depth -= 1
        if new_scope:
            self.scopes.pop()

    def statement(self, node: c_ast.Node | None, ctx: _Context) -> None:
        if node is None:
            return
        if isinstance(node, c_ast.Compound):
            self.compound(node, ctx)
        elif isinstance(node, c_ast.Decl):
            self.local_decl(node, ctx)
        elif isinstance(node, c_ast.DeclList):
            for d in node.decls:
                self.local_decl(d, ctx)
        elif isinstance(node, c_ast.If):
            self.condition(node.cond)
            self.substatement(node.iftrue, ctx)
            self.substatement(node.iffalse, ctx)
        elif isinstance(node, c_ast.For):
            self.scopes.append({})
            if isinstance(node.init, c_ast.DeclList):
                for d in node.init.decls:
                    self.local_decl(d, ctx)
            elif node.init is not None:
                self.expr(node.init)
            if node.cond is not None:
                self.condition(node.cond)
            if node.next is not None:
                self.expr(node.next)
            ctx.loops += 1
            self.substatement(node.stmt, ctx)
            ctx.loops -= 1
            self.scopes.pop()
        elif isinstance(node, c_ast.While | c_ast.DoWhile):
            self.condition(node.cond)
            ctx.loops += 1
            self.substatement(node.stmt, ctx)
            ctx.loops -= 1
        elif isinstance(node, c_ast.Break):
            if ctx.loops == 0 and ctx.switches == 0:
                self.error(node, "'break' statement not in a loop or switch")
        elif isinstance(node, c_ast.Continue):
            if ctx.loops == 0:
                where = " (a switch is not a loop: 'continue' needs one around it)" if ctx.switches else ""
                self.error(node, f"'continue' statement not in a loop{where}")
        elif isinstance(node, c_ast.Return):
            self.return_statement(node, ctx)
        elif isinstance(node, c_ast.EmptyStatement | c_ast.Pragma):
            pass
        elif isinstance(node, c_ast.StaticAssert):
            self.static_assert(node)
        elif isinstance(node, c_ast.Goto):
            self.error(node, f"goto is not supported ('goto {node.name}')")
        elif isinstance(node, c_ast.Label):
            self.error(node, f"labels are not supported (label '{node.name}'; goto is not supported)")
            self.statement(node.stmt, ctx)
        elif isinstance(node, c_ast.Switch):
            self.switch_statement(node, ctx)
        elif isinstance(node, c_ast.Case | c_ast.Default):
            self.misplaced_label(node, ctx)
        elif isinstance(node, c_ast.Typedef):
            self.error(node, f"typedefs inside functions are not supported; declare '{node.name}' at program scope")
        elif isinstance(node, Asm):
            self.error(node, "inline assembly is not supported")
        elif isinstance(node, c_ast.FuncDef):
            self.error(node, "nested function definitions are not supported")
        else:
            self.expr(node)

    def substatement(self, node: c_ast.Node | None, ctx: _Context) -> None:
        if isinstance(node, c_ast.Compound):
            self.compound(node, ctx)
        else:
            self.scopes.append({})
            self.statement(node, ctx)
            self.scopes.pop()

    def condition(self, node: c_ast.Node) -> None:
        t = self.expr(node)
        if t.kind in ("struct", "void", "opaque"):
            self.error(node, f"a condition must be a scalar, not '{t}'")
        elif t.kind == "vector":
            self.error(node, f"a condition must be a scalar, not the vector '{t.type_name}' (use any() or all())")

    def switch_statement(self, node: c_ast.Switch, ctx: _Context) -> None:
        """The controlling expression, then the body: one scope, its ``case``/``default`` labels directly in it
        (the parser gathers the statements after a label into the label's ``stmts``)."""
        switch = _Switch(self.switch_type(node.cond))
        body = node.stmt
        items = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
        self.scopes.append({})
        ctx.depth += 1
        ctx.switches += 1
        for item in items:
            if isinstance(item, c_ast.Case | c_ast.Default):
                self.switch_label(item, switch)
                for s in item.stmts or []:
                    self.statement(s, ctx)
            else:
                self.statement(item, ctx)
        ctx.switches -= 1
        ctx.depth -= 1
        self.scopes.pop()

    def switch_type(self, cond: c_ast.Node) -> CType | None:
        """The promoted type of a switch's controlling expression (C99 6.8.4.2: an integer type); None after an
        error or where the type is not known."""
        t = self.expr(cond)
        if t.kind == "unknown" or (t.kind == "scalar" and t.name == "?"):
            return None
        c = _ctype(t) if t.kind == "scalar" else None
        if c is None or c.kind == "float":
            what = f"the vector '{t.type_name}'" if t.kind == "vector" else f"'{t}'"
            self.error(cond, f"the controlling expression of a switch must have an integer type, not {what}")
            return None
        return promoted(c)

    def switch_label(self, node: c_ast.Case | c_ast.Default, switch: _Switch) -> None:
        line = _coord_of(node)[0]
        if isinstance(node, c_ast.Default):
            if switch.has_default:
                self.error(node, f"multiple default labels in one switch (the first is on line {switch.default})")
            switch.has_default = True
            switch.default = line
            return
        self.expr(node.expr)
        value = const_int(node.expr, self.enumerators, self.types)
        if value is None:
            self.error(node.expr, "case label is not an integer constant expression")
            return
        if switch.type is not None:
            value = wrap(value, switch.type)  # converted to the promoted type of the controlling expression
        if value in switch.cases:
            self.error(node, f"duplicate case value {value} (first used on line {switch.cases[value]})")
        else:
            switch.cases[value] = line

    def misplaced_label(self, node: c_ast.Case | c_ast.Default, ctx: _Context) -> None:
        """A ``case``/``default`` label that is not directly in a switch's body."""
        word = "case" if isinstance(node, c_ast.Case) else "default"
        if ctx.switches:
            self.error(
                node,
                f"'{word}' label inside a nested statement of a switch is not supported; "
                "put the switch's labels directly in its body",
            )
        else:
            self.error(node, f"'{word}' label not within a switch statement")
        if isinstance(node, c_ast.Case):
            self.expr(node.expr)
        for s in node.stmts or []:
            self.statement(s, ctx)

    def return_statement(self, node: c_ast.Return, ctx: _Context) -> None:
        fn = ctx.function
        t = self.expr(node.expr) if node.expr is not None else None
        if fn.return_type.kind == "void":
            if node.expr is not None and t is not None and t.kind != "void":
                what = "kernel" if fn.is_kernel else "void function"
                self.error(node, f"{what} '{fn.name}' should not return a value")
        elif node.expr is None:
            self.error(node, f"non-void function '{fn.name}' should return a value")
        elif t is not None:
            self.check_assignment_types(fn.return_type, t, node, f"returning '{t}' from '{fn.name}'")

    def local_decl(self, node: c_ast.Decl, ctx: _Context) -> None:
        t = self.types.resolve(node.type)
        self.register_enumerators(node.type)
        if node.name is None:
            return  # a struct/union/enum declaration
        if isinstance(node.type, c_ast.FuncDecl | FuncDeclExt):
            self.error(node, f"function declarations inside functions are not supported ('{node.name}')")
            return
        if _has_function_pointer(t):
            self.error(node, f"function pointers are not supported ('{node.name}')")
        self.check_type_usable(t, node, f"variable '{node.name}'")
        for storage in node.storage:
            if storage in ("static", "extern"):
                self.error(node, f"{storage} variables inside functions are not supported ('{node.name}')")
        space = t.space
        inner = t
        while inner.kind == "array" and inner.target is not None:
            inner = inner.target
        if inner.kind == "struct" and space != "local":
            problem = check_struct(inner, self.types, kernel_arg=False)
            if problem:
                self.error(node, f"variable '{node.name}': {problem}")
        if space == "local":
            self.local_variable(node, t, ctx)
        elif space == "global":
            self.error(node, f"variable '{node.name}' cannot be declared in the __global address space")
        elif space == "constant":
            self.error(
                node,
                f"__constant variables inside functions are not supported; declare '{node.name}' at program scope",
            )
        self.check_array_dims(node, t)
        scope = self.scopes[-1]
        reserved = keyword_name(node.name, "variable")
        if reserved:
            self.error(node, reserved)
        if node.name in scope:
            self.error(node, f"redefinition of '{node.name}'")
        scope[node.name] = _Symbol(node.name, "var", t, _coord_of(node)[0])
        if node.init is not None and space != "local":
            self.check_initializer(node.init, t, node)

    def local_variable(self, node: c_ast.Decl, t: TypeInfo, ctx: _Context) -> None:
        fn = ctx.function
        if not fn.is_kernel:
            self.error(node, f"__local variable '{node.name}' must be declared in a kernel, not in '{fn.name}'")
            return
        if ctx.depth != 1:
            self.error(node, f"__local variable '{node.name}' must be declared at the kernel's outermost scope")
            return
        if node.init is not None:
            self.error(node, f"__local variable '{node.name}' cannot have an initializer")
        shape: list[int] = []
        element = t
        while element.kind == "array" and element.target is not None:
            shape.append(element.length or 0)
            element = element.target
        if element.kind not in ("scalar", "vector", "struct"):
            self.error(
                node, f"__local variable '{node.name}' must be of scalar, vector or struct type, not '{element}'"
            )
            return
        struct_size = 0
        if element.kind == "struct":
            problem = check_struct(element, self.types, kernel_arg=False)
            if problem:
                self.error(node, f"__local variable '{node.name}': {problem}")
                return
            struct_size = size_align(element, self.types)[0]
        if all(n > 0 for n in shape):
            line = _coord_of(node)[0] or 0
            ctx.local_vars.append(
                LocalVar(node.name, element.name, element.width, tuple(shape), line, node, struct_size)
            )

    def check_array_dims(self, node: c_ast.Decl, t: TypeInfo | None) -> None:
        arr = node.type
        first = True
        while isinstance(arr, c_ast.ArrayDecl):
            if arr.dim is None:
                if not (first and node.init is not None):
                    self.error(node, f"array '{node.name}' has no size")
            else:
                self.expr(arr.dim)
                size = const_int(arr.dim, self.enumerators, self.types)
                if size is None:
                    what = f"the size of '{node.name}' is not a constant"
                    self.error(arr.dim, f"variable-length arrays are not supported ({what})")
                elif size <= 0:
                    self.error(arr.dim, f"array '{node.name}' must have a positive size, not {size}")
            first = False
            arr = arr.type

    def check_initializer(self, init: c_ast.Node, t: TypeInfo, decl: c_ast.Decl | None, nested: bool = False) -> None:
        if isinstance(init, c_ast.InitList):
            element = t.target if t.kind == "array" and t.target is not None else UNKNOWN
            if t.kind == "array" and t.length is not None and len(init.exprs) > t.length:
                self.error(init, f"too many initializers for an array of {t.length}")
            if t.kind == "struct":
                members = self.types.fields(t.name)
                room = 1 if t.name.startswith("union") else len(members)
                flat = all(mt.kind in ("scalar", "vector") for _, mt in members)
                if (
                    flat
                    and len(init.exprs) > room
                    and not any(isinstance(e, c_ast.NamedInitializer) for e in init.exprs)
                ):
                    self.error(init, f"too many initializers for '{t.name}' ({room} member{'s' if room > 1 else ''})")
            for item in init.exprs:
                if isinstance(item, c_ast.NamedInitializer):
                    problem = self.designator_problem(item, t)
                    if problem:
                        self.error(item, problem)
                        continue
                    item = item.expr
                if t.kind == "struct" or t.kind == "vector":
                    self.check_initializer(item, UNKNOWN, decl, nested=True)
                else:
                    self.check_initializer(item, element, decl, nested=True)
            if t.kind not in ("array", "struct", "unknown") and not (t.kind == "vector" and nested):
                self.error(init, f"braces around an initializer of '{t}' are not supported; use (type)(...)")
            return
        value = self.expr(init)
        if t.kind == "array":
            self.error(init, "an array must be initialized with a brace-enclosed list")
            return
        name = decl.name if decl is not None else "variable"
        self.check_assignment_types(t, value, init, f"initializing '{name}'")

    def designator_problem(self, item: c_ast.NamedInitializer, t: TypeInfo) -> str | None:
        """What is wrong with the designator ``.m =`` or ``[k] =`` of ``item`` in a list for ``t`` (None: fine)."""
        if len(item.name) != 1:
            return "nested designators (.a.b = or [i][j] =) are not supported; use nested braces"
        d = item.name[0]
        if isinstance(d, c_ast.ID):
            if t.kind != "struct":
                return f"member designator '.{d.name}' in an initializer of '{t}', which is not a struct or union"
            if d.name not in [name for name, _ in self.types.fields(t.name)]:
                return f"no member named '{d.name}' in '{t.name}'"
            return None
        if t.kind != "array":
            return f"array designator in an initializer of '{t}', which is not an array"
        k = const_int(d, self.enumerators, self.types)
        if k is None or k < 0 or (t.length is not None and k >= t.length):
            return "array designator index is not a constant within the array's bounds"
        return None

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
        return cast(TypeInfo, method(node))

    def expr_ID(self, node: c_ast.ID) -> TypeInfo:
        symbol = self.lookup(node.name)
        if symbol is not None:
            return symbol.type
        if node.name in BUILTIN_CONSTANTS:
            return UINT if node.name.startswith("CLK_") else FLOAT
        if node.name in self.functions or is_builtin_function(node.name):
            self.error(node, f"function pointers are not supported (function '{node.name}' used as a value)")
            return UNKNOWN
        if node.name not in self.suppressed:
            self.error(node, f"use of undeclared identifier '{node.name}'")
        return UNKNOWN

    def expr_Constant(self, node: c_ast.Constant) -> TypeInfo:
        kind = node.type
        value = node.value.lower()
        if kind == "char":
            return TypeInfo("scalar", "char")
        if kind == "string":
            return TypeInfo("pointer", target=TypeInfo("scalar", "char", space="constant", const=True))
        if "float" in kind or "double" in kind:
            if value.endswith("f"):
                return FLOAT
            if value.endswith("h"):
                if not self.fp16:
                    self.error(node, "a half literal needs the cl_khr_fp16 extension, which the device lacks")
                return TypeInfo("scalar", "half")
            # an unsuffixed floating literal is a double in C and OpenCL C; a float on a device without doubles
            # (OpenCL 1.2, 6.1.1.1; Clang casts it to single precision likewise)
            return DOUBLE if self.fp64 else FLOAT
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
        if index.is_arithmetic and (index.kind == "vector" or index.name in FLOATS):
            self.error(node.subscript, f"array subscript is not an integer (it is '{index.type_name}')")
        if base.kind in ("pointer", "array") and base.target is not None:
            if base.target.kind == "void":
                self.error(node, "subscript of a pointer to void")
                return UNKNOWN
            return base.target
        if base.kind == "vector":
            return TypeInfo("scalar", base.name, space=base.space, const=base.const)
        if base.kind == "unknown":
            return UNKNOWN
        self.error(node, f"subscripted value is not an array, pointer or vector (it is '{base}')")
        return UNKNOWN

    def expr_StructRef(self, node: c_ast.StructRef) -> TypeInfo:
        base = self.expr(node.name)
        member = node.field.name
        if node.type == "->":
            if base.kind == "unknown":
                return UNKNOWN
            if base.kind != "pointer" or base.target is None:
                self.error(node, f"member reference type '{base}' is not a pointer")
                return UNKNOWN
            base = base.target
        if base.kind == "vector":
            try:
                picked = swizzle_indices(member, base.width)
            except ValueError as e:
                self.error(node.field, str(e))
                return UNKNOWN
            return TypeInfo(
                "vector" if len(picked) > 1 else "scalar", base.name, len(picked), space=base.space, const=base.const
            )
        if base.kind == "struct":
            for name, t in self.types.fields(base.name):
                if name == member:
                    self.member_refs.add(id(node))
                    return TypeInfo(t.kind, t.name, t.width, t.target, base.space, base.const or t.const, t.length)
            if base.name in self.types.structs:
                self.error(node.field, f"no member named '{member}' in '{base.name}'")
            return UNKNOWN
        if base.kind == "unknown":
            return UNKNOWN
        if base.kind == "pointer":
            self.error(node, f"member reference type '{base}' is a pointer; did you mean '->'?")
            return UNKNOWN
        self.error(node, f"member reference base type '{base}' is not a structure or vector")
        return UNKNOWN

    def expr_UnaryOp(self, node: c_ast.UnaryOp) -> TypeInfo:
        op = node.op
        if op in ("sizeof", "_Alignof", "alignof"):
            if isinstance(node.expr, c_ast.Typename):
                t = self.types.resolve(node.expr.type)
                self.check_type_usable(t, node, op)
                if t.kind == "struct" and t.name not in self.types.structs:
                    self.error(node, f"invalid application of '{op}' to the incomplete type '{t.name}'")
            else:
                self.expr(node.expr)
            return ULONG
        operand = self.expr(node.expr)
        if op in ("++", "--", "p++", "p--"):
            self.check_assignable(node.expr, node)
            if operand.kind == "struct":
                self.error(node, f"cannot increment or decrement '{operand}'")
            return operand
        if op == "&":
            if isinstance(node.expr, c_ast.ID) and (
                node.expr.name in self.functions or is_builtin_function(node.expr.name)
            ):
                return UNKNOWN  # reported as a function pointer already
            if operand.kind == "unknown":
                return UNKNOWN
            return TypeInfo("pointer", target=operand)
        if op == "*":
            if operand.kind in ("pointer", "array") and operand.target is not None:
                return operand.target
            if operand.kind != "unknown":
                self.error(node, f"indirection requires a pointer operand ('{operand}' is not one)")
            return UNKNOWN
        if op == "!":
            if operand.kind == "vector":
                return TypeInfo("vector", _signed_of_size(operand.name), operand.width)
            return INT
        if op == "~" and operand.is_arithmetic and operand.name in FLOATS:
            self.error(node, f"invalid argument type '{operand.type_name}' to unary '~'")
            return UNKNOWN
        if op in ("-", "+", "~"):
            if operand.kind in ("pointer", "struct", "array"):
                self.error(node, f"invalid argument type '{operand}' to unary '{op}'")
                return UNKNOWN
            return _promote(operand)
        self.error(node, f"unsupported operator '{op}'")
        return UNKNOWN

    def expr_BinaryOp(self, node: c_ast.BinaryOp) -> TypeInfo:
        op = node.op
        left = self.expr(node.left)
        right = self.expr(node.right)
        if left.kind == "unknown" or right.kind == "unknown":
            if op in _COMPARISONS or op in ("&&", "||"):
                if left.kind == "vector" or right.kind == "vector":
                    v = left if left.kind == "vector" else right
                    return TypeInfo("vector", _signed_of_size(v.name), v.width)
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
            self.error(node, f"invalid operands to binary '{op}' ('{left}' and '{right}')")
            return UNKNOWN
        if left.kind == "vector" and right.kind == "vector" and left.width != right.width:
            self.error(node, f"vector operands have different sizes ('{left.type_name}' and '{right.type_name}')")
            return UNKNOWN
        if (
            left.kind == "vector"
            and right.kind == "vector"
            and op not in ("<<", ">>")
            and "?" not in (left.name, right.name)
            and left.name != right.name
        ):
            self.error(
                node,
                f"vector operands have different element types ('{left.type_name}' and '{right.type_name}'); "
                f"use convert_{left.type_name}()",
            )
            return UNKNOWN
        if op in _INTEGER_ONLY_OPS and (left.name in FLOATS or right.name in FLOATS):
            self.error(
                node, f"invalid operands to binary '{op}': integers needed ('{left.type_name}' and '{right.type_name}')"
            )
            return UNKNOWN
        if op in _COMPARISONS or op in ("&&", "||"):
            if left.kind == "vector" or right.kind == "vector":
                v = left if left.kind == "vector" else right
                return TypeInfo("vector", _signed_of_size(v.name), v.width)
            return INT
        if op in ("<<", ">>"):
            if left.kind == "scalar" and right.kind == "vector":
                return TypeInfo("vector", _promote(left).name, right.width)
            return _promote(left)
        return _arithmetic(left, right)

    def pointer_arithmetic(self, node: c_ast.BinaryOp, left: TypeInfo, right: TypeInfo) -> TypeInfo:
        op = node.op
        lp = left.kind in ("pointer", "array")
        rp = right.kind in ("pointer", "array")
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
        self.error(node, f"invalid operands to binary '{op}' ('{left}' and '{right}')")
        return UNKNOWN

    def expr_TernaryOp(self, node: c_ast.TernaryOp) -> TypeInfo:
        cond = self.expr(node.cond)
        a = self.expr(node.iftrue)
        b = self.expr(node.iffalse)
        if cond.kind == "struct":
            self.error(node.cond, f"a condition must be a scalar, not '{cond}'")
        if a.kind == "unknown" or b.kind == "unknown":
            return a if b.kind == "unknown" else b
        if a.is_arithmetic and b.is_arithmetic:
            if a.kind == "vector" and b.kind == "vector" and a.width != b.width:
                self.error(node, f"vector operands have different sizes ('{a.type_name}' and '{b.type_name}')")
                return UNKNOWN
            return _arithmetic(a, b)
        if "struct" in (a.kind, b.kind) and (a.kind, a.name) != (b.kind, b.name):
            self.error(node, f"incompatible operand types ('{a}' and '{b}') for '?:'")
            return UNKNOWN
        return a

    def expr_Assignment(self, node: c_ast.Assignment) -> TypeInfo:
        target = self.expr(node.lvalue)
        value = self.expr(node.rvalue)
        self.check_assignable(node.lvalue, node)
        if node.op == "=":
            self.check_assignment_types(target, value, node, "assigning")
        elif target.kind != "unknown" and value.kind != "unknown":
            op = node.op[:-1]
            if target.kind == "pointer":
                if op not in ("+", "-") or not (value.kind == "scalar" and value.name not in FLOATS):
                    self.error(node, f"invalid operands to '{node.op}' ('{target}' and '{value}')")
            elif not (target.is_arithmetic and value.is_arithmetic):
                self.error(node, f"invalid operands to '{node.op}' ('{target}' and '{value}')")
            elif op in _INTEGER_ONLY_OPS and (target.name in FLOATS or value.name in FLOATS):
                self.error(
                    node,
                    f"invalid operands to '{node.op}': integers needed ('{target.type_name}' and '{value.type_name}')",
                )
            elif value.kind == "vector" and (target.kind != "vector" or target.width != value.width):
                self.error(node, f"cannot assign '{value.type_name}' to '{target.type_name}' with '{node.op}'")
        return target

    def expr_Cast(self, node: c_ast.Cast) -> TypeInfo:
        target = self.types.resolve(node.to_type.type)
        self.check_type_usable(target, node, "cast")
        if isinstance(node.expr, c_ast.ExprList) and target.kind == "vector":
            self.vector_literal(node, target)
            return target
        value = self.expr(node.expr)
        if target.kind == "vector" and value.kind == "vector":
            if value.width != target.width:
                self.error(node, f"cannot cast '{value.type_name}' to '{target.type_name}': the sizes differ")
            elif value.name not in (target.name, "?"):
                self.error(
                    node,
                    f"cannot cast '{value.type_name}' to '{target.type_name}'; use convert_{target.type_name}() "
                    f"or as_{target.type_name}()",
                )
        elif target.kind == "scalar" and value.kind == "vector":
            self.error(node, f"cannot cast the vector '{value.type_name}' to the scalar '{target.type_name}'")
        elif target.kind in ("struct", "array"):
            self.error(node, f"cast to '{target}' is not supported")
        return TypeInfo(target.kind, target.name, target.width, target.target, "private", False, target.length)

    def vector_literal(self, node: c_ast.Cast, target: TypeInfo) -> None:
        parts = [self.expr(e) for e in node.expr.exprs]
        widths: list[int] = []
        for e, t in zip(node.expr.exprs, parts, strict=True):
            if t.kind == "vector":
                widths.append(t.width)
            elif t.kind == "scalar":
                widths.append(1)
            elif t.kind != "unknown":
                self.error(e, f"vector literal component must be a scalar or vector, not '{t}'")
                return
        if len(widths) != len(parts):
            return
        total = sum(widths)
        if total != target.width and not (len(parts) == 1 and total == 1):
            self.error(
                node,
                f"vector literal for '{target.type_name}' has {total} components, expected {target.width}"
                + (" (or 1 to fill all)" if len(parts) == 1 else ""),
            )

    def expr_ExprList(self, node: c_ast.ExprList) -> TypeInfo:
        result = UNKNOWN
        for e in node.exprs:
            result = self.expr(e)
        return result

    def expr_CompoundLiteral(self, node: c_ast.CompoundLiteral) -> TypeInfo:
        self.error(node.type, "compound literals are not supported; write vector literals as (float4)(a, b, c, d)")
        return UNKNOWN

    def expr_InitList(self, node: c_ast.InitList) -> TypeInfo:
        self.error(node, "a brace-enclosed list is only allowed as an initializer")
        return UNKNOWN

    def expr_Typename(self, node: c_ast.Typename) -> TypeInfo:
        self.error(node, "a type name is not an expression")
        return UNKNOWN

    def expr_FuncCall(self, node: c_ast.FuncCall) -> TypeInfo:
        args = list(node.args.exprs) if node.args is not None else []
        if not isinstance(node.name, c_ast.ID):
            self.expr(node.name)
            for a in args:
                self.expr(a)
            self.error(node, "calls through function pointers are not supported")
            return UNKNOWN
        name = node.name.name
        symbol = self.lookup(name)
        if symbol is None and name in self.functions and self.caller is not None:
            self.caller.calls.append((name, _coord_of(node)[0]))  # before the arguments' calls: source order
        arg_types = [self.expr(a) for a in args]
        if symbol is not None:
            self.error(node, f"called object '{name}' is not a function (it is '{symbol.type}')")
            return UNKNOWN
        if name in self.functions:
            return self.call_helper(node, name, args, arg_types)
        if name == "printf":
            return printf.check_call(self.error, node, args, arg_types)
        if is_builtin_function(name):
            return self.call_builtin(node, name, args, arg_types)
        if name in UNSUPPORTED_BUILTINS:
            self.error(node, f"built-in function '{name}' is not supported by the simulator")
            return UNKNOWN
        if CONVERT_RE.fullmatch(name):
            self.error(node, f"'{name}': saturation applies only to integer destinations")
            return UNKNOWN
        if name in self.suppressed:
            return UNKNOWN
        if name in self.later_functions:
            self.error(node, f"function '{name}' is used before it is declared; declare or define it first")
        else:
            self.error(node, f"call to undeclared function '{name}'")
        return UNKNOWN

    def call_helper(
        self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]
    ) -> TypeInfo:
        fn = self.functions[name]
        if fn.is_kernel:
            self.error(node, f"calling the kernel '{name}' from a function is not supported")
        if fn.node is None:
            self.used_undefined.append((name, node))
        wanted = len(fn.params)
        if len(args) != wanted and not (fn.variadic and len(args) >= wanted):
            plural = "" if wanted == 1 else "s"
            self.error(
                node,
                f"function '{name}' takes {wanted} argument{plural}, but {_given(len(args))}",
            )
            return fn.return_type
        for k, (a, t, p) in enumerate(zip(args, arg_types, fn.params, strict=False)):
            self.check_argument(a, t, p, f"argument {k + 1} of '{name}'")
        return fn.return_type

    def check_argument(self, node: c_ast.Node, value: TypeInfo, param: TypeInfo, what: str) -> None:
        if value.kind == "unknown" or param.kind == "unknown":
            return
        pointer_param = param.kind in ("pointer", "array")
        pointer_value = value.kind in ("pointer", "array")
        if pointer_param and not pointer_value and not _is_null(node):
            self.error(node, f"{what} must be a pointer, not '{value}'")
        elif pointer_value and not pointer_param:
            self.error(node, f"{what} must be '{param}', not the pointer '{value}'")
        elif param.is_arithmetic and value.kind == "vector" and (param.kind != "vector" or param.width != value.width):
            self.error(node, f"{what} must be '{param.type_name}', not '{value.type_name}'")
        elif "struct" in (param.kind, value.kind) and (param.kind, param.name) != (value.kind, value.name):
            self.error(node, f"{what} must be '{param}', not '{value}'")

    def call_builtin(
        self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]
    ) -> TypeInfo:
        arity = builtin_arity(name)
        assert arity is not None
        low, high = arity
        if not low <= len(args) <= high:
            wanted = str(low) if low == high else f"{low} to {high}"
            plural = "" if wanted == "1" else "s"
            self.error(
                node,
                f"built-in function '{name}' takes {wanted} argument{plural}, but {_given(len(args))}",
            )
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
                self.error(node, f"'{name}' needs a scalar or vector argument, not '{source}'")
            elif name.startswith("as_"):
                have, need = source.element_size, result.element_size
                if have is not None and need is not None and have != need:
                    self.error(
                        node, f"'{name}' needs an argument of {need} bytes, not '{source.type_name}' ({have} bytes)"
                    )
            elif source.kind == "vector" and source.width != width:
                self.error(node, f"'{name}' needs a {width}-component argument, not '{source.type_name}'")
            elif source.kind == "scalar" and width > 1:
                self.error(node, f"'{name}' needs a {width}-component argument, not the scalar '{source.type_name}'")
            return result
        rule = BUILTINS[name].result
        if rule == "table":
            return check_table_call(name, args, arg_types, self.error, node)
        if rule == "size_t":
            return ULONG
        if rule == "uint":
            return UINT
        if rule == "void" and not name.startswith("vstore"):
            return VOID
        if rule == "pointee":
            p = arg_types[0]
            if p.kind not in ("pointer", "unknown"):
                self.error(args[0], f"the first argument of '{name}' must be a pointer to __global or __local memory")
                return UNKNOWN
            if p.kind == "pointer" and p.target is not None:
                if p.target.space not in ("global", "local"):
                    where = p.target.space
                    self.error(args[0], f"'{name}' needs a pointer to __global or __local memory, not __{where}")
                elif p.target.const:
                    self.error(args[0], f"'{name}' cannot modify read-only memory")
                return p.target
            return UNKNOWN
        if name.startswith("vstore"):
            p = arg_types[2]
            if p.kind not in ("pointer", "array", "unknown"):
                self.error(args[2], f"the third argument of '{name}' must be a pointer")
            elif p.kind == "pointer" and p.target is not None and p.target.const:
                self.error(args[2], f"'{name}' cannot write to read-only memory")
            elif name.startswith(("vstore_half", "vstorea_half")) and p.target and p.target.name not in ("half", "?"):
                self.error(args[2], f"'{name}' writes halves: it needs a half pointer, not '{p}'")
            return VOID
        if rule.startswith("vload_half"):
            p = arg_types[1]
            if p.kind not in ("pointer", "array", "unknown"):
                self.error(args[1], f"the second argument of '{name}' must be a pointer")
            elif p.target is not None and p.target.name not in ("half", "?"):
                self.error(args[1], f"'{name}' reads halves: it needs a half pointer, not '{p}'")
            width = int(rule[len("vload_half") :])
            return FLOAT if width == 1 else TypeInfo("vector", "float", width)
        if rule.startswith("vload"):
            p = arg_types[1]
            width = int(rule[5:])
            if p.kind not in ("pointer", "array", "unknown"):
                self.error(args[1], f"the second argument of '{name}' must be a pointer")
                return UNKNOWN
            if p.target is not None and p.target.kind == "scalar":
                return TypeInfo("vector", p.target.name, width)
            return TypeInfo("vector", "?", width)
        for a, t in zip(args, arg_types, strict=True):
            if t.kind in ("pointer", "struct", "array"):
                self.error(a, f"built-in function '{name}' needs scalar or vector arguments, not '{t}'")
                return UNKNOWN
        if any(t.kind == "unknown" for t in arg_types) and rule != "first":
            if rule == "scalar":
                return TypeInfo("scalar", "?")
            width = max((t.width for t in arg_types if t.kind == "vector"), default=0)
            return TypeInfo("vector", "?", width) if width else UNKNOWN
        first = arg_types[0]
        if rule in ("intn", "intn_second"):
            return self.int_vector_builtin(node, name, rule, arg_types)
        if rule == "first":
            return _promote(first) if first.kind != "unknown" else UNKNOWN
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

    def int_vector_builtin(self, node: c_ast.FuncCall, name: str, rule: str, arg_types: list[TypeInfo]) -> TypeInfo:
        """``ilogb(gentype) -> intn``; ``ldexp``/``rootn(gentype x, intn k)``, and ``ldexp(floatn x, int k)``."""
        first = arg_types[0]
        width = first.width if first.kind == "vector" else 1
        if rule == "intn":
            return scalar_or_vector("int", width)
        k = arg_types[1]
        if k.kind in ("scalar", "vector") and k.name in ("float", "double", "half"):
            self.error(node, f"the second argument of '{name}' must be an integer, not '{k.type_name}'")
            return UNKNOWN
        k_width = k.width if k.kind == "vector" else 1
        if k.kind != "unknown" and k_width != width and not (name == "ldexp" and k_width == 1):
            self.error(node, f"built-in function '{name}' needs an int{width if width > 1 else ''} second argument")
            return UNKNOWN
        if first.kind == "scalar" and first.name not in ("float", "double", "half", "?"):
            return scalar_or_vector("float", width)
        return first

    # -- lvalues
    def check_assignable(self, target: c_ast.Node, at: c_ast.Node) -> None:
        problem = self.not_assignable(target)
        if problem:
            self.error(at, problem)

    def not_assignable(self, node: c_ast.Node) -> str | None:
        if isinstance(node, c_ast.ID):
            symbol = self.lookup(node.name)
            if symbol is None:
                if node.name in BUILTIN_CONSTANTS:
                    return f"cannot assign to the built-in constant '{node.name}'"
                return None  # undeclared: reported already
            if symbol.kind == "enumerator":
                return f"cannot assign to the enumerator '{node.name}'"
            if symbol.type.kind == "array":
                return f"array '{node.name}' is not assignable"
            if symbol.type.const:
                what = {"param": "parameter", "global": "__constant variable"}.get(symbol.kind, "variable")
                return f"cannot assign to const {what} '{node.name}'"
            return None
        if isinstance(node, c_ast.ArrayRef | c_ast.UnaryOp) and (isinstance(node, c_ast.ArrayRef) or node.op == "*"):
            base_node = node.name if isinstance(node, c_ast.ArrayRef) else node.expr
            base = self.expr_quiet(base_node)
            if base.kind in ("pointer", "array") and base.target is not None:
                if base.target.space == "constant":
                    return f"cannot write to __constant memory (through '{_describe(base_node)}')"
                if base.target.const:
                    return f"cannot assign through '{_describe(base_node)}': it points to const (read-only) memory"
                return None
            if base.kind == "vector":
                return self.not_assignable(base_node)
            return None
        if isinstance(node, c_ast.StructRef):
            base = self.expr_quiet(node.name)
            if node.type == "->":
                if base.kind == "pointer" and base.target is not None and base.target.const:
                    return f"cannot assign through '{_describe(node.name)}': it points to const memory"
                return None
            if base.kind == "vector":
                try:
                    picked = swizzle_indices(node.field.name, base.width)
                except ValueError:
                    return None  # reported already
                if len(set(picked)) != len(picked):
                    return f"vector swizzle '.{node.field.name}' with repeated components is not assignable"
            return self.not_assignable(node.name)
        if isinstance(node, c_ast.Cast | c_ast.FuncCall | c_ast.Constant | c_ast.BinaryOp | c_ast.TernaryOp):
            return "expression is not assignable"
        if isinstance(node, c_ast.UnaryOp | c_ast.Assignment | c_ast.ExprList):
            return "expression is not assignable"
        return None

    def expr_quiet(self, node: c_ast.Node) -> TypeInfo:
        """The type of an expression already checked (its errors are not reported twice)."""
        saved = len(self.diagnostics)
        saved_calls = len(self.caller.calls) if self.caller is not None else 0
        saved_undefined = len(self.used_undefined)
        t = self.expr(node)
        del self.diagnostics[saved:]
        if self.caller is not None:
            del self.caller.calls[saved_calls:]
        del self.used_undefined[saved_undefined:]
        return t

    def check_assignment_types(self, target: TypeInfo, value: TypeInfo, node: c_ast.Node, what: str) -> None:
        if target.kind == "unknown" or value.kind == "unknown":
            return
        event = async_copy.event_conversion(target, value, node, what)
        if event:
            self.error(node, f"{what}: {event}")
            return
        if target.is_arithmetic and value.kind == "vector":
            if target.kind == "scalar":
                self.error(node, f"{what}: cannot convert the vector '{value.type_name}' to '{target.type_name}'")
            elif target.width != value.width:
                self.error(node, f"{what}: cannot convert '{value.type_name}' to '{target.type_name}'")
            elif value.name not in (target.name, "?"):
                self.error(
                    node,
                    f"{what}: cannot convert '{value.type_name}' to '{target.type_name}' implicitly; "
                    f"use convert_{target.type_name}()",
                )
        elif target.is_arithmetic and value.kind in ("pointer", "array", "struct"):
            self.error(node, f"{what}: cannot convert '{value}' to '{target.type_name}'")
        elif target.kind == "pointer" and (value.kind == "vector" or value.name in FLOATS):
            self.error(node, f"{what}: cannot convert '{value}' to the pointer '{target}'")
        elif (target.kind == "struct" and (value.kind != "struct" or value.name != target.name)) or (
            value.kind == "struct" and target.kind != "struct"
        ):
            self.error(node, f"{what}: cannot convert '{value}' to '{target}'")


def _given(count: int) -> str:
    return f"{count} {'was' if count == 1 else 'were'} given"


def _is_null(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Constant) and node.value == "0"


def _describe(node: c_ast.Node) -> str:
    if isinstance(node, c_ast.ID):
        return str(node.name)
    if isinstance(node, c_ast.ArrayRef | c_ast.StructRef):
        return _describe(node.name)
    if isinstance(node, c_ast.UnaryOp | c_ast.Cast):
        return _describe(node.expr)
    return "expression"


def _signed_of_size(name: str) -> str:
    """The signed scalar of ``name``'s size (the element type of a vector comparison's result)."""
    return comparison_type(ctype_lookup(name).vector(2)).name if name in SCALAR_SIZES else "int"


def _ctype(t: TypeInfo) -> CType | None:
    try:
        scalar = ctype_lookup(t.name)
    except KeyError:
        return None
    return scalar.vector(t.width) if t.kind == "vector" else scalar


def _promote(t: TypeInfo) -> TypeInfo:
    """C's integer promotion, by the rules the executor computes with (:mod:`wia_sim.kernels.ctype`)."""
    c = _ctype(t) if t.kind == "scalar" else None
    if c is not None:
        return scalar_or_vector(promoted(c).name, 1)
    if t.kind in ("scalar", "vector"):
        return TypeInfo(t.kind, t.name, t.width)
    return t


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
    return scalar_or_vector(c.name, c.width)
