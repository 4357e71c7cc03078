"""Tests of brain/memory/causal/: paths, chains, contexts, neighbourhoods."""
