"""A shell command line read as its steps: the simple commands it runs, where, and what they name.

`cd src && FOO=1 uv run pytest -q tests/a.py 2>&1 | tail -5` is three steps: `cd src`; `pytest -q
tests/a.py` in `src` (its program `pytest`, past the assignment and the runner); `tail -5`, after a
pipe. Quotes are removed from words, a here-document's body is no step, a redirection's target is a
file the step writes (`> f`, `>> f`) or reads (`< f`), never an argument.

Pure and total: any string gives a list (an unclosed quote runs to the end of the line).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

# a runner before the program it runs (`sudo make`, `uv run pytest`, `npx tsc`); its verb, if any, follows it
_RUNNERS = frozenset(
    {"sudo", "env", "time", "nice", "exec", "command", "nohup", "timeout", "stdbuf", "caffeinate"}
    | {"uv", "uvx", "poetry", "pdm", "hatch", "pipenv", "rye", "npx", "pnpx", "bunx", "bundle", "rtk"}
)
_RUNNER_VERBS = frozenset({"run", "exec", "x", "dlx", "tool"})
_RUNNER_VALUES = {  # a runner's flags that take a value (`sudo -u postgres psql`: the program is psql)
    "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group"},
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "nice": {"-n", "--adjustment"},
    "env": {"-u", "-C", "--unset", "--chdir", "-S"},
    "uv": {"--with", "--python", "-p", "--directory", "--project", "--from"},
    "npx": {"-p", "--package"},
}
# flags that name the folder a program runs in (`grep -C 3` is no folder: by program)
_FOLDER_FLAGS = {
    "git": {"-C"},
    "make": {"-C", "--directory"},
    "gmake": {"-C", "--directory"},
    "ninja": {"-C"},
    "go": {"-C"},
    "tar": {"-C", "--directory"},
    "npm": {"--prefix"},
    "pnpm": {"-C", "--dir"},
    "yarn": {"--cwd"},
    "bun": {"--cwd"},
}
_OPERATORS = ("&&", "||", "|&", ";;", "|", ";", "&", "\n", "(", ")")
_REDIRECT = re.compile(r"^(?:\d*|&)(>>?|>\||<|>&|<>)(.*)$")
_OPERATOR_MARK = "\x00"  # before a redirection the line wrote (a quoted '>' is a word like any other)
_HEREDOC_BODY = re.compile(r"<<-?\s*(['\"]?)(\w+)\1([^\n]*)\n.*?(?:^[ \t]*\2[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
_HERESTRING = re.compile(r"<<<\s*(?:'[^']*'|\"[^\"]*\"|\S+)")
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_VERSION = re.compile(r"[\d.]+$")


@dataclass(frozen=True)
class Step:
    """One simple command of a command line."""

    words: tuple[str, ...]  # as written, quotes removed, redirections out (assignments and runners kept)
    program: str  # the file name of the program run, past assignments, runners and `python -m`
    args: tuple[str, ...]  # the words after the program
    folder: str  # where it runs relative to where the line started ('' there), by the `cd`s before it
    after: str  # the operator before it: '' for the first step, '&&', '||', ';', '|', '&'
    writes: tuple[str, ...] = ()  # files it writes by redirection
    reads: tuple[str, ...] = ()  # files it reads by redirection
    env: tuple[str, ...] = ()  # the `VAR=value` assignments before it
    given: tuple[str, ...] = ()  # the words after the program as written, a folder flag (`-C dir`) kept

    @property
    def family(self) -> str:
        """The program without a version (`python3.12` -> `python`, `pip3` -> `pip`)."""
        return _VERSION.sub("", self.program) or self.program

    @property
    def operands(self) -> tuple[str, ...]:
        """The arguments that are not flags."""
        return tuple(word for word in self.args if not word.startswith("-"))

    @property
    def key(self) -> str:
        """What makes two steps the same run: the program's family and its first operand (a script run
        by an interpreter: the script and its first operand, `python3 app.py x` -> `app.py x`; a script
        given inline: the interpreter and its flag, `python3 -c '...'` -> `python -c`)."""
        operands = self.operands
        inner = self.inner()
        if inner is not None:  # `ssh host 'ls x'`, `bash -c 'make test'`: the command run is what it runs
            return f"{self.family} {inner.key}"
        if len(operands) > 1 and operands[0] == "run":  # `npm run build`, `mise run lint`: the task is the operand
            operands = operands[1:]
        inline = next((flag for flag in ("-c", "-e", "--eval") if flag in self.args), "")
        if self.family in INTERPRETERS and inline:  # a script given inline: the same program and flag
            return f"{self.family} {inline}"
        if self.family in INTERPRETERS and operands:
            return " ".join(operands[:2])
        return " ".join((self.family, *operands[:1]))

    def inner(self) -> Step | None:
        """The first step of the command line a step runs as its argument: a remote command
        (`ssh host 'cmd'`), a shell's `-c` text; None for any other step."""
        if self.family == "ssh" and len(self.operands) >= 2:
            line = " ".join(self.operands[1:])
        elif self.family in ("bash", "sh", "zsh", "dash") and "-c" in self.args[:-1]:
            line = self.args[self.args.index("-c") + 1]
        else:
            return None
        return next((step for step in steps(line) if step.program and step.program not in ("cd", "pushd")), None)

    def said(self) -> str:
        """The step as a person would write it (words joined, quoted where needed)."""
        return " ".join(_quote(word) for word in self.words)


