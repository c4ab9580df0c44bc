"""The checker's statements: blocks and their scopes, loops, ``break``/``continue``, ``switch`` with its
labels, ``return``, GNU statement expressions, and what the executor does not run (inline assembly). Where a
``goto`` may jump to is ``jumps.py``'s.
"""

from __future__ import annotations

from pycparser import c_ast
from pycparser.c_parser import Coord
from pycparserext.ext_c_parser import Asm, RangeExpression

from wia_sim.kernels.check_state import OVERLOADED_TYPE, CheckerState, _Context, _coord_of, _ctype, _Switch
from wia_sim.kernels.clang_attributes import KNOWN, normalized
from wia_sim.kernels.ctype import CType, promoted, wrap
from wia_sim.kernels.grammar import StatementAttributes
from wia_sim.kernels.jumps import jumps_out, value_item
from wia_sim.kernels.loop_hints import LoopHint, is_hint, loop_hint
from wia_sim.kernels.parsing import ast_nodes
from wia_sim.kernels.preprocess import Diagnostic
from wia_sim.kernels.types import FLOATS, UNKNOWN, VOID, TypeInfo, const_int

__all__ = ["StatementChecks"]


class StatementChecks(CheckerState):
    """The statement rules of ``Checker``, named as the executor's visitors (``statement``, ``substatement``)."""

    # -- statements
    def compound(self, node: c_ast.Compound, ctx: _Context, new_scope: bool = True) -> None:
        if new_scope:
            self.scopes.append({})
        types = self.types  # a typedef inside the block holds to its end (``local_typedef``)
        saved = dict(types.typedefs), dict(types.aliases), set(types.vector_typedefs), dict(types.spaced_typedefs)
        self.typedef_scopes.append(set())
        ctx.depth += 1
        items = node.block_items or []
        leading = True  # (a pragma before any other item of a block the source wrote: the parser's wrapper of
        # ``for (...) #pragma ... stmt`` starts at its pragma)
        if items and _coord_of(node) == _coord_of(items[0]):
            leading = False
        for k, item in enumerate(items):
            if isinstance(item, c_ast.Pragma):
                self.block_pragma(items, k, leading)
                continue
            leading = False
            self.statement(item, ctx)
            if isinstance(item, c_ast.For | c_ast.While):
                self.empty_loop_body(item, items[k + 1] if k + 1 < len(items) else None)
        ctx.depth -= 1
        self.typedef_scopes.pop()
        types.typedefs, types.aliases, types.vector_typedefs, types.spaced_typedefs = saved
        if new_scope:
            self.scopes.pop()

    def block_pragma(self, items: list[c_ast.Node], k: int, leading: bool) -> None:
        """The pragma ``items[k]`` of a block (or a statement expression): a loop hint (``loop_hint``), or
        ``FP_CONTRACT``, which may stand only where the block starts (``leading``)."""
        hint = loop_hint(items[k])
        if hint is not None:
            self.hinted = True
            self.loop_hint(hint, items[k + 1 :], after_hint=k > 0 and is_hint(items[k - 1]))
        elif not leading:
            self.misplaced_pragma(items[k])

    def loop_hint(self, hint: LoopHint, following: list[c_ast.Node], after_hint: bool) -> None:
        """Clang's checks of a loop hint (``loop_hints.py``): a count is an integer constant expression above zero;
        the ``#pragma`` hints a run of them gives are of different kinds, and a loop follows the run
        (``after_hint``: this hint is not the run's first)."""
        named = "'opencl_unroll_hint' attribute"
        count_text = None
        if hint.extra_column is not None:
            message = f"extra tokens at end of '#pragma {hint.word}' - ignored"
            self.diagnostics.append(Diagnostic(self.filename, hint.line, hint.extra_column, message, "warning"))
        if hint.ignored:
            return
        if hint.count is not None:
            t = self.expr_quiet(hint.count)
            value = self.constant(hint.count) if t.kind == "scalar" else None
            variable = any(isinstance(n, c_ast.ID) for n in ast_nodes(hint.count))
            problem = None
            if hint.attribute and (value is None or t.name in FLOATS):
                problem = f"{named} requires an integer constant"
            elif hint.attribute and value is not None and value <= 0:
                problem = f"{named} requires a positive integral compile time constant expression"
            elif t.kind == "scalar" and t.name in FLOATS:
                problem = f"invalid argument of type '{t.name}'; expected an integer type"
            elif value is None and variable:  # (a variable's: ``#pragma unroll n``)
                problem = "expression is not an integer constant expression"
            elif value is not None and value <= 0:
                problem = f"invalid value '{value}'; must be positive"
            if problem is not None:
                at = hint.column if hint.attribute else hint.count_column
                self.diagnostics.append(Diagnostic(self.filename, hint.line, at, problem))
            count_text = None if value is None else str(value)
        if after_hint:
            return
        run, after = [(hint, count_text)], None  # the run of hints this one starts, and what follows it
        for item in following:
            other = loop_hint(item) if isinstance(item, c_ast.Pragma) else None
            if other is None:
                after = item
                break
            if not other.ignored:  # (Clang drops it: the next item follows)
                value = self.constant(other.count) if other.count is not None else None
                run.append((other, None if value is None else str(value)))
        if isinstance(after, c_ast.For | c_ast.While | c_ast.DoWhile):  # one hint of each kind on the loop
            seen: dict[str, str] = {}
            for other, count in run:
                spelled = other.spelled(count)
                if other.category in seen and not other.attribute:
                    message = f"duplicate directives '{seen[other.category]}' and '{spelled}'"
                    self.diagnostics.append(Diagnostic(self.filename, other.line, other.column, message))
                seen[other.category] = spelled
            return
        if after is not None:  # a statement, each hint's error at it
            for other, _ in run:
                if other.attribute:
                    message = f"{named} only applies to 'for', 'while', and 'do' statements"
                    self.diagnostics.append(Diagnostic(self.filename, other.line, other.column, message))
                else:
                    self.error(after, f"expected a for, while, or do-while loop to follow '#pragma {other.word}'")
            return
        last = loop_hint(following[-1]) if following else None
        last = last or hint  # (the run's last pragma: the block's end follows it)
        brace = self.operator_marks.next_after(last.line) if last.line is not None and last.pragma_line else None
        line, column = brace if brace is not None else (last.line, last.column)  # (Clang: at the block's "}")
        self.diagnostics.append(Diagnostic(self.filename, line, column, "expected statement"))

    def misplaced_pragma(self, node: c_ast.Pragma, where: str = "") -> None:
        """Clang's error for ``#pragma OPENCL FP_CONTRACT`` (the only pragma the preprocessor leaves in the program)
        where it may not stand: anywhere but at file scope or at the start of a compound statement (``where``: in a
        struct declaration)."""
        line, column = _coord_of(node)
        at = node.string.find("FP_CONTRACT")
        if column is not None and at >= 0:
            column += at
        message = (
            f"this pragma cannot appear in {where}"
            if where
            else "'#pragma fp_contract' can only appear at file scope or at the start of a compound statement"
        )
        self.diagnostics.append(Diagnostic(self.filename, line, column, message))

    def expr_StatementExpression(self, node: c_ast.Compound) -> TypeInfo:
        """A GNU statement expression ``({ int t = x; t + 1; })`` (Clang takes it in OpenCL C; CLSmith's safe-math
        macros are made of them): its statements in a scope of their own, its value the last one's if that is an
        expression (else void). Jumps out of it (``return``, ``break``, ``continue``, ``goto``, a label) are not
        supported."""
        items = list(node.block_items or [])
        for jump, word in jumps_out(items):
            self.error(jump, f"'{word}' inside a statement expression is not supported")
            return UNKNOWN
        if self.caller is None:
            self.error(node, "statement expression not allowed at file scope")
            return UNKNOWN
        ctx = _Context(self.caller, depth=1)
        self.scopes.append({})
        try:
            leading = True
            for k, item in enumerate(items[:-1]):
                if isinstance(item, c_ast.Pragma):  # (a block's, as Clang has it)
                    self.block_pragma(items, k, leading)
                    continue
                leading = False
                self.statement(item, ctx)
            value = value_item(items)
            if value is None:
                self.statement(items[-1] if items else None, ctx)
                return VOID
            t = self.expr(value)
        finally:
            self.scopes.pop()
        if t.kind == "array" and t.target is not None:  # (an rvalue: an array decays)
            return TypeInfo("pointer", target=t.target)
        return t

    def statement(self, node: c_ast.Node | None, ctx: _Context) -> None:
        if node is None:
            return
        attributed = self.statement_attributes.get(id(node))
        if attributed is not None:
            self.attributed(attributed, ctx)
        if isinstance(node, c_ast.Compound):
            self.compound(node, ctx)
        elif isinstance(node, c_ast.Decl):
            self.local_decl(node, ctx)
        elif isinstance(node, c_ast.DeclList):
            for d in node.decls:
                self.local_decl(d, ctx)
        elif isinstance(node, c_ast.If):
            self.condition(node)
            self.empty_body(node)
            self.substatement(node.iftrue, ctx)
            self.substatement(node.iffalse, ctx)
        elif isinstance(node, c_ast.For):
            self.scopes.append({})
            if isinstance(node.init, c_ast.DeclList):
                for d in node.init.decls:
                    self.local_decl(d, ctx)
            elif node.init is not None:
                seen = len(self.diagnostics)
                self.expr(node.init)
                self.unused_result(node.init)
                self.unsequenced(node.init, seen)
            if node.cond is not None:
                self.condition(node)
            if node.next is not None:
                seen = len(self.diagnostics)
                self.expr(node.next)
                self.unused_result(node.next)
                self.unsequenced(node.next, seen)
            ctx.loops += 1
            self.substatement(node.stmt, ctx)
            ctx.loops -= 1
            self.scopes.pop()
        elif isinstance(node, c_ast.While | c_ast.DoWhile):
            if isinstance(node, c_ast.While):
                self.condition(node)
            ctx.loops += 1
            self.substatement(node.stmt, ctx)
            ctx.loops -= 1
            if isinstance(node, c_ast.DoWhile):  # (after its body, as Clang reads it)
                self.condition(node)
        elif isinstance(node, c_ast.Break):
            if ctx.loops == 0 and ctx.switch is None:
                self.error(node, "'break' statement not in loop or switch statement")
        elif isinstance(node, c_ast.Continue):
            if ctx.loops == 0:
                self.error(node, "'continue' statement not in loop statement")
        elif isinstance(node, c_ast.Return):
            self.return_statement(node, ctx)
        elif isinstance(node, c_ast.EmptyStatement):
            pass
        elif isinstance(node, c_ast.Pragma):  # (a compound's own: ``compound``; anywhere else, misplaced)
            self.misplaced_pragma(node)
        elif isinstance(node, c_ast.StaticAssert):
            self.static_assert(node)
        elif isinstance(node, c_ast.Goto):
            pass  # where it may jump to: jumps.py, over the whole body (``function_definition``)
        elif isinstance(node, c_ast.Label):
            self.statement(node.stmt, ctx)
        elif isinstance(node, c_ast.Switch):
            self.switch_statement(node, ctx)
        elif isinstance(node, c_ast.Case | c_ast.Default):
            self.nested_label(node, ctx)
        elif isinstance(node, c_ast.Typedef):
            self.local_typedef(node)
        elif isinstance(node, Asm):
            self.error(node, "inline assembly is not supported")
        elif isinstance(node, c_ast.FuncDef):
            self.error(node, "nested function definitions are not supported")
        else:
            seen = len(self.diagnostics)
            head = None if node.coord is None else (node.coord.line, node.coord.column)
            self.quiet = head in self.broken
            self.statement_head = head
            self.abandoned = None  # (one an initializer or a condition left: not this statement's)
            try:
                self.expr(node)
            finally:
                quiet, self.quiet = self.quiet, False
                self.statement_head = None
            self.abandon(seen)
            if not self.errors_since(seen) and not quiet:  # (an expression in error: nothing of its result)
                self.unused_result(node)
            self.unsequenced(node, seen)

    def abandon(self, seen: int) -> None:
        """Drop the errors after the place where Clang's parser gave up the statement (``abandoned``): it skipped
        the rest of it unchecked."""
        at, self.abandoned = self.abandoned, None
        if at is not None:
            kept = [d for d in self.diagnostics[seen:] if (d.line or 0, d.column or 0) <= at]
            del self.diagnostics[seen:]
            self.diagnostics.extend(kept)

    def substatement(self, node: c_ast.Node | None, ctx: _Context) -> None:
        if isinstance(node, c_ast.Compound):
            attributed = self.statement_attributes.get(id(node))
            if attributed is not None:  # (``for (...) __attribute__((...)) { ... }``)
                self.attributed(attributed, ctx)
            self.compound(node, ctx)
        else:
            self.scopes.append({})
            self.statement(node, ctx)
            self.scopes.pop()

    def condition(self, statement: c_ast.If | c_ast.For | c_ast.While | c_ast.DoWhile) -> None:
        """The condition of ``statement``: a scalar (Clang's error at the statement's keyword, the condition's
        value type named); an assignment with ``=`` in no parentheses of its own is Clang's warning."""
        seen = len(self.diagnostics)
        t = self.expr(statement.cond)
        cond = statement.cond
        bare = isinstance(cond, c_ast.Assignment) and cond.op == "="  # (Clang's -Wparentheses, on by default)
        if bare and self.operator_marks.get((id(cond), "parenthesized"), cond) is cond:
            self.warning(self.operator(cond), "using the result of an assignment as a condition without parentheses")
        if t.kind in ("struct", "void", "opaque", "vector"):
            shown = "'void'" if t.kind == "void" else self.operand_type(statement.cond, t)
            self.error(statement, f"statement requires expression of scalar type ({shown} invalid)")
        self.unsequenced(cond, seen)

    def switch_statement(self, node: c_ast.Switch, ctx: _Context) -> None:
        """The controlling expression, then the body: one scope, its ``case``/``default`` labels in it, directly
        (the parser gathers the statements after such a label into the label's ``stmts``) or inside its nested
        statements (``nested_label``)."""
        switch = _Switch(self.switch_type(node))
        body = node.stmt
        items = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
        self.scopes.append({})
        ctx.depth += 1
        outer, ctx.switch = ctx.switch, switch
        for item in items:
            if isinstance(item, c_ast.Case | c_ast.Default):
                self.switch_label(item, switch)
                for s in item.stmts or []:
                    self.statement(s, ctx)
            else:
                self.statement(item, ctx)
        ctx.switch = outer
        ctx.depth -= 1
        self.scopes.pop()

    def switch_type(self, node: c_ast.Switch) -> CType | None:
        """The promoted type of a switch's controlling expression (C99 6.8.4.2: an integer type); None after an
        error (Clang's at the ``switch``, the expression's type named as an object's) or where the type is not
        known."""
        seen = len(self.diagnostics)
        t = self.expr(node.cond)
        self.unsequenced(node.cond, seen)
        if t.kind == "unknown" or (t.kind == "scalar" and t.name == "?"):
            return None
        c = _ctype(t) if t.kind == "scalar" else None
        if c is None or c.kind == "float":
            shown = "'void'" if t.kind == "void" else self.clang_type(node.cond, t, as_value=True)
            self.error(node, f"statement requires expression of integer type ({shown} invalid)")
            return None
        return promoted(c)

    def attributed(self, found: StatementAttributes, ctx: _Context) -> None:
        """Clang's rules for GNU attributes before a statement (an unknown one is the front end's warning:
        ``clang_attributes``): ``fallthrough`` on an empty statement inside a switch, ``nomerge`` on one that
        calls, ``musttail`` on a ``return`` (Clang's rules for its call are not checked); ``noinline`` and
        ``always_inline`` are ignored with a warning, at the statement; any other attribute Clang knows is an
        error. The statement runs as written (none of them changes what it computes)."""
        statement = found.statement
        for attr in found.attributes:
            named = attr.name if isinstance(attr, c_ast.FuncCall) else attr
            if not isinstance(named, c_ast.ID) or normalized(named.name) not in KNOWN:
                continue
            written, name = named.name, normalized(named.name)
            if name == "fallthrough":
                if not isinstance(statement, c_ast.EmptyStatement):
                    self.error(attr, f"'{written}' attribute only applies to empty statements")
                elif ctx.switch is None:
                    self.error(attr, "fallthrough annotation is outside switch statement")
            elif name == "musttail":
                if not isinstance(statement, c_ast.Return):
                    self.error(attr, f"'{written}' attribute only applies to return statements")
            elif name == "nomerge":
                if not any(isinstance(n, c_ast.FuncCall) for n in ast_nodes(statement)):
                    why = "because there exists no call expression inside the statement"
                    self.ignored_attribute(named, found.start, f"'{written}' attribute is ignored {why}")
            elif name in ("noinline", "always_inline"):
                why = f"as it only applies to functions; use '[[clang::{name}]]' on statements"
                self.ignored_attribute(named, found.start, f"attribute is ignored on this statement {why}")
            else:
                self.error(attr, f"'{written}' attribute cannot be applied to a statement")

    def ignored_attribute(self, named: c_ast.ID, start: Coord, message: str) -> None:
        """Clang's warning that a statement's attribute is ignored: at the statement, in the log where the
        attribute stands (Clang judges a statement's attributes in their order, an unknown one's warning too)."""
        line, column = _coord_of(named)
        after = (line or 0, column or 0)
        self.diagnostics.append(Diagnostic(self.filename, start.line, start.column, message, "warning", after=after))

    def switch_label(self, node: c_ast.Case | c_ast.Default, switch: _Switch) -> None:
        """A label's rules, in Clang's words: a second ``default`` ("multiple default labels in one switch", at the
        first, as Clang places it), a value a label has already ("duplicate case value '1'", at the value)."""
        if isinstance(node, c_ast.Default):
            if switch.default is not None:
                self.error(switch.default, "multiple default labels in one switch")
            else:
                switch.default = node
            return
        bounds = []
        for e in (node.expr.first, node.expr.last) if isinstance(node.expr, RangeExpression) else (node.expr,):
            t = self.expr(e)
            value = const_int(e, self.enumerators, self.types)
            if value is None:
                if t.kind == "scalar" and t.name in FLOATS:
                    self.error(e, f"integer constant expression must have integer type, not '{t.type_name}'")
                else:  # at its first part that is no constant, as Clang places it
                    self.error(self.not_constant(e), "expression is not an integer constant expression")
                return
            # converted to the promoted type of the controlling expression
            bounds.append(wrap(value, switch.type) if switch.type is not None else value)
        low, high = bounds[0], bounds[-1]
        if low > high:  # (GNU's case range, Clang's warning: it matches nothing)
            self.warning(node, "empty case range specified")
            return
        clash = next((v for v in switch.cases if low <= v <= high), None)
        span = next(((a, b) for a, b in switch.ranges if a <= high and low <= b), None)
        at = node.expr.first if isinstance(node.expr, RangeExpression) else node.expr
        if clash is not None:
            self.error(at, f"duplicate case value '{clash}'")
        elif span is not None:
            self.error(at, f"duplicate case value '{max(low, span[0])}'")
        elif low == high:
            switch.cases.add(low)
        else:
            switch.ranges.add((low, high))

    def nested_label(self, node: c_ast.Case | c_ast.Default, ctx: _Context) -> None:
        """A ``case``/``default`` label that is not directly in a switch's body: inside one of its nested statements
        (a block, an if-statement, a loop: Duff's device), it is the innermost switch's, under the same rules."""
        if ctx.switch is None:
            word = "case" if isinstance(node, c_ast.Case) else "default"
            self.error(node, f"'{word}' statement not in switch statement")
            if isinstance(node, c_ast.Case):
                self.expr(node.expr)
        else:
            self.switch_label(node, ctx.switch)
            self.nested_labels.add(id(node))
        for s in node.stmts or []:
            self.statement(s, ctx)

    def not_constant(self, node: c_ast.Node) -> c_ast.Node:
        """The first part of ``node`` (in source order, innermost) that is no integer constant: where Clang's
        "expression is not an integer constant expression" stands (``case 1 + n:`` at the ``n``)."""
        for child in node:
            if const_int(child, self.enumerators, self.types) is None:
                return self.not_constant(child)
        return node

    def return_statement(self, node: c_ast.Return, ctx: _Context) -> None:
        fn = ctx.function
        seen = len(self.diagnostics)
        if node.expr is not None and self.overloaded_ref(node.expr) and fn.return_type.kind not in ("void", "unknown"):
            result = fn.node.decl.type.type if fn.node is not None else None
            self.report_store("incompatible", fn.return_type, UNKNOWN, node, result, None, False, OVERLOADED_TYPE)
            return
        self.abandoned = None
        t = self.expr(node.expr) if node.expr is not None else None
        self.unsequenced(node.expr, seen)
        if self.abandoned is not None:  # (Clang gave the statement up in its expression: no return to check)
            self.abandon(seen)
            return
        if fn.return_type.kind == "void":
            if node.expr is not None and t is not None and t.kind != "void":
                self.error(node, f"void function '{fn.shown}' should not return a value")
        elif node.expr is None:
            self.error(node, f"non-void function '{fn.shown}' should return a value")
        elif t is not None:
            result = fn.node.decl.type.type if fn.node is not None else None  # (the FuncDecl's result type node)
            self.check_assignment_types(fn.return_type, t, node, result)
