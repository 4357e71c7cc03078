"""Tests of brain/memory/episodes/."""
