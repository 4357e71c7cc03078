# The habits of working on brain, as recipes. Each runs the tools of `.venv`, which the README's
# test command makes: python3 -m venv .venv && .venv/bin/pip install ".[test,docs,e5]"
# `just` alone lists the recipes.

# List the recipes
default:
    @just --list --unsorted

# The whole test suite on two workers (a test file stays on one worker); extra arguments go to pytest
test *args:
    .venv/bin/python -m pytest -n 2 --dist loadfile {{ args }}

# ruff's lint and its format check, as CI runs them
lint:
    .venv/bin/ruff check .
    .venv/bin/ruff format --check .

# Sort the imports and format the code in place
fmt:
    .venv/bin/ruff check --select I --fix .
    .venv/bin/ruff format .

# mypy over brain/ (pyproject.toml says what it checks)
typecheck:
    .venv/bin/mypy

# Build the docs site strictly, into a temporary folder (a warning fails it)
docs:
    .venv/bin/mkdocs build --strict --site-dir "$(mktemp -d)"

# The end-to-end check with the real Claude Code CLI from the npm registry (needs node and npm)
e2e:
    tests/e2e/run

# The viewer's pages in headless Chromium (needs Debian's chromium): tests/ui/browser_e2e.py
browser:
    .venv/bin/python -m pytest tests/ui/browser_e2e.py -q -n 0

# List the benchmarks, or run one with its arguments: just bench NAME [ARGS] (python -m benchmarks.NAME)
bench name="" *args:
    #!/usr/bin/env bash
    set -euo pipefail
    if [ -z "{{ name }}" ]; then
        grep -rl --include='*.py' '__name__ == "__main__"' benchmarks | sed 's|^benchmarks/||; s|\.py$||; s|/|.|g' | sort
    else
        .venv/bin/python -m "benchmarks.{{ name }}" {{ args }}
    fi

# `check` runs what CI runs (.ci/run runs the README's test command), but in the existing .venv: the
# README's command without its first two steps, which make the venv and install brain into it.
# tests/promises/test_docs.py keeps the two the same.

# What CI runs, in the existing .venv
check:
    .venv/bin/ruff check .
    .venv/bin/ruff format --check .
    .venv/bin/mypy
    .venv/bin/mkdocs build --strict --site-dir "$(mktemp -d)"
    .venv/bin/python -m pytest -n 2 --dist loadfile
