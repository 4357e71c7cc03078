"""Immutable facts: supersession, bitemporal recall, the hash-chained recall journal and the retention sweep.

Modules:
- `service`: record, supersede and invalidate facts (never edited in place); put and lift holds; close a fact
  whose supersede was interrupted; every fact of the vault.
- `recall`: recall the facts valid at an instant as known at another, ranked and journaled; history and replay.
- `journal`: the recall journal (`.brain/journal/recall.jsonl`): checked appends, its anchor, torn lines set aside.
- `journal_check`: verify the hash chain, purged values against the sweep receipts, the anchor.
- `sweep`: the retention sweeper, the only hard delete: purges every store and writes a receipt.
- `sweep_plan`: a sweep's plan written down before it deletes, so a killed sweep is finished later.
- `holds`: the hold register (`.brain/journal/holds.jsonl`): holds an edit of a note cannot lift.
- `health`: what `brain doctor` checks of the facts' crash safety, and what `--fix` repairs.
- `settings`: namespaces, tiers, compliance classes and retention policies from `.brain/config.toml`.
- `table`: every fact as columns, built once per catalog change (used by recall and history).
- `index`: what facts ask of the search index: similarity to a query, purging swept notes.

What the other layers use:
`service.record_fact`, `supersede_fact`, `invalidate_fact`, `all_facts`, `default_caller` (`FactWritten`);
`service.set_hold`, `repair_interrupted`; `recall.recall_facts`, `history`, `replay` (`Recall`, `RecallHit`,
`Replay`); `journal.records`, `journal_path`; `journal_check.verify`; `sweep.sweep` (`SweepReport`, `SweepItem`);
`health.check_fact_safety`, `fix_fact_safety`; `settings.load_settings`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.facts import service`, so importing the package costs
nothing and cannot make an import cycle.
"""
