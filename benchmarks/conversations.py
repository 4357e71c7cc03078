"""Conversational-memory sets in the manner of LoCoMo and LongMemEval, built from public parts.

LoCoMo (long sessions of two people talking, questions about what was said in one of them) and
LongMemEval (one user's chat history with an assistant, the few sessions that hold the answer
hidden among many that do not) are the benchmarks conversational memory is measured on. Neither
is in this repository. These two protocols rebuild their shape from parts anyone can install:

- the talk around the facts: real two-person chat from the BYU PCC Chit-Chat Challenge
  (`pip install -e ".[bench]"`, which installs chitchat-dataset, MIT: 7,168 conversations between
  1,315 people);
- the facts and the questions: MuSiQue's or HotpotQA's passages and their human-written
  multi-hop questions (../shared/benchmarks/retrieval/, see benchmarks/retrieval.py).

A passage is said in a conversation, one sentence a turn by one speaker, between turns of chat;
a question's items are the sessions holding its supporting passages (a session found in the top
5 finds the passages it holds: session recall@5).

- `<set>-sessions` (like LoCoMo): the set's passages shuffled (fixed seed) and dealt four to a
  session; each session is one dated note of about 30 turns (`Ana: ...`) between the two named
  speakers of its conversation (25 sessions a conversation), the passages' sentences placed at
  random between ten to fourteen turns of chat. Long notes, a few facts each, much small talk.
- `<set>-history` (like LongMemEval): the first 50 questions, and one session for each of their
  candidate passages (the set's own distractors and the supporting ones), a user telling it to an
  assistant between four to eight turns of chat (`user: ...`, `assistant: ...`), and a quarter as
  many sessions again of chat alone; every question is searched over the whole history.

MuSiQue's conversations take the chat dataset's even-numbered conversations and HotpotQA's the
odd ones, so no set shares a turn of chat with another. The vaults are written once under
benchmarks/.cache/retrieval/<embedder>/<set>-<protocol>/ and their indexes (the embeddings) kept
there between runs.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path

from benchmarks.harness import use_embedder
from benchmarks.retrieval import CACHE, PUBLIC, Items, load_set, note_name, sentences
from brain.vault.vault import Vault

PROTOCOLS = ("sessions", "history")
SEED = 41
PASSAGES_PER_SESSION = 4
SESSIONS_PER_CONVERSATION = 25
HISTORY_QUESTIONS = 50  # a history holds these questions' candidate passages (embedding is the cost)
NAMES = (
    "Ana Ben Carla Dev Elena Farid Grace Hugo Ines Jonas Kavya Liam Maya Noah Olga Pavel Quinn Rosa Sami Tara "
    "Umar Vera Wen Xavi Yara Zane"
).split()


def chat_turns() -> list[list[tuple[int, str]]]:
    """Every conversation of the chat dataset with at least 10 turns, in its own order: a turn is
    (speaker 0 or 1, the speaker's consecutive messages joined)."""
    try:
        import chitchat_dataset
    except ImportError:
        raise SystemExit(
            "the conversational sets need the chat dataset: pip install -e '.[bench]' (chitchat-dataset)"
        ) from None
    found = []
    for conversation in chitchat_dataset.Dataset().values():
        senders: dict[str, int] = {}
        turns = []
        for group in conversation["messages"]:
            text = " ".join(message["text"].strip() for message in group if message["text"].strip())
            if text:
                speaker = senders.setdefault(group[0]["sender"], len(senders) % 2)
                turns.append((speaker, " ".join(text.split())))
        if len(turns) >= 10:
            found.append(turns)
    return found


def chat_windows(name: str, size: int) -> Iterator[list[tuple[int, str]]]:
    """Windows of `size` turns of chat, endlessly, from this set's half of the conversations."""
    conversations = chat_turns()[{"musique": 0, "hotpotqa": 1}[name] :: 2]
    while True:
        for turns in conversations:
            for start in range(0, len(turns) - size + 1, size):
                yield turns[start : start + size]


def interleave(rng: random.Random, chat: list[tuple[int, str]], blocks: list[list[tuple[int, str]]]) -> list:
    """The chat with each block of turns put whole at a random place between its turns."""
    turns = list(chat)
    for block in blocks:
        at = rng.randint(0, len(turns))
        turns[at:at] = block
    return turns


def build(name: str, protocol: str) -> tuple[list[tuple[str, str]], list[tuple[str, Items]]]:
    """(notes as (title, markdown after the frontmatter's title), questions with their items)."""
    rng = random.Random(f"{SEED}-{name}-{protocol}")
    passages, questions = load_set(name)
    holder: dict[int, int] = {}  # passage -> the session note holding it
    notes: list[tuple[str, str]] = []
    start = date(2023, 1, 2)
    if protocol == "sessions":
        order = list(range(len(passages)))
        rng.shuffle(order)
        windows = chat_windows(name, 14)
        for number in range(0, len(order), PASSAGES_PER_SESSION):
            conversation, session = divmod(len(notes), SESSIONS_PER_CONVERSATION)
            a, b = NAMES[(2 * conversation) % len(NAMES)], NAMES[(2 * conversation + 1) % len(NAMES)]
            day = start + timedelta(days=conversation * 3 + session * 9)
            chat = next(windows)[: rng.randint(10, 14)]
            blocks = []
            for passage in order[number : number + PASSAGES_PER_SESSION]:
                holder[passage] = len(notes)
                speaker = rng.randint(0, 1)
                blocks.append([(speaker, sentence) for sentence in sentences(passages[passage][1])])
            lines = [f"{(a, b)[speaker]}: {text}" for speaker, text in interleave(rng, chat, blocks)]
            title = f"{a} and {b}, session {session + 1}"
            notes.append((title, f"date: {day.isoformat()}\n---\n" + "\n\n".join(lines)))
    elif protocol == "history":
        keep = candidates_of(name)[:HISTORY_QUESTIONS]
        questions = questions[:HISTORY_QUESTIONS]
        told = sorted(set().union(*keep))
        windows = chat_windows(name, 8)
        kinds = told + [-1] * (len(told) // 4)  # -1: chat alone
        rng.shuffle(kinds)
        for number, passage in enumerate(kinds):
            when = datetime(2023, 1, 2, 9) + timedelta(hours=number * 7)
            chat = next(windows)[: rng.randint(4, 8)]
            blocks = []
            if passage >= 0:
                holder[passage] = len(notes)
                blocks.append([(0, sentence) for sentence in sentences(passages[passage][1])])
            lines = [f"{('user', 'assistant')[speaker]}: {text}" for speaker, text in interleave(rng, chat, blocks)]
            title = f"Chat {when:%Y-%m-%d %H:%M}"
            notes.append((title, f"date: {when.date().isoformat()}\n---\n" + "\n\n".join(lines)))
    else:
        raise ValueError(protocol)
    items = [(query, [{holder[p]} for p in sorted(wanted)]) for query, wanted in questions]
    return notes, items


def candidates_of(name: str) -> list[set[int]]:
    """Each question's candidate passages (the set's own distractors and its supporting ones), as
    indices into `load_set`'s passages."""
    folder = PUBLIC
    passages, _ = load_set(name)
    if name == "musique":
        where = {passage: i for i, passage in enumerate(passages)}
        items = json.loads((folder / "musique_train.json").read_text())
        return [{where[(p["title"], p["paragraph_text"])] for p in item["paragraphs"]} for item in items]
    where_title = {title: i for i, (title, _) in enumerate(passages)}
    items = json.loads((folder / "hotpotqa_train.json").read_text())
    return [{where_title[title] for title, _ in item["context"] if title in where_title} for item in items]


def write_notes(root: Path, notes: list[tuple[str, str]]) -> None:
    folder = root / "passages"
    folder.mkdir(parents=True, exist_ok=True)
    for number, (title, rest) in enumerate(notes):
        text = f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n{rest}\n"
        (folder / note_name(number, title)).write_text(text, encoding="utf-8")


def conversation_vault(name: str, protocol: str, embedder: str = "default") -> tuple[Vault, list[tuple[str, Items]]]:
    """The set's conversational vault under .cache/retrieval/<embedder>/<name>-<protocol>, and its questions."""
    notes, questions = build(name, protocol)
    root = CACHE / embedder / f"{name}-{protocol}"
    if not (root / "passages").is_dir():
        shutil.rmtree(root, ignore_errors=True)
        write_notes(root, notes)
    use_embedder(root, embedder)
    return Vault(root), questions
