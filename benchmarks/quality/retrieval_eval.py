"""Search quality on public multi-hop sets (MuSiQue, HotpotQA) and vault-example's labelled queries.

    python benchmarks/retrieval_eval.py                      # every set, every mode
    python benchmarks/retrieval_eval.py --sets musique --label before
    python benchmarks/retrieval_eval.py --embedders minilm e5-small --label e5   # both, one run
    python benchmarks/retrieval_eval.py --split --sets musique hotpotqa            # one note per sentence

One vault per public set, one note per passage (title = the passage's title, body = its text),
indexed with brain's own default embedder; every question is searched against the whole vault with
brain's own `search.run`. Metrics per mode (text, vector, hybrid, hybrid+rerank):
- recall@5: share of a question's supporting passages among the top 5 notes, averaged;
- mrr@10: 1 / rank of the first supporting passage in the top 10 (0 if none), averaged;
- latency p50/p95 of each query (in-process, warm, index already fresh; the machine is shared).
vault-example's 32 labelled queries (benchmarks/labelled_queries.py) report hit@5 and mrr@10.

The data sets live in ../shared/benchmarks/retrieval/ (not in this repository); when that folder is
missing the public sets are skipped with a message saying so. Results are merged into
benchmarks/results/retrieval.json under `--label` (default "current"). With `--embedders`, each
embedder runs in its own process (so peak memory is its own), one after the other, and its results
go under `<label>/<embedder>`, with its model load time, indexing rate and peak memory.

`--split` (issue 23, point 5: turn-level retrieval) splits the public sets' passages into single
sentences, one note each, titled with the passage's title; labels follow the sentence that holds
the answer (the rule is in benchmarks/turn_level.py, which also measures the context and per-field
BM25 variants). Results go under `<label>/split` (and `/split/<embedder>`), sets `musique-split` ...
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # labelled_queries.py lives beside the test that keeps fusion honest

from brain.index import search as search_module
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.vault import Vault

SHARED = REPO.parent / "shared" / "benchmarks" / "retrieval"
CACHE = HERE / ".cache" / "retrieval"
RESULTS = HERE / "results" / "retrieval.json"
SETS = ("musique", "hotpotqa", "example")
_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


# ---------------------------------------------------------------- data sets


def load_set(name: str, shared: Path = SHARED) -> tuple[list[tuple[str, str]], list[tuple[str, set[int]]]]:
    """(passages as (title, text), questions as (question, indices of its supporting passages))."""
    if name == "musique":
        corpus = json.loads((shared / "musique_train_corpus.json").read_text())
        passages = [(p["title"], p["text"]) for p in corpus]
        where = {passage: i for i, passage in enumerate(passages)}
        questions = []
        for item in json.loads((shared / "musique_train.json").read_text()):
            wanted = {where[(p["title"], p["paragraph_text"])] for p in item["paragraphs"] if p["is_supporting"]}
            questions.append((item["question"], wanted))
        return passages, questions
    if name == "hotpotqa":
        corpus = json.loads((shared / "hotpotqa_train_corpus.json").read_text())
        passages = [(title, "".join(sentences)) for title, sentences in corpus.items()]
        where = {title: i for i, (title, _) in enumerate(passages)}
        questions = []
        for item in json.loads((shared / "hotpotqa_train.json").read_text()):
            questions.append((item["question"], {where[title] for title, _ in item["supporting_facts"]}))
        return passages, questions
    raise ValueError(name)


def note_name(number: int, title: str) -> str:
    return f"p{number:05d} {_UNSAFE.sub(' ', title).strip()[:80]}.md"


def write_vault(root: Path, passages: list[tuple[str, str]]) -> None:
    """One note per passage; the number in the file name keeps passages with one title apart."""
    folder = root / "passages"
    folder.mkdir(parents=True, exist_ok=True)
    for number, (title, text) in enumerate(passages):
        quoted = json.dumps(title, ensure_ascii=False)  # a JSON string is a valid YAML scalar
        (folder / note_name(number, title)).write_text(f"---\ntitle: {quoted}\n---\n{text.strip()}\n", encoding="utf-8")


def use_embedder(root: Path, embedder: str) -> None:
    (root / ".brain").mkdir(parents=True, exist_ok=True)
    (root / ".brain" / "config.toml").write_text(f'[index]\nembedder = "{embedder}"\n', encoding="utf-8")


def prepared_vault(name: str, passages: list[tuple[str, str]], embedder: str = "default") -> Vault:
    """The set's vault under benchmarks/.cache/<embedder> (kept between runs: embedding takes minutes)."""
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


