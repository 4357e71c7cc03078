"""Which later call recovered a failed one, and what was different: rules on the calls themselves.

A failed call is read for the part that failed and what it failed on (`lack`):

- the failing step of a shell command (`shell_steps`): the step whose program the error names
  (`cat: x: No such file`, `bash: line 1: cd: src: ...`; the `cd` when a program that stands in for
  it speaks: `zoxide: you are already in the only match`), else the one whose operands it names, else
  the Python step of a traceback, else the last step that is not a filter of a pipe (`| tail -5`);
  when a `cd` failed, the steps after it never ran: they are what the call was for;
- what the error says is missing: paths (`No such file or directory`, `does not exist`, `cannot
  access` ... with the path it names, or the file a read or edit tool was called on), modules (`No
  module named 'yaml'`, `Cannot find module 'x'`, `cannot load such file -- x` ...), programs (`foo:
  command not found`, `executable file not found`).

A later call that succeeded recovers it (`recovery`) when it

- supplies what was missing: creates the path (`mkdir`, `touch`, a redirection, `tee`, `cp`/`mv`/`ln`
  to it, `git clone`, `curl -o`, a write tool), installs the module or program (a package manager's
  install verb naming it, or naming nothing: `npm install`, `uv sync`, `pip install -r ...`);
- lists or reads inside a folder that the failed call read as a file (`cat: lint: Is a directory`,
  Read's `EISDIR`): `ls lint`, `cat lint/*`, a Glob in it;
- succeeds on the same target: a step with the failed step's program and first operand (or, for a
  script, the script: `python app.py` and `python3 app.py`), run from any folder, or with that
  operand corrected when it is no path (`rg 'a\\nb'` -> `rg 'a'`); any step naming a path that was
  missing (it is there now), the path the error suggested ("Did you mean x?"), the same file (its
  name) in a folder near the missing one's, or (a search: Grep, `ls`, `find` ...) a folder above
  it; the same tool on the same file (or, for a tool on no file, the same tool); a check of the
  same program and kind (tests after tests or after a build, a lint after a lint: never tests
  after a lint); a conflicted merge then committed or continued.

What was different (`Found.change`) is said from the two calls: what was created or installed, the
`cd` left out (`without `cd src``: the shell was already in that folder, or there was none), another
folder, another program, arguments removed or added, and the steps done between (edits, commands
that change something, never an `ls`). The same command working again with nothing done between is
a retry, said as such (flaky).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from brain.memory.episodes.signature import CD_STAND_INS
from brain.memory.sessions.commands import display_command, proves_fixed
from brain.memory.sessions.shell_steps import INTERPRETERS, Step, resolve, steps

SIMILAR = 0.6  # how alike a corrected operand is to the one that failed (difflib's ratio)
FILTERS = frozenset(
    {"tail", "head", "grep", "rg", "sort", "uniq", "wc", "less", "more", "cat", "tee", "cut", "sed", "awk", "jq"}
    | {"tr", "column", "fold", "nl", "xargs", "cat", "true", "egrep", "fgrep", "strings", "fmt"}
)
# programs that read or print and change nothing: running one between a failure and its fix is not the fix
READ_ONLY = frozenset(
    {"ls", "cat", "head", "tail", "less", "more", "grep", "rg", "ag", "ack", "find", "fd", "pwd", "echo", "printf"}
    | {"which", "type", "wc", "tree", "stat", "file", "du", "df", "env", "printenv", "whoami", "date", "sort"}
    | {"uniq", "diff", "jq", "yq", "awk", "sed", "ps", "id", "uname", "true", "sleep", "cut", "tr", "nl", "column"}
    | {"readlink", "realpath", "basename", "dirname", "test", "[", "hostname", "lsof", "history", "man", "help"}
    | {"bat", "exa", "eza", "cd", "pushd", "popd", "source", ".", "export", "set", "unset", "alias", "clear"}
)
_GIT_READ_ONLY = frozenset(
    {"status", "log", "diff", "show", "branch", "remote", "rev-parse", "blame", "ls-files", "describe", "config"}
    | {"reflog", "shortlog", "grep", "ls-tree", "cat-file", "whatchanged", "tag", "fetch", "worktree"}
)
LOOKING_TOOLS = frozenset(
    {"Read", "read_file", "NotebookRead", "view", "Glob", "Grep", "LS", "list_dir", "grep_search"}
)
_STOPPED_BY_CONFLICTS = frozenset({"git merge", "git rebase", "git pull", "git cherry-pick", "git revert"})
_NOT_A_USE = frozenset({"echo", "printf", "rm", "rmdir", "unlink", "true", "test", "[", "mkdir", "touch", "which"})
PACKAGE_MANAGERS = frozenset(
    {"pip", "uv", "npm", "pnpm", "yarn", "bun", "go", "cargo", "gem", "bundle", "composer", "apt", "apt-get"}
    | {"brew", "conda", "mamba", "micromamba", "pipx", "poetry", "pdm", "dotnet", "deno", "rustup", "cpanm"}
    | {"luarocks", "nix-env", "port", "choco", "winget", "scoop", "dnf", "yum", "apk", "pacman", "mix", "hatch"}
    | {"rye", "pixi", "swift", "stack", "cabal", "opam", "nimble", "pub", "flutter", "dart", "mise", "asdf"}
)
_INSTALL_VERBS = frozenset(
    {"install", "add", "i", "get", "require", "sync", "ci", "restore", "download", "tidy", "fetch", "deps.get"}
)
_MISSING = re.compile(
    r"no such file|does not exist|doesn'?t exist|not found|cannot find|can'?t find|could not find|unable to find"
    r"|can'?t open|cannot open|could not open|unable to open|cannot access|cannot stat|ENOENT|no such (?:file|dir)"
    r"|is not a directory|not a directory",
    re.IGNORECASE,
)
# a file tool's error that says its file is missing (not "String to replace not found in file")
_FILE_MISSING = re.compile(
    r"no such file|ENOENT|(?:file|path|directory|folder)\b[^.\n]*?(?:does not exist|doesn'?t exist|not found|is missing)",
    re.IGNORECASE,
)
_MODULE = (
    re.compile(r"No module named ['\"]?([\w.]+)"),
    re.compile(r"Cannot find (?:module|package) ['\"]([^'\"]+)['\"]", re.IGNORECASE),
    re.compile(r"Can't resolve ['\"]([^'\"]+)['\"]"),
    re.compile(r"cannot find package \"?([^\"\s]+)"),
    re.compile(r"no required module provides package ([^\s;:]+)"),
    re.compile(r"cannot load such file -- (\S+)"),
    re.compile(
        r"(?:could not|unable to|failed to) (?:find|resolve|import|load) (?:module|package|crate|gem|library)"
        r" ['\"`]?([\w@/.+-]+)",
        re.IGNORECASE,
    ),
)
_PROGRAM = (
    re.compile(r"([\w.+-]+): (?:command )?not found\b"),
    re.compile(r"command not found: ([\w.+-]+)"),
    re.compile(r"exec: \"?([\w.+/-]+)\"?: executable file not found"),
    re.compile(r"'([\w.+-]+)' is not recognized as an internal or external command"),
)
_QUOTED = re.compile(r"'([^'\n]+)'|\"([^\"\n]+)\"|`([^`\n]+)`|\u2018([^\u2019\n]+)\u2019")
_PATHLIKE = re.compile(r"^(?:[\w.~@+-]*/)+[\w.@+-]*$|^\.?[\w@+-][\w.@+-]*\.[A-Za-z][\w]{0,7}$")
# a program that could not be started (`spawn claude ENOENT`, `posix_spawn '/opt/.../rg'`): what is
# missing is the program, not the file the tool was called on
_QUOTE = re.compile(r"([\"'`])([^\"'`\n]{1,40})\1")  # a short quote in an error line
_SPAWN = re.compile(r"\b(?:posix_spawnp?|spawn|spawnSync|execvp?e?)\b")
_A_FOLDER = re.compile(r"\bis a directory\b|\bEISDIR\b", re.IGNORECASE)  # a folder read as a file
_FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
_REFUSED = re.compile(  # a line that says an option of the command was not taken
    r"unknown|unrecognized|not defined|unexpected|invalid|no such option|not allowed|unsupported", re.IGNORECASE
)
_SUGGESTS = re.compile(r"did you mean|perhaps you meant|maybe you meant|the most similar|similar (?:file|path)", re.I)
# tools and programs that look for things in a folder: looking one folder up is looking at the same place
SEARCH_TOOLS = frozenset({"Grep", "Glob", "LS", "list_dir", "grep_search", "file_search"})
SEARCH_PROGRAMS = frozenset({"ls", "find", "fd", "tree", "rg", "grep", "du", "eza", "exa"})
_TRACEBACK = re.compile(r"^Traceback \(most recent call last\)|^\s+File \"[^\"]+\", line \d+", re.MULTILINE)
# a tool's arguments that say how to run or show a command, not what it may do
_NOISE = frozenset(
    {"description", "justification", "yield_time_ms", "max_output_tokens", "timeout", "timeout_ms", "prefix_rule"}
    | {"command", "cmd", "workdir", "run_in_background", "shell", "login", "session_id", "tty"}
)
_FILE_KEYS = ("file_path", "notebook_path", "path", "target_file", "url", "uri")


@dataclass(frozen=True)
class Attempt:
    """A tool call as recovery sees it."""

    tool: str
    command: str | None  # the shell command, None for another tool
    cwd: str = ""  # the folder it ran in, absolute when known ('' not known)
    files: tuple[str, ...] = ()  # the files an edit or write tool wrote
    target: str = ""  # the file (or URL) a tool other than a shell was called on
    args: tuple[tuple[str, str], ...] = ()  # a tool's other arguments, as text (what a retry changed)
    steps: tuple[Step, ...] = field(default=(), compare=False)

    @classmethod
    def of(cls, tool: str, command: str | None, cwd: str, files: Sequence[str], args: dict[str, object]) -> Attempt:
        target = next((str(args[key]) for key in _FILE_KEYS if isinstance(args.get(key), str) and args[key]), "")
        said = tuple(sorted((str(k), str(v)[:200]) for k, v in args.items() if k not in _FILE_KEYS))
        return cls(tool, command, cwd, tuple(files), target, said, tuple(steps(command)) if command else ())


@dataclass(frozen=True)
class Lack:
    """The part of a call that failed and what the error says it lacked (paths resolved in the call's folder)."""

    step: Step | None = None  # the failing step of a shell command
    intended: tuple[Step, ...] = ()  # what a failed `cd` kept from running
    paths: dict[str, str] = field(default_factory=dict)  # missing path (resolved) -> as the call named it
    modules: tuple[str, ...] = ()
    programs: tuple[str, ...] = ()
    suggested: dict[str, str] = field(default_factory=dict)  # a path the error suggests ("Did you mean x?")
    quoted: tuple[str, ...] = ()  # what the error quotes of the failing step's words (`the literal "\\n"`)
    folders: dict[str, str] = field(default_factory=dict)  # a folder read as a file (resolved) -> as named


@dataclass(frozen=True)
class Found:
    """A recovery: what was different, and whether it was a retry of the same call unchanged."""

    change: str
    retry: bool = False


def lack(attempt: Attempt, output: str) -> Lack:
    """What `attempt` failed on, read from its steps and its error output (see the module doc)."""
    text = re.sub(r"</?tool_use_error>", " ", output.replace("\\n", "\n")[:4000])
    missing_lines = [line for line in text.splitlines()[:40] if _MISSING.search(line)]
    modules = _found(_MODULE, text)
    paths: dict[str, str] = {}
    suggested = {
        resolve(attempt.cwd, "", path): path
        for line in text.splitlines()[:40]
        if _SUGGESTS.search(line)
        for path in _paths_in(line)
    }
    folder_lines = [line for line in text.splitlines()[:40] if _A_FOLDER.search(line)]
    if not attempt.command:
        if attempt.target and folder_lines:
            return Lack(folders={resolve(attempt.cwd, "", attempt.target): attempt.target})
        could_not_start = any(_SPAWN.search(line) for line in missing_lines)  # the tool's own program is missing
        if (
            attempt.target
            and _FILE_MISSING.search(text[:400])
            and not modules
            and not could_not_start
            and "://" not in attempt.target
        ):
            paths[resolve(attempt.cwd, "", attempt.target)] = attempt.target
        suggested = {path: named for path, named in suggested.items() if path not in paths}
        return Lack(paths=paths, modules=tuple(modules), suggested=suggested)
    every = list(attempt.steps)
    position = failing_step(every, text)
    step = every[position] if position is not None else None
    intended: tuple[Step, ...] = ()
    if step is not None and position is not None and step.program in ("cd", "pushd"):
        intended = tuple(s for s in every[position + 1 :] if s.program and s.after != "|")
    named = {s.program for s in every} | {s.words[0].rsplit("/", 1)[-1] for s in every if s.words}
    programs = [name for name in _found(_PROGRAM, text) if name in named]
    if step is not None and missing_lines:
        candidates = [word for s in [step] for word in (*s.operands, *s.reads)]
        if step.program in ("cd", "pushd") and not step.operands:
            candidates = []
        for line in missing_lines:
            said = _paths_in(line) + [word for word in candidates if word and word in line]
            for path in said:
                if path in modules or path.rsplit("/", 1)[-1] in programs or "://" in path:
                    continue
                paths.setdefault(resolve(attempt.cwd, step.folder, path), path)
    suggested = {path: named for path, named in suggested.items() if path not in paths}
    folders = (
        {
            resolve(attempt.cwd, step.folder, word): word
            for word in step.operands
            if any(word in line for line in folder_lines)
        }
        if step is not None
        else {}
    )
    return Lack(step, intended, paths, tuple(modules), tuple(programs), suggested, _quoted(output, step), folders)


def _quoted(output: str, step: Step | None) -> tuple[str, ...]:
    """The parts of the failing step's words that its error quotes (`rg: the literal "\\n" is not
    allowed in a regex`, `unknown flag '--short'`), and its options an error line says were refused
    unquoted (`unknown flag: --no-pager`): what the error says is wrong, so a fix that dropped it is
    said by it. Read from the output as written (a JSON-escaped `\\n` kept)."""
    if step is None:
        return ()
    written = " ".join(step.words)
    lines = output[:4000].splitlines()[:40]
    found = dict.fromkeys(
        part for line in lines for _, part in _QUOTE.findall(line) if part.strip() and part in written
    )
    found |= dict.fromkeys(  # `unknown flag: --no-pager`, `flag provided but not defined: -x`: named unquoted
        flag for line in lines if _REFUSED.search(line) for flag in _FLAG.findall(line) if flag in step.words
    )
    return tuple(found)


def failing_step(every: Sequence[Step], output: str) -> int | None:
    """The position of the step that failed (see the module doc), None for a line with no step."""
    real = [n for n, s in enumerate(every) if s.program]
    if not real:
        return None
    head = "\n".join(output.splitlines()[:30])
    moves = [n for n in real if every[n].program in ("cd", "pushd")]
    if moves and any(re.search(rf"(?:^|\s){re.escape(name)}:\s", head) for name in CD_STAND_INS):
        return moves[0]  # a `cd` that another program stands in for (see CD_STAND_INS)
    named = [n for n in real if re.search(rf"(?:^|[\s:(/])(?:{re.escape(every[n].program)})(?::\d+)?:\s", head)]
    if named:
        with_operand = [n for n in named if any(o in head for o in every[n].operands if len(o) > 1)]
        return (with_operand or named)[0]
    operands = [n for n in real if any(len(o) > 2 and o in head for o in every[n].operands if _PATHLIKE.match(o))]
    if operands:
        return operands[0]
    if _TRACEBACK.search(output):
        python = [n for n in real if every[n].family == "python"]
        if python:
            return python[-1]
    kept = [n for n in real if not (every[n].after == "|" and every[n].program in FILTERS)]
    return (kept or real)[-1]


def recovery(
    failed: Attempt, missing: Lack, later: Attempt, between: Sequence[str], *, test: bool = False
) -> Found | None:
    """How `later` (a call that succeeded) recovered `failed`, or None when it did not (see the module doc).
    `between`: what was done between them that may have fixed it ("editing a.py", "running `make gen`")."""
    verb = "passed" if test else "worked"
    after = f", after {', '.join(between)}" if between else ""
    if failed.command and later.command and " ".join(failed.command.split()) == " ".join(later.command.split()):
        granted = [
            f"{key}: {value}" for key, value in later.args if key not in _NOISE and (key, value) not in failed.args
        ]
        if granted:  # the same command, run with more permission (Codex's escalation, a sandbox turned off)
            return Found(f"the same command with `{'`, `'.join(granted[:2])}` {verb}{after}")
        if not between:
            return Found(f"it {verb} when run again unchanged (flaky)", retry=True)
        return Found(f"it {verb} after {', '.join(between)}")
    supplied = _supplied(failed, missing, later)
    if supplied:
        return Found(f"{supplied}{after}")
    opened = _opened(missing, later)
    if opened:
        said = f"`{_said(later.command)}`" if later.command else f"{later.tool} of `{later.target or '.'}`"
        return Found(f"`{opened}` is a folder, not a file: {said} {verb}{after}")
    if not failed.command:
        return _tool_recovery(failed, missing, later, between, verb)
    if not later.command:
        return None
    return _shell_recovery(failed, missing, later, between, verb)


def _shell_recovery(failed: Attempt, missing: Lack, later: Attempt, between: Sequence[str], verb: str) -> Found | None:
    """A failed step of a shell command recovered by a step of a later one (see the module doc)."""
    said = f"`{_said(later.command)}`"
    after = f", after {', '.join(between)}" if between else ""
    step = missing.step
    if step is not None and step.program in ("cd", "pushd") and missing.intended:
        if _matching(missing.intended, later) is None:
            return None
        folder = step.operands[0] if step.operands else "~"
        dropped = f"{step.program} {folder}"
        where = resolve(failed.cwd, step.folder, folder)
        if failed.cwd and (failed.cwd.rstrip("/") == where or failed.cwd.rstrip("/").endswith("/" + folder.strip("/"))):
            return Found(f"without `{dropped}`: the shell was already in `{folder}`; {said} from there {verb}{after}")
        if not any(later_step.program in ("cd", "pushd") for later_step in later.steps):
            return Found(f"without `{dropped}`: there was no folder `{folder}` there; {said} {verb}{after}")
        return Found(f"there was no folder `{folder}` there; {said} {verb}{after}")
    if step is None:
        return None
    matched = _matching([step], later)
    if matched is None:
        used = _uses(missing, later)
        if used is not None:
            return Found(f"`{missing.paths[used]}` is there now; {said} {verb}{after}")
        moved = _elsewhere(missing, later)
        if moved is not None:
            return Found(f"`{moved[0]}` is not there: the file is at `{moved[1]}`; {said} {verb}{after}")
        other = _other_command(step, missing, later)
        if other is not None:
            return Found(f"`{other}` instead of `{step.operands[0]}`, which the error refused: {said} {verb}{after}")
        return _looked_again(step, missing, later, said, verb)
    match, how = matched
    if how == "concluded":
        return Found(f"the {step.operands[0] if step.operands else 'merge'} was concluded: {said} {verb}{after}")
    if how == "check":
        return Found(f"{said} {verb}{after}")
    differences = _differences(failed, step, later, match, between)
    worked = " ".join(match.words)
    gone = [part for part in missing.quoted if part not in worked]
    # the part the error named, said first, unless the change already says it (`b` instead of `a`): an
    # option the error refused leads even then (`--help` instead of `x --no-pager` buries the fix)
    if gone and not any(
        change.startswith(f"without `{gone[0]}") or (gone[0] in change and not gone[0].startswith("-"))
        for change in differences
    ):
        differences.insert(0, f"without `{gone[0]}`")
    if differences:
        return Found(f"{'; '.join(differences)}: {said} {verb}{after}")
    if between:
        return Found(f"it {verb} after {', '.join(between)}")
    return Found(f"{said} {verb}")


def looks(attempt: Attempt) -> bool:
    """Whether a call only looks (reads a file, lists, searches): its failure fails no decision."""
    if attempt.command is not None:
        return not changes_something(attempt.command)
    return attempt.tool in LOOKING_TOOLS


def changes_something(command: str) -> bool:
    """Whether a command may have fixed something: it writes a file, or runs a program that is not
    only a reader (`ls`, `cat`, `grep`, `git status` ... change nothing)."""
    for step in steps(command):
        if step.writes or (step.program and step.program not in READ_ONLY and not _git_reads(step)):
            return True
    return False


def created(attempt: Attempt) -> dict[str, str]:
    """The paths a call creates (resolved -> as named): see the module doc."""
    made: dict[str, str] = {}
    for path in attempt.files:
        made.setdefault(resolve(attempt.cwd, "", path), path)
    for step in attempt.steps:
        for path in _creates(step):
            if path and "$" not in path and not path.startswith("/dev/"):
                made.setdefault(resolve(attempt.cwd, step.folder, path), path)
    return made


def installs(attempt: Attempt) -> list[tuple[str, list[str]]]:
    """(the step as said, the packages it installs; [] for all its manifest names) per installing step."""
    found = []
    for step in attempt.steps:
        if step.family not in PACKAGE_MANAGERS:
            continue
        operands = list(step.operands)
        verb = next((n for n, word in enumerate(operands[:2]) if word in _INSTALL_VERBS), None)
        if verb is None:
            continue
        values = {step.args[n + 1] for n, word in enumerate(step.args[:-1]) if word in ("-r", "-c", "--requirement")}
        names = [w for w in operands[verb + 1 :] if w not in values and w != "." and not w.startswith(("./", "/"))]
        found.append((step.said(), [_package(name) for name in names]))
    return found


# ---------------------------------------------------------------- helpers


def _found(patterns: Iterable[re.Pattern[str]], text: str) -> list[str]:
    names: list[str] = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            name = next(group for group in match.groups() if group is not None).strip("'\"`.,:;")
            if name and name not in names:
                names.append(name)
    return names


def _paths_in(line: str) -> list[str]:
    """Path-like words of an error line: quoted ones, and words such as `config/a.yaml` or `a.txt`."""
    found = [next(g for g in match.groups() if g is not None) for match in _QUOTED.finditer(line)]
    found += [word.strip("'\"`,;()[]<>?!").rstrip(".") for word in re.split(r"[\s:]+", line)]
    return [word for word in dict.fromkeys(found) if _PATHLIKE.match(word) and not re.fullmatch(r"[\d.]+", word)]


def _creates(step: Step) -> list[str]:
    made = list(step.writes)
    operands = step.operands
    if step.program in ("mkdir", "touch"):
        made += operands
    elif step.program == "tee":
        made += operands
    elif step.program in ("cp", "mv", "ln", "install", "rsync", "scp") and len(operands) >= 2:
        made.append(operands[-1])
        made += [posixpath.join(operands[-1], posixpath.basename(source.rstrip("/"))) for source in operands[:-1]]
    elif step.program == "git" and operands[:1] == ("clone",) and len(operands) >= 2:
        made.append(operands[2] if len(operands) >= 3 else posixpath.basename(operands[1]).removesuffix(".git"))
    elif step.program in ("curl", "wget"):
        made += [step.args[n + 1] for n, word in enumerate(step.args[:-1]) if word in ("-o", "--output", "-O")]
    return made


def _supplied(failed: Attempt, missing: Lack, later: Attempt) -> str:
    """What `later` supplied of what `failed` lacked, said; '' for nothing."""
    said = f"`{_said(later.command)}`" if later.command else later.tool
    if missing.paths:
        made = created(later)
        for path, named in missing.paths.items():
            if path in made or any(new.startswith(path.rstrip("/") + "/") for new in made):
                kind = "folder" if missing.step is not None and missing.step.program in ("cd", "pushd") else ""
                return f"{kind + ' ' if kind else ''}`{named}` did not exist; {said} created it"
    wanted = [*(("module", m) for m in missing.modules), *(("program", p) for p in missing.programs)]
    if wanted:
        for step, packages in installs(later):
            for kind, name in wanted:
                if not packages or any(_same_package(name, package) for package in packages):
                    return f"{kind} `{name}` was missing; `{_said(step)}` installed it"
    return ""


def _tool_recovery(failed: Attempt, missing: Lack, later: Attempt, between: Sequence[str], verb: str) -> Found | None:
    """A tool on a file (or on nothing) recovered by the same tool on the same file, or by any call
    that shows a missing file is there now."""
    if later.tool == failed.tool and _same_file(failed, later):
        if not between and later.args == failed.args:
            return Found(f"it {verb} when run again unchanged (flaky)", retry=True)
        if between:
            return Found(f"it {verb} after {', '.join(between)}")
        changed = [key for key, value in later.args if (key, value) not in failed.args]
        return Found(f"it {verb} with other {', '.join(changed[:3]) or 'arguments'}" if changed else f"it {verb}")
    for path, named in missing.paths.items():
        if later.command and any(
            resolve(later.cwd, s.folder, o) == path for s in later.steps for o in (*s.operands, *s.reads)
        ):
            return Found(f"`{named}` is there now; `{_said(later.command)}` {verb}")
        if later.target and resolve(later.cwd, "", later.target) == path:
            return Found(f"`{named}` is there now; {later.tool} {verb}")
    moved = _elsewhere(missing, later)
    if moved is not None:
        said = f"`{_said(later.command)}`" if later.command else later.tool
        return Found(f"`{moved[0]}` is not there: the file is at `{moved[1]}`; {said} {verb}")
    if later.tool != failed.tool:
        return None
    where = resolve(later.cwd, "", later.target or ".")
    told = missing.suggested.get(where)
    if told and missing.paths:
        return Found(
            f"`{next(iter(missing.paths.values()))}` does not exist; the error named `{told}`: {later.tool} {verb}"
        )
    above = _above(missing, where) if failed.tool in SEARCH_TOOLS else None
    if above is not None:
        shown = "." if not later.target or where == resolve(later.cwd, "", ".") else later.target
        return Found(f"`{above}` does not exist; {later.tool} of `{shown}`, a folder above it, {verb}")
    return None


def _looked_again(step: Step, missing: Lack, later: Attempt, said: str, verb: str) -> Found | None:
    """The same program on the path the error suggested, or (a search) on a folder above a missing one."""
    for other in later.steps:
        if other.family != step.family:
            continue
        for word in other.operands:
            where = resolve(later.cwd, other.folder, word)
            if missing.suggested.get(where) and missing.paths:
                gone = next(iter(missing.paths.values()))
                return Found(f"`{gone}` does not exist; the error named `{missing.suggested[where]}`: {said} {verb}")
            above = _above(missing, where) if step.family in SEARCH_PROGRAMS else None
            if above is not None:
                return Found(f"`{above}` does not exist; {said}, on a folder above it, {verb}")
    return None


def _above(missing: Lack, where: str) -> str | None:
    """The missing path (as named) that `where` is a folder above (a search one folder up)."""
    for path, named in missing.paths.items():
        if where and where != "/" and path.startswith(where.rstrip("/") + "/"):
            return named
    return None


def _same_file(one: Attempt, other: Attempt) -> bool:
    if one.target or other.target:
        return resolve(one.cwd, "", one.target) == resolve(other.cwd, "", other.target)
    return set(one.files) == set(other.files)


def _matching(wanted: Sequence[Step], later: Attempt) -> tuple[Step, str] | None:
    """The step of `later` that runs one of `wanted` again, and how: "same" (the same key), "corrected"
    (its first operand corrected, `_corrected`), "check" (a check of the same program and kind,
    `proves_fixed`: the code builds, the lint passes now), "concluded" (a merge, rebase or pull that
    conflicted, then committed or continued); None when it has none."""
    for step in later.steps:
        for want in wanted:
            if step.key == want.key and step.program:
                return step, "same"
            if want.key in _STOPPED_BY_CONFLICTS and step.key in {*_STOPPED_BY_CONFLICTS, "git commit"}:
                return step, "concluded"
    for step in later.steps:
        for want in wanted:
            if want.program and step.family == want.family and _corrected(want.operands, step.operands):
                return step, "corrected"
    for step in later.steps:
        for want in wanted:
            if want.program and step.family == want.family and proves_fixed(want.said(), step.said()):
                return step, "check"
    return None


def _corrected(before: Sequence[str], after: Sequence[str]) -> bool:
    """Whether `after` is `before` with its first operand corrected (a pattern, a name; never a path:
    another file is another target) and its other operands kept or narrowed to a folder inside one:
    `rg -n 'a\\nb' src` -> `rg -n 'a' src` or `rg -n 'a' src/app`."""
    if not before or not after or _PATHLIKE.match(before[0]) or _PATHLIKE.match(after[0]):
        return False
    kept = before[1:]
    if bool(kept) != bool(after[1:]) or not all(
        any(operand == old or operand.startswith(old.rstrip("/") + "/") for old in kept) for operand in after[1:]
    ):
        return False
    one, other = before[0], after[0]
    return one in other or other in one or SequenceMatcher(None, one, other).ratio() >= SIMILAR


def _other_command(step: Step, missing: Lack, later: Attempt) -> str | None:
    """The subcommand a later run of the same program used, when the error quoted the failed one's
    (`No such command 'info'.`, `'stat' is not a git command`): the program had no such command."""
    if not step.operands or step.operands[0] not in missing.quoted or _PATHLIKE.match(step.operands[0]):
        return None
    for other in later.steps:
        if other.family == step.family and other.operands and other.operands[0] != step.operands[0]:
            if not other.operands[0].startswith("-") and not _PATHLIKE.match(other.operands[0]):
                return other.operands[0]
    return None


def _opened(missing: Lack, later: Attempt) -> str:
    """The folder a call read as a file (as it was named), when `later` lists it or reads what is in
    it (`ls lint/`, `cat lint/*`, Glob or Read under it); '' otherwise."""
    for folder, named in missing.folders.items():
        inside = folder.rstrip("/") + "/"
        if later.target and (resolve(later.cwd, "", later.target) + "/").startswith(inside):
            return named
        for step in later.steps:
            for word in (*step.operands, *step.reads):
                path = resolve(later.cwd, step.folder, word)
                if path.startswith(inside) or (path == folder and step.program in SEARCH_PROGRAMS):
                    return named
    return ""


def _uses(missing: Lack, later: Attempt) -> str | None:
    """A missing path a step of `later` names (it is there now: `later` succeeded)."""
    for step in later.steps:
        if step.program in _NOT_A_USE:
            continue
        for word in (*step.operands, *step.reads):
            path = resolve(later.cwd, step.folder, word)
            if path in missing.paths:
                return path
    return None


def _elsewhere(missing: Lack, later: Attempt) -> tuple[str, str] | None:
    """(the missing path as named, where `later` found the same file): a file of the missing one's
    name in a folder of its folder's name (`nix/home/programs/zsh.nix` found at
    `nix/modules/home/programs/zsh.nix`), or in a folder above or below its folder
    (`cmd/cli/commands/resume.go` found at `cmd/cli/resume.go`): the file is at another place.
    Another file (`test/support/data_case.ex` after `conn_case.ex`) is no recovery."""
    found = [(later.target, "")] if later.target and not later.command else []
    found += [
        (word, step.folder)
        for step in later.steps
        if step.program not in _NOT_A_USE
        for word in (*step.operands, *step.reads)
    ]
    for path, named in missing.paths.items():
        name = posixpath.basename(path.rstrip("/"))
        if not posixpath.splitext(name)[1]:
            continue  # a file, named by its extension
        folder = posixpath.dirname(path.rstrip("/"))
        for word, step_folder in found:
            where = resolve(later.cwd, step_folder, word)
            there = posixpath.dirname(where)
            if posixpath.basename(where) != name or where == path:
                continue
            near = there.startswith(folder + "/") or folder.startswith(there + "/")
            if near or posixpath.basename(there) == posixpath.basename(folder):
                return named, word
    return None


def _differences(failed: Attempt, step: Step, later: Attempt, match: Step, between: Sequence[str]) -> list[str]:
    """What differs between the failed step and the one that worked (see the module doc). A text
    given another way (an inline script, a query) is named when it is an interpreter's, or when
    nothing else differs and nothing was done between (a commit's message is not its fix)."""
    said: list[str] = []
    before = resolve(failed.cwd, step.folder, ".")
    now = resolve(later.cwd, match.folder, ".")
    if before != now:  # said from where the failed step ran, when both folders are known
        where = (
            posixpath.relpath(now, before) if now.startswith("/") and before.startswith("/") else match.folder or now
        )
        said.append(f"run from `{where}`")
    if step.program != match.program:
        said.append(f"`{match.program}` instead of `{step.program}`")
    removed = _shown([word for word in step.given if word not in match.given], step.given, step.family)
    added = _shown([word for word in match.given if word not in step.given], match.given, match.family)
    retold = [w for w in removed if w in added and w.endswith(" <text>")]  # `-c` given another text
    removed, added = [w for w in removed if w not in added], [w for w in added if w not in removed]
    removed, added = [w for w in removed if not w.endswith(" <text>")], [w for w in added if not w.endswith(" <text>")]
    texts = [
        f"another `{w.removesuffix(' <text>')}` text"
        if match.family in INTERPRETERS  # a script's change is in its lines, not its words
        else _text_change(w.removesuffix(" <text>"), step, match)
        for w in retold
    ]
    if removed and added:
        said.append(f"`{_words(added)}` instead of `{_words(removed)}`")
    elif added:
        said.append(f"with `{_words(added)}`")
    elif removed:
        said.append(f"without `{_words(removed)}`")
    env = [word for word in match.env if word not in step.env]
    if env:
        said.append(f"with `{_words(env)}`")
    ran = {s.key for s in failed.steps}
    others = [s for s in later.steps if s is not match and s.program and s.key not in ran]
    others = [s for s in others if s.program not in ("cd", "pushd") and changes_something(s.said())]
    if others:
        said.append("after " + ", ".join(f"`{_said(s.said())}`" for s in others[:2]))
    if match.family in INTERPRETERS or not (said or between):
        said[len(said) - (1 if others else 0) : len(said) - (1 if others else 0)] = texts
    return said


def _text_change(name: str, step: Step, match: Step) -> str:
    """What another text given as `name` (`-c`, `query=`) changed: the runs of words it dropped and
    added (`another `query=` text: without `body(truncate: 80)`, with `line``)."""
    before, after = _text_of(name, step), _text_of(name, match)
    if before is None or after is None:
        return f"another `{name}` text"
    old, new = before.split(), after.split()
    dropped, added = [], []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            dropped.append(" ".join(old[i1:i2]))
        if tag in ("replace", "insert"):
            added.append(" ".join(new[j1:j2]))
    if len(dropped) == len(added) == 1:
        said = [f"`{_phrases(added)}` instead of `{_phrases(dropped)}`"]
    else:
        said = [f"without `{_phrases(dropped)}`"] if dropped else []
        said += [f"with `{_phrases(added)}`"] if added else []
    return f"another `{name}` text" + (": " + ", ".join(said) if said and len(dropped) + len(added) <= 4 else "")


def _text_of(name: str, step: Step) -> str | None:
    """The text a step gives as `name` (`-c`, `query=`), as written."""
    for position, word in enumerate(step.given):
        if name.endswith("=") and word.startswith(name):
            return word[len(name) :]
        if position and step.given[position - 1] == name:
            return word
    return None


def _phrases(runs: Sequence[str]) -> str:
    text = "`, `".join(runs)
    return text if len(text) <= 80 else text[:77] + "..."


def _shown(words: list[str], every: Sequence[str], program: str) -> list[str]:
    """Arguments as a difference names them; a text (an inline script, or over lines, or long with
    spaces) by the flag before it or its `name=` (`-c <text>`, `query= <text>`), else not at all."""
    shown = []
    for word in words:
        position = every.index(word)
        flag = every[position - 1] if position and every[position - 1].startswith("-") else ""
        inline = program in INTERPRETERS and flag in ("-c", "-e", "--eval")  # a script, however short
        if not inline and "\n" not in word and (len(word) <= 40 or not re.search(r"\s", word)):
            shown.append(word)
            continue
        named = re.match(r"^[\w.-]+=", word)
        if named or flag:
            shown.append(f"{named.group(0) if named else flag} <text>")
    return list(dict.fromkeys(shown))


def _words(words: Sequence[str]) -> str:
    text = " ".join(words[:4]) + (" ..." if len(words) > 4 else "")
    return text if len(text) <= 60 else text[:57] + "..."


def _said(command: str | None) -> str:
    line = display_command(command or "")
    return line if len(line) <= 120 else line[:117] + "..."


def _git_reads(step: Step) -> bool:
    return step.program == "git" and bool(step.operands) and step.operands[0] in _GIT_READ_ONLY


def _package(name: str) -> str:
    """A package's name without its version or extras (`requests==2.0`, `lodash@4`, `x[extra]`)."""
    scoped = name.startswith("@")
    base = re.split(r"[=<>!~\[;@]", name[1:] if scoped else name, maxsplit=1)[0]
    return ("@" + base if scoped else base).lower()


def _same_package(module: str, package: str) -> bool:
    """Whether installing `package` supplies `module`: the same name once case, `-`, `_` and `.` are
    set aside, or one holding the other (`yaml` and `pyyaml`, `dateutil` and `python-dateutil`); a
    module path (`github.com/a/b/c`) under the package's."""
    if "/" in module and "/" in package and not module.startswith("@"):
        return module == package or module.startswith(package.rstrip("/") + "/")
    top = "/".join(module.split("/")[:2]) if module.startswith("@") else re.split(r"[./]", module)[0]

    def norm(text: str) -> str:
        return re.sub(r"[-_.]", "", text.lower())

    one, other = norm(top), norm(package)
    return min(len(one), len(other)) >= 2 and (one == other or one in other or other in one)
