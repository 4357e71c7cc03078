"""Tests of brain/memory/tips/: learning, wording, consolidation."""
