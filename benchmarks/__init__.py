"""brain's benchmarks: each writes JSON to benchmarks/results/, and docs/benchmarks.md gives its figures.

Run each as a module from the repository's root (the checkout's own brain is then the one measured):

    python -m benchmarks.perf.status_latency --runs 5
    python -m benchmarks.generate_vault /tmp/vault --size 10k

- perf/: speed and memory, rerun after a change to see whether it got slower (regression benchmarks);
- quality/: how well brain does its job (search quality, extraction completeness);
- studies/: one-off studies that chose something (the fusion, the chunk context, the embedder),
  kept so that the choice can be checked again;
- generate_vault: the synthetic vaults the perf benchmarks measure on;
- retrieval: the search data sets (public multi-hop sets, vault-example's labelled queries) as vaults;
- harness: timing, percentiles, the machine's load, JSON results, the data kept in ../shared.
"""
