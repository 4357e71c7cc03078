"""Generate a realistic synthetic vault: episodes with decisions and events, patterns and
antipatterns with success rates and causal relationships, contexts with caused_by, facts, and
plain notes, all linked. Deterministic for a given seed.

    python -m benchmarks.generate_vault OUT --size 1k|10k [--seed 1] [--patterns-only] [--tips N]

Mix per 1,000 notes: 300 episodes, 250 patterns, 100 contexts, 50 facts, 300 plain notes.
`--patterns-only` makes every note a pattern (the causal-graph benchmark at 10k patterns). `--tips N`
adds N tip notes on top (most with support 1-2, a quarter 3 or more).
"""

from __future__ import annotations

import argparse
import random
import shutil
from pathlib import Path

SIZES = {"1k": 1_000, "10k": 10_000, "50k": 50_000}
AREAS = [
    "payments",
    "ledger",
    "auth",
    "mobile",
    "cache",
    "search",
    "billing",
    "webhooks",
    "migrations",
    "ci",
    "observability",
    "rate-limits",
    "exports",
    "notifications",
    "onboarding",
    "reports",
]
SUBJECTS = [
    "the API gateway",
    "the balance cache",
    "the transfers table",
    "the mobile client",
    "the webhook consumer",
    "the nightly export",
    "the integration suite",
    "the rate limiter",
    "the auth server",
    "the search indexer",
    "the billing job",
    "the notification queue",
    "the read replica",
    "the feature flag service",
]
PROBLEMS = [
    "timed out under load",
    "returned stale data",
    "created duplicate rows",
    "dropped messages during deploys",
    "spiked p95 latency",
    "failed intermittently in CI",
    "leaked connections",
    "blocked writes for minutes",
    "logged users out",
    "exhausted the connection pool",
    "double-charged a customer",
    "missed alerts at night",
]
ACTIONS = [
    "added an idempotency key",
    "introduced jittered TTLs",
    "moved the check into the same transaction",
    "put the change behind a canary",
    "split the migration into expand and contract steps",
    "added a lock timeout",
    "propagated the trace id",
    "quarantined the test with an owner",
    "rotated refresh tokens",
    "coalesced concurrent requests",
    "added per-tenant buckets",
    "replaced threshold alerts with burn-rate alerts",
    "created the index concurrently",
]
RESULTS = [
    "the error rate fell to zero",
    "p95 latency dropped by a third",
    "no duplicates appeared in a week",
    "the suite passed 200 runs in a row",
    "on-call pages halved",
    "the rollout finished without incident",
    "a follow-up was needed for the edge case",
    "the fix had to be reverted once",
]
WORDS = (
    "retry backoff queue schema index replica shard tenant token session cache ttl lock deadlock rollback "
    "canary release flag budget latency throughput consistency ordering dedupe checksum audit ledger "
    "balance transfer refund dispute webhook signature nonce verifier challenge redirect scope grant"
).split()
OUTCOMES = ["success", "success", "success", "partial", "failure"]
DECISION_TYPES = ["design", "implementation", "test", "recovery", "routing"]


def sentence(rng: random.Random) -> str:
    return f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(PROBLEMS)}, so we {rng.choice(ACTIONS)} and {rng.choice(RESULTS)}."


def paragraph(rng: random.Random, lo: int = 2, hi: int = 5) -> str:
    text = " ".join(sentence(rng) for _ in range(rng.randint(lo, hi)))
    return text + " " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) + "."


class Names:
    def __init__(self, n: int, patterns_only: bool):
        counts = {"episode": 0.30, "pattern": 0.25, "context": 0.10, "fact": 0.05, "note": 0.30}
        if patterns_only:
            counts = {"pattern": 1.0}
        self.kinds: list[str] = []
        for kind, share in counts.items():
            self.kinds += [kind] * round(n * share)
        self.kinds = (self.kinds + ["note"] * n)[:n]
        self.by_kind: dict[str, list[str]] = {}
        for number, kind in enumerate(self.kinds):
            self.by_kind.setdefault(kind, []).append(self.title(kind, number))

    @staticmethod
    def title(kind: str, number: int) -> str:
        area = AREAS[number % len(AREAS)]
        return {
            "episode": f"EPISODE-2026-{1 + number % 12:02d}-{1 + number % 28:02d}-session-{number:05d}",
            "pattern": f"{'ANTIPATTERN' if number % 7 == 0 else 'PATTERN'}-{area}-{number:05d}",
            "context": f"Context {area} {number:05d}",
            "fact": f"FACT-{area}-{number:05d}",
            "note": f"Note {area} {number:05d}",
        }[kind]

    def pick(self, rng: random.Random, kind: str) -> str:
        return rng.choice(self.by_kind.get(kind) or self.by_kind["note" if "note" in self.by_kind else "pattern"])


