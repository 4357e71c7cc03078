"""Derived indexes: catalog, vectors, embedders, search, sync, watch."""
