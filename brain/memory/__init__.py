"""Services over the notes: episodes, patterns, the causal graph, and the notes themselves."""
