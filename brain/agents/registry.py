"""The agents brain works with, by name; their transcript readers (for the sessions domain) and their hooks."""

from __future__ import annotations

from brain.agents import claude_code, codex, gemini
from brain.agents.agent import Agent
from brain.agents.runtime import Hook
from brain.errors import UsageError
from brain.memory.sessions.transcripts.files import TranscriptReader

AGENTS: dict[str, Agent] = {agent.name: agent for agent in (claude_code.AGENT, codex.AGENT, gemini.AGENT)}
READERS: tuple[TranscriptReader, ...] = tuple(agent.reader for agent in AGENTS.values())
HOOKS: dict[str, Hook] = {event: hook for agent in AGENTS.values() for event, hook in agent.hooks.items()}


def agent_named(name: str) -> Agent:
    if name not in AGENTS:
        raise UsageError(f"agent '{name}' is not one of: {', '.join(AGENTS)}")
    return AGENTS[name]
