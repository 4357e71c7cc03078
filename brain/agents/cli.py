"""`brain hooks`: put brain inside Claude Code and Codex, take it out, show it, and the hooks themselves."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from brain.agents.events import help_text
from brain.agents.ledger import DEFAULT_DAYS, KEEP_DAYS
from brain.cli.common import JsonOption, VaultOption, complete_agents, emit_json, warn

app = typer.Typer(
    help="brain inside coding agents (Claude Code, Codex): install, uninstall, status, run.", no_args_is_help=True
)

AgentArgument = Annotated[str, typer.Argument(help="claude-code, codex or gemini.", autocompletion=complete_agents)]
ScopeOption = Annotated[
    str,
    typer.Option(
        "--scope",
        help="project (the repository's files: the committed ones when no path of this machine is needed, "
        "else its local ones) or user (your home's).",
    ),
]
NamespaceOption = Annotated[
    list[str] | None,
    typer.Option(
        "--namespace",
        help="Facts: a namespace the session-start and first-prompt hooks read (repeat for several; "
        "default: [facts] default_namespace).",
        show_default=False,
    ),
]
ProjectOption = Annotated[
    Path | None,
    typer.Option(
        "--project-dir",
        help="A folder of the project; its repository's top level is used (default: the current folder).",
        show_default=False,
    ),
]


@app.command()
def install(
    agent: AgentArgument,
    scope: ScopeOption = "project",
    project_dir: ProjectOption = None,
    vault: VaultOption = None,
    namespace: NamespaceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Merge brain's hooks and MCP server into the agent's settings; every other setting is kept.
    A project install works on the repository's top level; brain's hooks are never in two scopes."""
    from brain.agents import install as service
    from brain.agents.output import change_line, changes_json
    from brain.agents.settings import Commands
    from brain.errors import InvalidInput
    from brain.vault.vault import Vault

    root = Vault.find(vault).root
    if not (root / ".brain").is_dir():
        raise InvalidInput(f"'{root}' is not a vault (no .brain folder); create one with 'brain init {root}'")
    from brain.memory.facts.service import check_namespace

    chosen = tuple(dict.fromkeys(check_namespace(name) for name in namespace or ()))
    commands = Commands(brain=service.brain_program(), vault=str(root), namespaces=chosen)
    changes = service.install(agent, commands, scope=scope, project_dir=_project(project_dir), home=Path.home())
    from brain.index.vault_index import has_index

    if agent == "claude-code" and not has_index(Vault(root)):
        # without an index every hook parses every note: fine for a few hundred, seconds for thousands
        warn(f"{root} has no index yet: run 'brain index --vault {root}' so the hooks answer at once")
    if as_json:
        emit_json(changes_json(changes))
        return
    for change in changes:
        typer.echo(change_line(change))


@app.command()
def uninstall(
    agent: AgentArgument, scope: ScopeOption = "project", project_dir: ProjectOption = None, as_json: JsonOption = False
) -> None:
    """Take brain's entries out of the files as they are now; a file install created and nothing else
    holds is deleted."""
    from brain.agents import install as service
    from brain.agents.output import change_line, changes_json

    changes = service.uninstall(agent, scope=scope, project_dir=_project(project_dir), home=Path.home())
    if as_json:
        emit_json(changes_json(changes))
        return
    for change in changes:
        typer.echo(change_line(change))


@app.command()
def status(
    project_dir: ProjectOption = None,
    vault: VaultOption = None,
    days: Annotated[
        int,
        typer.Option(
            "--days", min=1, max=KEEP_DAYS, help=f"Tokens injected over this many days (the ledger keeps {KEEP_DAYS})."
        ),
    ] = DEFAULT_DAYS,
    as_json: JsonOption = False,
) -> None:
    """What brain installed where (each settings file it may write, with brain's entries in it, and
    what is broken: a program or vault gone); each vault's health (index freshness, each hook's last
    run, the hooks log's last errors, episodes captured in the last 7 days); and the tokens the hooks
    injected per session, with how many injected notes the agent then used."""
    from brain.agents import install as service
    from brain.agents import ledger
    from brain.agents.health import vault_exists, vault_health
    from brain.agents.output import health_json, health_lines, ledger_json, ledger_lines, status_json, status_lines

    found = service.status(_project(project_dir), Path.home())
    root = _vault_root(vault)
    injected = ledger.summary(root, days=days) if root is not None else None
    named = [Path(v).resolve() for item in found for v in item.vaults if vault_exists(v)]
    vaults = [vault_health(each) for each in dict.fromkeys([*([root] if root else []), *named])]
    if as_json:
        emit_json(
            {
                "files": status_json(found),
                "vaults": [health_json(each) for each in vaults],
                "injected": ledger_json(injected) if injected else None,
            }
        )
        return
    lines = status_lines(found) + [line for each in vaults for line in health_lines(each)]
    typer.echo("\n".join(lines + (ledger_lines(injected) if injected else [])))


def _vault_root(vault: Path | None) -> Path | None:
    """The vault whose ledger status reads: the one given or found; none when there is none."""
    from brain.errors import BrainError
    from brain.vault.vault import Vault

    try:
        return Vault.find(vault).root
    except BrainError:
        if vault is not None:
            raise
        return None


@app.command(
    help="Run a hook, reading the agent's hook JSON on stdin. Never fails the agent: any error exits 0, prints "
    "nothing, and is a line in .brain/logs/hooks.log.\n\n"
    f"AGENT EVENT names the hook; its events by agent: {help_text()}. The names of before "
    "(codex-tool-failure) still run. The hook JSON may follow as an argument (Codex's notify)."
)
def run(
    words: Annotated[list[str], typer.Argument(metavar="AGENT EVENT [JSON]", show_default=False)],
    vault: VaultOption = None,
    budget: Annotated[
        int | None,
        typer.Option(
            help="Most tokens the context may use (default: [hooks] budget in the vault's config, 1000).",
            show_default=False,
        ),
    ] = None,
    namespace: NamespaceOption = None,
    transcript: Annotated[str | None, typer.Option(help="extract: the transcript.", hidden=True)] = None,
    session: Annotated[str | None, typer.Option(help="extract: the session id.", hidden=True)] = None,
    format: Annotated[
        str | None, typer.Option("--format", help="extract: the transcript's format.", hidden=True)
    ] = None,
) -> None:
    from brain.agents.runner import run_hook

    run_hook(words, None, vault, budget, transcript, session, format, namespace)
    raise typer.Exit(0)


def _project(project_dir: Path | None) -> Path:
    if project_dir is not None and not project_dir.expanduser().is_dir():
        from brain.errors import UsageError

        raise UsageError(f"--project-dir '{project_dir}' is not a folder; give the project's folder")
    return (project_dir or Path.cwd()).expanduser().resolve()
