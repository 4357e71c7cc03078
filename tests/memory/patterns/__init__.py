"""Tests of brain/memory/patterns/."""
