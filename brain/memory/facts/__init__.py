"""Immutable facts: supersession, bitemporal recall, the hash-chained recall journal and the retention sweep.

Modules:
- `service`: record, supersede and invalidate facts (never edited in place); every fact of the vault.
- `recall`: recall the facts valid at an instant as known at another, ranked and journaled; history and replay.
- `journal`: the recall journal (`.brain/journal/recall.jsonl`): append, read, verify the hash chain.
- `sweep`: the retention sweeper, the only hard delete: purges every store and writes a receipt.
- `settings`: namespaces, tiers, compliance classes and retention policies from `.brain/config.toml`.
- `table`: every fact as columns, built once per catalog change (used by recall and history).
- `index`: what facts ask of the search index: similarity to a query, purging swept notes.

What the other layers use:
`service.record_fact`, `supersede_fact`, `invalidate_fact`, `all_facts`, `default_caller` (`FactWritten`);
`recall.recall_facts`, `history`, `replay` (`Recall`, `RecallHit`, `Replay`); `journal.records`, `verify`,
`journal_path`; `sweep.sweep` (`SweepReport`, `SweepItem`); `settings.load_settings`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.facts import service`, so importing the package costs
nothing and cannot make an import cycle.
"""
