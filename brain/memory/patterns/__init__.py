"""Patterns with running success rates, and the antipatterns among them.

Modules:
- `service`: create a pattern or record one more occurrence (running average, evidence episode), list
  patterns, find antipatterns, resolve a pattern by name.

What the other layers use:
`service.add_pattern`, `record_pattern_evidence`, `list_patterns`, `antipatterns`, `find_pattern`,
`pattern_title`; `PatternUpdate`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.patterns import service`, so importing the package costs
nothing and cannot make an import cycle.
"""
