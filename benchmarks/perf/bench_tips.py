"""Benchmark: learning from past work. Writes benchmarks/results/tips.json and prints it.

1. extraction: `episode extract` of the 25 fixture session logs into a fresh vault (target <= 5 s);
2. guidelines: p50/p95 of `guidelines` at 5,000 tips, warm (target p95 <= 30 ms), and the one-off
   time to embed the tips the first time;
3. consolidation of 5,000 tips, 10% of them rewrites of others (target <= 60 s), with the
   vectors of subtask/trigger already cached (as after guidelines) and the steps not yet;
4. usefulness on the real fixture sessions: episodes ordered by date, tips learned from the
   earlier two thirds, and for each later episode the guidelines for its task (core off, top 3):
   precision@3 = share of returned tips whose source episode shares a subject with it (their
   tasks share at least two content words), and how many later episodes got no tip, for a
   range of thresholds;
5. wording: `brain session end` of the transcripts in tests/data (the constructed Codex one, the 11
   public ones, the constructed Claude Code one) and the 20 JSON fixture logs into a copy of
   vault-example, and of the new tips how many hold a placeholder (`<code>`, `<path>`, ...), have a
   name that ends on a function word or cut mid-word, give the same cause twice, or carry a
   `[REDACTED:...]` marker (`--show` prints each tip's title, trigger, tip and purpose), tips per
   session and their duplicate rate;
6. histories: `brain session end` of every session of real project histories (one folder of
   `<session_id>.jsonl` per project, default /work/data/histories or $BRAIN_HISTORIES), in the order
   of their first timestamps, each project into a fresh vault: tips per session, the share of
   sessions that wrote a tip, and the duplicate rate; how many candidates wait for a second
   session at most, and how long those a later session matched had waited. A missing folder is
   reported, not an error.

Parts 5 and 6 also go into benchmarks/results/tips-per-session.json, under `--label` (`now`; name
a run of the code before a change `before`), each with the machine and command it was measured with.

Duplicate rate: the share of the tips written that repeat an earlier one of the same run: a title
that is another's with a `-2`, `-3` ... suffix, or advice whose words (lower case, numbers out)
overlap an earlier tip's by at least 0.8 (Jaccard).

    python -m benchmarks.perf.bench_tips [--tips 5000] [--queries 200]
        [--only extraction|usefulness|scale|wording|histories] [--histories DIR] [--label now]

The session logs are read from ../shared/fixtures/ai-agents/sessions/logs next to the
repository; when that is missing, from the copy in tests/data (and the JSON says so).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import REPO, percentile
from brain.index.embedders.embedders import load_embedder
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.index.watch.watch import follow
from brain.memory.corpus import Corpus
from brain.memory.episodes.service import get_episode
from brain.memory.sessions.ingest import extract_into_vault
from brain.memory.sessions.protocol import end_session
from brain.memory.tips import service as tips_service
from brain.memory.tips.consolidate import consolidate
from brain.memory.tips.note import SourceRef, Tip, render_tip, tip_from_note
from brain.memory.tips.wording import FUNCTION_WORDS
from brain.vault.init import init_vault

SHARED_LOGS = "fixtures/ai-agents/sessions/logs"  # under ../shared
TEST_LOGS = REPO / "tests" / "data" / "ai-agents" / "sessions" / "logs"
TRANSCRIPTS = REPO / "tests" / "data" / "transcripts"
RESULTS = harness.RESULTS / "tips.json"
PER_SESSION = harness.RESULTS / "tips-per-session.json"  # tips per session and duplicates, one block per label
THRESHOLDS = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
STOP = set(
    "the a an and or of to in on for with by from at as is was were be it its this that into every each per "
    "after before when then than not no only all any add make fix issue session pr".split()
)
VERBS = "add fix remove rename migrate validate review merge split cache retry index parse export import route gate test".split()
NOUNS = (
    "hook workflow schema memory session log episode pattern token secret plugin skill agent prompt parser "
    "index cache queue endpoint client server webhook release branch commit review thread lint config model eval"
).split()


def _logs() -> tuple[Path, str]:
    shared = harness.shared(SHARED_LOGS, instead="the copy in tests/data is read")
    if shared is not None:
        return shared, f"../shared/{SHARED_LOGS}"
    return TEST_LOGS, "tests/data/ai-agents/sessions/logs (../shared is missing)"


def bench_extraction(logs: Path) -> dict:
    times = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            vault, _ = init_vault(Path(tmp) / "v")
            start = time.perf_counter()
            results = extract_into_vault(Corpus(vault), [logs])
            times.append(time.perf_counter() - start)
    return {
        "logs": len(results),
        "seconds_best": round(min(times), 3),
        "seconds_median": round(statistics.median(times), 3),
        "target_seconds": 5.0,
    }


def _synthetic_tip(rng: random.Random, number: int, base: Tip | None) -> Tip:
    if base is not None:  # a rewrite: same category and steps, trigger and subtask reworded a little
        return Tip(
            title=f"TIP-bench-{number:05d}",
            category=base.category,
            tip=base.tip,
            trigger=base.trigger.replace("when", "whenever", 1) + " again",
            subtask="Then " + base.subtask[:1].lower() + base.subtask[1:],
            support=1,
            evidence=rng.choice(("success", "failure")),
            source_episodes=(SourceRef(f"EPISODE-bench-{number:05d}", "e001-e003"),),
            steps=base.steps,
            avoid=base.avoid,
            created="2026-01-01",
        )
    verb, noun, other = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(NOUNS)
    steps = tuple(
        f"{rng.choice(VERBS).capitalize()} the {rng.choice(NOUNS)} {rng.choice(NOUNS)}"
        for _ in range(rng.randint(2, 5))
    )
    return Tip(
        title=f"TIP-bench-{number:05d}",
        category=rng.choice(("strategy", "recovery", "optimization")),
        tip=f"{verb.capitalize()} the {noun} before the {other}",
        trigger=f"when the {noun} {other} {rng.choice(VERBS)} fails {number % 97}",
        subtask=f"{verb.capitalize()} the {noun} of the {other} {rng.choice(NOUNS)}",
        support=rng.choice((1, 1, 1, 2, 3)),
        evidence=rng.choice(("success", "failure", "both")),
        source_episodes=(SourceRef(f"EPISODE-bench-{number:05d}", "e001-e003"),),
        steps=steps,
        avoid=f"skipping the {rng.choice(NOUNS)}",
        created="2026-01-01",
    )


def bench_scale(count: int, queries: int, embedder) -> dict:
    rng = random.Random(14)
    with tempfile.TemporaryDirectory() as tmp:
        vault, _ = init_vault(Path(tmp) / "v")
        made: list[Tip] = []
        for number in range(count):
            base = rng.choice(made) if made and rng.random() < 0.1 else None
            tip = _synthetic_tip(rng, number, base)
            made.append(tip)
            (vault.root / "tips" / f"{tip.title}.md").write_text(render_tip(tip), encoding="utf-8")
        corpus = Corpus(vault)
        start = time.perf_counter()
        tips_service.guidelines(corpus, "warm up", embedder=embedder)
        first = time.perf_counter() - start
        tasks = [
            f"{rng.choice(VERBS)} the {rng.choice(NOUNS)} {rng.choice(NOUNS)} in the {rng.choice(NOUNS)}"
            for _ in range(queries)
        ]
        # without an index, each call re-stats every file of the vault
        rescan = harness.measure(lambda task: tips_service.guidelines(corpus, task, embedder=embedder), tasks[:20])
        # As the MCP server runs: an index, and file events keeping the catalog current (no stat scan).
        index_vault(open_index(vault), embed=False)
        watcher = follow(vault, embed=False)
        assert watcher is not None and watcher.caught_up.wait(timeout=120)
        corpus = Corpus(vault)
        tips_service.guidelines(corpus, "warm up")
        try:  # as `get_guidelines` calls it: the vault's own embedder, from its config
            latencies = harness.measure(lambda task: tips_service.guidelines(corpus, task), tasks)
        finally:
            watcher.stop()
        start = time.perf_counter()
        for task in tasks[:50]:
            embedder.embed([task])
        embed_ms = (time.perf_counter() - start) * 1000 / min(50, len(tasks))
        start = time.perf_counter()
        plan = consolidate(corpus, embedder=embedder)
        consolidation = time.perf_counter() - start
        corpus2 = Corpus(vault)
        start = time.perf_counter()
        consolidate(corpus2, dry_run=True, embedder=embedder)
        consolidation_warm = time.perf_counter() - start
    return {
        "guidelines": {
            "tips": count,
            "first_call_seconds (embeds every tip once)": round(first, 2),
            "queries": queries,
            "p50_ms": round(percentile(latencies, 0.5), 2),
            "p95_ms": round(percentile(latencies, 0.95), 2),
            "of which embedding the task, mean_ms": round(embed_ms, 2),
            "p95_ms_with_rescan_of_every_file (vault without index or watcher)": round(percentile(rescan, 0.95), 2),
            "target_p95_ms": 30,
        },
        "consolidation": {
            "tips": count,
            "seconds (steps embedded during the run)": round(consolidation, 2),
            "seconds_again_all_vectors_cached (dry run)": round(consolidation_warm, 2),
            "candidate_pairs": plan.candidates,
            "rejected_pairs": plan.rejected,
            "merges": len(plan.merges),
            "rewrites_planted": sum(1 for t in made if t.subtask.startswith("Then ")),
            "target_seconds": 60,
        },
    }


def _subject(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9-]{3,}", text.lower()) if w not in STOP}


def _related(a: str, b: str) -> bool:
    return len(_subject(a) & _subject(b)) >= 2


def bench_usefulness(logs: Path, embedder) -> dict:
    """Tips learned from the earlier two thirds of the fixture episodes (by date), guidelines for each later one.

    Besides precision@3 and how many later episodes got no tip, each row says how many of the later
    episodes that *have* a related earlier episode (the same subject rule) got a tip from one, and how
    many later episodes with no related earlier episode got tips anyway (every such tip is a loose
    match). The null: the tasks of vault-example's episodes (another project: payments, caching,
    auth) against the same tips; the best similarity any of them reaches is what an unrelated task
    scores, and the default threshold is the first step of 0.05 above it (see tips.DEFAULT_THRESHOLD).
    """
    from brain.vault.vault import Vault

    with tempfile.TemporaryDirectory() as tmp:
        vault, _ = init_vault(Path(tmp) / "v")
        corpus = Corpus(vault)
        extracted = extract_into_vault(corpus, [logs])
        episodes = sorted(
            (get_episode(corpus, path) for _, path, _ in extracted), key=lambda e: (e.date or "", e.title)
        )
        cut = (2 * len(episodes)) // 3
        earlier, later = episodes[:cut], episodes[cut:]
        tips_service.learn(corpus, [e.title for e in earlier])
        tasks = {e.title: e.task or "" for e in episodes}
        reachable = {e.title for e in later if any(_related(e.task or "", o.task or "") for o in earlier)}
        example = Corpus(Vault(REPO / "vault-example"))
        other_project = [get_episode(example, note.path).task or "" for note in example.of_type("episode")]
        null = [
            tips_service.guidelines(corpus, task, top_k=1, threshold=-1, core_support=0, embedder=embedder)
            .matches[0]
            .similarity
            for task in other_project
        ]
        rows = []
        for threshold in THRESHOLDS:
            precisions, none, covered, loose = [], 0, 0, 0
            for episode in later:
                found = tips_service.guidelines(
                    corpus,
                    episode.task or episode.title,
                    top_k=3,
                    threshold=threshold,
                    core_support=0,
                    embedder=embedder,
                )
                top = found.matches[:3]
                if not top:
                    none += 1
                    continue
                hits = sum(
                    1
                    for g in top
                    if any(_related(episode.task or "", tasks.get(s.episode, "")) for s in g.tip.source_episodes)
                )
                precisions.append(hits / len(top))
                covered += episode.title in reachable and hits > 0
                loose += episode.title not in reachable
            rows.append(
                {
                    "threshold": threshold,
                    "precision_at_3": round(statistics.mean(precisions), 3) if precisions else None,
                    "later_episodes_with_tips": len(precisions),
                    "later_episodes_without_tips": none,
                    "with_a_related_earlier_episode_that_got_a_related_tip": covered,
                    "with_no_related_earlier_episode_that_got_tips_anyway": loose,
                }
            )
        return {
            "episodes": len(episodes),
            "learned_from": len(earlier),
            "evaluated": len(later),
            "later_episodes_with_a_related_earlier_episode": len(reachable),
            "tips_learned": len(tips_service.list_tips(corpus)),
            "subject_rule": "a returned tip counts when a source episode's task shares >= 2 content words (4+ letters, no stopwords) with the later episode's task",
            "null_other_project_best_similarity": {
                "tasks": len(null),
                "max": round(max(null), 4),
                "median": round(statistics.median(null), 4),
            },
            "by_threshold": rows,
            "default_threshold": tips_service.DEFAULT_THRESHOLD,
        }


_PLACEHOLDER = re.compile(r"<(?:code|path|file|issue|pr|sha|url|email|id|doc|adr|rfc|cve|jira|ref|secret)>")
_CAUSES = re.compile(r"(Immediate|Proximate|Root) cause: (.*?)(?= (?:Proximate|Root) cause: |$)")


def _sources(logs: Path) -> list[Path]:
    """What the wording audit ends sessions on: every transcript in tests/data and the JSON logs."""
    transcripts = sorted(path for path in TRANSCRIPTS.rglob("*.jsonl") if "subagents" not in path.parts)
    return transcripts + sorted(logs.glob("*.json"))


def _cut_name(title: str, titles: set[str]) -> str | None:
    """Why a tip's name reads cut short: it ends on a function word, or says nothing (one word, or a
    label and a number); None when it reads whole."""
    base = re.sub(r"-\d+$", "", title)
    words = (base if base in titles else title).removeprefix("TIP-").split("-")  # "-2": a second tip of a name
    if words[-1] in FUNCTION_WORDS:
        return "function word"
    if len(words) < 2 or all(w.isdigit() or w in {"round", "step", "phase", "fix"} for w in words[1:]):
        return "contentless"
    return None


HISTORIES = Path(os.environ.get("BRAIN_HISTORIES", "/work/data/histories"))


def _advice_words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z]+", text.lower()))


def duplicates(tips: list[Tip]) -> int:
    """How many tips repeat an earlier one (see the module doc), in the order they were written."""
    seen_titles: set[str] = set()
    seen_words: list[frozenset[str]] = []
    found = 0
    for tip in tips:
        mine = _advice_words(tip.tip)
        copy = re.sub(r"-\d+$", "", tip.title) in seen_titles and re.search(r"-\d+$", tip.title) is not None
        near = any(len(mine & other) >= 0.8 * len(mine | other) for other in seen_words if mine | other)
        found += copy or near
        seen_titles.add(tip.title)
        seen_words.append(mine)
    return found


def _written(corpus: Corpus, before: set[str]) -> list[Tip]:
    """The tips written since `before`, oldest first (their note's creation order on disk)."""
    notes = [note for note in corpus.of_type("tip") if note.path not in before]
    notes.sort(key=lambda note: ((corpus.vault.root / note.path).stat().st_mtime_ns, note.path))
    return [tip_from_note(note) for note in notes]


def _first_time(path: Path) -> str:
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            found = re.search(r'"timestamp"\s*:\s*"([^"]+)"', line)
            if found:
                return found.group(1)
    return ""


def tip_figures(tips: list[Tip], sessions: int, with_tips: int) -> dict:
    repeated = duplicates(tips)
    return {
        "sessions": sessions,
        "tips": len(tips),
        "tips_per_session": round(len(tips) / sessions, 3) if sessions else None,
        "sessions_with_a_new_tip": with_tips,
        "duplicates": repeated,
        "duplicate_rate": round(repeated / len(tips), 3) if tips else 0.0,
    }


def _waiting(brain_dir: Path) -> dict[tuple[str, str], str]:
    """The candidates waiting for a second session, (episode, span) -> the day of their session.
    The path is brain.memory.tips.admit.CANDIDATES, spelled out: code before the tip gate (a
    `--label before` run) has no such module, and keeps no candidates; code before their bounds
    keeps no day ("")."""
    path = brain_dir / "tips" / "candidates.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    return {(entry["episode"], str(entry["span"])): entry.get("held", "") for entry in map(json.loads, lines)}


def bench_histories(root: Path) -> dict:
    """Tips per session and duplicate rate on each project history under `root` (see the module doc),
    and the candidates: how many wait at most, and how long those that left the waiting list (a
    later session matched them) had waited."""
    from brain.errors import BrainError

    if not root.is_dir():
        return {"missing": f"{root} does not exist: materialise the histories there or pass --histories"}
    figures: dict = {"folder": str(root)}
    for project in sorted(path for path in root.iterdir() if path.is_dir()):
        sessions = sorted(project.glob("*.jsonl"), key=lambda path: (_first_time(path), path.name))
        with tempfile.TemporaryDirectory() as tmp:
            vault, _ = init_vault(Path(tmp) / "v")
            corpus = Corpus(vault)
            ended = with_tips = most_waiting = 0
            waited: list[int] = []
            for session in sessions:
                count = len(corpus.of_type("tip"))
                before = _waiting(vault.brain_dir)
                try:
                    end_session(corpus, session, today="2026-11-28")
                except BrainError:
                    continue  # not a transcript brain reads: left out of the count
                ended += 1
                with_tips += len(corpus.of_type("tip")) > count
                after = _waiting(vault.brain_dir)
                most_waiting = max(most_waiting, len(after))
                gone = [date.fromisoformat(before[key]) for key in before.keys() - after.keys() if before[key]]
                if gone:  # the day held is the session's: the day of its first timestamp
                    waited += [(date.fromisoformat(_first_time(session)[:10]) - held).days for held in gone]
            figures[project.name] = tip_figures(_written(corpus, set()), ended, with_tips) | {
                "candidates_waiting_at_end": len(_waiting(vault.brain_dir)),
                "candidates_waiting_at_most": most_waiting,
                "candidates_matched": len(waited),
                "candidates_matched_longest_wait_days": max(waited, default=None),
            }
    return figures


def bench_wording(logs: Path, show: bool = False) -> dict:
    """How the tips learned at `session end` read: placeholders, cut names, repeated causes, redaction markers."""
    import shutil

    from brain.vault.vault import Vault

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(REPO / "vault-example", root)
        vault = Vault(root)
        corpus = Corpus(vault)
        before = {note.path for note in corpus.of_type("tip")}
        sources = _sources(logs)
        with_tips = 0
        for source in sources:
            count = len(corpus.of_type("tip"))
            end_session(corpus, source, today="2026-11-26")
            with_tips += len(corpus.of_type("tip")) > count
        corpus = Corpus(vault)
        tips = _written(corpus, before)
        transcripts = [source for source in sources if source.suffix == ".jsonl"]
    placeholders, cut, repeated, redacted = [], [], [], []
    titles = {tip.title for tip in tips}
    for tip in tips:
        text = "\n".join(
            [tip.title, tip.tip, tip.trigger, tip.subtask, tip.purpose, *tip.steps, tip.avoid, tip.applies_when]
        )
        if _PLACEHOLDER.search(text):
            placeholders.append(tip.title)
        if (why := _cut_name(tip.title, titles)) is not None:
            cut.append(f"{tip.title} ({why})")
        causes = [" ".join(c.rstrip(". ").lower().split()) for _, c in _CAUSES.findall(" ".join(tip.purpose.split()))]
        if len(causes) != len(set(causes)):
            repeated.append(tip.title)
        if "[REDACTED" in text:
            redacted.append(tip.title)
        if show:
            print(f"--- {tip.title}\n  trigger: {tip.trigger}\n  tip: {tip.tip}\n  purpose: {tip.purpose}")
            print("  steps: " + " | ".join(tip.steps) + f"\n  avoid: {tip.avoid}\n  applies: {tip.applies_when}")
    return {
        **tip_figures(tips, len(sources), with_tips),
        "transcripts": len(transcripts),
        "with_a_placeholder": len(placeholders),
        "names_cut_short": len(cut),
        "names_cut_short_list": cut,
        "repeated_causes": len(repeated),
        "redaction_markers": len(redacted),
    }


def _write_per_session(label: str, figures: dict, argv: list[str] | None) -> None:
    """The wording and histories figures into results/tips-per-session.json, under `label` (each
    part keeps the machine and command it was measured with; other labels and parts stay)."""
    import sys

    command = "python -m benchmarks.perf.bench_tips " + " ".join(sys.argv[1:] if argv is None else argv)
    parts = {
        name: figures[key] | {"machine": figures["machine"], "command": command.strip()}
        for key, name in (("wording", "tests_data"), ("histories", "histories"))
        if key in figures and "missing" not in figures[key]
    }
    if parts:
        found = harness.load_json(PER_SESSION)
        harness.write_json(PER_SESSION, found | {label: found.get(label, {}) | parts})


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tips", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--only",
        choices=("extraction", "usefulness", "scale", "wording", "histories"),
        help="run one part (implies --no-write)",
    )
    parser.add_argument("--histories", type=Path, default=HISTORIES, help="folder of project histories")
    parser.add_argument("--show", action="store_true", help="wording: print every tip learned")
    parser.add_argument("--no-write", action="store_true", help="print only; leave results/tips.json alone")
    parser.add_argument(
        "--label",
        default="now",
        help="wording and histories: the block of results/tips-per-session.json they replace (e.g. `before`, "
        "for a run on the code before a change)",
    )
    args = parser.parse_args(argv)
    logs, source = _logs()
    embedder = load_embedder("default")
    figures = {
        "machine": harness.machine(note="shared machine: other engineers' tests were running"),
        "embedder": embedder.id,
        "logs": source,
    }
    if args.only in (None, "extraction"):
        figures["extraction"] = bench_extraction(logs)
    if args.only in (None, "usefulness"):
        figures["usefulness"] = bench_usefulness(logs, embedder)
    if args.only in (None, "wording"):
        figures["wording"] = bench_wording(logs, args.show)
    if args.only in (None, "histories"):
        figures["histories"] = bench_histories(args.histories)
    if args.only in (None, "scale"):
        figures |= bench_scale(args.tips, args.queries, embedder)
    figures["machine"]["load_average_at_end"] = os.getloadavg()[0]
    _write_per_session(args.label, figures, argv)
    if args.only:
        args.no_write = True
    if not args.no_write:
        harness.write_json(RESULTS, figures)
    print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
