"""The session protocol and session logs: bootstrap a task, end a session, turn logs into episodes.

Modules:
- `protocol`: the start of a task (`bootstrap`: failures, antipatterns, facts valid now, patterns, tips within a
  budget) and the end of a session (`end_session`).
- `extract`: find session logs, tell their format apart, store the episodes they record.
- `json_logs`: the ai-agents JSON session logs -> episode.
- `markdown_logs`: the older markdown session logs -> episode.
- `rules`: the extraction rules every log format shares (work items -> task, outcome, events, decisions).

What the other layers use:
`protocol.bootstrap`, `end_session` (`Bootstrap`, `SessionEnd`, `DEFAULT_BUDGET`, `DEFAULT_DAYS`);
`extract.extract_into_vault` (`Extracted`).

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.sessions import protocol`, so importing the package costs
nothing and cannot make an import cycle.
"""
