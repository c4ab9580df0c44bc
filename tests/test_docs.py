"""The docs' examples run, and what they show of the commands and the API exists.

What it reads: the fenced code blocks of README.md and docs/**/*.md (not docs/spec/). Each test id is the file and
the line of the block (or of the shell line) it checks, so a failure says where to fix.

- ```python blocks: each runs in a fresh interpreter (this one, the repo's), cwd = the repo root, with a timeout
  and an environment without the caller's WIA_* variables (WIA_CACHE_DIR kept), so the example sees the defaults
  the docs describe unless it sets something itself.
- ```sh / ```bash / ```shell / ```console blocks (console: only the lines after "$ "; the others are output): each
  line that invokes one of the project's commands (wia, wia-sim, wia-conformance, python examples/...) runs, in
  order, and must exit 0. Plain file set-up lines of the same block (cp, sed, mkdir, touch) run before it; other
  lines (pytest, benchmarks, loops) are not the project's commands and are not run. Lines that are not run by
  rule are reported as skipped with the reason: `make` and `pip install`, a line that needs an OpenCL device this
  machine lacks, a `wia-conformance` run of the whole suite (30 s to minutes each: the suite's own CI runs it).
- Markers, HTML comments on the line(s) right above a fence (invisible in the rendered page):
    <!-- doc-test: skip (reason) -->             the block is a fragment, not runnable on its own
    <!-- doc-test: skip-line "TEXT" (reason) --> in a shell block, the lines containing TEXT are not run
    <!-- doc-test: env NAME=VALUE (reason) -->   set in the block's environment (e.g. WIA_SIM_NUMERICS=0)
    <!-- doc-test: tmp-cwd (reason) -->           a python block that writes files runs in an empty temporary
                                                  folder instead of the repo root
  Every skip is reported with its reason; an unknown directive, a marker that is not above a fence, or a skip-line
  that matches no line is a failure.
- Cheap static checks: every --flag shown for wia / wia-sim / wia-conformance (in a shell block or an inline code
  span that starts with the command) appears in that (sub)command's --help, and every `wia.<name>` in a python
  block or an inline code span is an attribute of wia_hal.

Test ids: a python block's is its file and fence line (README.md:30); a shell line's is its own file and line
(docs/conformance.md:20), so xdist spreads a block's lines, except in a block with file set-up lines, which runs as
one test named by its fence line. Slow ones: docs/conformance.md's `wia-conformance --backend sim --quick -q`
(about 13 s on an idle two-core machine) and its `-k "memory or events"` line (about 6 s); the others take 1-4 s.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(p for p in (ROOT / "docs").rglob("*.md") if "spec" not in p.parts)])
COMMANDS = ("wia", "wia-sim", "wia-conformance")
TIMEOUT_S = 180
SETUP = ("cp", "sed", "mkdir", "touch")  # shell lines of a block that prepare files for its commands

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(?P<body>.*?)\s*-->\s*$")
DIRECTIVE = re.compile(
    r'^(?:(?P<skip>skip)|(?P<tmp>tmp-cwd)|skip-line\s+"(?P<text>[^"]+)"|env\s+(?P<name>[A-Z_][A-Z0-9_]*)=(?P<value>\S*))'
    r"\s*(?:\((?P<reason>.+)\))?$"
)
INLINE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
WIA_NAME = re.compile(r"(?<![\w.])wia\.([A-Za-z_]\w*)")
ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence
    lang: str
    lines: list[str]  # the content, de-indented
    skip: str | None = None  # the reason, when the block is marked as a fragment
    skip_lines: dict[str, str] = field(default_factory=dict)  # TEXT -> reason
    env: dict[str, str] = field(default_factory=dict)
    tmp_cwd: bool = False  # run in an empty temporary folder (the block writes files)
    problems: list[str] = field(default_factory=list)  # malformed markers

    @property
    def where(self) -> str:
        return f"{rel(self.path)}:{self.line}"

    @property
    def kind(self) -> str:
        lang = self.lang.lower()
        if lang in ("python", "py"):
            return "python"
        if lang in ("sh", "bash", "shell", "console"):
            return "shell"
        return "other"


@dataclass
class Doc:
    path: Path
    blocks: list[Block]
    inline: list[tuple[int, str]]  # (line, text of an inline code span outside fences)
    problems: list[str]


@functools.cache
def parse(path: Path) -> Doc:
    text = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    inline: list[tuple[int, str]] = []
    problems: list[str] = []
    markers: list[tuple[int, str]] = []  # pending, right above the next line
    prose = [""] * len(text)  # the lines outside fences (the others blank, so offsets keep their line)
    i = 0
    while i < len(text):
        line = text[i]
        number = i + 1
        if m := MARKER.match(line):
            markers.append((number, m.group("body")))
            i += 1
            continue
        fence = FENCE.match(line)
        if fence:
            indent, mark = len(fence.group("indent")), fence.group("fence")
            body: list[str] = []
            i += 1
            while i < len(text) and not re.match(rf"^\s*{re.escape(mark[0])}{{{len(mark)},}}\s*$", text[i]):
                body.append(text[i][indent:] if text[i][:indent].strip() == "" else text[i].lstrip())
                i += 1
            block = Block(path, number, fence.group("lang"), body)
            for at, directive in markers:
                d = DIRECTIVE.match(directive)
                if d is None:
                    block.problems.append(f"{rel(path)}:{at}: unknown doc-test directive {directive!r}")
                elif d.group("skip"):
                    block.skip = d.group("reason") or "(no reason given)"
                elif d.group("tmp"):
                    block.tmp_cwd = True
                elif d.group("text"):
                    block.skip_lines[d.group("text")] = d.group("reason") or "(no reason given)"
                else:
                    block.env[d.group("name")] = d.group("value")
                if d is not None and (d.group("skip") or d.group("text")) and not d.group("reason"):
                    block.problems.append(f"{rel(path)}:{at}: a doc-test skip needs a reason in parentheses")
            markers = []
            blocks.append(block)
            i += 1
            continue
        if markers and line.strip():
            problems += [f"{rel(path)}:{at}: doc-test marker not right above a fence" for at, _ in markers]
            markers = []
        prose[i] = line
        i += 1
    problems += [f"{rel(path)}:{at}: doc-test marker not right above a fence" for at, _ in markers]
    joined = "\n".join(prose)  # inline code may wrap onto the next line
    for m in INLINE.finditer(joined):
        inline.append((joined.count("\n", 0, m.start()) + 1, " ".join(m.group(1).split())))
    return Doc(path, blocks, inline, problems)


# -- shell lines ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShellLine:
    block: Block
    line: int  # in the file
    text: str

    @property
    def where(self) -> str:
        return f"{rel(self.block.path)}:{self.line}"


def shell_lines(block: Block) -> list[ShellLine]:
    """The block's command lines, continuations (a trailing backslash, an open quote) joined; for console blocks only
    those after '$ '."""
    lines: list[ShellLine] = []
    pending: tuple[int, str] | None = None
    for k, raw in enumerate(block.lines):
        number = block.line + 1 + k
        if block.lang == "console":
            if pending is None and not raw.lstrip().startswith("$ "):
                continue  # output
            raw = raw.lstrip()[2:] if pending is None else raw
        if pending is not None:
            start, text = pending
            text += raw.strip() if text.endswith("\n") else " " + raw.strip()
        else:
            start, text = number, raw.strip()
        if text.endswith("\\"):
            pending = (start, text[:-1])
            continue
        if not text.startswith("#") and open_quote(text) and k + 1 < len(block.lines):
            pending = (start, text + "\n")  # a quoted string goes on: the newline is part of it
            continue
        pending = None
        if text and not text.startswith("#"):
            lines.append(ShellLine(block, start, text))
    return lines


def open_quote(text: str) -> bool:
    """Whether the line ends inside a quoted string (as bash reads it)."""
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return True
    return False


def words(text: str) -> list[str]:
    """The line's words without its comment; what comes after env assignments first."""
    try:
        tokens = shlex.split(text, comments=True)
    except ValueError:
        tokens = text.split("#", 1)[0].split()
    return tokens


