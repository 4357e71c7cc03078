"""Search: hybrid search over the catalog (BM25) and the chunk vectors, its scores, its reranker."""
