"""Patterns with running success rates, and the antipatterns among them.

The front ends, the importers and the session protocol use `service`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.patterns import service`, so importing the package costs
nothing and cannot make an import cycle.
"""
