"""Tests of brain/importers/."""
