"""The search data sets as vaults brain can index, and the search modes this checkout supports.

- MuSiQue and HotpotQA (public multi-hop sets, kept in ../shared/benchmarks/retrieval/, not in this
  repository): one note per passage (`load_set`, `prepared_vault`), or one note per sentence with
  the labels following the sentence that holds the answer (`load_split`, `split_vault`; the rule
  is in `load_split`'s doc);
- vault-example with its labelled queries (tests/helpers/labelled_queries.py, used by the test that keeps
  the fusion honest): `example_vault`.

Vaults are kept under benchmarks/.cache/retrieval/<embedder>/ between runs (embedding takes minutes).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from benchmarks.harness import CACHE as BENCHMARK_CACHE
from benchmarks.harness import REPO, SHARED, shared, use_embedder
from brain.vault.vault import Vault

PUBLIC = SHARED / "benchmarks" / "retrieval"
CACHE = BENCHMARK_CACHE / "retrieval"
SETS = ("musique", "hotpotqa", "example")
_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')
_SENTENCE = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)\s+(?=[A-Z0-9\"'(])")  # not after an initial (G. Stanley Hall)
_WORD = re.compile(r"\w+")

Items = list[set[int]]  # each item to find: the notes any of which finds it


def public_sets(instead: str) -> Path | None:
    """The public sets' folder, or None after saying it is missing and what is done `instead`."""
    return shared("benchmarks/retrieval", instead)


# ---------------------------------------------------------------- one note per passage


def load_set(name: str, folder: Path = PUBLIC) -> tuple[list[tuple[str, str]], list[tuple[str, set[int]]]]:
    """(passages as (title, text), questions as (question, indices of its supporting passages))."""
    if name == "musique":
        corpus = json.loads((folder / "musique_train_corpus.json").read_text())
        passages = [(p["title"], p["text"]) for p in corpus]
        where = {passage: i for i, passage in enumerate(passages)}
        questions = []
        for item in json.loads((folder / "musique_train.json").read_text()):
            wanted = {where[(p["title"], p["paragraph_text"])] for p in item["paragraphs"] if p["is_supporting"]}
            questions.append((item["question"], wanted))
        return passages, questions
    if name == "hotpotqa":
        corpus = json.loads((folder / "hotpotqa_train_corpus.json").read_text())
        passages = [(title, "".join(sentences)) for title, sentences in corpus.items()]
        where = {title: i for i, (title, _) in enumerate(passages)}
        questions = []
        for item in json.loads((folder / "hotpotqa_train.json").read_text()):
            questions.append((item["question"], {where[title] for title, _ in item["supporting_facts"]}))
        return passages, questions
    raise ValueError(name)


def note_name(number: int, title: str) -> str:
    return f"p{number:05d} {_UNSAFE.sub(' ', title).strip()[:80]}.md"


def number_of(path: str) -> int:
    """The passage (or sentence) number a note's file name starts with."""
    return int(Path(path).name[1:6])


def write_vault(root: Path, passages: list[tuple[str, str]]) -> None:
    """One note per passage; the number in the file name keeps passages with one title apart."""
    folder = root / "passages"
    folder.mkdir(parents=True, exist_ok=True)
    for number, (title, text) in enumerate(passages):
        quoted = json.dumps(title, ensure_ascii=False)  # a JSON string is a valid YAML scalar
        (folder / note_name(number, title)).write_text(f"---\ntitle: {quoted}\n---\n{text.strip()}\n", encoding="utf-8")


def prepared_vault(name: str, passages: list[tuple[str, str]], embedder: str = "default") -> Vault:
    """The set's vault under benchmarks/.cache/retrieval/<embedder> (kept between runs: embedding takes minutes)."""
    root = CACHE / embedder / name
    if not (root / "passages").is_dir():
        shutil.rmtree(root, ignore_errors=True)
        write_vault(root, passages)
    use_embedder(root, embedder)
    return Vault(root)


def example_vault(embedder: str = "default") -> Vault:
    """A copy of vault-example made afresh on every run (notes change; its index in .brain is kept and caught up)."""
    root = CACHE / embedder / "example"
    for entry in root.iterdir() if root.is_dir() else ():
        if entry.name != ".brain":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    shutil.copytree(REPO / "vault-example", root, ignore=shutil.ignore_patterns(".brain"), dirs_exist_ok=True)
    use_embedder(root, embedder)
    return Vault(root)


