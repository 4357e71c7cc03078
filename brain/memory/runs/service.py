"""Recorded runs: record a snapshot as a note, list and show runs, recall them by query, explain them.

Tenant isolation is the rule every function here keeps: a run is looked up, listed, counted,
recalled and explained only within the tenant asked for, and a run of another tenant answers
exactly as a run that does not exist. Recall without a tenant is refused.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from brain.errors import InvalidInput, NoteExists, NoteNotFound, Remedy, UsageError
from brain.markdown.edit import replace_section, set_frontmatter
from brain.markdown.model import Note
from brain.memory.corpus import Corpus
from brain.memory.runs.note import (
    DEFAULT_PROJECTION,
    RUNS_FOLDER,
    Run,
    RunLabels,
    RunScope,
    TruncatedPreview,
    managed_frontmatter,
    managed_sections,
    project,
    render_run,
    run_from_note,
)
from brain.memory.runs.validation import (
    check_projection,
    check_tenant,
    expired,
    expiry,
    labels_from,
    optional_text,
    snapshot_from_data,
    tenant_is_safe,
)

DEFAULT_TOP_K = 1
DEFAULT_THRESHOLD = 0.5
MAX_TOP_K = 50
DEFAULT_LIMIT = 20
MAX_LIMIT = 1000
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
STOPWORDS = frozenset(
    "a an and are as at be by did do does for from how i in is it its of on or so that the this to was were what when where which who why with you".split()
)


@dataclass(frozen=True)
class RecordedRun:
    path: str
    title: str
    created: bool
    truncated: tuple[TruncatedPreview, ...]


@dataclass(frozen=True)
class RunHit:
    run: str
    path: str
    similarity: float
    created: str
    query: str
    projection: str
    text: str
    tokens: int


@dataclass(frozen=True)
class RunRecall:
    query: str
    tenant: str
    projection: str
    threshold: float
    top_k: int
    hits: tuple[RunHit, ...]
    compared: int  # runs of this tenant compared with the query
    best_below: float | None  # best similarity that missed the threshold, when nothing reached it


@dataclass(frozen=True)
class Explanation:
    run: str
    tenant: str
    query: str
    answer: str
    question: str | None
    decisions: tuple[dict[str, Any], ...]  # the decisions the answer is about
    others: tuple[dict[str, Any], ...]  # the rest, for context
    tool_calls: tuple[dict[str, Any], ...]
    matched: bool  # False: the question named no decision, so all are given


# ---------------------------------------------------------------- record


def run_title(query: str, tenant: str, created: str) -> str:
    words = re.findall(r"[a-z0-9]+", query.lower())[:6]
    digest = hashlib.sha256(f"{tenant}\n{created}\n{query}".encode()).hexdigest()[:6]
    return f"RUN-{created[:10]}-{'-'.join(words) or 'run'}-{digest}"


def record_run(
    corpus: Corpus,
    data: Any,
    *,
    tenant: str | None,  # checked here: a missing tenant is a one-line error
    principal: str | None = None,
    conversation: str | None = None,
    labels: RunLabels = RunLabels(),
    ttl: str | None = None,
    run_id: str | None = None,
    now: datetime | None = None,
) -> RecordedRun:
    """Write a run note from a SnapshotEntry (all checks first: bad input writes nothing).

    With `run_id` naming a run of the same tenant that is still in flight, that note is updated
    (prose a person added is kept); any other existing id is refused.
    """
    vault = corpus.vault
    from brain.memory.runs.vectors import Indexed, run_vectors

    tenant = check_tenant(tenant)
    snapshot, truncated = snapshot_from_data(data)
    principal, conversation = optional_text(principal, "principal"), optional_text(conversation, "conversation")
    labels_from(labels.accepted, labels.overridden, labels.escalated, labels.score)
    now = now or datetime.now(UTC)
    created = now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    expires = expiry(ttl, now)
    title = run_id.strip() if run_id and run_id.strip() else run_title(snapshot["query"], tenant, created)
    path = f"{RUNS_FOLDER}/{tenant}/{vault.filename_for(title)}"
    vectors = run_vectors(corpus)
    vectors.check_embedder()  # before writing: a run whose query cannot be embedded alongside the others is not recorded
    run = Run(
        title,
        RunScope(tenant, principal or None, conversation or None),
        snapshot,
        created,
        labels,
        vectors.embedder_id,
        expires,
        truncated,
    )
    existing = path if vault.safe_path(path).exists() else None  # ids are per tenant: runs/<tenant>/<id>.md
    if existing is None:
        vault.write(path, render_run(run), create=True)
        stored = RecordedRun(path, title, True, truncated)
    else:

        def updated(note: Note) -> str:  # read and written under the write lock: no other writer in between
            old = run_from_note(note)
            if note.type != "run" or old.scope.tenant != tenant or not old.in_flight:
                raise NoteExists(f"run id '{title}' is taken by a finished run of this tenant; record under another id")
            # Completing a run keeps what the first recording said and this one does not (labels, expiry).
            labelled = RunLabels(
                labels.accepted if labels.accepted is not None else old.labels.accepted,
                labels.overridden if labels.overridden is not None else old.labels.overridden,
                labels.escalated if labels.escalated is not None else old.labels.escalated,
                labels.score if labels.score is not None else old.labels.score,
            )
            kept = replace(
                run, created=old.created or created, labels=labelled, expires=run.expires if ttl else old.expires
            )
            text = set_frontmatter(
                note.text,
                {k: v for k, v in managed_frontmatter(kept).items() if v is not None},
                remove=tuple(k for k, v in managed_frontmatter(kept).items() if v is None),
            )
            for heading, content in managed_sections(kept).items():
                text = replace_section(text, heading, content)
            return text

        vault.update(existing, updated)
        stored = RecordedRun(existing, title, False, truncated)
    vectors.sync_one(Indexed(stored.path, tenant, snapshot["query"]))
    return stored


# ---------------------------------------------------------------- read


@dataclass(frozen=True)
class _Parsed:
    token: object  # stands for this state of the notes
    runs: tuple[Run, ...]
    finished: dict[str, tuple[Run, ...]]  # tenant -> its runs that have a final answer


def all_runs(corpus: Corpus) -> list[Run]:
    return list(_parsed_runs(corpus).runs)


def _parsed_runs(corpus: Corpus) -> _Parsed:
    """Every run note, parsed once per corpus change (cached in `corpus.derived`, which the
    corpus clears on any change), grouped by tenant."""
    notes = corpus.notes()  # brings the corpus up to date first
    cached = corpus.derived.get("runs")
    if cached is None:
        parsed = tuple(run_from_note(note) for note in notes if note.type == "run")
        finished: dict[str, list[Run]] = {}
        for run in parsed:
            if not run.in_flight:
                finished.setdefault(run.scope.tenant, []).append(run)
        cached = corpus.derived["runs"] = _Parsed(object(), parsed, {t: tuple(r) for t, r in finished.items()})
    return cached


def tenant_runs(corpus: Corpus, tenant: str, *, include_expired: bool = False) -> list[Run]:
    tenant = check_tenant(tenant)
    now = datetime.now(UTC)
    return [
        run for run in all_runs(corpus) if run.scope.tenant == tenant and (include_expired or not expired(run, now))
    ]


def get_run(corpus: Corpus, name: str, tenant: str | None = None) -> Run:
    """A run by title, file stem or path; with a tenant, only among that tenant's runs.

    A run of another tenant is reported exactly as a missing one (no hint that it exists).
    """
    key = name.strip().removesuffix(".md").lower()
    runs = all_runs(corpus) if tenant is None else tenant_runs(corpus, tenant, include_expired=True)
    found = [
        run
        for run in runs
        if key
        in (
            run.title.lower(),
            (run.path or "").lower().removesuffix(".md"),
            (run.path or "").rsplit("/", 1)[-1].lower().removesuffix(".md"),
        )
    ]
    if len(found) == 1:
        return found[0]
    scope = f" for tenant '{tenant}'" if tenant is not None else ""
    if not found:
        raise NoteNotFound(f"no run named '{name}'{scope}; ", Remedy("list_runs"))
    raise InvalidInput(f"'{name}' names {len(found)} runs{scope}; give its path")


def list_runs(corpus: Corpus, tenant: str, *, limit: int = DEFAULT_LIMIT) -> list[Run]:
    """A tenant's runs, newest first (expired ones left out)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    runs = tenant_runs(corpus, tenant)
    runs.sort(key=lambda run: (run.created, run.title), reverse=True)
    return runs[:limit]


