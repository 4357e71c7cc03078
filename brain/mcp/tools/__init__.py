"""The MCP tools, one module per domain, each a set of module-level functions `fn(state, ...)`.

Modules:
- `notes`: group `core`: write_note, read_note, edit_note, search, build_context.
- `episodes`: group `episodic`: store_episode, query_episodes, get_decision_sequence.
- `patterns`: group `episodic`: add_pattern, query_patterns, get_causal_path, get_antipatterns.
- `runs`: group `runs`: record_run, recall_runs, explain_run.
- `causal`: group `causal`: save_context, load_context, build_causal_chain, reconstruct_reasoning,
  get_causality_stats.
- `tips`: group `learning`: save_trajectory, get_guidelines.
- `sessions`: group `learning`: bootstrap_context.
- `facts`: group `facts`: record_fact, supersede_fact, invalidate_fact, recall_facts.

What the other layers use:
each module's `GROUP` (the `--tools` profile name) and its functions decorated with
`brain.mcp.common.tool`; `brain.mcp.server` lists the modules in `_TOOL_MODULES` and registers
them with `register_tools`. A tool is a plain function: a test can call it with a `ServerState`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.mcp.tools import notes`, so importing the package costs
nothing and cannot make an import cycle.
"""
