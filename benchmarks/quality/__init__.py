"""Quality benchmarks: how well brain finds (search) and keeps (session extraction) what it should."""
