"""Tests of brain/cli/: start-up, the registry, commands driven through the CLI."""