# ---------------------------------------------------------------- recall


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    from tokenizers import Tokenizer

    from brain.index.embedders.model_files import resolve_default_model

    files = resolve_default_model()
    if files is None:
        return None
    tokenizer = Tokenizer.from_file(str(files.tokenizer_path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str) -> int:
    """Tokens of the embedding model's WordPiece tokenizer (words and punctuation when it is missing)."""
    tokenizer = _tokenizer()
    if tokenizer is None:
        return len(re.findall(r"\w+|[^\w\s]", text))
    return len(tokenizer.encode(text, add_special_tokens=False).ids)


def recall_runs(
    corpus: Corpus,
    query: str,
    *,
    tenant: str | None,
    top_k: int = DEFAULT_TOP_K,
    threshold: float = DEFAULT_THRESHOLD,
    projection: str = DEFAULT_PROJECTION,
    progress: Callable[[str, int, int], None] | None = None,
) -> RunRecall:
    """The tenant's finished runs whose query is most like `query`, at or above `threshold` only.

    Run queries not embedded yet (runs written by hand or by another process, or all of them
    after `brain reindex`) are embedded first; `progress(stage, done, total)` follows that."""
    from brain.memory.runs.vectors import Indexed, run_vectors

    if tenant is None or (isinstance(tenant, str) and not tenant.strip()):
        raise UsageError("recall needs a tenant (", Remedy("tenant"), "); runs are never recalled across tenants")
    tenant = check_tenant(tenant)
    check_projection(projection)
    if not isinstance(query, str) or not query.strip():
        raise UsageError("the recall query is empty; give the question to match past runs against")
    if not 1 <= top_k <= MAX_TOP_K:
        raise UsageError(f"top_k must be between 1 and {MAX_TOP_K}, got {top_k}")
    if not 0.0 <= threshold <= 1.0:
        raise UsageError(f"threshold must be between 0 and 1, got {threshold}")
    vectors = run_vectors(corpus)
    vector = vectors.embed_later(query)
    parsed = _parsed_runs(corpus)
    if not vectors.synced(parsed.token):
        indexed = [
            Indexed(r.path, r.scope.tenant, r.query)
            for r in parsed.runs
            if r.path and r.query and tenant_is_safe(r.scope.tenant)
        ]
        vectors.sync(indexed, parsed.token, progress)
    now = datetime.now(UTC)
    candidates = {run.path: run for run in parsed.finished.get(tenant, ()) if run.path and not expired(run, now)}
    ranked = vectors.rank(tenant, vector.result(), candidates.keys())
    hits = []
    for path, similarity in ranked[:top_k]:
        if similarity < threshold:
            break
        run = candidates[path]
        text = project(run.snapshot, projection)
        hits.append(
            RunHit(run.title, path, round(similarity, 4), run.created, run.query, projection, text, count_tokens(text))
        )
    best_below = round(ranked[0][1], 4) if ranked and not hits else None
    return RunRecall(query, tenant, projection, threshold, top_k, tuple(hits), len(candidates), best_below)


# ---------------------------------------------------------------- explain


def words_of(value: Any) -> set[str]:
    """Lowercase words of any JSON value, camelCase and kebab-case split, keys included."""
    if isinstance(value, dict):
        return set().union(*(words_of(k) | words_of(v) for k, v in value.items())) if value else set()
    if isinstance(value, list):
        return set().union(*(words_of(item) for item in value)) if value else set()
    text = _CAMEL.sub(" ", value if isinstance(value, str) else json.dumps(value))
    return {word.lower() for word in _WORD.findall(text)} - STOPWORDS


def explain_run(corpus: Corpus, name: str, question: str | None = None, *, tenant: str | None = None) -> Explanation:
    """Why the run chose what it chose, from its own decisions and tool calls only.

    With a question, the decisions it is about (by stage id, chosen value or words) come first;
    a run with no final answer yet (in flight) is refused.
    """
    run = get_run(corpus, name, tenant)
    if run.in_flight:
        raise InvalidInput(
            f"run '{run.title}' is still in flight (no final answer recorded); explain it once it has finished"
        )
    decisions = run.decisions
    chosen, others, matched = decisions, [], bool(question and question.strip())
    if matched:
        asked = words_of(question)
        picked = [
            d
            for d in decisions
            if asked
            & (
                words_of(d.get("stageId"))
                | words_of(d.get("chosen"))
                | words_of(d.get("rule"))
                | words_of(d.get("evidence"))
            )
        ]
        matched = bool(picked)
        if picked:
            chosen, others = picked, [d for d in decisions if d not in picked]
    evidence_words = words_of([d.get("evidence") for d in chosen]) | (words_of(question) if question else set())
    calls = [
        c
        for c in run.tool_calls
        if not matched or evidence_words & (words_of(c.get("args")) | words_of(c.get("resultPreview")))
    ]
    return Explanation(
        run.title,
        run.scope.tenant,
        run.query,
        run.snapshot.get("finalContent") or "",
        question,
        tuple(chosen),
        tuple(others),
        tuple(calls or run.tool_calls),
        matched,
    )
