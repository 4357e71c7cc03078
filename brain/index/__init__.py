"""Derived indexes under `.brain/index/` (disposable): the catalog, the chunk vectors, the embedders, search.

Below the engine: `catalog/` (SQLite + FTS5), `vectors/` (chunks, Chroma and its in-memory copy),
`embedders/` (the models and their files) and `heartbeat` (the watcher's proof of life). The front
door, `engine` (`Index`, `open_index`) and `vault_index` (`VaultIndex`: an open vault's `Index`, opened once; `has_index`). Over it: `sync/` (the scan,
the embedding pipeline, when each runs, brain's own writes), `watch/` (brain watch, freshness before
a read), `search` and `rerank` (hybrid search, the optional cross-encoder) and `status` (what
`brain status` and `doctor` report). Nothing is imported here, on purpose: importing the package is
free and cannot start a cycle.
"""
