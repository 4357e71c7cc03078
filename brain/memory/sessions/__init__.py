"""The session protocol and session logs: bootstrap a task, end a session, turn logs and transcripts into episodes.

The front ends and `brain.agents` call `protocol` (bootstrap, end of session), `ingest` (logs and
transcripts into redacted episodes), `context` (what a hook hands the agent), `task_prompt` (which
prompt gets the first-prompt context), `redact` and `scrub` (`brain redact`: the secrets already in a
vault, out of every store); each agent's transcript reader is in `transcripts` (all of them:
`transcripts.readers.READERS`).

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.sessions import protocol`, so importing the package costs
nothing and cannot make an import cycle.
"""