# ---------------------------------------------------------------- measuring


def modes() -> list[tuple[str, dict]]:
    """(label, keyword arguments of search.run) for every mode this checkout supports."""
    found = [("text", {"mode": "text"}), ("vector", {"mode": "vector"}), ("hybrid", {"mode": "hybrid"})]
    if reranker_available():
        found.append(("hybrid+rerank", {"mode": "hybrid", "rerank": True}))
    return found


def reranker_available() -> bool:
    """Whether this checkout has a reranker and a model for it ($BRAIN_RERANKER_MODEL); says why not."""
    try:
        from brain.index.rerank import resolve_reranker
    except ImportError:
        return False
    try:
        resolve_reranker(None)
    except Exception as error:
        print(f"hybrid+rerank skipped: {error}")
        return False
    return True


def number_of(path: str) -> int:
    return int(Path(path).name[1:6])


def evaluate_public(index, questions: list[tuple[str, list[set[int]]]], kwargs: dict) -> dict:
    """Each question has items to find (a supporting passage, or the sentences holding one hop's
    answer); an item is found when any of its notes is in the top 5."""
    recall = mrr = 0.0
    times = []
    for query, _ in questions[:3]:
        search_module.run(index, query, limit=10, **kwargs)  # warm
    for query, items in questions:
        started = time.perf_counter()
        hits = search_module.run(index, query, limit=10, **kwargs)
        times.append((time.perf_counter() - started) * 1000)
        ranked = [number_of(hit.path) for hit in hits]
        top5, every = set(ranked[:5]), set().union(*items)
        recall += sum(1 for notes in items if notes & top5) / len(items)
        mrr += next((1.0 / rank for rank, n in enumerate(ranked, start=1) if n in every), 0.0)
    n = len(questions)
    return {
        "recall@5": round(recall / n, 3),
        "mrr@10": round(mrr / n, 3),
        "p50_ms": round(percentile(times, 0.5), 1),
        "p95_ms": round(percentile(times, 0.95), 1),
    }


def evaluate_example(index, kwargs: dict) -> dict:
    from labelled_queries import KEYWORDS, PARAPHRASE

    result = {}
    for set_name, queries in (("paraphrase", PARAPHRASE), ("keywords", KEYWORDS), ("all", {**PARAPHRASE, **KEYWORDS})):
        hit5 = mrr = 0.0
        for query, relevant in queries.items():
            paths = [hit.path for hit in search_module.run(index, query, limit=10, **kwargs)]
            rank = next((i for i, path in enumerate(paths, start=1) if path in relevant), None)
            hit5 += rank is not None and rank <= 5
            mrr += 1.0 / rank if rank else 0.0
        result[set_name] = {"hit@5": round(hit5 / len(queries), 3), "mrr@10": round(mrr / len(queries), 3)}
    return result


def split_vault(name: str, embedder: str = "default") -> tuple[Vault, list[tuple[str, list[set[int]]]], dict]:
    """The set split into one note per sentence (benchmarks/turn_level.py), under .cache/<embedder>/<name>-split."""
    from turn_level import load_split, write_units

    units, questions, facts = load_split(name)
    root = CACHE / embedder / f"{name}-split"
    if not (root / "passages").is_dir():
        shutil.rmtree(root, ignore_errors=True)
        write_units(root, units, context_field=False)
    use_embedder(root, embedder)
    return Vault(root), questions, facts


