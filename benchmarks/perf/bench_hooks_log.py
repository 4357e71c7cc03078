"""The hooks log's append, with and without its rotation, and what `brain hooks status` reads of it.

    python -m benchmarks.perf.bench_hooks_log       # 3,000 appends after 50 to warm up, 200 rotations

- `append`: `runtime.log` as every hook calls it (the vault's redactor, the line redacted, one
  O_APPEND write, the file's size checked), on a log that stays under ROTATE_BYTES;
- `append_before`: the same line written as brain wrote it before the rotation (the file opened in
  text append mode, no size checked), for comparison;
- `rotating_append`: one `runtime.log` on a log a line short of ROTATE_BYTES, so that append
  rotates it (the lock taken, the size checked again, the rename): the log is filled again, untimed,
  before each;
- `status_read`: each event's last run and the last errors read from two full files (`hooks.log.1`
  and `hooks.log`, ROTATE_BYTES each), as `brain hooks status` reads them.
Results: benchmarks/results/hooks_log.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.harness import RESULTS, machine, measure, percentile, write_json
from brain.agents import health, runtime
from brain.agents.hooks_log import ROTATE_BYTES, log_path, rotated_path
from brain.vault.init import init_vault

MESSAGE = "s-0199a3b2: Bash [exit 1: No such file or directory: config/app.yaml] not seen before"


def figures(times: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(percentile(times, 0.5), 3),
        "p95_ms": round(percentile(times, 0.95), 3),
        "max_ms": round(max(times), 3),
    }


def append_before(root: Path, event: str, message: str) -> None:
    """The hooks log's append before the rotation (brain 2026-11-28), for comparison."""
    path = log_path(root)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    line = " ".join(runtime._redactor(root).text(message).split())
    with path.open("a", encoding="utf-8") as out:
        out.write(f"{stamp} {event} {line}\n")


def full_log(folder: Path) -> Path:
    """A log 10 bytes short of ROTATE_BYTES: tool failures with an error every tenth line."""
    lines, size, number = [], 0, 0
    while size < ROTATE_BYTES - 500:
        message = f"error: ValueError: bad transcript {number}" if number % 10 == 0 else f"{MESSAGE} {number}"
        lines.append(f"2026-11-28T10:00:00Z tool-failure {message}\n")
        size += len(lines[-1])
        number += 1
    last = "2026-11-28T10:00:00Z warm patterns and tips embedded in 1.0 s "
    lines.append(last + "." * (ROTATE_BYTES - 10 - size - len(last) - 1) + "\n")
    path = folder / "full.log"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description="hooks log append and rotation benchmark")
    parser.add_argument("--appends", type=int, default=3000)
    parser.add_argument("--rotations", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        vault, _ = init_vault(Path(folder) / "vault")
        root, path = vault.root, log_path(vault.root)
        full = full_log(Path(folder))
        for _ in range(50):
            runtime.log(root, "tool-failure", MESSAGE)
        appended = measure(lambda _: runtime.log(root, "tool-failure", MESSAGE), range(args.appends))
        assert not rotated_path(path).exists()
        path.unlink()
        before = measure(lambda _: append_before(root, "tool-failure", MESSAGE), range(args.appends))

        def rotate(_: int) -> None:
            runtime.log(root, "tool-failure", MESSAGE)

        def refill(_: int) -> None:
            shutil.copyfile(full, path)

        rotating = []
        for number in range(args.rotations):
            refill(number)
            rotating += measure(rotate, [number])
            assert not path.exists() and rotated_path(path).stat().st_size > ROTATE_BYTES
        shutil.copyfile(full, path)
        shutil.copyfile(full, rotated_path(path))
        status = measure(lambda _: health.hooks_log_summary(path), range(50))
    result = {
        "rotate_bytes": ROTATE_BYTES,
        "appends": args.appends,
        "append": figures(appended),
        "append_before": figures(before),
        "rotations": args.rotations,
        "rotating_append": figures(rotating),
        "status_read_two_full_files": figures(status),
        "machine": machine(),
    }
    write_json(RESULTS / "hooks_log.json", result)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
