"""Tests of brain/index/: the catalog, vectors, embedders, chunking, search, the watcher, freshness."""