def command_of(tokens: list[str]) -> tuple[list[str], list[str]]:
    """(env assignments, the command's words)."""
    k = 0
    while k < len(tokens) and ASSIGNMENT.match(tokens[k]):
        k += 1
    return tokens[:k], tokens[k:]


def is_project_command(tokens: list[str]) -> bool:
    _, cmd = command_of(tokens)
    if not cmd:
        return False
    if cmd[0] in COMMANDS:
        return True
    return cmd[0] in ("python", "python3") and len(cmd) > 1 and cmd[1].startswith("examples/")


@functools.cache
def opencl_devices() -> tuple[str, ...]:
    """'platform / device' of every OpenCL device here, lowercased; () without PyOpenCL or devices."""
    try:
        import pyopencl as cl

        return tuple(f"{p.name} / {d.name}".lower() for p in cl.get_platforms() for d in p.get_devices())
    except Exception:
        return ()


def uninstalled_command(cmd: list[str]) -> str | None:
    """Why a `wia-sim` subcommand of another package cannot run here (its ``wia_sim.commands`` entry point is not
    in the installed metadata until the project is reinstalled), or None."""
    if cmd[:1] != ["wia-sim"] or len(cmd) < 2:
        return None
    from wia_sim.cli import COMMANDS_GROUP, EXPECTED_COMMANDS

    name = cmd[1]
    installed = {e.name for e in importlib.metadata.entry_points(group=COMMANDS_GROUP)}
    if name in EXPECTED_COMMANDS and name not in installed:
        return f"needs the {COMMANDS_GROUP} entry point {name!r}, not installed here (pip install -e . registers it)"
    return None


