"""Contexts, causal chains, "why" answers and causality stats as text, shared by the CLI and MCP.

JSON is `plain()` of the library objects; these functions only make the text people read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from brain.markdown.parse import link_targets

if TYPE_CHECKING:  # the services' types, for annotations: a view loads no service
    from brain.memory.causal.chains import Chain, ChainStep, Reasoning
    from brain.memory.causal.contexts import ContextEntry, SavedContext
    from brain.memory.causal.stats import CausalityStats


def saved_text(saved: SavedContext) -> str:
    causes = f", caused by {', '.join(saved.caused_by)}" if saved.caused_by else ""
    return f"saved {saved.path} ({saved.action_type} in {saved.project}{causes})"


def context_lines(project: str, entries: list[ContextEntry], known_projects: list[str]) -> list[str]:
    if not entries:
        hint = f"; projects: {', '.join(known_projects)}" if known_projects else ""
        return [f"no contexts in project '{project}'{hint}"]
    lines = []
    for entry in entries:
        lines.append(f"{entry.created or '(no time)'}  {entry.action_type or '?':12} {entry.title}  ({entry.path})")
        if entry.caused_by:
            lines.append(f"    caused by: {', '.join(entry.caused_by)}")
        if entry.rationale:
            lines.append(f"    why: {entry.rationale}")
        lines.append(f"    {entry.summary}")
    return lines


MAX_INDENT = 20  # levels; deeper steps keep this indentation (their depth is printed) so lines stay readable


def _kind(step: ChainStep) -> str:
    return step.action_type or step.type


def chain_lines(chain: Chain) -> list[str]:
    """Root first, each step indented by how many causes run before it, as in the seed's example.

    A step whose causes are not just the step printed before it says which steps caused it, so a
    note with several parents reads as the DAG it is."""
    titles = {step.node: step.title for step in chain.steps}
    number = {step.node: index for index, step in enumerate(chain.steps, 1)}
    count = f"{len(chain.steps)} note{'s' if len(chain.steps) != 1 else ''}"
    if chain.direction == "backward":
        head = f"Causal chain of {chain.title}: {count}, root causes first"
    else:
        head = f"What {chain.title} led to: {count}, in order"
    lines = [head, ""]
    previous: str | None = None
    for index, step in enumerate(chain.steps, 1):
        pad = "  " * min(step.level, MAX_INDENT)
        inner = pad + " " * (len(str(index)) + 2)
        if step.broken:
            lines.append(f"{pad}{index}. broken: [[{step.title}]] is not a note (depth {step.depth})")
        else:
            when = f" ({step.time})" if step.time else ""
            lines.append(f"{pad}{index}. {_kind(step)}{when} {step.title}  [depth {step.depth}]")
        if step.caused_by and list(step.caused_by) != [previous]:
            lines.append(
                inner
                + "caused by: "
                + ", ".join(f"{number[node]}. {titles[node]}" for node in _in_order(step.caused_by, number))
            )
        if step.summary:
            lines.append(inner + step.summary)
        previous = step.node
    footer = _chain_footer(chain, titles)
    return lines + (["", *footer] if footer else [])


def _in_order(nodes: tuple[str, ...], number: dict[str, int]) -> list[str]:
    return sorted(nodes, key=lambda node: number[node])


def _chain_footer(chain: Chain, titles: dict[str, str]) -> list[str]:
    lines = []
    if chain.direction == "backward" and chain.roots:
        lines.append("root causes: " + ", ".join(titles[node] for node in chain.roots))
    for link in chain.broken:
        lines.append(
            f"broken: caused_by '{link.name}' in {link.source} {link.problem}; the walk went on with the causes that exist"
        )
    for cycle in chain.cycles:
        names = [titles[node] for node in cycle]
        lines.append("cycle: " + " -> ".join(names + names[:1]) + " (the walk stopped where it closes)")
    if chain.cut:
        where = "causes" if chain.direction == "backward" else "effects"
        lines.append(
            f"cut at the maximum depth ({chain.max_depth}): further {where} of "
            + ", ".join(titles[node] for node in chain.cut)
            + " not shown"
        )
    return lines


def reasoning_lines(answer: Reasoning) -> list[str]:
    """The seed's three fields, then the evidence: causes condensed, decisions, facts, each with its note."""
    lines = [
        f"Why {answer.title} ({answer.path})",
        "",
        f"Action type: {answer.action_type or f'none recorded ({answer.type} note)'}",
        f"Rationale: {answer.rationale or 'none recorded'}",
        f"Summary: {answer.summary}",
    ]
    causes = [step for step in answer.chain.steps if step.node != answer.path]
    lines += ["", "Caused by (root first):" if causes else "Caused by: nothing recorded (a root cause)"]
    for step in causes:
        if step.broken:
            lines.append(f"- broken: [[{step.title}]] is not a note")
            continue
        said = step.rationale or step.summary  # its rationale, else what it is about: both from the note
        lines.append(f"- {_kind(step)} {step.title} ({step.path})" + (f": {said}" if said else ""))
    titles = {step.node: step.title for step in answer.chain.steps}
    for cycle in answer.chain.cycles:
        lines.append("- cycle: " + " -> ".join(titles[node] for node in cycle + cycle[:1]))
    if answer.decisions:
        lines += ["", "Decisions behind it (nearest first):"]
        for decision in answer.decisions:
            chosen = f" -> {decision.chosen}" if decision.chosen and decision.chosen != decision.title else ""
            outcome = f" ({decision.outcome})" if decision.outcome else ""
            lines.append(
                f"- {decision.episode_title} {decision.id}: {decision.title}{chosen}{outcome}  [{decision.via}]"
            )
            if decision.rationale:
                lines.append(f"    why: {decision.rationale}")
    if answer.facts:
        lines += ["", "Facts cited:"]
        for fact in answer.facts:
            state = (
                f"valid {fact.valid_from or '?'} to {fact.valid_until}"
                if fact.valid_until
                else f"valid from {fact.valid_from or '?'}"
            )
            superseded = f", superseded by {', '.join(link_targets(fact.superseded_by))}" if fact.superseded_by else ""
            lines.append(
                f"- {fact.title} ({fact.path}): {fact.subject} = {_value(fact.value)} ({state}{superseded})  [{fact.via}]"
            )
    return lines


