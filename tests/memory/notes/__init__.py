"""Tests of brain/memory/notes/: reading, writing, moving notes."""
