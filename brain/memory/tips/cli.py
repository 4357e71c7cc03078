"""`brain tip`: learn tips from episodes, list them, guidelines for a task, consolidate, feedback."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from brain.cli.common import (
    AllProjectsOption,
    JsonOption,
    ProjectOption,
    VaultOption,
    complete_notes,
    emit_json,
    open_vault,
    project_scope,
    warn,
)
from brain.errors import UsageError
from brain.lazy import lazy_module
from brain.memory.tips import service
from brain.memory.tips import view as views
from brain.memory.tips.note import Category, Evidence

if TYPE_CHECKING:
    from brain.memory.tips import consolidate as tips_consolidate
else:  # loaded by the commands that use them: the others never pay for their imports
    tips_consolidate = lazy_module("brain.memory.tips.consolidate")


app = typer.Typer(help="Tips learned from past work: strategy, recovery and optimization.", no_args_is_help=True)


@app.command()
def learn(
    episodes: Annotated[
        list[str],
        typer.Argument(
            help="Episodes to learn from (title, id, stem or path).", autocompletion=complete_notes("episode")
        ),
    ],
    model: Annotated[
        bool,
        typer.Option(
            "--model", help="Use the model endpoint configured in .brain/config.toml for segmentation and wording."
        ),
    ] = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Segment episodes into subtasks and write one tip note per subtask (by rules, or with --model)."""
    memory = open_vault(vault)
    corpus = memory.corpus
    drafter = None
    if model:
        from brain.memory.tips.language_model import endpoint_drafter

        drafter = endpoint_drafter(memory.vault)
    results = service.learn(corpus, episodes, drafter=drafter)
    if as_json:
        emit_json([views.learn_json(result) for result in results])
        return
    for result in results:
        for message in result.warnings:
            warn(message)
        for line in views.learn_lines(result):
            typer.echo(line)


@app.command("list")
def list_(
    category: Annotated[Category | None, typer.Option(help="Only tips of this category.")] = None,
    min_support: Annotated[int, typer.Option(min=0, help="Only tips seen in at least this many episodes.")] = 0,
    evidence: Annotated[Evidence | None, typer.Option(help="Only tips learned from this kind of work.")] = None,
    include_merged: Annotated[
        bool, typer.Option("--include-merged", help="Also list tips merged into others.")
    ] = False,
    project: ProjectOption = None,
    all_projects: AllProjectsOption = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """List tips, highest support first (the current folder's project's, and those of no project)."""
    memory = open_vault(vault)
    scope = project_scope(memory, project, all_projects)
    found = service.list_tips(
        memory.corpus,
        category=category,
        min_support=min_support,
        evidence=evidence,
        include_merged=include_merged,
        project=scope.project,
    )
    if as_json:
        emit_json([views.tip_summary(tip) for tip in found])
        return
    if not found:
        typer.echo("no tips match")
    for tip in found:
        typer.echo(views.tip_line(tip))


@app.command()
def guidelines(
    task: Annotated[str, typer.Argument(help="The task about to start, in a sentence.")],
    top_k: Annotated[
        int, typer.Option("--top-k", min=1, max=service.MAX_TOP_K, help="At most this many matching tips.")
    ] = service.DEFAULT_TOP_K,
    threshold: Annotated[
        float, typer.Option(min=-1.0, max=1.0, help="Least similarity of task to a tip's subtask or trigger.")
    ] = service.DEFAULT_THRESHOLD,
    core_support: Annotated[
        int, typer.Option(min=0, help="Tips with this much support are always included (0: none).")
    ] = service.DEFAULT_CORE_SUPPORT,
    project: ProjectOption = None,
    all_projects: AllProjectsOption = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """The tips to follow for a task: the always-on core plus the closest matches above the threshold."""
    memory = open_vault(vault)
    scope = project_scope(memory, project, all_projects)
    found = service.guidelines(
        memory.corpus, task, top_k=top_k, threshold=threshold, core_support=core_support, project=scope.project
    )
    if as_json:
        emit_json(views.guidelines_json(found))
        return
    for line in views.guideline_lines(found):
        typer.echo(line)


@app.command()
def consolidate(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the merges without writing.")] = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Merge tips that say the same thing (similar trigger and subtask, same category, same steps)."""
    corpus = open_vault(vault).corpus
    plan = tips_consolidate.consolidate(corpus, dry_run=dry_run)
    if as_json:
        emit_json(views.plan_json(plan))
        return
    for line in views.plan_lines(plan):
        typer.echo(line)


@app.command()
def feedback(
    tip: Annotated[str, typer.Argument(help="The tip (title, stem or path).", autocompletion=complete_notes("tip"))],
    helped: Annotated[bool, typer.Option("--helped", help="The tip helped.")] = False,
    hurt: Annotated[bool, typer.Option("--hurt", help="The tip hurt.")] = False,
    episode: Annotated[
        str | None, typer.Option(help="The episode it was used in.", autocompletion=complete_notes("episode"))
    ] = None,
    vault: VaultOption = None,
) -> None:
    """Count whether a tip that was handed out helped; guidelines prefer tips that helped."""
    if helped == hurt:
        raise UsageError("give exactly one of --helped or --hurt")
    corpus = open_vault(vault).corpus
    updated = service.record_feedback(corpus, tip, helped=helped, episode=episode)
    typer.echo(f"{updated.title}: helped {updated.helped}, hurt {updated.hurt}")
