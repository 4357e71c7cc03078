"""Chunk vectors: a note's chunks, their vectors in Chroma, and the in-memory copy every dense query reads.

Modules: `vectors` (`VectorStore`: Chroma, embedded or a server, one collection per vault and
embedder), `identity` (which vault and embedder a collection belongs to, and its files' stamp),
`matrix` (the exact in-memory copy of the chunk vectors), `segments` (the embedded store's segment
folders on disk, their size and their bound) and `chunking` (a note cut along its sections, within
the model's window). The room sits below the engine and imports none of it; the
pipeline that embeds and writes the chunks, and the consistency check, are in `index/sync/`.
Nothing is imported here, on purpose: importing the package is free and cannot start a cycle.
"""