INTERPRETERS = frozenset({"python", "node", "ruby", "perl", "bash", "sh", "zsh", "php", "deno", "bun", "Rscript"})


def steps(command: str) -> list[Step]:
    """The steps of a command line, in order (see the module doc)."""
    command = _HERESTRING.sub(" ", _HEREDOC_BODY.sub(r"\3", command))
    found: list[Step] = []
    folder = ""
    for operator, words in _pieces(command):
        if not words:
            continue
        step = _step(words, folder, operator)
        if step.program in ("cd", "pushd") and operator in ("", "&&", ";", "\n"):
            folder = _moved(folder, step.operands[0] if step.operands else "~")
        elif step.program == "popd":
            folder = ""
        found.append(step)
    return found


def resolve(base: str, folder: str, path: str) -> str:
    """`path` as an absolute path (when `base` is one) or a normalized relative one: `path` taken in
    `folder`, itself taken in `base`."""
    if not path:
        return ""
    if path.startswith(("/", "~", "$")):
        return posixpath.normpath(path) if path.startswith("/") else path
    joined = posixpath.join(base or "", folder or "", path)
    return posixpath.normpath(joined) if joined else path


def _moved(folder: str, target: str) -> str:
    if target.startswith(("/", "~", "$")) or target == "-":
        return target
    return posixpath.normpath(posixpath.join(folder, target)) if folder else posixpath.normpath(target)


def _step(raw: list[str], folder: str, operator: str) -> Step:
    words, writes, reads = _redirections(raw)
    env: list[str] = []
    rest = list(words)
    while rest and (rest[0].rsplit("/", 1)[-1] in _RUNNERS or _ASSIGNMENT.match(rest[0])):
        if _ASSIGNMENT.match(rest[0]):
            env.append(rest.pop(0))
            continue
        runner = rest.pop(0).rsplit("/", 1)[-1]
        while rest and rest[0].startswith("-"):  # a runner's own flags (`sudo -E`, `sudo -u postgres`)
            flag = rest.pop(0)
            if flag in _RUNNER_VALUES.get(runner, ()) and rest:
                rest.pop(0)
        if runner == "timeout" and rest and re.fullmatch(r"[\d.]+[smhd]?", rest[0]):
            rest.pop(0)
        if rest and rest[0] in _RUNNER_VERBS:
            rest.pop(0)
    program = rest[0].rsplit("/", 1)[-1] if rest else ""
    args = rest[1:]
    if _VERSION.sub("", program) == "python" and len(args) >= 2 and args[0] == "-m":
        program, args = args[1], args[2:]
    kept, folder = _in_folder(program, args, folder)
    return Step(tuple(words), program, kept, folder, operator, writes, reads, tuple(env), tuple(args))


def _redirections(raw: list[str]) -> tuple[list[str], tuple[str, ...], tuple[str, ...]]:
    """(the words, the files written, the files read): a redirection's target is no word."""
    words: list[str] = []
    writes: list[str] = []
    reads: list[str] = []
    position = 0
    while position < len(raw):
        word = raw[position]
        redirect = _REDIRECT.match(word[1:]) if word.startswith(_OPERATOR_MARK) else None
        if redirect is None:
            words.append(word)
            position += 1
            continue
        target = redirect.group(2)
        if not target and position + 1 < len(raw):
            position += 1
            target = raw[position]
        if target and not target.startswith("&") and not target.isdigit():
            (reads if redirect.group(1) == "<" else writes).append(target)
        position += 1
    return words, tuple(writes), tuple(reads)


