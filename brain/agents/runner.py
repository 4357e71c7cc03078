"""`brain hooks run AGENT EVENT`: the entry point of every agent's hooks, which skips typer.

A coding agent runs the session-start and first-prompt hooks before it can answer, and the
session-end hook as it quits; importing typer alone is a sizeable part of a hook's time.
`brain.cli.main` hands `brain hooks run ...` to `main` here, which reads the same arguments with
argparse and calls `run_hook`, as the typer command (`brain/agents/cli.py`, which answers `--help`)
does; `--help` goes to typer, which answers it as for any command. The hook is named by its agent
(`brain hooks run codex tool-failure`) or as before (`codex-tool-failure`, in settings installed
earlier); only that agent's module is loaded. The hook JSON may come after the options: Codex's
`notify` appends it as the last argument of `brain hooks run codex notify --vault V`.
Arguments argparse cannot read (a wrong option, a budget that is not a number) are a hook failing
like any other: exit 0, nothing printed, one line in the log (typer would exit 2, and Claude Code
blocks the prompt on a UserPromptSubmit hook's 2). A test checks that both accept the same options.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from collections.abc import Mapping
from contextlib import redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from brain.errors import VaultPathMissing

if TYPE_CHECKING:
    from brain.agents.agent import Agent
    from brain.agents.runtime import Hook


def run_hook(
    words: list[str],
    payload: str | None,
    vault: Path | None,
    budget: int | None,
    transcript: str | None,
    session: str | None,
    format: str | None,
    namespaces: list[str] | None = None,
) -> None:
    """Run the hook `words` name (`codex tool-failure`, or `codex-tool-failure` as before, then the
    hook JSON when the agent passes it as an argument), else reading the JSON on stdin. Never fails
    the agent: any error prints nothing and is a line in .brain/logs/hooks.log."""
    from brain.agents import runtime
    from brain.agents.events import named

    agent, event, rest = named(words)
    if payload is None and rest:
        payload = rest[0]
    root = Path(vault).expanduser().resolve() if vault else None
    try:
        text = (
            payload if payload is not None else ("" if event == "extract" or sys.stdin.isatty() else sys.stdin.read())
        )
        if _nothing_to_say(event, text):
            return
        captured = io.StringIO()
        with redirect_stdout(captured):  # nothing but the hook's answer reaches the agent
            from brain.memory.front_door import open_memory

            memory = open_memory(vault)
            root = memory.root
            extra = {"transcript": transcript or "", "session": session or "", "format": format or ""}
            hooks = _hooks(agent)
            with memory.writing_as("hook", f"hooks run {event}"):  # the history names the hook as the writer
                result = runtime.run(
                    event, memory, text, hooks, budget=budget, namespaces=tuple(namespaces or ()), **extra
                )
        from brain.agents.output import hook_output

        sys.stdout.write(hook_output(result))
        sys.stdout.flush()
        if result.context:
            from brain.agents import ledger

            ledger.record(memory.root, text, event, result.context, signature=result.signature)
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            return
        if isinstance(error, VaultPathMissing):
            _say_the_vault_is_missing(event, root)
        runtime.log(root, event, f"error: {type(error).__name__}: {error}")


def _say_the_vault_is_missing(event: str, root: Path | None) -> None:
    """The vault the hooks name is not a folder (mistyped, moved, an unmounted disk): every session
    would go unremembered with only a line in the temporary hooks log, so the session-start hook tells
    the user, in a `systemMessage` (shown to the user, costing the model nothing)."""
    from brain.agents.events import AGENT_EVENTS, hook_key
    from brain.agents.output import user_message

    if not any(event == hook_key(agent, "session-start") for agent in AGENT_EVENTS):
        return
    vault = str(root) if root is not None else f"{os.environ.get('BRAIN_VAULT', '')}, from $BRAIN_VAULT,"
    sys.stdout.write(
        user_message(
            f"brain's vault {vault} is not a folder (mistyped, moved, or on a disk not mounted?), so this session "
            "is not remembered: make the vault there with brain init, or install brain's hooks again with the "
            "right --vault (brain hooks status lists where they are)."
        )
    )
    sys.stdout.flush()


def _hooks(name: str | None) -> Mapping[str, Hook]:
    """The hooks of the one agent a hook belongs to; brain's own events (an extraction, a warm-up)
    take every agent's, to name them all when the event is none of them."""
    from brain.agents.events import AGENT_MODULES

    if name in AGENT_MODULES:
        agent: Agent = importlib.import_module(AGENT_MODULES[name]).AGENT
        return agent.hooks
    from brain.agents.registry import HOOKS

    return HOOKS


def _nothing_to_say(event: str, text: str) -> bool:
    """Whether the hook has nothing to say, told before the vault and the agents are loaded: Codex
    runs its PostToolUse hook and Gemini CLI its AfterTool hook after every tool call, and most calls
    succeed."""
    if event == "gemini-tool-failure":
        from brain.memory.sessions.transcripts.gemini_calls import failure

        return failure(text) is None and text.strip().startswith("{")
    if event != "codex-tool-failure":
        return False
    from brain.agents.codex_calls import succeeded

    return succeeded(text)


class _BadArguments(Exception):
    """argparse could not read the arguments."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _BadArguments(message)


def parser() -> argparse.ArgumentParser:
    found = _Parser(prog="brain hooks run", add_help=False, allow_abbrev=False)
    found.add_argument("words", nargs="+")  # AGENT EVENT [PAYLOAD], or EVENT [PAYLOAD] as before
    found.add_argument("--vault", type=Path)
    found.add_argument("--budget", type=int)
    found.add_argument("--namespace", action="append")
    found.add_argument("--transcript")
    found.add_argument("--session")
    found.add_argument("--format")
    return found


def main(argv: list[str]) -> bool:
    """Run `brain hooks run ARGV`; False (nothing done) when typer must answer instead (`--help`)."""
    if any(arg in ("--help", "-h") for arg in argv):
        return False
    try:
        args = parser().parse_intermixed_args(argv)  # Codex appends its JSON after the options
    except _BadArguments as error:
        _log_bad_arguments(argv, str(error))
        return True
    run_hook(args.words, None, args.vault, args.budget, args.transcript, args.session, args.format, args.namespace)
    return True


def _log_bad_arguments(argv: list[str], message: str) -> None:
    """The one line a hook with arguments argparse cannot read leaves: in the vault's log when
    `--vault` can be read from them, else in the temporary one."""
    from brain.agents import runtime

    vault = _Parser(add_help=False, allow_abbrev=False)
    vault.add_argument("--vault", type=Path)
    try:
        known, _ = vault.parse_known_args(argv)
        root = known.vault.expanduser().resolve() if known.vault else None
    except (_BadArguments, OSError, RuntimeError):
        root = None
    event = argv[0] if argv and not argv[0].startswith("-") else "run"
    runtime.log(root, event, f"error: bad arguments: {message}")