def rule_skip(tokens: list[str]) -> str | None:
    """Why a project command line is not run by rule, or None."""
    env, cmd = command_of(tokens)
    if uninstalled_command(cmd) is not None:
        return uninstalled_command(cmd)
    if cmd[:1] == ["make"]:
        return "make targets set up the virtualenv and run everything; not run by the doc test"
    if "pip" in cmd[:3] and "install" in cmd:
        return "installs packages; not run by the doc test"
    if not is_project_command(tokens):
        return None
    words_ = env + cmd
    opencl = any(
        w in ("WIA_BACKEND=opencl", "--backend=opencl") or (w == "--backend" and nxt == "opencl")
        for w, nxt in zip(words_, [*words_[1:], ""], strict=True)
    )
    if opencl:
        wanted = [w.split("=", 1)[1] for w in words_ if w.startswith(("WIA_OPENCL_DEVICE=", "device="))]
        found = opencl_devices()
        if not found:
            return "needs an OpenCL device (PyOpenCL and a platform); none here"
        for name in wanted:
            if not re.fullmatch(r"\d+:\d+", name) and not any(name.lower() in d for d in found):
                return f"needs the OpenCL device {name!r}; here: {', '.join(found)}"
    if cmd[0] == "wia-conformance" and cmd[1:2] not in (["coverage"], ["report"]):
        ours = cmd[1 : cmd.index("--")] if "--" in cmd else cmd[1:]
        narrowed = {"--quick", "--select", "-k", "-h", "--help"} & {w.split("=", 1)[0] for w in ours}
        positional = _conformance_tests(ours)
        if not narrowed and not positional:
            return "runs the whole conformance suite (30 s to minutes); the suite's own CI runs it"
    return None


def _conformance_tests(args: list[str]) -> list[str]:
    with_value = {"--backend", "--backend-module", "--option", "--select", "--skip-file", "-k"}
    with_value |= {"--hypothesis-seed", "--json", "--markdown", "--junitxml"}
    out, skip_next = [], False
    for a in args:
        if skip_next:
            skip_next = False
        elif a in with_value:
            skip_next = True
        elif a != "run" and not a.startswith("-"):
            out.append(a)
    return out


def _blocks(kind: str) -> list[Block]:
    return [b for p in DOCS for b in parse(p).blocks if b.kind == kind]


def _shell_cases() -> list[object]:
    cases: list[object] = []
    for block in _blocks("shell"):
        if block.skip is not None:
            skip = pytest.mark.skip(reason=f"{block.where}: {block.skip} (marked)")
            cases.append(pytest.param(block, (), id=block.where, marks=skip))
            continue
        runnable = [s.line for s in shell_lines(block) if is_project_command(words(s.text)) and line_skip(s) is None]
        if any(is_setup(s) for s in shell_lines(block)):  # its lines depend on each other: one test, in order
            cases.append(pytest.param(block, tuple(runnable), id=block.where))
        else:  # one test per line, which xdist spreads
            cases += [pytest.param(block, (n,), id=f"{rel(block.path)}:{n}") for n in runnable]
    return cases


def is_setup(s: ShellLine) -> bool:
    return command_of(words(s.text))[1][:1] in [[c] for c in SETUP]


