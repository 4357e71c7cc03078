"""The candidates that wait for a second session (`.brain/tips/candidates.jsonl`) stay bounded: one
held more than WAIT_DAYS before the newest, or past the newest MOST_WAITING, is dropped, oldest
first; those kept still become tips when a second session does the same; a torn or foreign line is
skipped; two sessions learned at once both keep their candidates."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

from typer.testing import CliRunner

from brain.cli import app
from brain.memory.tips.admit import CANDIDATES, MOST_WAITING, WAIT_DAYS
from brain.vault.vault import Vault
from tests.conftest import REPO

FIRST_DAY = date(2026, 1, 5)


def word(number: int) -> str:
    """A made-up word of its own for each number, so that no two decisions say the same."""
    letters = ""
    number += 100
    while number:
        number, rest = divmod(number, 100)
        letters += "bcdfghjklmnpqrstvwxz"[rest // 5] + "aeiou"[rest % 5]
    return letters


def decision(episode: int, number: int) -> str:
    a, b, c = (word((episode * 100 + number) * 3 + offset) for offset in range(3))
    return (
        f"### d{number + 1:03d}: Route {a} {b} through the {c} gateway\n"
        f"- **Type**: design\n- **Context**: The {a} feed of {c} overflows the {b} queue\n"
        f"- **Options**: Drop the {a} feed, Route {a} {b} through the {c} gateway\n"
        f"- **Chosen**: Route {a} {b} through the {c} gateway\n"
        f"- **Rationale**: The {c} gateway buffers {b} bursts\n- **Outcome**: success\n\n"
    )


def write_episode(root: Path, number: int, day: date, decisions: int = 1, like: int | None = None) -> str:
    """An episode of `day` whose decisions are its own, or those of episode `like` (a second session
    that does the same)."""
    title = f"EPISODE-{day.isoformat()}-session-{number:04d}"
    body = "".join(decision(number if like is None else like, k) for k in range(decisions))
    (root / "episodes" / f"{title}.md").write_text(
        f'---\ntitle: {title}\ntype: episode\ndate: "{day.isoformat()}T09:00:00Z"\noutcome: success\n'
        f"task: Tune feed {number}\n---\n\n# {title}\n\n## Decisions\n\n{body}",
        encoding="utf-8",
    )
    return title


def fresh_vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    assert CliRunner().invoke(app, ["init", str(root)]).exit_code == 0
    return root


def learn(root: Path, *titles: str) -> list[str]:
    done = CliRunner().invoke(app, ["tip", "learn", *titles, "--vault", str(root)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return done.output.splitlines()


def waiting(root: Path) -> list[tuple[str, str | None, str]]:
    """(episode, span, day held) of each line of the candidates file."""
    lines = (Vault(root).brain_dir / CANDIDATES).read_text(encoding="utf-8").splitlines()
    return [(entry["episode"], entry["span"], entry["held"]) for entry in map(json.loads, lines)]


def test_a_candidate_no_session_matched_within_wait_days_goes_and_a_later_twin_waits_anew(tmp_path: Path) -> None:
    root = fresh_vault(tmp_path)
    days = [0, 30, WAIT_DAYS - 10, WAIT_DAYS + 5]
    titles = [write_episode(root, number, FIRST_DAY + timedelta(days=day)) for number, day in enumerate(days)]
    for title in titles[:3]:
        learn(root, title)
    assert [episode for episode, _, _ in waiting(root)] == titles[:3]
    # they hold what sessions did: readable by their owner only (issue 40, 9)
    assert (Vault(root).brain_dir / CANDIDATES).stat().st_mode & 0o777 == 0o600

    learn(root, titles[3])  # WAIT_DAYS + 5 days after the first: the first goes
    assert waiting(root) == [
        (title, "d001", (FIRST_DAY + timedelta(days=day)).isoformat())
        for title, day in zip(titles[1:], days[1:], strict=True)
    ]
    # the first session's twin, now, finds no candidate to meet: it waits in its turn
    late = write_episode(root, 10, FIRST_DAY + timedelta(days=WAIT_DAYS + 6), like=0)
    assert learn(root, late)[0] == f"{late}: 0 new, 0 supported again, 1 held for a second session, 0 already learned"
    # the second's twin is within WAIT_DAYS of it: the two make a tip, as before any was dropped
    twin = write_episode(root, 11, FIRST_DAY + timedelta(days=WAIT_DAYS + 6), like=1)
    said = learn(root, twin)
    assert said[0] == f"{twin}: 1 new, 0 supported again, 0 held for a second session, 0 already learned"
    assert [episode for episode, _, _ in waiting(root)] == [titles[2], titles[3], late]


def test_an_older_session_learned_late_waits_until_a_session_past_its_wait_is_learned(tmp_path: Path) -> None:
    root = fresh_vault(tmp_path)
    new = write_episode(root, 0, FIRST_DAY + timedelta(days=WAIT_DAYS + 10))
    old = write_episode(root, 1, FIRST_DAY)  # a backfill: learned after a later session
    learn(root, new)
    assert learn(root, old)[0] == f"{old}: 0 new, 0 supported again, 1 held for a second session, 0 already learned"
    assert [episode for episode, _, _ in waiting(root)] == [old, new]
    newer = write_episode(root, 2, FIRST_DAY + timedelta(days=WAIT_DAYS + 11))
    learn(root, newer)
    assert [episode for episode, _, _ in waiting(root)] == [new, newer]


def test_at_most_the_newest_candidates_wait(tmp_path: Path) -> None:
    root = fresh_vault(tmp_path)
    per_episode = 100
    episodes = MOST_WAITING // per_episode + 4
    titles = [write_episode(root, number, FIRST_DAY, decisions=per_episode) for number in range(episodes)]
    for title in titles:
        learn(root, title)
    kept = waiting(root)
    assert len(kept) == MOST_WAITING
    # the oldest go first: the first four episodes' candidates, all of them
    expected = [(title, f"d{k + 1:03d}") for title in titles[4:] for k in range(per_episode)]
    assert [(episode, span) for episode, span, _ in kept] == expected
    # one kept still meets its twin
    twin = write_episode(root, 900, FIRST_DAY, decisions=1, like=episodes - 1)
    assert learn(root, twin)[0] == f"{twin}: 1 new, 0 supported again, 0 held for a second session, 0 already learned"


def test_a_torn_or_foreign_line_is_skipped_and_the_others_kept(tmp_path: Path) -> None:
    root = fresh_vault(tmp_path)
    first = write_episode(root, 0, FIRST_DAY)
    learn(root, first)
    path = Vault(root).brain_dir / CANDIDATES
    (line,) = path.read_text(encoding="utf-8").splitlines()
    bad_day = json.dumps(json.loads(line) | {"episode": "EPISODE-bad-day", "held": "not a day"})
    path.write_text(
        "not json\n" + '["a", "list"]\n' + '{"category": "strategy"}\n' + bad_day + "\n" + line + "\n" + line[:40],
        encoding="utf-8",
    )
    second = write_episode(root, 1, FIRST_DAY + timedelta(days=1))
    assert learn(root, second)[0].endswith("1 held for a second session, 0 already learned")
    assert waiting(root) == [(first, "d001", FIRST_DAY.isoformat()), (second, "d001", "2026-01-06")]


def test_sessions_learned_at_once_keep_every_candidate(tmp_path: Path) -> None:
    """Four processes learn five sessions each at once: each reads, adds to and writes the
    candidates under the vault's write lock, so none writes over another's."""
    root = fresh_vault(tmp_path)
    batches = [
        [write_episode(root, process * 10 + number, FIRST_DAY, decisions=5) for number in range(5)]
        for process in range(4)
    ]
    learners = [
        subprocess.Popen(
            [sys.executable, "-m", "brain", "tip", "learn", *titles, "--vault", str(root)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        for titles in batches
    ]
    assert [learner.wait(timeout=600) for learner in learners] == [0, 0, 0, 0]
    assert sorted((episode, span) for episode, span, _ in waiting(root)) == sorted(
        (title, f"d{k + 1:03d}") for titles in batches for title in titles for k in range(5)
    )
