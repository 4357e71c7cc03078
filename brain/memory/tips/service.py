"""Tips: learn them from episodes, list them, hand out guidelines for a task, count feedback.

Learning is by rules (`tips_learn`) unless a model is given (`tips_model`); consolidation is in
`tips_consolidate`. Guidelines for a task are an always-on core (tips with support >= 3 that have
not hurt more than helped) plus the tips most similar to the task by their subtask and trigger,
above a strict threshold: a loose match is worse than none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from brain.errors import InvalidInput, UsageError
from brain.index.catalog import summaries
from brain.markdown.edit import append_to_section, set_frontmatter
from brain.markdown.model import Episode, Note, NoteHeader
from brain.memory.corpus import Corpus
from brain.memory.episodes.service import get_episode
from brain.memory.projects.note import in_scope, project_of
from brain.memory.similarity import cosine, text_vectors
from brain.memory.tips import admit
from brain.memory.tips.draft import Draft
from brain.memory.tips.learn import draft_tips
from brain.memory.tips.naming import slug, titles
from brain.memory.tips.note import (
    CATEGORIES,
    EVIDENCE,
    SourceRef,
    Tip,
    render_tip,
    tip_from_note,
    tip_frontmatter,
    tip_header,
)
from brain.vault.vault import TYPE_FOLDERS

if TYPE_CHECKING:
    from brain.index.embedders.embedders import Embedder

DEFAULT_TOP_K = 5
MAX_TOP_K = 50
# The rule: a tip must score above what a task from an unrelated project reaches. The 15 tasks of
# vault-example (payments, caching, auth) against the tips learned from the ai-agents fixture
# sessions reach at most 0.39 with the default model (benchmarks/perf/bench_tips.py, "null"); the
# threshold is the first step of 0.05 above that. Tasks of the same project share more words, so
# this is the least strict threshold the rule allows, not a guarantee.
DEFAULT_THRESHOLD = 0.40
DEFAULT_CORE_SUPPORT = 3
MAX_CORE = 10  # the core is the best supported tips, closest to the task first; `tip list --min-support` has them all
MATCH_TEXTS = 3  # subtask, trigger, applies when (see `match_texts`)
FEEDBACK_WEIGHT = 0.1  # at most this much similarity is added (helped) or taken away (hurt)
SUCCESS_BONUS = 0.02  # tips from successful work rank above those from failures at equal similarity

Drafter = Callable[[Episode], list[Draft]]


@dataclass(frozen=True)
class LearnResult:
    episode: str
    created: tuple[str, ...]
    unchanged: tuple[str, ...]
    drafts: tuple[Draft, ...]
    warnings: tuple[str, ...] = ()
    supported: tuple[str, ...] = ()  # tips that said the same already: one more source each
    held: tuple[str, ...] = ()  # drafts kept as candidates until another session does the same (`admit`)


@dataclass(frozen=True)
class Guideline:
    tip: Tip
    reason: str  # "core" | "match"
    similarity: float
    score: float


@dataclass(frozen=True)
class Guidelines:
    task: str
    threshold: float
    core: tuple[Guideline, ...]
    matches: tuple[Guideline, ...]

    @property
    def all(self) -> tuple[Guideline, ...]:
        return self.core + self.matches


def check_category(category: str | None) -> None:
    if category is not None and category not in CATEGORIES:
        raise UsageError(f"category '{category}' is not one of {', '.join(CATEGORIES)}")


def check_evidence(evidence: str | None) -> None:
    if evidence is not None and evidence not in EVIDENCE:
        raise UsageError(f"evidence '{evidence}' is not one of {', '.join(EVIDENCE)}")


def all_tips(corpus: Corpus) -> list[Tip]:
    """Every tip note, parsed once and cached with the corpus until a note changes."""
    corpus.refresh()  # brings the loaded notes up to date (a change clears `derived`)
    cached = corpus.derived.get("tips")
    if cached is None:
        cached = corpus.derived["tips"] = [tip_from_note(note) for note in corpus.of_type("tip")]
    return list(cast(list[Tip], cached))


def active_tips(corpus: Corpus) -> list[Tip]:
    """Tips not merged into another one."""
    return [tip for tip in all_tips(corpus) if tip.merged_into is None]


# ---------------------------------------------------------------- learn


def learn(
    corpus: Corpus, names: list[str], *, drafter: Drafter | None = None, today: str | None = None
) -> list[LearnResult]:
    """Tips from episodes (by name). Every name is checked before anything is written."""
    if not names:
        raise UsageError("give at least one episode to learn from")
    episodes = [get_episode(corpus, name) for name in names]
    return [learn_episode(corpus, episode, drafter=drafter, today=today) for episode in episodes]


def learn_episode(
    corpus: Corpus,
    episode: Episode,
    *,
    drafter: Drafter | None = None,
    today: str | None = None,
    project: str | None = None,
) -> LearnResult:
    """Tips from one episode, through the gate of `admit`: a recovered failure is a tip, what else
    one session did waits for a second session; a draft that says what a tip says already adds its
    source to that tip. A subtask already learned is left as it is. A tip learned from a project's
    episode belongs to that project (its `project` frontmatter)."""
    vault = corpus.vault
    drafts, warnings = _drafts(episode, drafter)
    created: list[str] = []
    unchanged: list[str] = []
    supported: list[str] = []
    held: list[str] = []
    with vault.locked():  # the tips and candidates read and those written are one step
        tips = {tip.path or "": tip for tip in active_tips(corpus)}
        known = {(source.episode.lower(), source.span) for tip in tips.values() for source in tip.source_episodes}
        candidates = admit.Candidates(vault.brain_dir, _day(episode, today))
        for draft in drafts:
            if (draft.episode.lower(), draft.span) in known or candidates.holds(draft):
                unchanged.append(f"{draft.episode} ({draft.span})")
                continue
            known.add((draft.episode.lower(), draft.span))
            mine = admit.draft_content(draft)
            twin = next((path for path, tip in tips.items() if admit.twins(mine, admit.tip_content(tip))), None)
            if twin is not None:
                tips[twin] = _add_source(corpus, twin, draft)
                supported.append(twin)
                continue
            earlier = None if admit.recovered(draft) else candidates.twin(draft)
            if not admit.recovered(draft) and earlier is None:
                candidates.add(draft)
                held.append(f"{draft.episode} ({draft.span})")
                continue
            tip = tip_from_draft(
                draft,
                _unique_title(corpus, draft.name or draft.subtask, created, draft.tip.rsplit(": ", 1)[-1]),
                today=today,
            )
            if earlier is not None:
                candidates.drop(earlier)
                tip = admit.with_source(replace(tip, source_episodes=(), support=0), earlier)
                tip = admit.with_source(tip, draft)
            path = f"{TYPE_FOLDERS['tip']}/{vault.filename_for(tip.title)}"
            text = render_tip(tip)
            vault.write(path, set_frontmatter(text, {"project": project}) if project else text, create=True)
            tips[path] = replace(tip, path=path)
            created.append(path)
        if candidates.changed:
            candidates.save()
    return LearnResult(
        episode.title,
        tuple(created),
        tuple(unchanged),
        tuple(drafts),
        tuple(warnings),
        tuple(path for path in dict.fromkeys(supported) if path not in created),
        tuple(held),
    )


def _day(episode: Episode, today: str | None) -> str:
    """The day of the episode's session (its date), else today's."""
    try:
        return date.fromisoformat((episode.date or "")[:10]).isoformat()
    except ValueError:
        return today or date.today().isoformat()


def _add_source(corpus: Corpus, path: str, draft: Draft) -> Tip:
    """One more source on a tip's note: its support, evidence and source episodes set, every other
    key (its project, a person's own) and all its text kept."""

    def supported(note: Note) -> str:
        tip = admit.with_source(tip_from_note(note), draft)
        values = tip_frontmatter(tip)
        return set_frontmatter(note.text, {key: values[key] for key in ("support", "evidence", "source_episodes")})

    corpus.vault.update(path, supported)
    return tip_from_note(corpus.vault.read(path).note)


def _drafts(episode: Episode, drafter: Drafter | None) -> tuple[list[Draft], list[str]]:
    if drafter is None:
        return draft_tips(episode), []
    from brain.memory.tips.language_model import ModelUnusable

    try:
        return drafter(episode), []
    except ModelUnusable as error:  # the model is an aid: its failure falls back on the rules
        return draft_tips(episode), [f"model not used for {episode.title} ({error}); learned by rules"]


def tip_from_draft(draft: Draft, title: str, *, today: str | None = None) -> Tip:
    tags = ["tip", draft.category] + (
        [draft.task_category] if draft.task_category and draft.task_category != draft.category else []
    )
    return Tip(
        title=title,
        category=draft.category,
        tip=draft.tip,
        trigger=draft.trigger,
        subtask=draft.subtask,
        task_category=draft.task_category,
        priority=draft.priority,
        support=1,
        evidence=draft.evidence,
        source_episodes=(SourceRef(draft.episode, draft.span),),
        purpose=draft.purpose,
        steps=draft.steps,
        avoid=draft.avoid,
        applies_when=draft.applies_when,
        tags=tuple(dict.fromkeys(tags)),
        created=today or date.today().isoformat(),
    )


def tip_slug(text: str) -> str:
    """A tip's name from its subtask: eight words at most, ending on a word of content (`naming.slug`)."""
    return slug(text) or "tip"


def _unique_title(corpus: Corpus, subtask: str, pending: list[str], advice: str = "") -> str:
    """The first of `naming.titles` no note has, else `TIP-<subtask>-<n>`."""
    vault, resolver = corpus.vault, corpus.resolver()

    def taken(title: str) -> bool:
        in_folder = (vault.root / TYPE_FOLDERS["tip"] / vault.filename_for(title)).exists()
        return bool(
            resolver.candidates(title) or in_folder or any(p.endswith("/" + vault.filename_for(title)) for p in pending)
        )

    base = f"TIP-{tip_slug(subtask)}"
    free = next((title for title in titles(base, subtask, advice) if not taken(title)), None)
    number = 2
    while free is None and taken(f"{base}-{number}"):
        number += 1
    return free or f"{base}-{number}"


# ---------------------------------------------------------------- list


def list_tips(
    corpus: Corpus,
    *,
    category: str | None = None,
    min_support: int = 0,
    evidence: str | None = None,
    include_merged: bool = False,
    limit: int | None = None,
    project: str | None = None,
) -> list[Tip]:
    """Tips matching the filters, highest support first (at most `limit`: only those are parsed); with
    `project`, those of its scope (`brain.memory.projects.note`: a tip without a project is in every one)."""
    check_category(category)
    check_evidence(evidence)
    if min_support < 0:
        raise UsageError(f"min support must be 0 or more, got {min_support}")

    def wanted(header: NoteHeader) -> bool:  # decided before the note is parsed
        its_category, support, its_evidence, merged = tip_header(header)
        return (
            (include_merged or not merged)
            and (category is None or its_category == category)
            and support >= min_support
            and (evidence is None or its_evidence == evidence)
            and in_scope("tip", header.frontmatter, project)
        )

    def best_first(header: NoteHeader) -> tuple[int, str]:
        return -tip_header(header)[1], header.title

    chosen = corpus.select("tip", wanted, first=(best_first, limit) if limit is not None else None)
    found = [corpus.memo("tip", note, tip_from_note) for note in chosen]
    found.sort(key=lambda tip: (-tip.support, tip.title))
    return found


# ---------------------------------------------------------------- guidelines


def match_texts(tip: Tip) -> tuple[str, ...]:
    """What a task is compared with: the tip's subtask, its trigger, and the task it was learned in
    (`Applies When`: a tip from a session about X applies to tasks like X). Each is a vector; the
    best of them is the tip's similarity."""
    subtask = tip.subtask or tip.tip
    return (subtask, tip.trigger or subtask, tip.applies_when or subtask)


@dataclass(frozen=True)
class TipIndex:
    """The active tips as arrays, built once per catalog state and embedder (see `tip_index`)."""

    paths: tuple[str, ...]
    vectors: np.ndarray  # one row per distinct match text (tips of one episode share their task)
    rows: np.ndarray  # (MATCH_TEXTS, n): the row of each tip's subtask, trigger and applies-when text
    support: np.ndarray
    trusted: np.ndarray  # has not hurt more than it helped: may be in the core
    bonus: np.ndarray  # feedback and success adjustments added to the similarity
    title_rank: np.ndarray  # position of each title in sorted order, the last tie-break
    projects: tuple[str | None, ...]  # each tip's project (None: shared by every project)

    def in_scope(self, project: str | None) -> np.ndarray:
        """Which tips the scope of `project` holds (None: every tip)."""
        if project is None:
            return np.ones(len(self.paths), dtype=bool)
        return np.array([own is None or own == project for own in self.projects], dtype=bool)

    def column(self, number: int) -> np.ndarray:
        """The vectors of one match text of every tip (0: subtask, 1: trigger, 2: applies when)."""
        column: np.ndarray = self.vectors[self.rows[number]]
        return column

    def similarity(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each tip's best similarity to the query over its match texts, and over its own subtask and
        trigger alone (which orders the tips of one source task, which share their applies-when text)."""
        if not self.paths:
            return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.float32)
        by_text = cosine(query, self.vectors)[self.rows]
        return by_text.max(axis=0), by_text[:2].max(axis=0)


MATCHED = "tip-match-2"  # the name of `_matched`'s values on disk (Corpus.summaries)


def _matched(note: Note) -> list[Any] | None:
    """What a task is compared with and ranked by, for an active tip: [path, title, match texts,
    support, trusted, bonus, project] (None for a tip merged into another)."""
    tip = tip_from_note(note)
    if tip.merged_into is not None:
        return None
    trusted = tip.hurt <= tip.helped
    return [
        note.path,
        tip.title,
        list(match_texts(tip)),
        tip.support,
        trusted,
        adjustment(tip),
        project_of(note.frontmatter),
    ]


def _is_matched(value: Any) -> bool:
    shape = (str, str, summaries.ListOf(str, MATCH_TEXTS), int, bool, float, str | None)
    return summaries.has_shape(value, shape, or_none=True)


def tip_index(corpus: Corpus, embedder: Embedder | None) -> TipIndex:
    """The active tips, their match vectors and ranking arrays: from per-tip values kept by
    `Corpus.summaries` (a process that has not loaded the tips parses only those changed since the
    last), cached in `corpus.derived` while the corpus holds the tips (a change clears it).

    A guidelines call then costs one embedding of the task and one matrix product, however many tips
    the vault has; nothing per tip is rebuilt in Python."""
    vectors = text_vectors(corpus, embedder)
    corpus.refresh()  # brings the loaded notes up to date (a change clears `derived`)
    key = f"tip-index:{vectors.embedder.id}"
    cached = corpus.derived.get(key)
    if isinstance(cached, TipIndex):
        return cached
    tips = [found for found in corpus.summaries(MATCHED, "tip", _matched, _is_matched) if found is not None]
    distinct: dict[str, int] = {}
    rows = np.array(
        [
            [distinct.setdefault(texts[column], len(distinct)) for _, _, texts, *_ in tips]
            for column in range(MATCH_TEXTS)
        ],
        dtype=np.int64,
    )
    order = sorted(range(len(tips)), key=lambda i: tips[i][1])
    title_rank = np.empty(len(tips), dtype=np.int64)
    title_rank[order] = np.arange(len(tips))
    built = TipIndex(
        paths=tuple(path for path, *_ in tips),
        vectors=np.ascontiguousarray(vectors.matrix(list(distinct))),
        rows=rows.reshape(MATCH_TEXTS, len(tips)),
        support=np.array([support for _, _, _, support, _, _, _ in tips], dtype=np.int64),
        trusted=np.array([trusted for *_, trusted, _, _ in tips], dtype=bool),
        bonus=np.array([bonus for *_, bonus, _ in tips], dtype=np.float64),
        title_rank=title_rank,
        projects=tuple(project for *_, project in tips),
    )
    if corpus.holds("tip"):
        corpus.derived[key] = built
    return built


def guidelines(
    corpus: Corpus,
    task: str,
    *,
    top_k: int = DEFAULT_TOP_K,
    threshold: float = DEFAULT_THRESHOLD,
    core_support: int = DEFAULT_CORE_SUPPORT,
    embedder: Embedder | None = None,
    project: str | None = None,
) -> Guidelines:
    """The core tips (support >= `core_support`, at most MAX_CORE) plus the `top_k` tips most similar
    to the task above `threshold`; with `project`, among the tips of its scope only."""
    if not task.strip():
        raise UsageError("give the task to find guidelines for")
    if not 1 <= top_k <= MAX_TOP_K:
        raise UsageError(f"top_k must be between 1 and {MAX_TOP_K}, got {top_k}")
    if not -1.0 <= threshold <= 1.0:
        raise UsageError(f"threshold must be between -1 and 1, got {threshold}")
    index = tip_index(corpus, embedder)
    if not index.paths:
        return Guidelines(task, threshold, (), ())
    best, own = index.similarity(text_vectors(corpus, embedder).query(task))
    similarity = np.round(best.astype(np.float64), 4)
    score = np.round(similarity + index.bonus, 4)
    scoped = index.in_scope(project)
    in_core = (
        (index.support >= core_support) & index.trusted if core_support else np.zeros(len(index.paths), dtype=bool)
    )
    core = np.flatnonzero(in_core & scoped)
    core = core[np.lexsort((index.title_rank[core], -score[core], -index.support[core]))][:MAX_CORE]
    matches = np.flatnonzero((similarity >= threshold) & ~in_core & scoped)
    matches = matches[np.lexsort((index.title_rank[matches], -own[matches], -score[matches]))][:top_k]
    wanted = {index.paths[i] for i in (*core.tolist(), *matches.tolist())}
    parsed = {
        note.path: corpus.memo("tip", note, tip_from_note)
        for note in corpus.select("tip", lambda header: header.path in wanted)
    }

    def made(positions: np.ndarray, reason: str) -> tuple[Guideline, ...]:
        return tuple(
            Guideline(parsed[index.paths[i]], reason, float(similarity[i]), float(score[i]))
            for i in positions.tolist()
            if index.paths[i] in parsed  # a tip deleted between the index and now is left out
        )

    return Guidelines(task, threshold, made(core, "core"), made(matches, "match"))


def adjustment(tip: Tip) -> float:
    """What is added to a tip's similarity to rank it: its feedback, and a little for tips from successful work."""
    return feedback_adjustment(tip) + (SUCCESS_BONUS if tip.evidence == "success" else 0.0)


def feedback_adjustment(tip: Tip) -> float:
    """Up to +FEEDBACK_WEIGHT for tips that helped, down to -FEEDBACK_WEIGHT for those that hurt."""
    total = tip.helped + tip.hurt
    return FEEDBACK_WEIGHT * (tip.helped - tip.hurt) / (total + 1) if total else 0.0


# ---------------------------------------------------------------- feedback


def record_feedback(
    corpus: Corpus, name: str, *, helped: bool, episode: str | None = None, today: str | None = None
) -> Tip:
    """Count that a tip handed out helped (or hurt); with an episode, note which one.

    The count is read and written under the vault's write lock (`Vault.update`): feedback
    given by several agents at once adds up, none refused as if an editor had saved meanwhile.
    """
    vault = corpus.vault
    path = corpus.resolver().resolve(name)
    episode_title = None
    if episode:
        episode_title = get_episode(corpus, episode).title
    key = "helped" if helped else "hurt"

    def counted(note: Note) -> str:
        if note.type != "tip":
            raise InvalidInput(f"'{name}' is a {note.type} note, not a tip")
        text = set_frontmatter(note.text, {key: getattr(tip_from_note(note), key) + 1})
        if episode_title:
            line = f"- {key} [[{episode_title}]] ({today or date.today().isoformat()})"
            text = append_to_section(text, "Feedback", line + "\n", after=("Applies When",))
        return text

    vault.update(path, counted)
    return tip_from_note(vault.read(path).note)
