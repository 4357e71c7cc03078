"""The session protocol and session logs: bootstrap a task, end a session, turn logs into episodes.

Modules:
- `protocol`: the start of a task (`bootstrap`: failures, antipatterns, facts valid now, patterns, tips within a
  budget) and the end of a session (`end_session`).
- `extract`: find session logs, tell their format apart, read the episodes they record (never writes).
- `json_logs`: the ai-agents JSON session logs -> episode.
- `markdown_logs`: the older markdown session logs -> episode.
- `rules`: the extraction rules every log format shares (work items -> task, outcome, events, decisions).
- `transcripts`: agent transcripts on disk (format detection, JSON Lines streamed a line at a time);
  `claude_code` and `codex` read them into acts; `transcript_episode` makes the episode by rules;
  `commands` tells what a tool call did (edit, test run, commit); `choices` reads a choice the agent
  states; `redact` replaces secrets;
  `ingest` extracts any transcript or log and stores it redacted.

What the other layers use:
`protocol.bootstrap`, `end_session` (`Bootstrap`, `SessionEnd`, `DEFAULT_BUDGET`, `DEFAULT_DAYS`);
`extract.extract_path` (`Extracted`); `ingest.extract_into_vault` (the only writer, redacting), `ingest.extract_transcript`
(`TranscriptExtracted`); `redact.Redactor`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.sessions import protocol`, so importing the package costs
nothing and cannot make an import cycle.
"""
