"""The catalog: one SQLite file (with FTS5) holding every note's stat, hash and parsed form.

Modules: `catalog` (`Catalog`: notes, links, tags, skipped files, full-text search, generation
counters), `schema` (the tables and their migrations), `rows` (what a note becomes in the catalog),
`codec` (a parsed `Note` as compact JSON and back), `chunks` (the catalog's rows of what the vector
store holds), `summaries` (per-note values kept on disk beside the catalog, by file hash) and
`names` (the notes' names read from the catalog file alone, for completion). The
room sits below the engine and imports none of it; what fills the catalog is in `index/sync/`.
Nothing is imported here, on purpose: importing the package is free and cannot start a cycle.
"""
