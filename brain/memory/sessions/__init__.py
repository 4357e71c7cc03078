"""The session protocol and session logs: bootstrap a task, end a session, turn logs and transcripts into episodes.

The front ends and the agents' hooks call `protocol` (bootstrap, end of session), `extract` and
`ingest` (logs and transcripts into redacted episodes).

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.sessions import protocol`, so importing the package costs
nothing and cannot make an import cycle.
"""
