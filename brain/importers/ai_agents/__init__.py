"""The ai-agents memory format (episode-*.json, causal-graph.json) into notes and back, losslessly.

Modules:
- `importer`: `brain import ai-agents`: find the JSON files, read them, plan every note, then write.
- `export`: `brain export ai-agents`: episodes, causal notes and patterns back to JSON.
- `verify`: `--verify`: compare the JSON with what the notes now say.
- `episodes`: episode JSON <-> episode notes (pure).
- `graph`: causal graph JSON -> note parts (pure).
- `checks`: where a file departs from the v1 / v2 schemas: warnings, never refusals.
- `common`: what the importer, exporter and verifier share.

What the other layers use:
`importer.import_ai_agents` (`ImportResult`), `export.export_ai_agents` (`EPISODES_DIR`),
`verify.verify_ai_agents`; the CLI's `import` and `export` groups are their only callers.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.importers.ai_agents import importer`, so importing the package costs
nothing and cannot make an import cycle.
"""
