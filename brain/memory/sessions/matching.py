"""Whether an earlier failure is the one an agent has just hit: their keys' terms compared, each term
weighed by how rare it is among the vault's own failures.

Two failures of the same kind and program (`brain.memory.episodes.signature.key`) are compared by their terms:
the words and masks of their error templates, and the names and paths those masked. A term's weight
is its inverse document frequency over the catalog's failures, smoothed so that a small vault does
not take every word for a rare one:

    idf(t) = ln((N + prior_failures) / (df(t) + 1))

(N failures in the catalog, df(t) of them holding t). A word every failure of a runner prints
(`failed`, `exited`, `code`, Jest's `suite`) weighs little; the one that names the error
(`IndentationError`, `main module`) decides.

An earlier failure matches when both hold:
- `similarity`, the weighted Jaccard of the two term sets (the weight they share over the weight
  of either), is at least `min_similarity`: most of what each says, the other says too; a masked
  value's term (`=src/app.py`) weighs `parameter_weight` of its idf there. At 1 (chosen on the ten
  replayed histories, each held out: at 0.5 a missing file was handed another missing file's fix,
  its error having no other specific word), the same error on another name matches only when the
  error says enough besides the name;
- `shared`, the idf of the terms they share, is at least `min_shared`: what they share is specific
  enough, not only a generic line that many failures print.

The thresholds are chosen on replayed project histories and checked on others held out
(`benchmarks/quality/memory_replay.py`, figures in `docs/benchmarks.md`); `MatchSettings` holds them
so the benchmark can vary them.

Why not a log-template miner (Drain3): it groups lines by their count of tokens and their first
tokens, so two failures whose names differ in length never meet, weighs every token alike, keeps
a model that must be trained and saved (pickled) between runs, and pins old versions of its two
dependencies; what it would give here (masked templates) is the few regular expressions of
`brain.memory.episodes.signature.template`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from brain.index.catalog.failures import FailureSeen


@dataclass(frozen=True)
class MatchSettings:
    """The thresholds and weights of matching (see the module's docstring)."""

    min_similarity: float = 0.8
    min_shared: float = 6.0
    parameter_weight: float = 1.0
    prior_failures: int = 50

    def accepts(self, match: Scored) -> bool:
        return match.similarity >= self.min_similarity and match.shared >= self.min_shared


DEFAULT_SETTINGS = MatchSettings()


@dataclass(frozen=True)
class Scored:
    """An earlier failure scored against the live one."""

    seen: FailureSeen
    similarity: float
    shared: float


def rarity(term: str, counts: Mapping[str, int], total: int, settings: MatchSettings) -> float:
    """A term's smoothed inverse document frequency among the catalog's failures."""
    return max(math.log((total + settings.prior_failures) / (counts.get(term, 0) + 1)), 0.0)


def weight(term: str, counts: Mapping[str, int], total: int, settings: MatchSettings) -> float:
    """A term's weight in the similarity: its rarity, less for a masked value's term (a name that
    differs makes two failures less alike than a word that differs)."""
    return rarity(term, counts, total, settings) * (settings.parameter_weight if term.startswith("=") else 1.0)


def score(
    live: tuple[str, ...], earlier: tuple[str, ...], counts: Mapping[str, int], total: int, settings: MatchSettings
) -> tuple[float, float]:
    """(similarity, shared) of two failures' terms (see the module's docstring): the similarity by
    `weight`, what they share by `rarity` (a rare name both hold is as strong a sign as a rare word)."""
    one, other = set(live), set(earlier)
    both = sum(weight(term, counts, total, settings) for term in one & other)
    either = sum(weight(term, counts, total, settings) for term in one | other)
    shared = sum(rarity(term, counts, total, settings) for term in one & other)
    return (both / either if either else 0.0), shared


def ranked(
    live: tuple[str, ...], seen: tuple[FailureSeen, ...], counts: Mapping[str, int], total: int, settings: MatchSettings
) -> list[Scored]:
    """Every earlier failure scored, best first (the newest first among equals); no threshold applied."""
    scored = [Scored(found, *score(live, found.terms, counts, total, settings)) for found in seen]
    order = sorted(range(len(scored)), key=lambda index: (-round(scored[index].similarity, 6), index))
    return [scored[index] for index in order]