# ---------------------------------------------------------------- one note per sentence


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def load_split(name: str, folder: Path = PUBLIC) -> tuple[list[dict], list[tuple[str, Items]], dict]:  # noqa: C901 (one branch per dataset layout)
    """(sentence units, questions with their items, facts about the labels). A unit is
    {title, text, passage, sentence, before, after}; items index into the units. Labels follow the
    sentence that holds the answer:
    - HotpotQA: its `supporting_facts` name the sentences themselves, `[title, sentence index]`; each
      supporting sentence is one item to find (a label on an empty or missing sentence is dropped).
    - MuSiQue names only supporting paragraphs; each hop of `question_decomposition` is one item, and
      its labels are the sentences of its paragraph that hold the hop's answer (or, for the last hop,
      one of `answer_aliases`; case-insensitive). When none does (the answer is paraphrased), the label
      is the paragraph's sentence sharing most words with the hop's question and answer (`#1` ... in
      a question replaced by the earlier hops' answers); `fallback_labels` counts those.
    """
    units: list[dict] = []
    where: dict[tuple[int, int], int] = {}  # (passage, sentence) -> unit

    def add(passage: int, title: str, parts: list[str]) -> None:
        for number, text in enumerate(parts):
            if not text.strip():
                continue
            where[(passage, number)] = len(units)
            units.append({"title": title, "text": text.strip(), "passage": passage, "sentence": number})

    facts = {"dropped_labels": 0, "fallback_labels": 0}
    questions: list[tuple[str, Items]] = []
    if name == "hotpotqa":
        corpus = json.loads((folder / "hotpotqa_train_corpus.json").read_text())
        titles = list(corpus)
        for passage, title in enumerate(titles):
            add(passage, title, corpus[title])
        passage_number = {title: i for i, title in enumerate(titles)}
        for item in json.loads((folder / "hotpotqa_train.json").read_text()):
            items = []
            for title, sentence in item["supporting_facts"]:
                unit = where.get((passage_number[title], sentence))
                if unit is None:
                    facts["dropped_labels"] += 1
                    continue
                items.append({unit})
            questions.append((item["question"], items))
    elif name == "musique":
        corpus = json.loads((folder / "musique_train_corpus.json").read_text())
        passage_of = {}
        for passage, p in enumerate(corpus):
            passage_of[(p["title"], p["text"])] = passage
            add(passage, p["title"], sentences(p["text"]))
        for item in json.loads((folder / "musique_train.json").read_text()):
            items, answers = [], []
            hops = item["question_decomposition"]
            for hop_number, hop in enumerate(hops):
                paragraph = item["paragraphs"][hop["paragraph_support_idx"]]
                passage = passage_of[(paragraph["title"], paragraph["paragraph_text"])]
                parts = sentences(paragraph["paragraph_text"])
                wanted = [hop["answer"]] + (item.get("answer_aliases", []) if hop_number == len(hops) - 1 else [])
                holding = {
                    where[(passage, n)] for n, s in enumerate(parts) if any(a.lower() in s.lower() for a in wanted)
                }
                if not holding:
                    question = hop["question"]
                    for k, answer in enumerate(answers, start=1):
                        question = question.replace(f"#{k}", answer)
                    words = {w.lower() for w in _WORD.findall(f"{question} {hop['answer']}")}
                    best = max(range(len(parts)), key=lambda n: len(words & set(_WORD.findall(parts[n].lower()))))
                    holding = {where[(passage, best)]}
                    facts["fallback_labels"] += 1
                answers.append(hop["answer"])
                items.append(holding)
            questions.append((item["question"], items))
    else:
        raise ValueError(name)
    for unit in units:
        before = where.get((unit["passage"], unit["sentence"] - 1))
        after = where.get((unit["passage"], unit["sentence"] + 1))
        unit["before"] = units[before]["text"] if before is not None else ""
        unit["after"] = units[after]["text"] if after is not None else ""
    facts["units"], facts["items"] = len(units), sum(len(items) for _, items in questions)
    return units, [(q, items) for q, items in questions if items], facts


def write_units(root: Path, units: list[dict], *, context_field: bool) -> None:
    """One note per unit, `p<number>.md` (the number is the unit's index: the eval reads it back);
    with `context_field`, the sentences before and after go in a frontmatter field."""
    folder = root / "passages"
    folder.mkdir(parents=True, exist_ok=True)
    for number, unit in enumerate(units):
        lines = [f"title: {json.dumps(unit['title'], ensure_ascii=False)}"]
        context = " … ".join(part for part in (unit["before"], unit["after"]) if part)
        if context_field and context:
            lines.append(f"context: {json.dumps(context, ensure_ascii=False)}")
        (folder / note_name(number, unit["title"])).write_text(
            "---\n" + "\n".join(lines) + f"\n---\n{unit['text']}\n", encoding="utf-8"
        )


def split_vault(name: str, embedder: str = "default") -> tuple[Vault, list[tuple[str, Items]], dict]:
    """The set split into one note per sentence, under .cache/retrieval/<embedder>/<name>-split."""
    units, questions, facts = load_split(name)
    root = CACHE / embedder / f"{name}-split"
    if not (root / "passages").is_dir():
        shutil.rmtree(root, ignore_errors=True)
        write_units(root, units, context_field=False)
    use_embedder(root, embedder)
    return Vault(root), questions, facts


# ---------------------------------------------------------------- search modes


def search_modes() -> list[tuple[str, dict]]:
    """(label, keyword arguments of search.run) for every mode this checkout supports."""
    found = [("text", {"mode": "text"}), ("vector", {"mode": "vector"}), ("hybrid", {"mode": "hybrid"})]
    if reranker_available():
        found.append(("hybrid+rerank", {"mode": "hybrid", "rerank": True}))
    return found


def reranker_available() -> bool:
    """Whether this checkout has a reranker and a model for it ($BRAIN_RERANKER_MODEL); says why not."""
    try:
        from brain.memory.search.rerank import resolve_reranker
    except ImportError:
        return False
    try:
        resolve_reranker(None)
    except Exception as error:
        print(f"hybrid+rerank skipped: {error}")
        return False
    return True