def episode(rng: random.Random, title: str, names: Names) -> str:
    area = rng.choice(AREAS)
    decisions = []
    for d in range(1, rng.randint(2, 4) + 1):
        options = ", ".join(rng.sample(ACTIONS, 3))
        decisions.append(
            f"### d{d:03d}: {rng.choice(ACTIONS).capitalize()}\n- **Timestamp**: 2026-03-0{d}T10:{d:02d}:00Z\n"
            f"- **Type**: {rng.choice(DECISION_TYPES)}\n- **Context**: {sentence(rng)}\n- **Options**: {options}\n"
            f"- **Chosen**: {options.split(', ')[0]}\n- **Rationale**: {paragraph(rng, 1, 2)}\n"
            f"- **Outcome**: {rng.choice(OUTCOMES)}\n- **Effects**: [[e00{d}]]\n"
        )
    events = "\n".join(
        f"{i}. [2026-03-01T1{i}:00:00Z] e00{i} (milestone): {sentence(rng)}" for i in range(1, rng.randint(3, 6))
    )
    observations = "\n".join(
        f"- [{rng.choice(['insight', 'error', 'metric', 'decision'])}] {sentence(rng)} #{area}"
        for _ in range(rng.randint(3, 6))
    )
    return (
        f"---\ntitle: {title}\ntype: episode\ntags: [episodic, {area}]\noutcome: {rng.choice(OUTCOMES)}\n"
        f'task: {rng.choice(ACTIONS).capitalize()} for {rng.choice(SUBJECTS)}\ndate: "2026-03-{1 + rng.randrange(28):02d}T09:00:00Z"\n'
        f"duration_minutes: {rng.randint(20, 240)}\nmetrics:\n  tool_calls: {rng.randint(5, 80)}\n  errors: {rng.randint(0, 5)}\n---\n\n"
        f"# {title}\n\n## Context\n{paragraph(rng, 3, 6)}\n\n## Observations\n{observations}\n\n## Decisions\n\n"
        + "\n".join(decisions)
        + f"\n## Events Timeline\n{events}\n\n## Lessons Learned\n- {sentence(rng)}\n- {sentence(rng)}\n\n"
        f"## Relations\n- applies [[{names.pick(rng, 'pattern')}]]\n- relates_to [[{names.pick(rng, 'note')}]]\n"
    )


def pattern(rng: random.Random, title: str, names: Names) -> str:
    anti = title.startswith("ANTIPATTERN")
    rate = round(rng.uniform(0.05, 0.3) if anti else rng.uniform(0.4, 0.98), 2)
    causal = "\n".join(
        f"- {rng.choice(['causes', 'enables', 'prevents', 'correlates'])} [[{names.pick(rng, 'pattern')}]] "
        f"(weight: {rng.uniform(0.3, 0.95):.2f}, evidence: {rng.randint(1, 9)})"
        for _ in range(rng.randint(1, 3))
    )
    evidence = (
        "\n".join(f"- [[{names.pick(rng, 'episode')}]] - {rng.choice(OUTCOMES)}" for _ in range(rng.randint(1, 3)))
        if "episode" in names.by_kind
        else ""
    )
    return (
        f"---\ntitle: {title}\ntype: pattern\ntags: [pattern, {rng.choice(AREAS)}]\n"
        f"trigger: {rng.choice(SUBJECTS).capitalize()} {rng.choice(PROBLEMS)}\nsuccess_rate: {rate}\n"
        f'occurrences: {rng.randint(1, 30)}\nlast_validated: "2026-03-{1 + rng.randrange(28):02d}"\n---\n\n'
        f"# {title}\n\n## Context\n{paragraph(rng)}\n\n## Trigger\n{sentence(rng)}\n\n## Action\n1. {rng.choice(ACTIONS).capitalize()}.\n"
        f"2. {rng.choice(ACTIONS).capitalize()}.\n\n## Observations\n- [evidence] {sentence(rng)}\n\n"
        f"## Causal Relationships\n{causal}\n\n## Evidence Episodes\n{evidence}\n\n"
        + (f"## Anti-Pattern Warning\n{sentence(rng)}\n\n" if anti else "")
        + f"## Relations\n- part_of [[{names.pick(rng, 'note') if 'note' in names.by_kind else names.pick(rng, 'pattern')}]]\n"
    )


