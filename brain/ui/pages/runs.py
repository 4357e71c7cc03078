"""Recorded runs (every tenant's: the viewer is the vault owner's), and one run with its "why?"."""

from __future__ import annotations

from typing import Any

from brain.memory.runs.service import all_runs, explain_run, get_run
from brain.memory.runs.view import explain_dict, run_record, run_row
from brain.ui.viewer import Args, Viewer, paged, text


def runs(viewer: Viewer, args: Args) -> dict[str, Any]:
    every = all_runs(viewer.memory.corpus)
    tenant = text(args, "tenant")
    chosen = [run for run in every if tenant is None or run.scope.tenant == tenant]
    chosen.sort(key=lambda run: (run.created, run.title), reverse=True)
    shown, page = paged(chosen, args)
    return {
        "tenants": sorted({run.scope.tenant for run in every}),
        "tenant": tenant,
        "runs": [{**run_row(run), "tenant": run.scope.tenant} for run in shown],
        "page": page,
    }


def run(viewer: Viewer, args: Args) -> dict[str, Any]:
    corpus = viewer.memory.corpus
    found = get_run(corpus, args["name"])
    question = text(args, "question")
    why = None if found.in_flight else explain_dict(explain_run(corpus, found.path or found.title, question))
    return {"run": run_record(found), "question": question, "why": why}
