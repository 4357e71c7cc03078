"""Tests of brain/agents/: hooks installed, run and reported on (the transcript readers: tests/memory/sessions/transcripts/)."""
