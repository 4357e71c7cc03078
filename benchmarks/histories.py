"""Real projects' Claude Code and Codex histories, for the benchmarks that replay them (memory_replay).

Some projects publish their agents' sessions on purpose with Entire, on the git branch
`entire/checkpoints/v1`: `<xx>/<checkpoint>/metadata.json` lists the checkpoint's sessions, each a
`<n>/full.jsonl` transcript and a `<n>/metadata.json` (its `session_id`, `created_at`, `agent`). A
session is in every checkpoint it reached, each copy holding the transcript so far (every shorter
copy is a prefix of the longest), so the longest copy of each session id is the session. A later
Entire keeps each checkpoint on a ref of its own, `refs/entire/checkpoints/<xx>/<id>`, its sessions
one folder deep (`<n>/full.jsonl`); a mirror without the branch is read that way. Claude
Code's sessions (JSON Lines of `user` / `assistant` records) and Codex CLI's rollouts (JSON Lines of
`{timestamp, type, payload}`, opening with `session_meta`) are kept, told apart by their content (an
older Entire wrote `Agent` or nothing as the agent); a Gemini CLI session (one JSON document) and
any other agent's are left out.

    python -m benchmarks.histories MIRROR PROJECT [--to DIR]
    python -m benchmarks.histories --all MIRRORS [--to DIR]

The first reads a git mirror of such a repository (`git clone --mirror`, or a fetch of the branch)
and writes `DIR/PROJECT/<session_id>.jsonl` and `DIR/PROJECT/index.json` (each session's id, agent
(`claude-code` or `codex`), the agent's version (Codex: `session_meta`'s `cli_version`; Claude
Code: its records' `version`), its first transcript timestamp and the created_at of its metadata,
oldest first). The second does so for each project of PROJECTS whose mirror is
`MIRRORS/<owner>+<name>/repo`, and writes `DIR/projects.json` (each project's repository, licence,
branch commit and counts). DIR is $BRAIN_HISTORIES, else ../shared/histories next to the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.harness import SHARED

BRANCH = "entire/checkpoints/v1"
OTHER_AGENTS = ("Gemini CLI", "Cursor")  # sessions of agents brain does not replay (metadata's `agent`)
INDEX = "index.json"
CLAUDE_CODE, CODEX = "claude-code", "codex"
_CODEX_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")


@dataclass(frozen=True)
class Project:
    """One development history: its folder name under DIR, its GitHub repository and its licence
    (read from the repository's LICENSE file or, where it has none, its README or package metadata;
    only MIT and Apache-2.0 ones may be copied into tests/data/)."""

    name: str
    repository: str
    licence: str  # SPDX id, or "none stated"

    @property
    def copyable(self) -> bool:
        return self.licence in ("MIT", "Apache-2.0")


PROJECTS = (
    Project("entireio-cli", "entireio/cli", "MIT"),
    Project("cipher-box", "FSM1/cipher-box", "MIT"),
    Project("context-evaluator", "PackmindHub/context-evaluator", "Apache-2.0"),  # LICENSE; README says MIT
    Project("git-sync", "entireio/git-sync", "MIT"),
    Project("entire-graph", "entireio/entire-graph", "MIT"),
    Project("dotnix", "yutakobayashidev/dotnix", "none stated"),
    Project("light-protocol", "Lightprotocol/light-protocol", "GPL-3.0"),
    Project("bids-utils", "bids-standard/bids-utils", "Apache-2.0"),  # pyproject and README; no LICENSE file
    Project("safecast-map-mcp", "Safecast/safecast-map-MCP", "MIT"),  # README says MIT; no LICENSE file
    Project("medgemma-hackathon", "ElixirTrials/medgemma-hackathon", "none stated"),
)


def histories_root() -> Path:
    """Where local copies of the histories live: $BRAIN_HISTORIES, else ../shared/histories."""
    configured = os.environ.get("BRAIN_HISTORIES")
    return Path(configured) if configured else SHARED / "histories"


@dataclass(frozen=True)
class Session:
    session_id: str
    started: str  # the first timestamp in the transcript (ISO 8601), "" when it has none
    created_at: str  # the checkpoint metadata's created_at of the copy kept
    path: Path
    agent: str = CLAUDE_CODE  # CLAUDE_CODE or CODEX
    version: str = ""  # the agent's version: Codex's session_meta cli_version, Claude Code's records' version


class MissingHistory(Exception):
    """The local copy of a project's history is not there: the message says how to make it."""


