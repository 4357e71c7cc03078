"""The open vault owns its state: no module of brain/ keeps a registry that fills at run time (a
module-level dict, set, list or OrderedDict that starts empty), so nothing about a vault is shared
between two opens of it or outlives `Memory.close`. The few process-wide tables left are listed
here, each with why it is not a vault's state (docs/architecture.md, "State")."""

from __future__ import annotations

import ast

from tests.promises.test_layers import SOURCE, module_name

CONTAINERS = {"dict", "set", "list", "OrderedDict", "defaultdict", "WeakValueDictionary", "WeakKeyDictionary"}
ALLOWED = {
    # a lock per log FILE, so two writers of one log in one process serialise (a file's, not a vault's)
    "brain.vault.append_log._locks",
    # embedders by model: the weights are large, read-only, and the same for every vault that names them
    "brain.index.engine._shared",
    # warnings said once per process, by message
    "brain.index.engine._warned",
    # the one matrix last searched and its row order, by identity (never by vault)
    "brain.memory.facts.index._chunk_rows",
    # the scopes of the CLI commands running (a stack: one per command), not of a vault
    "brain.cli.group._command_scopes",
    # the vaults the CLI commands opened: which disk a storage error is about, for its one line
    "brain.cli.group.opened_vaults",
    # the MCP tool groups, filled once at import from the registry
    "brain.mcp.server.GROUPS",
}


def _starts_empty(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, (ast.Set, ast.List)):
        return not value.elts
    if isinstance(value, ast.Call):
        called = value.func.id if isinstance(value.func, ast.Name) else getattr(value.func, "attr", "")
        return called in CONTAINERS and (called == "defaultdict" or not value.args)
    return False


def module_level_tables() -> set[str]:
    found = set()
    for path in sorted(SOURCE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and _starts_empty(node.value):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign) and _starts_empty(node.value):
                targets = [node.target]
            else:
                continue
            found |= {f"{module_name(path)}.{ast.unparse(target)}" for target in targets}
    return found


def test_no_module_keeps_a_vaults_state() -> None:
    assert module_level_tables() == ALLOWED


def test_the_check_finds_a_registry_keyed_by_path(tmp_path, monkeypatch) -> None:
    """The check itself: the kind of table this change removed is found."""
    import tests.promises.test_state as this

    package = tmp_path / "brain"
    package.mkdir()
    (package / "cache.py").write_text(
        "from pathlib import Path\n_indexes: dict[Path, object] = {}\n_seen = set()\nNAMES = {'a': 1}\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(this, "SOURCE", package)
    monkeypatch.setattr(this, "module_name", lambda path: "brain." + path.stem)
    assert module_level_tables() == {"brain.cache._indexes", "brain.cache._seen"}
