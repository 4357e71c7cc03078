"""Split a note into chunks for dense search, along its sections, within the model's window.

A note longer than the model's 256-token window embedded whole is nearly invisible to dense
search, so each level-2 section becomes a chunk, prefixed with the note's
title and the section heading. A section over the window is cut at line boundaries, and a
single over-long line by token windows, each piece overlapping the previous one by `overlap`
tokens. Token counts come from the embedder's own tokenizer, so no chunk is ever truncated.

A section that is only a list of links (`## Relations`, a pattern's evidence episodes and causal
relationships: `- causes [[X]] (weight: 0.5)`) is not embedded: its words are note names, which the
catalog's lexical search already matches, and taking those sections out of the dense half changed
nothing on vault-example's labelled queries while they are a fifth of a typical vault's chunks
(`python -m benchmarks.studies.chunk_kinds`, docs/benchmarks.md).

A chunk's id is a hash of its text and the embedder id: an unchanged chunk keeps its id, which
is how the vector store knows not to embed it again.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from brain.index.catalog.rows import meta_text
from brain.markdown.lines import split_lines
from brain.markdown.model import Note

# The version of the texts chunks embed: bump it whenever chunk_note's output changes, so that
# vaults embedded with the old texts are re-chunked (engine.Index) instead of silently mixed.
# Version 1 (title, heading, content) was never written down: a vault without one has version 1.
# Version 2: the first chunk's line of what the note is about leaves out dates and times.
# Version 3: sections that are only lists of links are not embedded (`is_link_list`).
FIRST_CHUNKING = "1"
CHUNKING_VERSION = "3"
MAX_TOKENS = 256
OVERLAP = 32
SPECIAL_TOKENS = 2  # [CLS] and [SEP]

Spans = Callable[[Sequence[str]], list[list[tuple[int, int]]]]
_REGEX_TOKEN = re.compile(r"\w+|[^\w\s]")
_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s+(.*)")
_LINK_OR_ASIDE = re.compile(r"\[\[[^\[\]\n]*\]\]|\([^()\n]*\)")
_WORD = re.compile(r"\w+")
LINK_ITEM_WORDS = 3  # words an item may hold besides its link and its asides: a relation's name, an outcome


@dataclass(frozen=True)
class Chunk:
    id: str
    ord: int
    section: str | None  # heading of the section, None for the text before the first one
    start: int  # the chunk's content is note.text[start:end]
    end: int
    text: str  # what is embedded: title, heading, content


def chunk_id(text: str, embedder_id: str) -> str:
    return hashlib.sha256(f"{embedder_id}\x00{text}".encode()).hexdigest()[:32]


def regex_spans(texts: Sequence[str]) -> list[list[tuple[int, int]]]:
    """Word and punctuation spans: an upper bound on most tokenizers' word count, for embedders without one."""
    return [[match.span() for match in _REGEX_TOKEN.finditer(text)] for text in texts]


