"""Facts: what is true now (or was at a date) in a namespace, and a subject's history with its
supersessions. A listing for a person to look at: nothing is ranked, nothing journaled."""

from __future__ import annotations

import re
from typing import Any

from brain.memory.facts.recall import facts_valid_at, history, namespaces
from brain.memory.facts.settings import load_settings
from brain.memory.facts.view import fact_row
from brain.ui.viewer import Args, Viewer, paged, text

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def as_of_time(value: str | None) -> str | None:
    """A day (what a date field sends) as its first instant, UTC; any other value as it is."""
    return f"{value}T00:00:00Z" if value and _DAY.match(value) else value


def facts(viewer: Viewer, args: Args) -> dict[str, Any]:
    corpus = viewer.memory.corpus
    known = namespaces(corpus)
    chosen = text(args, "namespace") or load_settings(viewer.memory.vault).default_namespace
    as_of = text(args, "as_of")
    found = facts_valid_at(corpus, namespace=chosen, as_of=as_of_time(as_of))
    shown, page = paged(found, args)
    return {
        "namespaces": known,
        "namespace": chosen,
        "as_of": as_of,
        "facts": [fact_row(fact) for fact in shown],
        "page": page,
    }


def fact_history(viewer: Viewer, args: Args) -> dict[str, Any]:
    subject = text(args, "subject") or ""
    namespace = text(args, "namespace")
    chain = history(viewer.memory.corpus, subject, namespace=namespace)
    return {
        "subject": subject,
        "namespace": chain[0].namespace if chain else namespace,
        "history": [{**fact_row(fact), "closed": fact.closed} for fact in chain],
    }
