"""Tests of brain/memory/: the corpus here, each domain's services in a room of its own."""
