"""The agents brain works with, by name, and their transcript readers for the sessions domain."""

from __future__ import annotations

from brain.agents import claude_code, codex
from brain.agents.agent import Agent
from brain.errors import InvalidInput
from brain.memory.sessions.transcripts import TranscriptReader

AGENTS: dict[str, Agent] = {agent.name: agent for agent in (claude_code.AGENT, codex.AGENT)}
READERS: tuple[TranscriptReader, ...] = tuple(agent.reader for agent in AGENTS.values())


def agent_named(name: str) -> Agent:
    if name not in AGENTS:
        raise InvalidInput(f"agent '{name}' is not one of: {', '.join(AGENTS)}")
    return AGENTS[name]
