"""The benchmarks are one package: each runs as `python -m benchmarks.<sub>.<name>` from the repository's
root, so none patches sys.path; their imports form no cycle; importing one runs nothing; every name
they import exists; and every benchmark command and path the docs name exists.

The benchmarks are imported in a child process started in the repository's root, as they run.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from tests.conftest import REPO

ROOTS = ("benchmarks", "brain", "tests")  # the packages of this repository a benchmark may import from


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted((REPO / "benchmarks").rglob("*.py"))}


def imports_of(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(module, names imported from it) for every import of the file, in functions too; `import x.y` gives (x.y, ())."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.append((base, tuple(alias.name for alias in node.names)))
    return [(module, names) for module, names in found if module.split(".")[0] in ROOTS]


def test_no_benchmark_patches_sys_path() -> None:
    patching = re.compile(r"sys\.path\s*(\.\s*(insert|append|extend)\b|\+?=|\[)|site\.addsitedir")
    offenders = [name for name, path in MODULES.items() if patching.search(path.read_text(encoding="utf-8"))]
    assert offenders == [], f"run them as `python -m benchmarks...` from the repository's root instead: {offenders}"


def test_benchmark_modules_form_no_import_cycle() -> None:
    graph = nx.DiGraph()
    graph.add_nodes_from(MODULES)
    for name, path in MODULES.items():
        for module, names in imports_of(path):
            for target in (module, *(f"{module}.{item}" for item in names)):
                if target in MODULES and target != name and not name.startswith(target + "."):
                    graph.add_edge(name, target)
    assert list(nx.simple_cycles(graph)) == []


CHILD = """
import contextlib, importlib, io, json, sys
modules, wanted = json.loads(sys.argv[1])
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    for name in modules:
        importlib.import_module(name)
missing = []
for module, names in wanted:
    found = importlib.import_module(module)
    for name in names:
        if not hasattr(found, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{module}.{name}")
print(json.dumps({"printed": printed.getvalue(), "missing": missing}))
"""


@pytest.fixture(scope="module")
def imported() -> dict:
    """Every benchmark module imported, and every name any of them imports looked up, in one child process."""
    wanted = sorted({(module, names) for path in MODULES.values() for module, names in imports_of(path)})
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps([list(MODULES), wanted])],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_a_benchmark_runs_nothing(imported: dict) -> None:
    assert imported["printed"] == ""  # every benchmark prints as it runs


def test_every_name_a_benchmark_imports_exists(imported: dict) -> None:
    """Imports inside functions too: a benchmark is run rarely, so a name brain moved would go unseen."""
    assert imported["missing"] == []


def test_every_benchmark_the_docs_name_exists() -> None:
    texts = [REPO / "README.md", REPO / "CHANGELOG.md", REPO / "CONTRIBUTING.md", *(REPO / "docs").rglob("*.md")]
    texts += [path for folder in ROOTS for path in (REPO / folder).rglob("*.py")]
    texts += [*(REPO / "tests" / "data").rglob("README.md"), *(REPO / "benchmarks").rglob("*.md")]
    stale = []
    for text in texts:
        content = text.read_text(encoding="utf-8")
        for module in re.findall(r"python3? -m\s+(benchmarks(?:\.\w+)+)", content):
            if module not in MODULES:
                stale.append(f"{text.relative_to(REPO)}: {module}")
        for path in re.findall(r"\bbenchmarks/[\w/]+\.py\b", content):
            if not (REPO / path).is_file():
                stale.append(f"{text.relative_to(REPO)}: {path}")
    assert stale == []
