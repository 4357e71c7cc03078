"""The ai-agents memory format (episode-*.json, causal-graph.json) into notes and back, losslessly.

The CLI's `import` and `export` groups are its only callers: `importer.import_ai_agents`,
`export.export_ai_agents` and `verify.verify_ai_agents`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.importers.ai_agents import importer`, so importing the package costs
nothing and cannot make an import cycle.
"""
