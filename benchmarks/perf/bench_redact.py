"""What redaction costs: the redactor's throughput on ordinary prose and on text dense with
command lines and credentials, and `brain redact` (a dry run, then --apply) on a vault; write JSON.

    python -m benchmarks.perf.bench_redact                  # 10 MB of each text, a 2,000-note vault
    python -m benchmarks.perf.bench_redact --megabytes 2 --notes 500

The texts are made of words drawn at random (seeded): "prose" holds no word any kind of secret
needs, so most patterns are never run on it; "dense" holds a command line or a credential every
few words (`mysql -u root -p`, `password=`, `Authorization: Bearer ...`, URLs with passwords),
the worst case for the patterns. The vault has `--notes` notes of about 2 KB, one in fifty with a
secret, indexed with the lexical embedder (vectors without a model), each edited once through
brain so the history holds two versions. The apply rewrites the notes with secrets, their
history, the index (the catalog compacted), and writes the receipt. Results:
benchmarks/results/redact.json.
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
from pathlib import Path

from benchmarks.harness import RESULTS, machine, timed, write_json
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.index.vault_index import existing_index
from brain.memory.sessions.redact import Redactor
from brain.memory.sessions.scrub import redact_vault
from brain.vault.init import init_vault
from brain.vault.vault import Vault

PROSE = "the deploy failed because the cache expired so we rolled back and ran the tests again with more retries"
DENSE = (
    "the deploy failed because mysql -u root -p curl https://x.y/z token password=abc123x export ls -pa "
    "docker run -p 8080:80 Authorization: Bearer abcdefghijklmnop1234 redis://:pw@h"
)


def text_of(words: str, megabytes: float) -> str:
    draw = random.Random(1)
    vocabulary = words.split()
    parts: list[str] = []
    size = 0
    while size < megabytes * 1_000_000:
        word = draw.choice(vocabulary) + ("\n" if draw.random() < 0.1 else " ")
        parts.append(word)
        size += len(word)
    return "".join(parts)


def vault_with_secrets(root: Path, notes: int) -> int:
    vault, _ = init_vault(root)
    config = vault.brain_dir / "config.toml"
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "lexical"'))
    body = text_of(PROSE, 0.002)
    with_secrets = 0
    for number in range(notes):
        secret = f"\nmysql -u root -pS3cret{number:05d} shop\n" if number % 50 == 0 else ""
        with_secrets += bool(secret)
        (vault.root / "notes").mkdir(exist_ok=True)
        (vault.root / f"notes/Note {number:05d}.md").write_text(f"# Note {number}\n\n{body}{secret}")
    index_vault(open_index(vault))
    for number in range(notes):
        vault.write(f"notes/Note {number:05d}.md", (vault.root / f"notes/Note {number:05d}.md").read_text() + "more\n")
    return with_secrets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=10)
    parser.add_argument("--notes", type=int, default=2000)
    args = parser.parse_args()
    texts: dict[str, dict[str, float]] = {}
    for name, words in (("prose", PROSE), ("dense", DENSE)):
        text = text_of(words, args.megabytes)
        took = timed(lambda text=text: Redactor().text(text))
        texts[name] = {"megabytes": round(len(text) / 1e6, 1), "seconds": round(took.wall_ms / 1000, 2)}
        texts[name]["mb_per_s"] = round(texts[name]["megabytes"] / texts[name]["seconds"], 1)
    scratch = Path(tempfile.mkdtemp(prefix="brain-redact-bench-"))
    try:
        with_secrets = vault_with_secrets(scratch / "vault", args.notes)
        vault = Vault(scratch / "vault")
        index = existing_index(vault)
        dry = timed(lambda: redact_vault(vault, index, apply=False))
        applied = timed(lambda: redact_vault(vault, index, apply=True))
        found = redact_vault(vault, index, apply=False)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    result = {
        "machine": machine(),
        "redactor": texts,
        "vault": {
            "notes": args.notes,
            "notes_with_a_secret": with_secrets,
            "dry_run_s": round(dry.wall_ms / 1000, 2),
            "apply_s": round(applied.wall_ms / 1000, 2),
            "left_after_apply": len(found.places),
        },
    }
    path = write_json(RESULTS / "redact.json", result)
    print(f"redactor: {texts}")
    print(f"vault: {result['vault']}")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
