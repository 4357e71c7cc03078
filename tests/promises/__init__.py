"""Guarantees that cross the packages: crash safety, concurrency, disk faults, hostile input, one-line errors, lossless edits, the layers, the docs."""
