"""A team on one Chroma server: two git clones of one vault, the second's first index reusing the first's vectors.

    python -m benchmarks.perf.bench_team [--size 1k] [--embedder default|lexical]

A generated vault (benchmarks/generate_vault.py) is put in git with a committed `.brain/config.toml`
naming a Chroma server (`chroma run` on 127.0.0.1, started here on a free port with a fresh data
folder) and a `vault_id`, then cloned twice. Each step is a `brain` command in a fresh process, as
a user runs it, timed whole:

1. the first clone's first `brain index` (it embeds every chunk);
2. the second clone's first `brain index` (it should embed none: the server holds every chunk);
3. a note edited and pushed by the first clone (after its `brain index`), pulled by the second,
   whose `brain index` then embeds nothing again;
4. a one-shot `brain search --mode vector` in the second clone (its vectors read from the server),
   and a `brain status` (which asks the server which of the clone's chunks it holds).

Also recorded: the collections of the vault on the server and their records (one collection; as
many records as the first clone embedded, plus the edit's). Results: benchmarks/results/team.json
(`<size>_<embedder>`).
"""

from __future__ import annotations

import argparse
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import CACHE, REPO
from benchmarks.perf.generated import fresh_vault

RESULTS = harness.RESULTS / "team.json"
VAULT_ID = "bench-team"
CLEAN_GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_chroma(data: Path) -> tuple[subprocess.Popen[bytes], str]:
    """`chroma run` on 127.0.0.1 with an empty data folder; (the process, its URL)."""
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    port = free_port()
    command = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    log = (data.parent / "chroma.log").open("wb")
    process = subprocess.Popen(
        [command, "run", "--path", str(data), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit(f"chroma run did not start; see {data.parent / 'chroma.log'}")


def git(folder: Path, *args: str) -> None:
    subprocess.run([*CLEAN_GIT, *args], cwd=folder, check=True, capture_output=True)


def brain(vault: Path, *args: str) -> tuple[float, str]:
    """(wall seconds, stdout) of one `brain` command in a fresh process."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "brain", *args, "--vault", str(vault)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    return round(time.perf_counter() - started, 2), done.stdout.strip()


def counts(line: str) -> dict[str, int]:
    """Chunks embedded and taken from the server, from `brain index`'s line."""
    embedded = re.search(r"vectors: (\d+) chunks? embedded", line)
    reused = re.search(r"(\d+) chunks? taken from the shared vector store", line)
    return {
        "embedded": int(embedded.group(1)) if embedded else -1,
        "reused": int(reused.group(1)) if reused else 0,
    }


def team(size: str, embedder: str) -> dict:
    work = CACHE / "work" / "team"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    server, url = start_chroma(work / "chroma-data")
    try:
        origin = fresh_vault(size, "team-origin")
        harness.use_embedder(origin, embedder)
        with (origin / ".brain" / "config.toml").open("a", encoding="utf-8") as config:
            config.write(f'chroma_url = "{url}"\nvault_id = "{VAULT_ID}"\n')
        (origin / ".brain" / ".gitignore").write_text("*\n!/.gitignore\n!/config.toml\n", encoding="utf-8")
        git(origin, "init", "-q", "-b", "main")
        git(origin, "add", "-A")
        git(origin, "commit", "-q", "-m", "vault")
        git(origin, "config", "receive.denyCurrentBranch", "updateInstead")
        first, second = work / "first", work / "second"
        for clone in (first, second):
            git(work, "clone", "-q", str(origin), clone.name)

        first_seconds, first_line = brain(first, "index")
        second_seconds, second_line = brain(second, "index")

        edited = sorted((first / "decisions").glob("*.md"))[0] if (first / "decisions").is_dir() else None
        edited = edited or sorted(first.rglob("*.md"))[0]
        with edited.open("a", encoding="utf-8") as note:
            note.write("\n## Follow-up\nThe team agreed to revisit this after the load test.\n")
        edit_seconds, edit_line = brain(first, "index")
        git(first, "commit", "-q", "-am", "edit")
        git(first, "push", "-q", "origin", "main")
        git(second, "pull", "-q", "origin", "main")
        pull_seconds, pull_line = brain(second, "index")
        search_seconds, _ = brain(second, "search", "revisit after the load test", "--mode", "vector", "--json")
        status_seconds, _ = brain(second, "status")

        import chromadb

        host, port = url.removeprefix("http://").split(":")
        client = chromadb.HttpClient(host=host, port=int(port))
        names = [item if isinstance(item, str) else item.name for item in client.list_collections()]
        collections = {name: client.get_collection(name).count() for name in names if name.startswith("brain-")}
    finally:
        server.terminate()
        server.wait(timeout=30)
    first_counts, second_counts = counts(first_line), counts(second_line)
    return {
        "notes": int(first_line.split(" notes:")[0]),
        "embedder": embedder,
        "first_clone_index": {"seconds": first_seconds, **first_counts, "report": first_line},
        "second_clone_index": {"seconds": second_seconds, **second_counts, "report": second_line},
        "edit_then_index_first": {"seconds": edit_seconds, **counts(edit_line)},
        "pull_then_index_second": {"seconds": pull_seconds, **counts(pull_line), "report": pull_line},
        "vector_search_second_s": search_seconds,
        "status_second_s": status_seconds,
        "server_collections": collections,
        "ok": second_counts["embedded"] == 0
        and second_counts["reused"] == first_counts["embedded"]
        and counts(pull_line)["embedded"] == 0
        and len(collections) == 1,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1k", choices=("1k", "10k"))
    parser.add_argument("--embedder", default="lexical", choices=("default", "lexical"))
    args = parser.parse_args()
    found = {f"{args.size}_{args.embedder}": team(args.size, args.embedder) | {"machine": harness.machine()}}
    print(found, flush=True)
    harness.merge_json(RESULTS, found)
    return 0 if all(entry["ok"] for entry in found.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
