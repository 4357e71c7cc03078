"""The architecture, enforced: imports between brain's modules run one way, modules and folders stay
small, and tests/ mirrors the packages.

Every import counts, including the ones inside functions (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

from tests.conftest import REPO

SOURCE = REPO / "brain"
MAX_LINES = 500
MAX_MODULES_PER_FOLDER = 22

# layer -> the layers it must never import
FORBIDDEN = {
    "brain.markdown": (
        "brain.vault.vault",
        "brain.index",
        "brain.memory",
        "brain.views",
        "brain.cli",
        "brain.mcp",
        "brain.importers",
        "brain.config",
        "brain.vault.fileswap",
        "brain.vault.note_files",
    ),
    "brain.index": ("brain.memory", "brain.views", "brain.cli", "brain.mcp", "brain.importers", "brain.agents"),
    "brain.memory": ("brain.views", "brain.cli", "brain.mcp", "brain.agents"),
    "brain.importers": ("brain.views", "brain.cli", "brain.mcp", "brain.agents"),
    "brain.views": ("brain.cli", "brain.mcp", "brain.agents"),
    "brain.mcp": ("brain.cli", "brain.agents"),
    # the third front end: the CLI's `brain hooks` reaches it, it reaches neither other front end
    "brain.agents": ("brain.cli", "brain.mcp"),
}
# Modules every layer may use, which use no layer themselves.
BASE_MODULES = ("brain.errors", "brain.config", "brain.lazy")
NOTES_MAY_IMPORT = ("brain.errors", "brain.lazy", "brain.markdown")


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(SOURCE.rglob("*.py"))}


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The brain modules a file imports, anywhere in it (`from brain.x import y` counts y when y is a module)."""
    found: set[str] = set()
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name in known}


def graph() -> nx.DiGraph:
    known = modules()
    edges = nx.DiGraph()
    edges.add_nodes_from(known)
    for name, path in known.items():
        for target in imports_of(path, set(known)):
            if target != name and not name.startswith(target + "."):  # a module importing its own package's parts
                edges.add_edge(name, target)
    return edges


def _in(name: str, layer: str) -> bool:
    return name == layer or name.startswith(layer + ".")


def test_no_import_cycles() -> None:
    cycles = [sorted(component) for component in nx.strongly_connected_components(graph()) if len(component) > 1]
    assert cycles == []


def room(name: str, path: Path) -> str:
    """The node of the package graph a module is part of (see test_no_cycles_between_packages)."""
    if path.name == "__init__.py":
        return name
    if any((child / "__init__.py").is_file() for child in path.parent.iterdir()):
        return name  # a module beside subpackages is a room of its own
    return name.rpartition(".")[0]


def package_graph() -> nx.DiGraph:
    known = modules()
    edges = nx.DiGraph()
    for source, target in graph().edges:
        if (tail := room(source, known[source])) != (head := room(target, known[target])):
            edges.add_edge(tail, head)
            edges.edges[tail, head].setdefault("via", []).append(f"{source} -> {target}")
    return edges


def test_no_cycles_between_packages() -> None:
    """Between packages too, imports run one way: no two packages depend on each other, through any modules.

    The modules of a package without subpackages (`brain/memory/facts/`, `brain/cli/`) are one node:
    a cycle through any of them is a cycle between packages, even when no single module takes part
    in a module cycle. A module that sits beside subpackages (`brain/vault/vault.py` beside `brain/notes/`,
    `brain/memory/corpus.py` and `brain/memory/doctor/service.py` beside the domain packages,
    `brain/mcp/server.py` beside `brain/mcp/tools/`) is a node of its own: such modules are layers of
    their own (the corpus under every domain, the doctor above them), so lumping them with their
    folder would report a layering as a cycle (with `brain/*.py` as one node `brain`, `__main__.py`
    -> cli -> `vault.py` would make every layer one cycle). A package's `__init__.py` is its
    package's node.
    """
    packages = package_graph()
    cycles = [
        sorted(via for edge in packages.subgraph(component).edges.values() for via in edge["via"])
        for component in nx.strongly_connected_components(packages)
        if len(component) > 1
    ]
    assert cycles == []


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_run_one_way(layer: str) -> None:
    wrong = sorted(
        f"{source} -> {target}"
        for source, target in graph().edges
        if _in(source, layer) and any(_in(target, banned) for banned in FORBIDDEN[layer])
    )
    assert wrong == []


def test_notes_import_only_errors() -> None:
    wrong = sorted(
        f"{source} -> {target}"
        for source, target in graph().edges
        if _in(source, "brain.markdown") and not any(_in(target, allowed) for allowed in NOTES_MAY_IMPORT)
    )
    assert wrong == []


