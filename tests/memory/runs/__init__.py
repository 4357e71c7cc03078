"""Tests of brain/memory/runs/: record, recall, export."""
