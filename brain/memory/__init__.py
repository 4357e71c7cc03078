"""The services, one package per domain, which the front ends and the importers call.

The modules beside the domain packages serve them all: `corpus` (the notes, read through the
catalog), `similarity`, `timeutil`, `projects` (the project of a folder, the scope of a reader), and
`health` and `finding` for `brain doctor`.
"""
