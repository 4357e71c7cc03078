"""The architecture, enforced: imports between brain's modules run one way, by layer and by the role
of each file (docs/architecture.md), and tests/ mirrors the packages.

Every import counts, including the ones inside functions (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import networkx as nx

from tests.conftest import REPO

SOURCE = REPO / "brain"

# The layers, bottom up: a service (any module that is not a front end's) of a layer imports no layer
# above it. markdown/ is the pure note format; vault/ the files; index/ the derived indexes; memory/
# the domains; the shells (cli/, mcp/, agents/, ui/) the front ends' entry points and plumbing.
LAYERS = ("brain.markdown", "brain.vault", "brain.index", "brain.memory", "brain.importers")
SHELLS = ("brain.cli", "brain.mcp", "brain.agents", "brain.ui")
# Modules every layer may use, which use no layer themselves.
BASE_MODULES = ("brain.errors", "brain.config", "brain.lazy", "brain.plain", "brain.refusals")
PURE_MAY_IMPORT = ("brain.errors", "brain.lazy", "brain.markdown")
# Pure modules beside a domain's note.py, part of its note format (a failure's signature, and the
# recoveries an episode holds, are read off an episode's text by the catalog as by the failure hook).
NOTE_FORMAT_PARTS = ("brain.memory.episodes.signature", "brain.memory.episodes.recovery")


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
    if role(name) in ("note", "view", "cli", "tools") and not _in(name, "brain.markdown"):
        return name  # in a domain's folder, its pure note format sits below its services, its front-end files above
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


def role(name: str) -> str:
    """What a module is by its file: a note format (`note.py`, and all of markdown/), a view
    (`view.py`), CLI commands (`cli.py`, `<what>_cli.py`), MCP tools (`tools.py`, `<what>_tools.py`),
    a shell's own module (cli/, mcp/, agents/, ui/), or a service (everything else)."""
    stem = name.rpartition(".")[2]
    if any(_in(name, shell) for shell in SHELLS) and not _in(name, "brain.agents.cli") and name != "brain.mcp.cli":
        return "shell"
    if _in(name, "brain.markdown") or (stem == "note" and _in(name, "brain.memory")) or name in NOTE_FORMAT_PARTS:
        return "note"
    if stem == "view":
        return "view"
    if stem == "cli" or stem.endswith("_cli"):
        return "cli"
    if stem == "tools" or stem.endswith("_tools"):
        return "tools"
    if any(_in(name, shell) for shell in SHELLS) or name == "brain.__main__":
        return "shell"
    return "service"


def _edges(source_role: str) -> list[tuple[str, str]]:
    return sorted((source, target) for source, target in graph().edges if role(source) == source_role)


def test_note_formats_are_pure() -> None:
    """A note format (`note.py`, markdown/) imports only errors, lazy, markdown/ and other note formats."""
    wrong = [
        f"{source} -> {target}"
        for source, target in _edges("note")
        if not (any(_in(target, allowed) for allowed in PURE_MAY_IMPORT) or role(target) == "note")
    ]
    assert wrong == []


def test_services_import_no_front_end() -> None:
    """A service imports no view, no commands, no tools and no shell."""
    wrong = [
        f"{source} -> {target}"
        for source, target in _edges("service")
        if role(target) in ("view", "cli", "tools", "shell")
    ]
    assert wrong == []


def test_services_import_no_layer_above_their_own() -> None:
    """A note format, pure, is below every layer: the catalog may read an episode's note format."""

    def layer(name: str) -> int:
        return next((rank for rank, top in enumerate(LAYERS) if _in(name, top)), -1)

    wrong = [
        f"{source} -> {target}"
        for source, target in _edges("service")
        if layer(source) >= 0 and layer(target) > layer(source) and role(target) != "note"
    ]
    assert wrong == []


def test_views_import_neither_front_end() -> None:
    wrong = [f"{source} -> {target}" for source, target in _edges("view") if role(target) in ("cli", "tools", "shell")]
    assert wrong == []


def test_commands_and_tools_stay_on_their_side() -> None:
    """Commands never reach the MCP server and tools never reach the CLI; no module imports a
    commands or tools module: only the shells' registries name them, as strings, loaded lazily
    (brain/cli/registry.py COMMANDS, brain/mcp/server.py TOOL_MODULES)."""
    wrong = []
    for source, target in graph().edges:
        if role(target) in ("cli", "tools"):
            wrong.append(f"{source} -> {target}")
        elif role(source) == "cli" and _in(target, "brain.mcp") and not _in(source, "brain.mcp"):
            wrong.append(f"{source} -> {target}")
        elif role(source) == "tools" and _in(target, "brain.cli"):
            wrong.append(f"{source} -> {target}")
    assert sorted(wrong) == []


def test_base_modules_import_no_layer() -> None:
    wrong = sorted(
        f"{source} -> {target}"
        for source, target in graph().edges
        if source in BASE_MODULES and target not in BASE_MODULES
    )
    assert wrong == []


def test_every_domain_is_one_folder() -> None:
    """A domain's folder holds its service, its view, its commands and its tools."""
    domains = {"episodes", "patterns", "causal", "facts", "runs", "tips", "sessions", "notes", "search"}
    for domain in sorted(domains):
        folder = SOURCE / "memory" / domain
        present = {path.stem for path in folder.glob("*.py")}
        assert {"view", "cli", "tools"} <= present, (
            f"brain/memory/{domain} lacks {sorted({'view', 'cli', 'tools'} - present)}"
        )


def test_every_agent_is_one_module_behind_the_one_interface() -> None:
    """An agent module of brain/agents builds an `Agent` named AGENT and is listed in the registry
    (an agent module grown past the size limit keeps its parts beside it, `<agent>_<part>.py`);
    the rest of the package (the shared rooms) names no agent."""
    from brain.agents.events import AGENT_EVENTS, AGENT_MODULES, OWN_EVENTS, hook_key
    from brain.agents.registry import AGENTS, HOOKS

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
        "cli",
        "events",
    }
    agent_modules = sorted(p.stem for p in (SOURCE / "agents").glob("*.py") if p.stem not in shared)
    agents = sorted(agent.name.replace("-", "_") for agent in AGENTS.values())
    parts = [stem for stem in agent_modules if stem not in agents]
    strays = [stem for stem in parts if not any(stem.startswith(f"{agent}_") for agent in agents)]
    assert strays == [], "a module of no agent's, and not one of the shared rooms"
    assert sorted(set(agent_modules) - set(parts)) == agents
    assert len(HOOKS) == sum(len(agent.hooks) for agent in AGENTS.values())  # no event is two agents'
    # the names the hook runner reads before loading anything are the agents' own
    assert {name: importlib.import_module(module).AGENT.name for name, module in AGENT_MODULES.items()} == {
        name: name for name in AGENTS
    }
    assert {hook_key(name, event) for name, events in AGENT_EVENTS.items() for event in events} == set(HOOKS)
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
