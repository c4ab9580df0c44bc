"""What a compile produces: ``Program`` and its descriptions of kernels, helper functions, parameters and
``__local`` variables, which the executor relies on, and the errors a compile or a kernel lookup raises.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pycparser import c_ast

from wia_sim.kernels.contraction import Contraction
from wia_sim.kernels.diagnostics import origin
from wia_sim.kernels.preprocess import FLOAT_EXTENSIONS, Diagnostic
from wia_sim.kernels.spaces import UnsupportedKernel
from wia_sim.kernels.types import SCALAR_SIZES, UNKNOWN, VOID, AddressSpace, TypeInfo, TypeResolver, const_int

__all__ = [
    "FunctionInfo",
    "KernelCompileError",
    "KernelInfo",
    "KernelNotFound",
    "LocalVar",
    "Param",
    "ParamKind",
    "Program",
]

ParamKind = Literal["buffer", "scalar", "local", "pointer"]


@dataclass(frozen=True)
class Param:
    """A kernel or helper-function parameter.

    ``kind``: for kernels "buffer" (a ``__global`` or ``__constant`` pointer: the host passes a buffer), "local"
    (a ``__local`` pointer: the host passes only a size) or "scalar" (a value, possibly a vector); helper
    functions have "pointer" for every pointer parameter instead. ``elem_type`` is the canonical scalar name of
    the value or pointee (``float`` for ``float4``, ``uint`` for ``unsigned int``; "struct S" in helpers),
    ``vector_width`` 1 for scalars. ``address_space`` is the pointee's for pointers, "private" for values.
    ``const``: the value, or for pointers the pointee, is read-only (``__constant`` pointers are always const).
    """

    name: str
    kind: ParamKind
    elem_type: str
    vector_width: int
    address_space: AddressSpace
    const: bool
    line: int = 0
    type: TypeInfo = field(default=UNKNOWN, compare=False, repr=False)
    nbytes: int | None = None
    """Bytes of a struct or union passed by value (``elem_type`` is then its tag); None for other parameters."""

    @property
    def type_name(self) -> str:
        """``float4``, ``uint``: the value's or pointee's type."""
        return f"{self.elem_type}{self.vector_width}" if self.vector_width > 1 else self.elem_type

    @property
    def is_pointer(self) -> bool:
        return self.kind != "scalar"


@dataclass(frozen=True)
class LocalVar:
    """A ``__local`` variable declared in a kernel: one instance per work-group. ``shape`` is () for a scalar,
    the array's dimensions otherwise."""

    name: str
    elem_type: str
    vector_width: int
    shape: tuple[int, ...]
    line: int
    node: c_ast.Decl = field(compare=False, repr=False)
    struct_size: int = 0
    """Bytes of one element when it is a struct or union (``elem_type`` is then its tag, ``struct S``) or a
    pointer (8)."""

    @property
    def size_bytes(self) -> int:
        per = self.struct_size or SCALAR_SIZES.get(self.elem_type, 0) * (
            4 if self.vector_width == 3 else self.vector_width
        )
        return per * math.prod(self.shape)


@dataclass
class KernelInfo:
    """A ``__kernel`` function: its parameters in order, its AST (a ``c_ast.FuncDef``), where it starts, the
    ``reqd_work_group_size`` attribute if given, and its ``__local`` variables."""

    name: str
    params: list[Param]
    node: c_ast.FuncDef = field(repr=False)
    line: int
    reqd_work_group_size: tuple[int, int, int] | None = None
    local_vars: list[LocalVar] = field(default_factory=list)
    unsupported: str = ""
    """Why the simulator cannot run the kernel, though the program builds ("" if it can): it uses images
    (``images.py``)."""

    @property
    def static_local_bytes(self) -> int:
        """Local memory the kernel's own ``__local`` variables take per work-group (``__local`` pointer
        arguments come on top, sized at launch)."""
        return sum(v.size_bytes for v in self.local_vars)


@dataclass
class FunctionInfo:
    """A helper (non-kernel) function with a body. ``calls`` names the helpers it calls, in source order."""

    name: str
    params: list[Param]
    return_type: TypeInfo
    node: c_ast.FuncDef = field(repr=False)
    line: int
    calls: tuple[str, ...] = ()


class KernelCompileError(Exception):
    """The source does not compile; ``build_log`` has one ``file:line:col: error: ...`` line per problem."""

    def __init__(
        self, build_log: str, *, diagnostics: Sequence[Diagnostic] = (), source: str = "", options: str = ""
    ) -> None:
        super().__init__(build_log)
        self.build_log = build_log
        self.diagnostics = list(diagnostics)
        self.source = source
        self.options = options


class KernelNotFound(LookupError):
    """``Program.kernel(name)`` for a name the program does not define as a ``__kernel``."""

    def __init__(self, name: str, available: Sequence[str]) -> None:
        listing = ", ".join(available) if available else "none"
        super().__init__(f"kernel '{name}' not found; the program's kernels are: {listing}")
        self.name = name
        self.available = list(available)


