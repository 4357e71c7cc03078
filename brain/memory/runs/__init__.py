"""Recorded agent runs: a snapshot as a note, recall by query within a tenant, explanations, training data.

Modules:
- `service`: record, show, list, recall and explain runs (always within one tenant).
- `validation`: what a run record must look like: snapshot, identity, labels, TTL.
- `vectors`: the runs' query vectors: the one place the runs service touches the index.
- `export`: training data from labelled runs: SFT, DPO (and OpenAI's layout), KTO, process labels.

What the other layers use:
`service.record_run`, `get_run`, `list_runs`, `recall_runs`, `explain_run` (`RecordedRun`,
`RunRecall`, `Explanation`, the `DEFAULT_*` / `MAX_*` limits); `validation.recording_from_data`, `parse_json`,
`labels_from`; `export.export_runs`, `FORMATS` (`ExportSummary`).

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.runs import service`, so importing the package costs
nothing and cannot make an import cycle.
"""
