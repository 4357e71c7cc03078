"""Tests of brain/notes/: the note model, the parser, surgical edits, round trips."""
