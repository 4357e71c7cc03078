"""Immutable facts: supersession, bitemporal recall, the hash-chained recall journal and the retention sweep.

The front ends call `service` (record, supersede, invalidate, holds), `recall`, `journal_check` and
`sweep`; `brain doctor` calls `health`, and the note services keep a held fact through `holds`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.facts import service`, so importing the package costs
nothing and cannot make an import cycle.
"""