def test_base_modules_import_no_layer() -> None:
    wrong = sorted(
        f"{source} -> {target}"
        for source, target in graph().edges
        if source in BASE_MODULES and target not in BASE_MODULES
    )
    assert wrong == []


def test_no_module_over_500_lines() -> None:
    long = {
        name: lines
        for name, path in modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_no_folder_over_22_modules() -> None:
    """A folder past 22 modules (besides its `__init__.py`) is split into rooms, as brain/index/ was."""
    crowded = {
        folder.relative_to(SOURCE.parent).as_posix(): count
        for folder in [SOURCE, *(path for path in SOURCE.rglob("*") if path.is_dir())]
        if (count := len([path for path in folder.glob("*.py") if path.name != "__init__.py"])) > MAX_MODULES_PER_FOLDER
    }
    assert crowded == {}


def test_every_domain_has_one_name_in_every_layer() -> None:
    """A domain's memory package has a view, a command group and a tool module of the same name."""
    domains = {"episodes", "patterns", "causal", "facts", "runs", "tips", "sessions", "notes"}
    for layer in ("brain/memory", "brain/views", "brain/cli", "brain/mcp/tools"):
        present = {path.stem for path in (SOURCE.parent / layer).iterdir() if path.name != "__init__.py"}
        assert domains <= present, f"{layer} lacks {sorted(domains - present)}"


def test_every_agent_is_one_module_behind_the_one_interface() -> None:
    """An agent module of brain/agents builds an `Agent` named AGENT and is listed in the registry
    (an agent module grown past the size limit keeps its parts beside it, `<agent>_<part>.py`);
    the rest of the package (the shared rooms) names no agent."""
    from brain.agents.registry import AGENTS, HOOKS
    from brain.agents.runtime import OWN_EVENTS

    shared = {
        "__init__",
        "agent",
        "registry",
        "settings",
        "install",
        "runtime",
        "runner",
        "output",
        "ledger",
        "health",
        "hooks_log",
    }
    agent_modules = sorted(p.stem for p in (SOURCE / "agents").glob("*.py") if p.stem not in shared)
    agents = sorted(agent.reader.format.replace("-", "_") for agent in AGENTS.values())
    parts = [stem for stem in agent_modules if stem not in agents]
    strays = [stem for stem in parts if not any(stem.startswith(f"{agent}_") for agent in agents)]
    assert strays == [], "a module of no agent's, and not one of the shared rooms"
    assert sorted(set(agent_modules) - set(parts)) == agents
    assert len(HOOKS) == sum(len(agent.hooks) for agent in AGENTS.values())  # no event is two agents'
    assert not set(HOOKS) & set(OWN_EVENTS)


# ---------------------------------------------------------------- the tests mirror the packages


TESTS = REPO / "tests"
OWN_ROOMS = {"helpers", "promises", "e2e"}  # shared helpers; guarantees that cross the packages; the real agents


def rooms() -> list[Path]:
    """Every folder of tests/ that holds Python, tests/data/ aside."""
    return sorted(
        folder
        for folder in {path.parent for path in TESTS.rglob("*.py")}
        if folder != TESTS and "data" not in folder.relative_to(TESTS).parts and "__pycache__" not in folder.parts
    )


def test_no_test_file_sits_flat_at_the_root_of_tests() -> None:
    """A test lives in the room of what it tests (docs/architecture.md, Tests); tests/ itself holds
    only conftest.py, whose fixtures every room sees."""
    flat = sorted(path.name for path in TESTS.glob("*.py") if path.name not in ("__init__.py", "conftest.py"))
    assert flat == [], f"move {flat} into the room of what they test"


def test_every_room_mirrors_a_package_and_is_one() -> None:
    """tests/index/ is about brain/index/, tests/memory/facts/ about brain/memory/facts/, tests/vault/
    about brain/vault/vault.py; each room has an __init__.py, so its modules are named by their path
    (tests.memory.search.test_search) and two rooms may hold the same file name."""
    for room in rooms():
        relative = room.relative_to(TESTS)
        assert (room / "__init__.py").is_file(), f"tests/{relative} has no __init__.py"
        if relative.parts[0] in OWN_ROOMS:
            continue
        mirrored = SOURCE.joinpath(*relative.parts)
        assert mirrored.is_dir() or mirrored.with_suffix(".py").is_file(), f"tests/{relative} mirrors nothing in brain/"


def test_test_files_are_named_by_what_they_check() -> None:
    """A name says what is tested, never which issue or story asked for it."""
    by_issue = sorted(
        str(path.relative_to(TESTS))
        for path in TESTS.rglob("test_*.py")
        if re.search(r"issue|(?<![a-z])stor(y|ies)", path.name)
    )
    assert by_issue == []