def _in_folder(program: str, args: list[str], folder: str) -> tuple[tuple[str, ...], str]:
    """The arguments without a folder flag, and the folder it names (`git -C dir`: the program runs in dir)."""
    kept: list[str] = []
    flags = _FOLDER_FLAGS.get(program, set())
    position = 0
    while position < len(args):
        flag = args[position]
        value = flag.split("=", 1)[1] if flag.startswith("--") and "=" in flag else ""
        if flag.split("=", 1)[0] in flags and (value or position + 1 < len(args)):
            folder = _moved(folder, value or args[position + 1])
            position += 1 if value else 2
            continue
        kept.append(flag)
        position += 1
    return tuple(kept), folder


def _pieces(command: str) -> list[tuple[str, list[str]]]:
    """(the operator before it, its words) for each simple command of the line."""
    pieces: list[tuple[str, list[str]]] = []
    words: list[str] = []
    word: list[str] = []
    started = False  # a word has begun (an empty '' is a word)
    quoted = False  # a quote or an escape is part of it
    operator = ""
    position, length = 0, len(command)

    def end_word() -> None:
        nonlocal started, quoted
        if started:
            words.append("".join(word))
        word.clear()
        started = quoted = False

    while position < length:
        char = command[position]
        if char == "\\" and position + 1 < length:
            if command[position + 1] != "\n":
                word.append(command[position + 1])
                started = quoted = True
            position += 2
            continue
        if char == "'":
            close = command.find("'", position + 1)
            close = length if close < 0 else close
            word.append(command[position + 1 : close])
            started = quoted = True
            position = close + 1
            continue
        if char == '"':
            position, text = _double_quoted(command, position + 1)
            word.append(text)
            started = quoted = True
            continue
        if (char == "$" and command.startswith("$(", position)) or char == "`":
            position, text = _substitution(command, position)
            word.append(text)
            started = True
            continue
        if char == "#" and not started:
            newline = command.find("\n", position)
            position = length if newline < 0 else newline
            continue
        if char in " \t\r":
            end_word()
            position += 1
            continue
        if char in "<>" or (char == "&" and command.startswith("&>", position)):
            if not started or (word and all(c.isdigit() for c in word) and not quoted):  # `2>`, `>`, `&>`
                run = re.match(r"&?[<>]+[&|]?\d*-?", command[position:])
                assert run is not None
                word.insert(0, _OPERATOR_MARK)
                word.append(run.group(0))
                started = True
                position += len(run.group(0))
                end_word()
                continue
        matched = next((op for op in _OPERATORS if command.startswith(op, position)), None)
        if matched is not None:
            end_word()
            pieces.append((operator, words))
            words = []
            operator = matched if matched not in ("(", ")") else (";" if matched == ")" else operator)
            position += len(matched)
            continue
        word.append(char)
        started = True
        position += 1
    end_word()
    pieces.append((operator, words))
    return pieces


def _double_quoted(command: str, position: int) -> tuple[int, str]:
    text: list[str] = []
    while position < len(command):
        char = command[position]
        if char == "\\" and position + 1 < len(command) and command[position + 1] in '"\\$`':
            text.append(command[position + 1])
            position += 2
            continue
        if char == '"':
            return position + 1, "".join(text)
        if (char == "$" and command.startswith("$(", position)) or char == "`":
            position, inner = _substitution(command, position)
            text.append(inner)
            continue
        text.append(char)
        position += 1
    return position, "".join(text)


def _substitution(command: str, position: int) -> tuple[int, str]:
    """A `$(...)` or a backquoted command, kept as written (its end found by nesting, quotes skipped)."""
    if command[position] == "`":
        close = command.find("`", position + 1)
        close = len(command) - 1 if close < 0 else close
        return close + 1, command[position : close + 1]
    depth, index = 0, position + 1
    while index < len(command):
        char = command[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1, command[position : index + 1]
        elif char in "'\"":
            close = command.find(char, index + 1)
            index = len(command) if close < 0 else close
        index += 1
    return len(command), command[position:]


def _quote(word: str) -> str:
    if word and re.fullmatch(r"[\w@%+=:,./~^-]+", word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"
