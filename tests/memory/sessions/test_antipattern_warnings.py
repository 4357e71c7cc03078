"""A session start's antipattern warnings come from each pattern note's figures kept on disk
(`context.antipattern_warnings`): the same lines as `antipatterns()` gives, from a one-shot process
that decodes no pattern note and from a vault held in memory, and again after a pattern changes."""

from __future__ import annotations

import json

import brain
from brain.index.catalog.summaries import summary_path
from brain.memory.patterns.service import antipatterns
from brain.memory.sessions.context import ANTIPATTERN_FIGURES, antipattern_lines, antipattern_warnings
from tests.conftest import lexical_vault, put, run_brain

PATTERNS = {
    # title: (success_rate, occurrences, trigger, project)
    "ANTIPATTERN-a": ("0.1", "5", "deploys drop messages", None),
    "ANTIPATTERN-b": ("0.1", "9", "the cache times out", "ledger"),
    "ANTIPATTERN-c": ("0.3", "2", None, None),  # at both thresholds: kept, no trigger
    "ANTIPATTERN-d": ("0", "2", "'42'", "billing"),
    "PATTERN-works": ("0.9", "12", "upstream 503s", None),
    "PATTERN-too-few": ("0.0", "1", "once", None),
    "PATTERN-bad-rate": ("high", "4", "x", None),
    "PATTERN-no-counts": (None, None, "y", None),
}


def _pattern(title: str, rate: str | None, occurrences: str | None, trigger: str | None, project: str | None) -> str:
    lines = [f"title: {title}", "type: pattern"]
    lines += [f"success_rate: {rate}"] if rate is not None else []
    lines += [f"occurrences: {occurrences}"] if occurrences is not None else []
    lines += [f"trigger: {trigger}"] if trigger is not None else []
    lines += [f"project: {project}"] if project is not None else []
    return "---\n" + "\n".join(lines) + f"\n---\n# {title}\n\n## Action\nsomething\n"


def test_the_warnings_match_antipatterns_from_disk_and_from_memory(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    for title, figures in PATTERNS.items():
        put(vault, f"patterns/{title}.md", _pattern(title, *figures))
    assert run_brain("index", "--no-embed", "--vault", str(vault.root)).exit_code == 0

    expected = {
        None: [
            "- ANTIPATTERN-d (0% over 2): 42",
            "- ANTIPATTERN-b (10% over 9): the cache times out",
            "- ANTIPATTERN-a (10% over 5): deploys drop messages",
            "- ANTIPATTERN-c (30% over 2)",
        ],
        "ledger": [
            "- ANTIPATTERN-b (10% over 9): the cache times out",
            "- ANTIPATTERN-a (10% over 5): deploys drop messages",
            "- ANTIPATTERN-c (30% over 2)",
        ],
    }
    for project, lines in expected.items():
        with brain.open(vault.root) as memory:
            assert antipattern_warnings(memory.corpus, project=project) == lines
            assert antipattern_lines(antipatterns(memory.corpus, project=project)) == lines
    stored = json.loads(summary_path(vault.index_dir, ANTIPATTERN_FIGURES).read_text())
    assert len(stored) == len(PATTERNS)  # one value per pattern note, None for those never an antipattern

    put(vault, "patterns/PATTERN-works.md", _pattern("PATTERN-works", "0.2", "12", "upstream 503s", None))
    with brain.open(vault.root) as memory:
        lines = antipattern_warnings(memory.corpus)
        assert lines[3] == "- PATTERN-works (20% over 12): upstream 503s"
        assert lines == antipattern_lines(antipatterns(memory.corpus))
        memory.corpus.notes()  # every note held in memory: the figures are computed from them
        assert antipattern_warnings(memory.corpus) == lines