def _skipped_line_cases() -> list[object]:
    cases: list[object] = []
    for block in _blocks("shell"):
        if block.skip is not None:
            continue
        for s in shell_lines(block):
            reason = line_skip(s)
            if reason is not None:
                cases.append(pytest.param(s, id=s.where, marks=pytest.mark.skip(reason=f"{s.where}: {reason}")))
    return cases


def line_skip(s: ShellLine) -> str | None:
    for text, reason in s.block.skip_lines.items():
        if text in s.text:
            return f"{s.text!r}: {reason} (marked)"
    rule = rule_skip(words(s.text))
    return None if rule is None else f"{s.text!r}: {rule}"


def doc_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WIA_", "PYTEST_")) or k == "WIA_CACHE_DIR"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # the repo's commands first
    env["MPLBACKEND"] = "Agg"
    env.update(extra)
    return env


def _tail(text: str, n: int = 25) -> str:
    return "\n".join(text.rstrip().splitlines()[-n:])


@pytest.mark.parametrize(("block", "lines"), _shell_cases())
def test_shell(block: Block, lines: tuple[int, ...]) -> None:
    """The shell lines run (after the block's file set-up lines, in the block's order) and exit 0."""
    failures: list[str] = []
    ran = 0
    for s in shell_lines(block):
        setup = is_setup(s)
        if not setup and s.line not in lines:
            continue
        try:
            done = subprocess.run(
                ["bash", "-c", s.text],
                cwd=ROOT,
                env=doc_env(block.env),
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            failures.append(f"{s.where}: `{s.text}` ran past {TIMEOUT_S} s")
            continue
        ran += not setup
        if done.returncode != 0:
            failures.append(
                f"{s.where}: `{s.text}` exited {done.returncode}\n"
                f"--- stdout (end)\n{_tail(done.stdout)}\n--- stderr (end)\n{_tail(done.stderr)}"
            )
    assert not failures, "\n\n".join(failures)
    assert ran


@pytest.mark.parametrize("line", _skipped_line_cases())
def test_shell_line_skipped(line: ShellLine) -> None:
    """Never runs: one skipped id per shell line the doc test does not run, with its reason."""


def _python_cases() -> list[object]:
    cases: list[object] = []
    for block in _blocks("python"):
        marks = [pytest.mark.skip(reason=f"{block.where}: {block.skip} (marked)")] if block.skip is not None else []
        cases.append(pytest.param(block, id=block.where, marks=marks))
    return cases


@pytest.mark.parametrize("block", _python_cases())
def test_python_block(block: Block, tmp_path: Path) -> None:
    """The block runs as pasted into a fresh interpreter at the repo root."""
    script = tmp_path / "doc" / f"{block.path.stem}_{block.line}.py"
    script.parent.mkdir()
    script.write_text("\n".join(block.lines) + "\n", encoding="utf-8")
    try:
        done = subprocess.run(
            [sys.executable, str(script)],
            cwd=tmp_path if block.tmp_cwd else ROOT,
            env=doc_env(block.env),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{block.where}: ran past {TIMEOUT_S} s")
    if done.returncode != 0:
        lines = [int(n) for n in re.findall(rf'File "{re.escape(str(script))}", line (\d+)', done.stderr)]
        at = f" (block line {lines[-1]} is {rel(block.path)}:{block.line + lines[-1]})" if lines else ""
        pytest.fail(f"{block.where}: exited {done.returncode}{at}\n{_tail(done.stderr)}", pytrace=False)


# -- static checks --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", DOCS, ids=rel)
def test_markers_are_well_formed(path: Path) -> None:
    doc = parse(path)
    problems = doc.problems + [p for b in doc.blocks for p in b.problems]
    problems += [
        f"{b.where}: skip-line markers are for shell blocks ({b.lang or 'untagged'} here)"
        for b in doc.blocks
        if b.skip_lines and b.kind != "shell"
    ]
    problems += [
        f"{b.where}: skip-line {text!r} matches no line of the block"
        for b in doc.blocks
        if b.kind == "shell"
        for text in b.skip_lines
        if not any(text in s.text for s in shell_lines(b))
    ]
    assert not problems, "\n".join(problems)


@functools.cache
def help_text(path: tuple[str, ...]) -> str:
    """`path --help` of one of the project's commands, run in-process through its console-script entry point."""
    (entry,) = (e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == path[0])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
        entry.load()([*path[1:], "--help"])
    return out.getvalue()


def help_flags(path: tuple[str, ...]) -> dict[str, bool]:
    """The flags of `path --help`, each with whether it takes a value."""
    flags: dict[str, bool] = {}
    for m in re.finditer(r"(?<![\w-])(--?[A-Za-z][\w-]*)(?:[ =](\{[^}]*\}|[A-Z][A-Z0-9_:=.-]*\b))?", help_text(path)):
        flags[m.group(1)] = flags.get(m.group(1), False) or bool(m.group(2))
    return flags


def is_subcommand(path: tuple[str, ...], word: str) -> bool:
    """Whether `word` names a subcommand of `path`: listed in its help (argparse's {a,b} or 'path word'), and its
    own --help says so (never asked of a word that could be a script's name: that would run the script)."""
    text = help_text(path)
    listed = {w for choices in re.findall(r"\{([\w,-]+)\}", text) for w in choices.split(",")}
    listed |= set(re.findall(rf"'{re.escape(' '.join(path))} ([\w-]+)", text))
    return word in listed and help_text((*path, word)).startswith(f"usage: {' '.join((*path, word))} ")


def bad_flags(tokens: list[str]) -> list[str]:
    """The --flags of a project command line that its (sub)command's --help does not show."""
    _, cmd = command_of(tokens)
    if not cmd or cmd[0] not in COMMANDS or uninstalled_command(cmd) is not None:
        return []
    path: tuple[str, ...] = (cmd[0],)
    bad: list[str] = []
    descend, expect_value = True, False
    for raw in cmd[1:]:
        word = raw.strip("[]()|.")
        if word == "--":
            break  # what follows goes elsewhere (pytest)
        if not word:
            continue
        if expect_value:
            expect_value = False
            continue
        if word.startswith("--"):
            flag = word.split("=", 1)[0]
            flags = help_flags(path)
            if flag not in flags:
                bad.append(f"{flag} (not in `{' '.join(path)} --help`)")
            expect_value = flags.get(flag, False) and "=" not in word
        elif word.startswith("-"):
            expect_value = help_flags(path).get(word[:2], False) and len(word) == 2
        elif descend and re.fullmatch(r"[a-z][\w-]*", word) and is_subcommand(path, word):
            path = (*path, word)
        else:
            descend = False
            if takes_remainder(path):
                break  # `script ...`: the rest is the script's
    return bad


def takes_remainder(path: tuple[str, ...]) -> bool:
    """Whether the usage ends in `NAME ...` (argparse's REMAINDER: words after the positional are not ours)."""
    usage = help_text(path).split("\n\n", 1)[0]
    return re.search(r"\s[a-z_]+ \.\.\.\s*$", usage) is not None


@pytest.mark.parametrize("path", DOCS, ids=rel)
def test_flags_exist(path: Path) -> None:
    """Every --flag a doc shows for wia, wia-sim or wia-conformance is in that command's --help."""
    doc = parse(path)
    shown: list[tuple[int, str]] = list(doc.inline)
    for block in doc.blocks:
        if block.kind == "shell":
            shown += [(s.line, s.text) for s in shell_lines(block)]
    problems = [f"{rel(path)}:{line}: `{text}`: {flag}" for line, text in shown for flag in bad_flags(words(text))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", DOCS, ids=rel)
def test_wia_names_exist(path: Path) -> None:
    """Every `wia.<name>` of a python block or an inline code span is an attribute of wia_hal."""
    import wia_hal

    doc = parse(path)
    shown = list(doc.inline)
    for block in doc.blocks:
        if block.kind == "python":
            shown += [(block.line + 1 + k, text) for k, text in enumerate(block.lines)]
    missing = [
        f"{rel(path)}:{line}: wia.{name}"
        for line, text in shown
        for name in WIA_NAME.findall(text)
        if not hasattr(wia_hal, name)
    ]
    assert not missing, "not in wia_hal:\n" + "\n".join(missing)


@pytest.mark.parametrize("doc", ["docs/architecture.md", "docs/backend.md"])
def test_every_hook_is_documented(doc: str) -> None:
    """The protocol's docs name every hook of wia_hal.Backend (a new hook needs a line there)."""
    from wia_hal.backend import Backend

    hooks = [n for n in (*Backend.__annotations__, *vars(Backend)) if not n.startswith("_")]
    text = (ROOT / doc).read_text(encoding="utf-8")
    missing = sorted({h for h in hooks if not re.search(rf"`{h}\b", text)})
    assert not missing, f"{doc} does not name these hooks of wia_hal.Backend: {missing}"
