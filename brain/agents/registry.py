"""The agents brain works with, by name, and their hooks (their transcript readers are the sessions domain's:
`brain.memory.sessions.transcripts.readers`)."""

from __future__ import annotations

from brain.agents import claude_code, codex, gemini
from brain.agents.agent import Agent
from brain.agents.runtime import Hook
from brain.errors import UsageError

AGENTS: dict[str, Agent] = {agent.name: agent for agent in (claude_code.AGENT, codex.AGENT, gemini.AGENT)}
HOOKS: dict[str, Hook] = {event: hook for agent in AGENTS.values() for event, hook in agent.hooks.items()}


def agent_named(name: str) -> Agent:
    if name not in AGENTS:
        raise UsageError(f"agent '{name}' is not one of: {', '.join(AGENTS)}")
    return AGENTS[name]