def spans_for(embedder: object) -> Spans:
    """Token spans from the embedder's tokenizer (without truncation), or the regex fallback."""
    tokenizer = getattr(embedder, "tokenizer", None)
    if tokenizer is None:
        return regex_spans
    from tokenizers import Tokenizer

    counting = Tokenizer.from_str(tokenizer.to_str())
    counting.no_truncation()
    counting.no_padding()

    def spans(texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        encodings = counting.encode_batch(list(texts), add_special_tokens=False)
        return [[(start, end) for start, end in encoding.offsets] for encoding in encodings]

    return spans


def _segments(note: Note) -> list[tuple[str | None, int, int]]:
    """(heading, start char, end char) of the text before the first split heading and of each section."""
    text = note.text
    line_starts = [0]
    for line in split_lines(text):
        line_starts.append(line_starts[-1] + len(line))

    def at(line: int) -> int:
        return line_starts[min(line, len(line_starts) - 1)]

    levels = [section.level for section in note.sections if section.level >= 2]
    split = min(levels) if levels else None
    body_start = at(note.body_start)
    heads = [section for section in note.sections if section.level == split]
    segments: list[tuple[str | None, int, int]] = []
    first = at(heads[0].start) if heads else len(text)
    segments.append((None, body_start, first))
    for section in heads:
        segments.append((section.heading, at(section.start + 1), at(section.end)))
    return segments


def is_link_list(text: str) -> bool:
    """Whether `text` is a list whose every item is a wikilink with at most a few words beside it
    (`- part_of [[Ledger]]`, `- [[EPISODE-3]] - partial (worked by luck)`)."""
    lines = [line for line in text.splitlines() if line.strip()]
    for line in lines:
        item = _LIST_ITEM.fullmatch(line)
        if item is None or "[[" not in item.group(1):
            return False
        if len(_WORD.findall(_LINK_OR_ASIDE.sub(" ", item.group(1)))) > LINK_ITEM_WORDS:
            return False
    return bool(lines)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _pieces(
    text: str, start: int, end: int, spans: list[tuple[int, int]], budget: int, overlap: int
) -> list[tuple[int, int]]:
    """Cut text[start:end] (token `spans` relative to start) into pieces of at most `budget` tokens."""
    if len(spans) <= budget:
        return [(start, end)]
    token_starts = [s for s, _ in spans]
    # Candidate cut points: line starts. A piece is a run of whole lines; an over-long line is
    # cut by token windows.
    lines: list[tuple[int, int]] = []  # (first token, last token + 1) of each line
    offset = 0
    for line in split_lines(text[start:end]):
        first = bisect.bisect_left(token_starts, offset)
        offset += len(line)
        last = bisect.bisect_left(token_starts, offset)
        if last > first:
            lines.append((first, last))
    windows: list[tuple[int, int]] = []
    for first, last in lines:
        if last - first <= budget:
            windows.append((first, last))
            continue
        step = max(budget - overlap, 1)
        for begin in range(first, last, step):
            windows.append((begin, min(begin + budget, last)))
            if begin + budget >= last:
                break
    pieces: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for first, last in windows:
        if current is not None and last - current[0] <= budget:
            current = (current[0], last)
            continue
        if current is not None:
            pieces.append(current)
            # Start the next piece a little before this window, for context across the cut.
            back = max(first - overlap, current[0] + 1)
            first = back if last - back <= budget else first
        current = (first, last)
    if current is not None:
        pieces.append(current)
    return [(start + spans[a][0], start + spans[b - 1][1]) for a, b in pieces]


def chunk_note(
    note: Note, embedder_id: str, spans: Spans = regex_spans, *, max_tokens: int = MAX_TOKENS, overlap: int = OVERLAP
) -> list[Chunk]:
    """The note's chunks, in order, none longer than `max_tokens` tokens (special tokens included)."""
    text = note.text
    about = " ".join(meta_text(note, instants=False).split())[:300]  # task, trigger ...: what the note is about
    segments = [(heading, *_trim(text, a, b)) for heading, a, b in _segments(note)]
    heading, a, b = segments[0]
    if text.startswith("# ", a):  # the title heading alone says nothing the prefix does not
        line_end = text.find("\n", a, b)
        segments[0] = (heading, *_trim(text, line_end if line_end >= 0 else b, b))
    prefixes = [
        f"{note.title}\n{about}\n"
        if heading is None and about
        else f"{note.title}: {heading}\n"
        if heading
        else f"{note.title}\n"
        for heading, _, _ in segments
    ]
    prefixes = [prefix[:600] for prefix in prefixes]  # a huge title cannot eat the window
    token_spans = spans([*prefixes, *(text[a:b] for _, a, b in segments)])
    prefix_spans, content_spans = token_spans[: len(segments)], token_spans[len(segments) :]
    chunks: list[Chunk] = []
    seen: set[str] = set()
    for (heading, a, b), prefix, prefix_tokens, tokens in zip(
        segments, prefixes, prefix_spans, content_spans, strict=True
    ):
        if b <= a or is_link_list(text[a:b]):
            continue
        budget = max(max_tokens - SPECIAL_TOKENS - len(prefix_tokens), 16)
        if len(prefix_tokens) > max_tokens // 2:  # keep at least half the window for the content
            prefix, budget = "", max_tokens - SPECIAL_TOKENS
        for start, end in _pieces(text, a, b, tokens, budget, overlap):
            body = prefix + text[start:end]
            identifier = chunk_id(body, embedder_id)
            if identifier in seen:
                continue
            seen.add(identifier)
            chunks.append(Chunk(identifier, len(chunks), heading, start, end, body))
    if not chunks:  # nothing but a title (and frontmatter): still findable by what it is about
        body = prefixes[0].strip() or note.title or (note.path or "")
        chunks.append(Chunk(chunk_id(body, embedder_id), 0, None, 0, 0, body))
    return chunks
