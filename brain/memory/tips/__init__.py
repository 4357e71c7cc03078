"""Tips learned from past work (strategy, recovery, optimization) and the guidelines for a new task.

The front ends, the session protocol and the hooks call `service` (learn, list, guidelines,
feedback), `consolidate`, `language_model` and `trajectory`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.tips import service`, so importing the package costs
nothing and cannot make an import cycle.
"""
