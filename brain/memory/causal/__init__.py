"""Causality: the causal graph, causal chains over `caused_by`, saved contexts, neighbourhoods and stats.

Modules:
- `graph`: the causal graph from `## Causal Relationships` and `caused_by` (networkx): paths, cycles,
  Mermaid / GraphML / JSON export.
- `chains`: a note's ancestry back to its root causes (or what it led to), and "why" from evidence.
- `contexts`: save and load contexts (project, action type, causes, rationale).
- `neighbourhood`: a note and its neighbourhood packed into a token budget (`build_context`).
- `stats`: causality statistics, and what `brain doctor` reports about causes.

What the other layers use:
`graph.find_path`, `build_graph`, `export_graph`, `find_cycles`, `reverse_path_exists` (`CausalPath`,
`GraphFormat`); `chains.build_chain`, `reconstruct_reasoning` (`Chain`, `ChainStep`, `Reasoning`);
`contexts.save_context`, `load_contexts`, `projects`, `ACTION_TYPES` (`SavedContext`, `ContextEntry`);
`neighbourhood.build_context` (`BuiltContext`, its budget and depth limits); `stats.causality_stats`,
`causal_findings` (`CausalityStats`). Each module also names its `DEFAULT_*` / `MAX_*` limits.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.causal import chains`, so importing the package costs
nothing and cannot make an import cycle.
"""
