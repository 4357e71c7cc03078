"""The README's library example runs against vault-example and prints what its comments say."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
while not (ROOT / "pyproject.toml").is_file():
    ROOT = ROOT.parent


def _block(name: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- {name} -->\n```\w+\n(.*?)```\n<!-- /{name} -->", text, re.DOTALL)
    assert found, f"README.md has no {name} block"
    return found.group(1)


def test_the_readme_library_example_prints_what_the_readme_says(tmp_path):
    import shutil

    shutil.copytree(ROOT / "vault-example", tmp_path / "vault-example", ignore=shutil.ignore_patterns(".brain"))
    (tmp_path / "vault-example" / ".brain").mkdir()
    run = subprocess.run(
        [sys.executable, "-c", _block("library-example")], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    expected = [line.removeprefix("# ") for line in _block("library-example").splitlines() if line.startswith("# ")]
    assert run.stderr == ""
    assert run.stdout.splitlines() == expected


def test_brain_offers_what_its_all_says():
    import brain

    assert sorted(brain.__all__) == [
        "AmbiguousName",
        "BrainError",
        "InvalidInput",
        "Memory",
        "NoteNotFound",
        "VaultNotFound",
        "__version__",
        "open",
    ]
    for name in brain.__all__:
        assert getattr(brain, name) is not None