def _value(value: object) -> str:
    """A fact's value as its note writes it (YAML flow style), not as Python prints it."""
    if isinstance(value, (dict, list)):
        import yaml  # only a structured value needs it: PyYAML is left out of most `causal why` runs

        text: str = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, allow_unicode=True, width=10_000)
        return text.strip()
    return str(value)


def stats_lines(stats: CausalityStats) -> list[str]:
    scope = f"project {stats.project}" if stats.project else "the whole vault"
    kinds = ", ".join(f"{kind} {count}" for kind, count in stats.action_types.items()) or "none"
    unknown = (
        f" (not a known action type: {', '.join(stats.unknown_action_types)})" if stats.unknown_action_types else ""
    )
    lines = [
        f"Causality in {scope}: {stats.notes} notes",
        f"  with caused_by:       {stats.with_caused_by}",
        f"  named as a cause:     {stats.causes}",
        f"  in any causal link:   {stats.linked}",
        f"  root causes:          {stats.roots}",
        f"  action types:         {kinds}{unknown}",
        f"  chains (ends):        {stats.chains}",
        f"  average chain length: {stats.average_chain_length:g} notes",
        f"  longest chain:        {stats.longest_chain} notes"
        + (f", ending at {stats.longest_chain_end}" if stats.longest_chain_end else ""),
        f"  orphans:              {len(stats.orphans)} (decisions and file edits that name no cause)",
        f"  cycles:               {len(stats.cycles)}",
        f"  broken caused_by:     {len(stats.broken)}",
    ]
    lines += [f"    orphan: {path}" for path in stats.orphans]
    lines += ["    cycle: " + " -> ".join(cycle + cycle[:1]) for cycle in stats.cycles]
    lines += [f"    broken: caused_by '{link.name}' in {link.source} {link.problem}" for link in stats.broken]
    return lines