@dataclass
class Program:
    """A compiled kernel source. ``ast`` is the whole translation unit; ``source_lines`` the user's source (for
    messages that quote it), line by line of the text the parser read; ``build_log`` holds warnings (a failed build
    raises KernelCompileError instead). The lines of the AST (and of ``source_lines``) are the source's own unless
    it includes files: then ``origins`` gives each one's file and line (``where``)."""

    kernels: dict[str, KernelInfo]
    functions: dict[str, FunctionInfo]
    ast: c_ast.FileAST = field(repr=False)
    filename: str
    source_lines: list[str] = field(repr=False)
    constants: dict[str, c_ast.Decl] = field(default_factory=dict, repr=False)
    enumerators: dict[str, int] = field(default_factory=dict)
    enumerator_types: dict[str, str] = field(default_factory=dict)
    """Each enumerator's type name: ``int``, or a wider one for values past ``int`` (``types.enumerator_types``)."""
    options: str = ""
    build_log: str = ""
    preprocessed: str = field(default="", repr=False)
    extensions: frozenset[str] = FLOAT_EXTENSIONS
    """The device extensions the program was built for (``HUGE_VAL`` is a double only with cl_khr_fp64)."""
    double_constants: bool = True
    """An unsuffixed floating literal is a double (``Checker.double_constants``: the device has cl_khr_fp64 and
    ``-cl-single-precision-constant`` was not given), else a float."""
    _types: TypeResolver | None = field(default=None, repr=False, compare=False)
    resolved: dict[int, TypeInfo] = field(default_factory=dict, repr=False, compare=False)
    """What ``type_of`` found for each type node of the AST, by its ``id``: the executor asks again at every
    declaration and cast it runs, and the answer cannot change once the checker has registered the program's
    typedefs and tags."""
    members: dict[tuple[int, str], Any] = field(default_factory=dict, repr=False, compare=False)
    """What each member access names, by the ``id`` of its ``StructRef`` and the struct's tag: the member's type,
    offset and dimensions, and whether it may lie off its alignment (``struct_exec.member_ptr``)."""
    plans: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    """The executor's per-node evaluation plans (``executor._Executor.plan``), made on first use and kept for
    every later launch of the program."""
    pointees: dict[TypeInfo, Any] = field(default_factory=dict, repr=False, compare=False)
    """What each pointer or array type points to, the executor's element type and dimensions
    (``exec_setup.pointee_of``), made on first use: a launch asks it of every buffer argument."""
    origins: list[tuple[str, int]] | None = field(default=None, repr=False, compare=False)
    """Each line's (file, line) when the source includes files or runs a ``#line``
    (``preprocess.PreprocessResult.origins``)."""
    inputs: dict[str, str | None] | None = field(default_factory=dict, repr=False, compare=False)
    """The files the build looked for and read beside the source (``preprocess.PreprocessResult.inputs``); None
    when ``__DATE__`` or ``__TIME__`` made it a build of its moment (``frontend.compile_source`` builds it again)."""
    labels: dict[int, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)
    """The labels inside each statement a pending ``goto`` asks about (``jumps.labels_within``), by the node's
    ``id``, made on first use."""
    member_refs: frozenset[int] = field(default=frozenset(), repr=False, compare=False)
    """The ``id`` of every ``StructRef`` node that reads a member of a struct or union (not a vector swizzle)."""
    vector_subscripts: frozenset[int] = field(default=frozenset(), repr=False, compare=False)
    """The ``id`` of every ``ArrayRef`` node that picks a vector's component by index (``v[i]``, Clang's extension
    of OpenCL C: the simulator built such kernels and could not run them)."""
    nested_labels: frozenset[int] = field(default=frozenset(), repr=False, compare=False)
    """The ``id`` of every ``case``/``default`` label inside a nested statement of its switch's body (Duff's device):
    the executor sends work-items there as a ``goto`` sends them to a label (``jumps.case_key``)."""
    sizes: dict[int, int] = field(default_factory=dict, repr=False, compare=False)
    """``sizeof`` (and GNU's ``_Alignof``) of each expression operand whose type has a size, by the ``id`` of the
    ``sizeof`` (``_Alignof``) node: from the checker's static type (an array member is its array, not a pointer),
    never the operand evaluated."""
    generic_choices: dict[int, c_ast.Node] = field(default_factory=dict, repr=False, compare=False)
    """The association each C11 ``_Generic`` selects, by the ``id`` of the selection: the checker's choice from the
    static type of its controlling expression, which is never evaluated."""
    converted_pointers: dict[int, tuple[str, int]] = field(default_factory=dict, repr=False, compare=False)
    """The type, as (element, width), that a built-in call's overload takes its pointer argument to where the
    argument points to another type, which Clang converts with a warning (``check_calls.pointer_converted``:
    ``atomic_add(char_p, 1u)`` updates a uint, ``fract(x4, &i4)`` stores a float4), by the ``id`` of the call."""
    shuffles: dict[int, tuple[int, ...]] = field(default_factory=dict, repr=False, compare=False)
    """The constant indices of each ``__builtin_shufflevector`` call, by its ``id`` (-1: a component left
    undefined; none: its second argument is a vector of indices; ``check_vector_builtins``)."""
    arithmetic_types: dict[int, TypeInfo] = field(default_factory=dict, repr=False, compare=False)
    """The static type of each ``+``, ``-`` and ``*``, by the ``id`` of the node: the checker's, from which a
    contraction picks the product Clang fuses (``contraction.contractions``)."""
    contractions: dict[int, Contraction] = field(default_factory=dict, repr=False, compare=False)
    """The additions that fuse with a product (``contraction.contractions``), by the ``id`` of the node; empty
    unless the program was built to contract (``frontend.compile_source``)."""
    whole_items: frozenset[int] = field(default=frozenset(), repr=False, compare=False)
    """The ``id`` of every initializer item that is an expression of struct type: it initializes a struct
    sub-object whole, where other items fill its members (brace elision, ``initializers.py``)."""
    list_lengths: dict[int, int] = field(default_factory=dict, repr=False, compare=False)
    """The length of each array of unknown length that a brace list sizes (C99 6.7.8p22: one past the largest
    index it initializes, designators and elided braces counted), by the ``id`` of the ``InitList``; for the list
    of a ``__constant`` struct, the elements it gives the struct's flexible array member (GNU C)."""

    def where(self, line: int) -> tuple[str, int]:
        """The file and line of the user's source that line ``line`` of the AST came from."""
        return origin(self.origins, self.filename, line)

    def kernel(self, name: str) -> KernelInfo:
        """The kernel called ``name``; KernelNotFound (listing the kernels) if there is none."""
        try:
            return self.kernels[name]
        except KeyError:
            raise KernelNotFound(name, list(self.kernels)) from None

    def runnable(self, name: str) -> KernelInfo:
        """The kernel called ``name``, to be run: KernelNotFound, or UnsupportedKernel where it uses what the
        simulator cannot run though the program builds (``KernelInfo.unsupported``)."""
        info = self.kernel(name)
        if info.unsupported:
            raise UnsupportedKernel(info.unsupported)
        return info

    def callable(self, name: str) -> FunctionInfo | None:
        """What a call of ``name`` runs: a helper, or a kernel called as an ordinary function (OpenCL C 1.2 6.9;
        the checker refuses calls of kernels that declare ``__local`` variables, whose behaviour is
        implementation-defined)."""
        helper = self.functions.get(name)
        kernel = self.kernels.get(name) if helper is None else None
        if kernel is None or kernel.local_vars:
            return helper
        params = [replace(p, kind="pointer") if p.kind in ("buffer", "local") else p for p in kernel.params]
        return FunctionInfo(name, params, VOID, kernel.node, kernel.line)

    @property
    def kernel_names(self) -> list[str]:
        return list(self.kernels)

    def type_of(self, node: c_ast.Node) -> TypeInfo:
        """The type a ``Decl``, ``Typename``, ``Typedef`` or type node declares, user typedefs resolved."""
        if isinstance(node, c_ast.Decl | c_ast.Typename | c_ast.Typedef):
            node = node.type  # (the program's own: a declaration the executor copies shares it)
        found = self.resolved.get(id(node))
        if found is None:
            found = (self._types or TypeResolver()).resolve(node)
            if self._types is not None:
                self.resolved[id(node)] = found
        return found

    @property
    def types(self) -> TypeResolver:
        """The program's type resolver (its typedefs, structs and unions)."""
        return self._types or TypeResolver()

    def struct_fields(self, tag: str) -> list[tuple[str, TypeInfo]]:
        """The members of ``struct S``/``union U`` (pass the ``TypeInfo.name``), in order."""
        resolver = self._types or TypeResolver()
        return resolver.fields(tag)

    @functools.cached_property
    def address_taken(self) -> frozenset[str]:
        """Names that appear as ``&name`` anywhere in the program: the executor keeps such scalars in private
        memory (by name, so a shadowing variable of the same name is memory-backed too; slower, never wrong)."""
        names: set[str] = set()

        class Visitor(c_ast.NodeVisitor):  # type: ignore[misc]
            def visit_UnaryOp(self, node: c_ast.UnaryOp) -> None:
                if node.op == "&" and isinstance(node.expr, c_ast.ID):
                    names.add(node.expr.name)
                self.generic_visit(node)

        Visitor().visit(self.ast)
        return frozenset(names)

    def const_int(self, expr: c_ast.Node) -> int | None:
        """The value of an integer constant expression (array sizes, enumerators), None if it is not one."""
        return const_int(expr, self.enumerators, self._types)
