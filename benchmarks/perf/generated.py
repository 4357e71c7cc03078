"""The generated vaults (benchmarks/generate_vault.py) as the speed benchmarks measure them: a fresh
copy per run, queries in the vaults' own words, and the real model's cost for each query."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from benchmarks.generate_vault import ACTIONS, PROBLEMS, SIZES, SUBJECTS, generate
from benchmarks.harness import CACHE


def fresh_vault(size: str, name: str = "vault", patterns_only: bool = False) -> Path:
    """A generated vault (cached by size) copied to a scratch folder without any index."""
    source = CACHE / f"vault-{size}{'-patterns' if patterns_only else ''}"
    if not source.exists():
        generate(source, SIZES[size], seed=1, patterns_only=patterns_only)
    target = CACHE / "work" / f"{name}-{size}"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("index"))
    return target


def queries(count: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{rng.choice(SUBJECTS)} {rng.choice(PROBLEMS)} {rng.choice(ACTIONS)}"[: rng.randint(20, 80)]
        for _ in range(count)
    ]


class RealQueries:
    """The lexical embedder's identity (so the lexical vectors may be searched) with the real
    model's cost for each query: for timing only."""

    def __init__(self, real, lexical):
        self.real, self.id, self.dim, self.source = real, lexical.id, lexical.dim, "timing"

    def embed(self, texts):
        return self.real.embed(texts)
