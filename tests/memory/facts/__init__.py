"""Tests of brain/memory/facts/: record and recall, the journal, the sweep, holds."""