def run_set(name: str, embedder: str = "default", split: bool = False) -> dict | None:
    facts: dict = {}
    if name == "example":
        vault = example_vault(embedder)
        questions = None
    else:
        if not SHARED.is_dir():
            print(f"skipping {name}: {SHARED} is missing (the public sets are kept outside this repository)")
            return None
        if split:
            vault, questions, facts = split_vault(name, embedder)
        else:
            passages, wanted = load_set(name)
            vault = prepared_vault(name, passages, embedder)
            questions = [(query, [{n} for n in sorted(notes)]) for query, notes in wanted]
    index = open_index(vault)
    started = time.perf_counter()
    report = index_vault(index)
    built = time.perf_counter() - started
    embedded = report.embed.embedded if report.embed else 0
    result = {
        "notes": report.notes,
        "chunks": index.catalog.chunk_count(),
        "embedder": index.embedder.id,
        "index_seconds": round(built, 1),
        "chunks_embedded": embedded,
        **facts,
        "modes": {},
    }
    if embedded >= 100:  # a fresh index: its rate means something
        result["chunks_per_s"] = round(embedded / built, 1)
    if questions is not None:
        result["questions"] = len(questions)
    for label, kwargs in modes():
        scores = evaluate_example(index, kwargs) if questions is None else evaluate_public(index, questions, kwargs)
        result["modes"][label] = scores
        print(f"{name + ('-split' if split else ''):15} {label:14} {json.dumps(scores)}", flush=True)
    return result


def load_times(embedder: str) -> dict:
    """Seconds to load the embedder in a fresh process: cold (e5: its ONNX built into an empty cache) and cached."""
    if embedder == "default":
        return {}
    code = (
        "import time; t = time.perf_counter(); from brain.index.embedders.embedders import load_embedder; "
        f"e = load_embedder({embedder!r}); e.embed(['warm']); print(time.perf_counter() - t)"
    )
    found = {}
    cold_cache = CACHE / "cold-cache"
    shutil.rmtree(cold_cache, ignore_errors=True)
    for label in ("cold_s", "cached_s"):  # the first run builds into the empty cache, the second finds it there
        env = {"XDG_CACHE_HOME": str(cold_cache)}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env={**os.environ, **env}
        )
        found[label] = round(float(done.stdout.strip().splitlines()[-1]), 2) if done.returncode == 0 else None
    shutil.rmtree(cold_cache, ignore_errors=True)
    print(f"load {embedder}: {found}", flush=True)
    return found


def machine() -> dict:
    return {
        "cpus": os.cpu_count(),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "note": "2-core machine shared with other jobs: latency is noisy",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="search quality on public multi-hop sets and vault-example")
    parser.add_argument("--sets", nargs="*", choices=SETS, default=list(SETS))
    parser.add_argument("--label", default="current", help="key under which results are stored (before, after ...)")
    parser.add_argument(
        "--embedder", default="default", help="the vaults' [index] embedder (default, minilm, e5-small ...)"
    )
    parser.add_argument(
        "--embedders", nargs="+", help="several embedders, each in its own process, one after the other"
    )
    parser.add_argument("--split", action="store_true", help="the public sets split into one note per sentence")
    args = parser.parse_args()
    if args.split and "example" in args.sets:
        args.sets = [name for name in args.sets if name != "example"]  # vault-example's notes are kept whole
    if args.embedders:
        for embedder in args.embedders:
            command = [sys.executable, __file__, "--sets", *args.sets, "--label", args.label, "--embedder", embedder]
            command += ["--split"] if args.split else []
            if subprocess.run(command).returncode:
                return 1
        return 0
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    label = args.label + ("/split" if args.split else "")
    label = label if args.embedder == "default" else f"{label}/{args.embedder}"
    entry = stored.get(label, {})
    entry["load"] = load_times(args.embedder)
    for name in args.sets:
        found = run_set(name, args.embedder, args.split)
        if found is not None:
            entry[name + ("-split" if args.split else "")] = found
    entry["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    entry["machine"] = machine()
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}  # another process may have written
    stored[label] = entry
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(stored, indent=2) + "\n")
    print(f"wrote {RESULTS} [{label}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
