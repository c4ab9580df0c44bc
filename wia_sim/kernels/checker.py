"""The type checker: walks the parsed program and reports, by line, what the language forbids and what the
executor does not support.

``Checker.run`` fills in the kernels, helper functions, program-scope ``__constant`` variables and enumerators a
``Program`` holds, and the diagnostics for the build log; ``frontend.py``'s docstring lists what a clean check
guarantees the executor.

``Checker`` holds the state and the translation unit's walk; the rules live in one mixin per job, so that each file
reads on its own: declarations (``check_decls.py``), statements (``check_statements.py``), expressions
(``check_exprs.py``) and calls of helper and built-in functions (``check_calls.py``), over the shared state of
``check_state.py``. The visitor methods are named as the executor's (``statement``, ``substatement``,
``expr_<Node>``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pycparser import c_ast
from pycparserext.ext_c_parser import TypeOfDeclaration, TypeOfExpression

from wia_sim.kernels import images, loop_hints
from wia_sim.kernels.check_calls import CallChecks
from wia_sim.kernels.check_decls import DeclarationChecks
from wia_sim.kernels.check_exprs import ExpressionChecks
from wia_sim.kernels.check_sequence import SequenceChecks
from wia_sim.kernels.check_state import _Context, _coord_of, _Function, _Symbol
from wia_sim.kernels.check_statements import StatementChecks
from wia_sim.kernels.check_unused import UnusedResults
from wia_sim.kernels.grammar import BUILTIN_FILE, StatementAttributes
from wia_sim.kernels.operator_marks import OperatorMarks
from wia_sim.kernels.parsing import ast_nodes
from wia_sim.kernels.preprocess import FLOAT_EXTENSIONS, Diagnostic
from wia_sim.kernels.program import FunctionInfo, KernelInfo
from wia_sim.kernels.signatures import SINCE_1_2
from wia_sim.kernels.structs import member_attributes
from wia_sim.kernels.types import SPACES, TypeInfo, TypeResolver

__all__ = ["Checker"]


def _named(node: c_ast.Node | None) -> c_ast.Node | None:
    """Where a diagnostic about ``node`` goes: a declaration's at the declared name, not at the '*' of a pointer
    declarator."""
    if isinstance(node, c_ast.Decl):
        inner = node.type
        while inner is not None and not isinstance(inner, c_ast.TypeDecl):
            inner = getattr(inner, "type", None)
        if isinstance(inner, c_ast.TypeDecl) and _coord_of(inner)[0] is not None:
            return inner
    return node


def _records(items: list[c_ast.Node]) -> list[c_ast.Struct | c_ast.Union]:
    """Every struct and union definition in ``items``, at any depth."""
    found: dict[int, c_ast.Struct | c_ast.Union] = {}  # by id: ``struct S {...} a, b;`` shares one node
    stack = list(items)
    while stack:
        node = stack.pop()
        if isinstance(node, c_ast.Struct | c_ast.Union) and node.decls is not None:
            found[id(node)] = node
        stack.extend(child for _, child in node.children())
    return sorted(found.values(), key=lambda n: tuple(c or 0 for c in _coord_of(n)))


def _qualified_by_a_space(member: c_ast.Node, types: TypeResolver) -> bool:
    """Whether a member's own type (an array's elements; a pointer itself, not what it points to) carries an
    address space: written there (``__global int x``, ``float* __local p``) or in the ``__typeof__`` of an object
    it names (``__typeof__(c)`` of a ``__constant`` ``c``)."""
    while isinstance(member, c_ast.ArrayDecl):
        member = member.type
    if not isinstance(member, c_ast.TypeDecl | c_ast.PtrDecl):
        return False
    if SPACES.keys() & set(member.quals):
        return True
    inner = member.type
    return isinstance(inner, TypeOfExpression | TypeOfDeclaration) and id(inner) in types.typeof_spaced


def _holds_itself(record: c_ast.Struct | c_ast.Union, member: c_ast.Node) -> bool:
    """Whether a member's type (an array's elements included, not what a pointer points to) is the struct or
    union being defined, which is incomplete until its closing brace (C99 6.7.2.1p2)."""
    while isinstance(member, c_ast.ArrayDecl):
        member = member.type
    inner = member.type if isinstance(member, c_ast.TypeDecl) else None
    return (
        record.name is not None
        and isinstance(inner, type(record))
        and inner.name == record.name
        and (inner.decls is None or inner is record)
    )


class Checker(DeclarationChecks, StatementChecks, ExpressionChecks, CallChecks, UnusedResults, SequenceChecks):
    """The kernel type checker; ``frontend.py`` runs it and builds a ``Program`` from what it records."""

    def __init__(
        self,
        filename: str,
        suppressed: set[str],
        extensions: frozenset[str] = FLOAT_EXTENSIONS,
        enabled: frozenset[str] = frozenset({"all"}),
        packing: tuple[tuple[int, int], ...] = (),
        c_version: int = 120,
        keyword_places: list[tuple[int, int, str]] | None = None,
        single_constants: bool = False,
        type_hints: Sequence[tuple[int, int, int, str]] = (),
        operator_marks: OperatorMarks | None = None,
        gnu_alignof: frozenset[tuple[int, int]] = frozenset(),
        expanded: Callable[[int, int | None, bool], bool] | None = None,
        statement_attributes: Mapping[int, StatementAttributes] | None = None,
        broken: frozenset[tuple[int, int]] = frozenset(),
    ) -> None:
        self.filename = filename
        self.broken = broken  # (``parsing.ParseOutcome.broken``)
        self.quiet = False
        self.statement_head: tuple[int, int] | None = None
        self.abandoned: tuple[int, int] | None = None
        self.statement_attributes = statement_attributes or {}  # (``parsing._ParseOutcome.statement_attributes``)
        self.expanded = expanded or (lambda line, column, body: False)  # (``PreprocessResult.expanded``)
        self.gnu_alignof = gnu_alignof  # where the source spells ``_Alignof`` as GNU's ``__alignof`` (``frontend``)
        self.suppressed = suppressed
        self.c_version = c_version  # ``-cl-std`` (``options.BuildOptions.c_version``)
        self.keyword_places = keyword_places or []  # where they stand (``parsing._ParseOutcome``)
        self.type_hints = type_hints  # each ``vec_type_hint``'s line, columns and type (``frontend``)
        self.operator_marks = operator_marks or OperatorMarks([], "")  # each operator's place, asked for
        self.undeclared_builtins = SINCE_1_2 if c_version < 120 else frozenset()
        self.fp64 = "cl_khr_fp64" in extensions  # an optional core feature of OpenCL C 1.2: no pragma needed
        # an unsuffixed floating constant's type: a double only on a device with doubles, without
        # -cl-single-precision-constant (``options.BuildOptions.single_constants``)
        self.double_constants = self.fp64 and not single_constants
        # an extension proper: half values need the device's support and '#pragma OPENCL EXTENSION cl_khr_fp16 :
        # enable' in the source (Clang's rule; ``enabled``: what the source's pragmas enable)
        self.fp16 = "cl_khr_fp16" in extensions and bool({"cl_khr_fp16", "all"} & enabled)
        self.fp16_missing = (
            "the cl_khr_fp16 extension, which the device lacks"
            if "cl_khr_fp16" not in extensions
            else "the cl_khr_fp16 extension enabled (#pragma OPENCL EXTENSION cl_khr_fp16 : enable)"
        )
        self.diagnostics: list[Diagnostic] = []
        self.types = TypeResolver()
        self.types.packing = packing
        self.types.typeof_operand = self.typeof_operand
        self.scopes: list[dict[str, _Symbol]] = [{}]
        self.typedef_scopes: list[set[str]] = []  # the typedef names each open block defined (``local_typedef``)
        self.functions: dict[str, _Function] = {}
        self.constants: dict[str, c_ast.Decl] = {}
        self.kernels: dict[str, KernelInfo] = {}
        self.helpers: dict[str, FunctionInfo] = {}
        self.used_undefined: list[tuple[str, c_ast.Node]] = []
        self.caller: _Function | None = None  # the function whose body is being checked
        self.context: _Context | None = None  # (and its statements' state)
        self.enumerators = self.types.enumerators
        self.enumerator_types: dict[str, str] = {}  # each enumerator's type name (types.enumerator_types)
        self.member_refs: set[int] = set()  # StructRef nodes that read a struct's member (Program.member_refs)
        self.vector_subscripts: set[int] = set()  # ArrayRef nodes of a vector's component (Program's)
        self.generic_choices: dict[int, c_ast.Node] = {}  # each _Generic's chosen association (Program's)
        self.held_warnings: list[tuple[c_ast.Node, str]] = []  # (``runtime_warning``)
        self.converted_pointers: dict[int, tuple[str, int]] = {}  # built-ins' pointers converted (Program's)
        self.typed_calls: dict[int, str] = {}  # the as_/convert_ built-in each typed built-in calls (frontend's)
        self.shuffles: dict[int, tuple[int, ...]] = {}  # each __builtin_shufflevector's indices (Program's)
        self.nested_labels: set[int] = set()  # switch labels inside nested statements of its body (Program's)
        self.whole_items: set[int] = set()  # initializer items that are whole structs (Program.whole_items)
        self.sizes: dict[int, int] = self.types.sizes  # sizeof/_Alignof of an expression (Program.sizes)
        self.arithmetic_types: dict[int, TypeInfo] = {}  # of each + - * (Program.arithmetic_types)
        self.hinted = False  # a loop hint was checked (``loop_hints.strip``)
        self.list_lengths: dict[int, int] = {}  # arrays of unknown length sized by their lists (Program.list_lengths)
        self.unevaluated = 0  # the depth of operands never evaluated (``ExpressionChecks.unevaluated_expr``)
        self.unloaded: set[int] = set()  # operands of & and sizeof: not read (ExpressionChecks.loaded_half)
        self.overloads: dict[str, list[_Function]] = {}  # overloadable functions by their name (check_decls.overload)
        self.struct_names: dict[str, str] = {}  # tag of an anonymous struct -> the typedef that names it

    # -- diagnostics
    def alignments(self, attributes: list[c_ast.Node]) -> None:
        """Clang's error for an ``aligned(N)`` attribute whose N is not a power of 2."""
        for e in attributes:
            if not (isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID) and e.args is not None):
                continue
            if e.name.name in ("aligned", "__aligned__") and len(e.args.exprs) == 1:
                value = self.constant(e.args.exprs[0])
                if value is not None and (value <= 0 or value & (value - 1)):
                    self.error(e, "requested alignment is not a power of 2")

    def flexible(self, record: c_ast.Struct | c_ast.Union, member: c_ast.Decl, last: bool, alone: bool) -> None:
        """Clang's errors for a flexible array member (``int a[];``) that is not the last of a struct with others."""
        name = member.name
        if isinstance(record, c_ast.Union):
            self.error(member, f"flexible array member '{name}' in a union is not allowed")
        elif not last:
            t = self.types.resolve(member.type)
            self.error(member, f"flexible array member '{name}' with type '{t}' is not at the end of struct")
        elif alone:
            self.error(member, f"flexible array member '{name}' not allowed in otherwise empty struct")

    def uses_images(self, what: str) -> None:
        """The function being checked uses images or samplers (``what``, for the message): noted, the first."""
        if self.caller is not None and not self.caller.images:
            self.caller.images = what

    def refuse_image_kernels(self) -> None:
        """Mark each kernel that uses images, itself or through the functions it calls, as one the simulator
        cannot run (``KernelInfo.unsupported``, naming where)."""
        for name, info in self.kernels.items():
            seen, queue = {name}, [self.functions[name]]
            while queue:
                fn = queue.pop()
                if fn.images:
                    where = "" if fn.name == name else f" in '{fn.shown}'"
                    info.unsupported = f"kernel '{name}': {images.UNSUPPORTED} ({fn.images}{where})"
                    break
                for callee, _ in fn.calls:
                    called = self.functions.get(callee)
                    if called is not None and callee not in seen:
                        seen.add(callee)
                        queue.append(called)

    def error(self, node: c_ast.Node | None, message: str) -> None:
        line, column = _coord_of(_named(node))
        self.diagnostics.append(Diagnostic(self.filename, line, column, message))

    def errors_since(self, seen: int) -> bool:
        """Whether an error was reported after the first ``seen`` diagnostics."""
        return any(d.severity == "error" for d in self.diagnostics[seen:])

    def warning(self, node: c_ast.Node, message: str, analysis: bool = False) -> None:
        """A diagnostic that does not stop the build (``-Werror`` makes it one that does, ``-w`` drops it);
        ``analysis``: one of Clang's control-flow analysis (``Diagnostic.analysis``)."""
        line, column = _coord_of(_named(node))
        self.diagnostics.append(Diagnostic(self.filename, line, column, message, "warning", analysis=analysis))

    def runtime_warning(self, node: c_ast.Node, message: str) -> None:
        """A warning about what the code would do when it runs (a division by a constant zero, a constant index
        out of an array), which Clang gives once the function around it is checked (its ``DiagRuntimeBehavior``):
        held until then, given at once outside a function, never for an operand that is not evaluated."""
        if self.unevaluated:
            return
        if self.caller is None:
            self.warning(node, message)
        else:
            self.held_warnings.append((node, message))

    def give_held_warnings(self, body: c_ast.Node) -> None:
        """The function whose ``body`` this is was checked: its ``runtime_warning``s, placed in the log after its
        last token, in the order they were found."""
        if not self.held_warnings:
            return
        placed = [n.coord for n in ast_nodes(body) if getattr(n, "coord", None) is not None and n.coord.line]
        end = max(((c.line, c.column or 0) for c in placed), default=(0, 0))
        for at, message in self.held_warnings:
            line, column = _coord_of(at)
            after = (end[0], end[1] + 1)
            self.diagnostics.append(Diagnostic(self.filename, line, column, message, "warning", after=after))
        self.held_warnings.clear()

    # -- the translation unit
    def run(self, ast: c_ast.FileAST) -> None:
        items = [n for n in ast.ext if _coord_of(n)[0] is None or getattr(n.coord, "file", None) != BUILTIN_FILE]
        ast.ext = items
        records = _records(items)  # (one walk of the whole tree: a 2.4 MB source's takes 0.4 s)
        for record in records:  # (a pragma the preprocessor left in: ``FP_CONTRACT``, no member)
            for pragma in [m for m in record.decls if isinstance(m, c_ast.Pragma)]:
                self.misplaced_pragma(pragma, "struct declaration")
            record.decls = [m for m in record.decls if not isinstance(m, c_ast.Pragma)]
        self.storage_classes(items)
        defined: set[tuple[str, str]] = set()  # file-scope struct and union tags (a block's may shadow one)
        for record in _records([n.decl if isinstance(n, c_ast.FuncDef) else n for n in items]):
            tag = (type(record).__name__, record.name)
            if record.name is not None and tag in defined:
                self.error(record, f"redefinition of '{record.name}'")
            defined.add(tag)
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
        for record in records:  # OpenCL C 1.2 6.9 c
            names: set[str] = set()
            attrib = getattr(record, "attrib", None)
            self.alignments(attrib.exprlist.exprs if attrib is not None and attrib.exprlist is not None else [])
            members = [m for m in record.decls or [] if isinstance(m, c_ast.Decl)]
            for k, member in enumerate(members):
                self.alignments(member_attributes(member))
                if isinstance(member.type, c_ast.ArrayDecl) and member.type.dim is None:  # C99 6.7.2.1p16
                    self.flexible(record, member, k == len(members) - 1, len(members) == 1)
                member_type = self.types.resolve(member.type)
                if member_type.name in images.IMAGE_TYPES or member_type.name == images.SAMPLER:
                    what = f"the '{member_type.name}' type"
                    self.error(member, f"{what} cannot be used to declare a structure or union field")
                if _qualified_by_a_space(member.type, self.types):  # (OpenCL C 1.2 6.5: no member has one)
                    self.error(member, "field may not be qualified with an address space")
                if member.bitsize is not None:
                    self.error(member, "bit-fields are not supported in OpenCL")  # (Clang's words)
                if member.name is not None and member.name in names:
                    self.error(member, f"duplicate member '{member.name}'")
                names.add(member.name)
                if _holds_itself(record, member.type):
                    word = "struct" if isinstance(record, c_ast.Struct) else "union"
                    self.error(member, f"field has incomplete type '{word} {record.name}'")
        for name, node in self.used_undefined:
            fn = self.functions.get(name)
            if fn is not None and fn.node is None:
                self.error(node, f"function '{fn.shown}' is declared but never defined")
        self.check_recursion()
        self.refuse_image_kernels()
        self.vec_type_hints()
        for node in items if self.hinted else ():
            loop_hints.strip(node)

    def vec_type_hints(self) -> None:
        """The type of each ``vec_type_hint`` (OpenCL C 1.2 6.7.2) is a built-in scalar or vector type of the
        vectorizable kinds (not ``bool``, ``void``, a pointer, a struct or an opaque type), or Clang's error."""
        for line, at, column, text in self.type_hints:
            words = text.replace("*", " ").split()
            t = self.types.resolve(c_ast.IdentifierType(words)) if words[0] not in ("struct", "union", "enum") else None
            if t is not None and t.kind == "unknown":
                self.diagnostics.append(Diagnostic(self.filename, line, column, f"unknown type name '{words[-1]}'"))
            elif "*" in text or t is None or t.kind not in ("scalar", "vector") or t.name in ("bool", "void"):
                message = "a non-vector or non-vectorizable scalar type is an invalid argument to attribute "
                self.diagnostics.append(Diagnostic(self.filename, line, at, message + "'vec_type_hint'"))