def context(rng: random.Random, title: str, names: Names) -> str:
    cause = names.pick(rng, "context")
    return (
        f"---\ntitle: {title}\ntype: context\nproject: ledger\naction_type: {rng.choice(['conversation', 'decision', 'file_edit', 'research'])}\n"
        f'caused_by: "[[{cause}]]"\nrationale: {sentence(rng)}\n---\n\n{paragraph(rng, 2, 4)}\n'
    )


def fact(rng: random.Random, title: str, names: Names) -> str:
    return (
        f"---\ntitle: {title}\ntype: fact\nkind: config\nsubject: {title.lower()}\nvalue: {rng.randint(1, 1000)}\n"
        f'namespace: ledger\nvalid_from: "2026-0{rng.randint(1, 9)}-01"\n---\n\n{sentence(rng)}\n'
    )


def note(rng: random.Random, title: str, names: Names) -> str:
    sections = "\n\n".join(
        f"## {rng.choice(WORDS).capitalize()} {rng.choice(WORDS)}\n{paragraph(rng, 2, 7)}"
        for _ in range(rng.randint(1, 4))
    )
    links = " ".join(f"[[{names.pick(rng, rng.choice(list(names.by_kind)))}]]" for _ in range(rng.randint(1, 4)))
    return f'---\ntitle: {title}\ntags: [{rng.choice(AREAS)}]\ncreated: "2026-02-{1 + rng.randrange(28):02d}"\n---\n\n# {title}\n\n{paragraph(rng)}\n\nSee {links}.\n\n{sections}\n'


def tip(rng: random.Random, title: str, names: Names) -> str:
    """A tip as brain learns them: most have support 1-2, a few 3 or more (the core a session starts with)."""
    subject, problem = rng.choice(SUBJECTS), rng.choice(PROBLEMS)
    steps = "\n".join(f"{n}. {rng.choice(ACTIONS).capitalize()}." for n in range(1, rng.randint(2, 5)))
    return (
        f"---\ntitle: {title}\ntype: tip\ntags: [tip, {rng.choice(AREAS)}]\ncategory: "
        f"{rng.choice(['strategy', 'recovery', 'optimization'])}\ntrigger: {subject.capitalize()} {problem}\n"
        f"subtask: Keep {subject} from this\nsupport: {rng.choice([1, 1, 1, 1, 2, 2, 3, 4])}\nevidence: success\n"
        f'source_episodes: ["[[{names.pick(rng, "episode")}]]"]\n---\n\n# {title}\n\n'
        f"## Tip\n{sentence(rng)}\n\n## Purpose\n{paragraph(rng, 1, 2)}\n\n## Steps\n{steps}\n\n"
        f"## Avoid\n{sentence(rng)}\n\n## Applies When\n{subject.capitalize()} {problem}.\n"
    )


WRITERS = {
    "episode": (episode, "episodes"),
    "pattern": (pattern, "patterns"),
    "context": (context, "contexts"),
    "fact": (fact, "facts"),
    "note": (note, "notes"),
}


def generate(out: Path, n: int, seed: int = 1, patterns_only: bool = False, tips: int = 0) -> Path:
    rng = random.Random(seed)
    if out.exists():
        shutil.rmtree(out)
    (out / ".brain").mkdir(parents=True)
    names = Names(n, patterns_only)
    counters: dict[str, int] = {}
    for number, kind in enumerate(names.kinds):
        index = counters[kind] = counters.get(kind, -1) + 1
        title = names.by_kind[kind][index]
        writer, folder = WRITERS[kind]
        sub = f"{folder}/{AREAS[number % len(AREAS)]}" if kind == "note" else folder
        path = out / sub / f"{title}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(writer(rng, title, names), encoding="utf-8")
    if tips:
        (out / "tips").mkdir()
    for number in range(tips):  # on top of the n notes: a vault an agent's sessions have taught for months
        title = f"TIP-{AREAS[number % len(AREAS)]}-{number:05d}"
        (out / "tips" / f"{title}.md").write_text(tip(rng, title, names), encoding="utf-8")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--size", choices=sorted(SIZES), default="1k")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--patterns-only", action="store_true")
    parser.add_argument("--tips", type=int, default=0, help="tip notes to add on top of the size's notes")
    args = parser.parse_args()
    generate(args.out, SIZES[args.size], args.seed, args.patterns_only, args.tips)
    print(f"wrote {SIZES[args.size]} notes to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
