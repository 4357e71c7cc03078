"""Episodic memory: what happened in a session, with its decisions and events.

The front ends, the importers and the session protocol store and read episodes through `service`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.episodes import service`, so importing the package costs
nothing and cannot make an import cycle.
"""
