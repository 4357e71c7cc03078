"""Keeping the indexes in step with the notes: the scan, the embedding pipeline, and when each runs.

Modules: `sync` (`index_vault`, `reindex_vault`, `update_paths`: when the work runs), `scan` (files
-> catalog: stat every note file, read and parse only what changed), `reading` and `workers` (read,
hash and parse files, in process-pool workers that die with their parent), `embedding` (catalog ->
vectors: chunk the changed notes, embed the new chunks, write them), `consistency` (do the vectors
hold what the catalog says; the repair), `disk_bound` (after every write, a segment out of its bound
rebuilt from brain's vectors) and `attach` (brain's own writes update the catalog at
once). The room works on an `Index` from the engine, over `catalog/`, `vectors/` and `embedders/`.
Nothing is imported here, on purpose: importing the package is free and cannot start a cycle.
"""