def load(project: str, root: Path | None = None) -> list[Session]:
    """A project's sessions, oldest first, from its local copy (MissingHistory when there is none)."""
    folder = (root or histories_root()) / project
    index = folder / INDEX
    if not index.is_file():
        raise MissingHistory(
            f"no local copy of {project}'s history at {folder}: make it with "
            f"`python -m benchmarks.histories <git mirror> {project} --to {folder.parent}` "
            "(or point $BRAIN_HISTORIES at the folder that holds it)"
        )
    entries = json.loads(index.read_text(encoding="utf-8"))
    return [
        Session(
            entry["session_id"],
            entry["started"],
            entry["created_at"],
            folder / f"{entry['session_id']}.jsonl",
            entry.get("agent", CLAUDE_CODE),
            entry.get("version", ""),
        )
        for entry in entries
    ]


# ---------------------------------------------------------------- materialising from a git mirror


def _git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(mirror), *args], check=True, capture_output=True).stdout


def _blobs(mirror: Path, paths: list[str]) -> dict[str, bytes]:
    """The files at these `<tree-ish>:<path>`s, read through one `git cat-file --batch`."""
    request = "".join(f"{path}\n" for path in paths).encode()
    out = subprocess.run(
        ["git", "-C", str(mirror), "cat-file", "--batch"], input=request, check=True, capture_output=True
    ).stdout
    blobs: dict[str, bytes] = {}
    position = 0
    for path in paths:
        header_end = out.index(b"\n", position)
        header = out[position:header_end].split()
        if header[-1] == b"missing":
            position = header_end + 1
            continue
        size = int(header[2])
        blobs[path] = out[header_end + 1 : header_end + 1 + size]
        position = header_end + 1 + size + 1
    return blobs


def _agent(transcript: bytes) -> str | None:
    """CODEX for a rollout, CLAUDE_CODE for JSON Lines of typed records, None for anything else
    (Gemini CLI's one JSON document)."""
    first = next((line for line in transcript.splitlines() if line.strip()), b"")
    try:
        record = json.loads(first)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    if record.get("type") in _CODEX_TYPES and isinstance(record.get("payload"), dict):
        return CODEX
    if isinstance(record.get("type"), str) or "sessionId" in record:  # user, assistant, summary ... records
        return CLAUDE_CODE
    return None


def _version(transcript: bytes, agent: str) -> str:
    """Codex: the first session_meta's cli_version. Claude Code: the first record's `version`."""
    for line in transcript.splitlines():
        try:
            record: Any = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if agent == CODEX and record.get("type") == "session_meta":
            return str((record.get("payload") or {}).get("cli_version") or "")
        if agent == CLAUDE_CODE and isinstance(record.get("version"), str):
            return str(record["version"])
    return ""


def _first_timestamp(transcript: bytes) -> str:
    for line in transcript.splitlines():
        try:
            record: Any = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("timestamp"), str):
            return str(record["timestamp"])
    return ""


def branch_commit(mirror: Path) -> str:
    return _git(mirror, "rev-parse", BRANCH).decode().strip()


def _checkpoint_trees(mirror: Path) -> list[tuple[str, int]]:
    """Where the checkpoints are: the branch (its sessions' metadata 3 folders deep), else each
    checkpoint's own ref `refs/entire/checkpoints/<xx>/<id>` (a later Entire's layout: 1 deep)."""
    if _git(mirror, "for-each-ref", f"refs/heads/{BRANCH}").strip():
        return [(BRANCH, 3)]
    refs = _git(mirror, "for-each-ref", "--format=%(refname)", "refs/entire/checkpoints/").decode().split()
    return [(ref, 1) for ref in refs if re.fullmatch(r"refs/entire/checkpoints/[0-9a-f]{2}/[0-9a-f]+", ref)]


