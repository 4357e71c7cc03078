"""Causality: the causal graph, chains over `caused_by`, saved contexts, neighbourhoods and stats.

The front ends call each module for its own commands and tools (paths and export, chains and
reasoning, contexts, `build_context`, stats); `brain doctor` and the importers read the graph too.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.causal import chains`, so importing the package costs
nothing and cannot make an import cycle.
"""
