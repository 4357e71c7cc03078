"""Episodic memory: what happened in a session, with its decisions and events (ADR-018).

Modules:
- `service`: store episodes from ai-agents-shaped data (a new note, or an update that keeps the prose), list them,
  read one and its decision sequence.

What the other layers use:
`service.store_episode`, `episode_from_data`, `episode_title`, `update_episode_text`, `list_episodes`,
`get_episode`, `decision_sequence`; `StoredEpisode`; `DEFAULT_LIMIT`, `MAX_LIMIT`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.episodes import service`, so importing the package costs
nothing and cannot make an import cycle.
"""