def materialise(mirror: Path, project: str, root: Path | None = None) -> list[Session]:
    """Write the longest copy of each session of the mirror's checkpoints, and the index."""
    sizes = {}  # `<tree-ish>:<path>` -> bytes, from `ls-tree -l`: "<mode> blob <sha> <size>\t<path>"
    metadata_paths = []
    for tree, depth in _checkpoint_trees(mirror):
        for line in _git(mirror, "ls-tree", "-r", "-l", tree).decode().splitlines():
            fields, path = line.split("\t", 1)
            size = fields.split()[-1]
            if size.isdigit():
                sizes[f"{tree}:{path}"] = int(size)
            if path.count("/") == depth and path.endswith("/metadata.json"):
                metadata_paths.append(f"{tree}:{path}")
    metadata = _blobs(mirror, metadata_paths)
    best: dict[str, tuple[int, str, str]] = {}  # session id -> (size, transcript path, created_at)
    for path, raw in metadata.items():
        meta = json.loads(raw)
        transcript = path.rsplit("/", 1)[0] + "/full.jsonl"
        session_id = meta.get("session_id")
        if not session_id or transcript not in sizes:
            continue
        if meta.get("agent") in OTHER_AGENTS:
            continue
        candidate = (sizes[transcript], transcript, str(meta.get("created_at", "")))
        if session_id not in best or candidate[0] > best[session_id][0]:
            best[session_id] = candidate
    folder = (root or histories_root()) / project
    folder.mkdir(parents=True, exist_ok=True)
    transcripts = _blobs(mirror, [transcript for _, transcript, _ in best.values()])
    sessions = []
    for stale in folder.glob("*.jsonl"):
        if stale.stem not in best:
            stale.unlink()  # a session an earlier copy kept that is no session of an agent replayed
    for session_id, (_, transcript, created_at) in best.items():
        text = transcripts[transcript]
        agent = _agent(text)
        if agent is None:
            (folder / f"{session_id}.jsonl").unlink(missing_ok=True)
            continue  # an older Entire wrote other agents' sessions as "Agent" too (Gemini CLI's one JSON document)
        target = folder / f"{session_id}.jsonl"
        target.write_bytes(text)
        sessions.append(Session(session_id, _first_timestamp(text), created_at, target, agent, _version(text, agent)))
    sessions.sort(key=lambda session: (session.started or session.created_at, session.session_id))
    index = [
        {
            "session_id": s.session_id,
            "agent": s.agent,
            "version": s.version,
            "started": s.started,
            "created_at": s.created_at,
            "bytes": s.path.stat().st_size,
        }
        for s in sessions
    ]
    (folder / INDEX).write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return sessions


def materialise_all(mirrors: Path, root: Path | None = None) -> list[dict[str, Any]]:
    """Every project of PROJECTS whose mirror is under `mirrors`, and DIR/projects.json."""
    root = root or histories_root()
    rows = []
    for project in PROJECTS:
        mirror = mirrors / project.repository.replace("/", "+") / "repo"
        if not mirror.is_dir():
            print(f"{project.name}: no mirror at {mirror}, left out")
            continue
        sessions = materialise(mirror, project.name, root)
        agents = {agent: sum(s.agent == agent for s in sessions) for agent in (CLAUDE_CODE, CODEX)}
        rows.append(
            {
                "project": project.name,
                "repository": project.repository,
                "licence": project.licence,
                "copyable": project.copyable,
                "branch_commit": branch_commit(mirror),
                "sessions": agents,
                "codex_versions": sorted({s.version for s in sessions if s.agent == CODEX}),
                "first": sessions[0].started if sessions else "",
                "last": sessions[-1].started if sessions else "",
            }
        )
        print(f"{project.name}: {agents} in {root / project.name}")
    (root / "projects.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mirror", type=Path, nargs="?", help="a git mirror holding the branch entire/checkpoints/v1")
    parser.add_argument("project", nargs="?", help="the project's name: the folder written under DIR")
    parser.add_argument("--all", type=Path, default=None, metavar="MIRRORS", help="every project of PROJECTS")
    parser.add_argument("--to", type=Path, default=None, help="DIR (default: $BRAIN_HISTORIES or ../shared/histories)")
    options = parser.parse_args()
    if options.all is not None:
        materialise_all(options.all, options.to)
        return
    if options.mirror is None or options.project is None:
        parser.error("give MIRROR and PROJECT, or --all MIRRORS")
    sessions = materialise(options.mirror, options.project, options.to)
    print(f"{len(sessions)} sessions of {options.project} in {(options.to or histories_root()) / options.project}")


if __name__ == "__main__":
    main()
