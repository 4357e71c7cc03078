"""The hooks' names: `brain hooks run AGENT EVENT` (`brain hooks run codex tool-failure`), and the
names of before (`brain hooks run codex-tool-failure`), which settings installed earlier still run.

Pure data and string work, no imports: the hook runner reads it before anything is loaded, to load
the one agent a hook belongs to. `tests/promises/test_layers.py` checks it against the agents' own
hooks.
"""

from __future__ import annotations

# Each agent's module, and the hook events brain installs for it (what `brain hooks run AGENT` takes).
AGENT_MODULES = {
    "claude-code": "brain.agents.claude_code",
    "codex": "brain.agents.codex",
    "gemini": "brain.agents.gemini",
}
AGENT_EVENTS = {
    "claude-code": ("session-start", "first-prompt", "tool-failure", "session-end"),
    "codex": ("session-start", "first-prompt", "tool-failure", "stop", "notify"),
    "gemini": ("session-start", "first-prompt", "tool-failure", "session-end"),
}
# brain's own events, run by brain itself rather than by an agent (the detached extraction, the warm-up).
OWN_EVENTS = ("extract", "warm")
# How an event was named before it was named by its agent: Claude Code's plainly, the others' prefixed.
_PREFIX = {"claude-code": "", "codex": "codex-", "gemini": "gemini-"}


def hook_key(agent: str, event: str) -> str:
    """The key an agent's event is known by in its module's `hooks` (`codex`, `tool-failure` -> `codex-tool-failure`)."""
    return _PREFIX[agent] + event


def named(args: list[str]) -> tuple[str | None, str, list[str]]:
    """(agent, hook key, the arguments after the name) of `brain hooks run` arguments, named by agent
    (`codex tool-failure ...`) or as before (`codex-tool-failure ...`); the agent is None for
    brain's own events and for a name no agent has (which the hook then reports)."""
    if len(args) >= 2 and args[0] in AGENT_EVENTS and args[1] in AGENT_EVENTS[args[0]]:
        return args[0], hook_key(args[0], args[1]), args[2:]
    first = args[0] if args else ""
    for agent, events in AGENT_EVENTS.items():
        if any(first == hook_key(agent, event) for event in events):
            return agent, first, args[1:]
    return None, first, args[1:]


def hook_name(key: str) -> list[str]:
    """The words that name a hook key in a command brain writes: `codex-tool-failure` -> `codex tool-failure`."""
    agent, _, rest = named([key])
    if agent is None:
        return [key]
    return [agent, next(event for event in AGENT_EVENTS[agent] if hook_key(agent, event) == key), *rest]


def help_text() -> str:
    """The events `brain hooks run` takes, for its help."""
    return "; ".join(f"{agent}: {', '.join(events)}" for agent, events in AGENT_EVENTS.items()) + (
        f"; brain's own: {', '.join(OWN_EVENTS)}"
    )
