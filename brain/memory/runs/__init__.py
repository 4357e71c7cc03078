"""Recorded agent runs: a snapshot as a note, recall by query within a tenant, explanations, training data.

The front ends call `service`, `validation` (the record an agent sends) and `export`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.runs import service`, so importing the package costs
nothing and cannot make an import cycle.
"""
