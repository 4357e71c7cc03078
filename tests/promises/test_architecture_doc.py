"""docs/architecture.md cannot drift from the code: its tree names every package and module of
brain/, and nothing that is gone."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent
while not (ROOT / "pyproject.toml").is_file():
    ROOT = ROOT.parent
DOC = ROOT / "docs" / "architecture.md"
_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def tree_block() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("```\nbrain/\n")
    return text[start + 4 : text.index("```", start + 4)].splitlines()


def documented() -> tuple[set[str], set[str], set[str]]:
    """(packages, modules, modules named as files) the tree names, as paths from the repository root.

    A line is a folder (`name/  what it holds`, which may list its modules as bare words:
    `facts/  service, recall, ...`), or one or more modules (`a.py b.py  what they do`); a deeper
    line that is neither continues the description, and the module list, of the line above."""
    packages: set[str] = set()
    modules: set[str] = set()
    files: set[str] = set()
    stack: list[tuple[int, str]] = []  # (indent, folder) of the folders above this line
    listing: str | None = None  # the folder whose bare-word module list may continue
    for line in tree_block():
        tokens = line.split()
        if not tokens:
            continue
        indent = len(line) - len(line.lstrip())
        if tokens[0].endswith(("/", ".py")):
            while stack and stack[-1][0] >= indent:
                stack.pop()
        parent = stack[-1][1] if stack else ""
        if tokens[0].endswith("/"):
            folder = f"{parent}/{tokens[0][:-1]}" if parent else tokens[0][:-1]
            packages.add(folder)
            stack.append((indent, folder))
            listing, words = folder, " ".join(tokens[1:])
        elif tokens[0].endswith(".py"):
            for token in tokens:
                if not token.endswith(".py"):
                    break
                files.add(f"{parent}/{token}")
            listing = None
            continue
        elif listing is not None:
            words = line
        else:
            continue
        for word in re.sub(r"\([^)]*\)", "", words).replace(",", " ").split():
            word = word.rstrip(":")
            if _NAME.fullmatch(word):
                modules.add(f"{listing}/{word}.py")
    return packages, modules | files, files


def actual() -> tuple[set[str], set[str]]:
    source = ROOT / "brain"
    packages = {str(p.parent.relative_to(ROOT)) for p in source.rglob("__init__.py")}
    modules = {str(p.relative_to(ROOT)) for p in source.rglob("*.py") if p.name != "__init__.py"}
    return packages, modules


def test_the_tree_names_every_package_and_module() -> None:
    (doc_packages, doc_modules, _), (packages, modules) = documented(), actual()
    assert sorted(packages - doc_packages) == []
    assert sorted(modules - doc_modules) == []


def test_the_tree_names_nothing_that_is_gone() -> None:
    (doc_packages, _, doc_files), (packages, modules) = documented(), actual()
    assert sorted(doc_packages - packages) == []
    initial = {str(p.relative_to(ROOT)) for p in (ROOT / "brain").rglob("__init__.py")}
    assert sorted(doc_files - modules - initial) == []
