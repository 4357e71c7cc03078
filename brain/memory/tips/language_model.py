"""Learning with a language model: the model segments the episode and words the tips.

The model is asked once per episode for JSON: a list of subtasks, each naming the episode's
step ids it covers (`d001`, `e003`, ...) with a generalized subtask, trigger, tip, steps and
what to avoid. The rules still classify each segment, attribute causes and set evidence, so
the model cannot invent a success. A reply that is not such JSON makes the learning fall back
on the rules with a warning (`ModelUnusable`).

Two ways to reach a model: MCP sampling (the server asks the client's model; see
`tools_learning.save_trajectory`) and an OpenAI-compatible chat endpoint configured in
`.brain/config.toml`:

    [learning]
    model_url = "http://127.0.0.1:8080/v1/chat/completions"
    model = "qwen2.5-7b-instruct"
    api_key_env = "OPENAI_API_KEY"   # optional: the environment variable holding the key
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import replace

from brain.config import load_config
from brain.errors import BrainError, InvalidInput
from brain.markdown.model import Episode
from brain.memory.tips.draft import Draft
from brain.memory.tips.learn import Segment, _draft
from brain.memory.tips.wording import generalize
from brain.vault.vault import Vault

Ask = Callable[[str, str], str]  # (system prompt, user prompt) -> reply text
SYSTEM = (
    "You turn an agent's work session into reusable tips. Reply with JSON only: a list of objects "
    '{"ids": [step ids], "subtask": str, "trigger": str, "tip": str, "steps": [str], "avoid": str}. '
    "Group consecutive steps that serve one subtask. Generalize: no names, emails, ids, paths or numbers."
)
TIMEOUT = 60


class ModelUnusable(BrainError):
    """The model could not be asked, or its reply was not the JSON asked for."""


def prompt_for(episode: Episode) -> str:
    lines = [f"Task: {episode.task or episode.title}", f"Outcome: {episode.outcome}", "Steps:"]
    for d in episode.decisions:
        lines.append(f"{d.id} decision [{d.outcome or '?'}]: {d.context or ''} -> {d.chosen or d.title}")
    for e in episode.events:
        lines.append(f"{e.id} {e.type or 'event'}: {e.text}")
    if episode.lessons:
        lines.append("Lessons: " + " | ".join(episode.lessons))
    return "\n".join(lines)


def parse_reply(reply: str, episode: Episode) -> list[Draft]:
    """Drafts from the model's JSON; the rules classify and attribute each segment."""
    text = re.sub(r"^```(?:json)?\s*|\s*```$", "", reply.strip())
    try:
        items = json.loads(text)
    except json.JSONDecodeError as error:
        raise ModelUnusable(f"the reply is not JSON ({error.msg})") from None
    if not isinstance(items, list) or not items:
        raise ModelUnusable("the reply is not a non-empty list of subtasks")
    decisions = {d.id: d for d in episode.decisions}
    events = {e.id: e for e in episode.events if e.id}
    drafts = []
    for number, item in enumerate(items, 1):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("ids"), list)
            or not str(item.get("subtask") or "").strip()
        ):
            raise ModelUnusable(f"subtask {number} lacks 'ids' or 'subtask'")
        unknown = [str(i) for i in item["ids"] if str(i) not in decisions and str(i) not in events]
        if unknown:
            raise ModelUnusable(f"subtask {number} names steps the episode does not have: {', '.join(unknown)}")
        seg = Segment(
            decisions=[decisions[str(i)] for i in item["ids"] if str(i) in decisions],
            events=[events[str(i)] for i in item["ids"] if str(i) in events],
        )
        rules = _draft(seg, episode)
        steps = tuple(generalize(str(s), 140) for s in item.get("steps") or () if str(s).strip()) or rules.steps
        drafts.append(
            replace(
                rules,
                subtask=generalize(str(item["subtask"]), 90),
                trigger=generalize(str(item.get("trigger") or rules.trigger), 140),
                tip=generalize(str(item.get("tip") or rules.tip), 240),
                steps=steps,
                avoid=generalize(str(item.get("avoid") or rules.avoid), 240),
            )
        )
    return drafts


def model_drafter(ask: Ask) -> Callable[[Episode], list[Draft]]:
    def draft(episode: Episode) -> list[Draft]:
        try:
            reply = ask(SYSTEM, prompt_for(episode))
        except ModelUnusable:
            raise
        except Exception as error:  # a model is outside brain: any failure to reach it means "use the rules"
            raise ModelUnusable(f"asking the model failed: {error}") from None
        return parse_reply(reply, episode)

    return draft


def endpoint_drafter(vault: Vault) -> Callable[[Episode], list[Draft]]:
    """A drafter asking the chat endpoint configured under [learning] in .brain/config.toml."""
    config = load_config(vault.brain_dir)
    url, model = config.learning_model_url, config.learning_model
    if not url or not model:
        raise InvalidInput("--model needs [learning] model_url and model in .brain/config.toml")
    key_env = config.learning_api_key_env
    key = os.environ.get(str(key_env)) if key_env else None

    def ask(system: str, prompt: str) -> str:
        body = json.dumps(
            {
                "model": model,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
                "temperature": 0,
            }
        ).encode()
        headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {key}"} if key else {})
        request = urllib.request.Request(str(url), data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                data = json.load(response)
            return str(data["choices"][0]["message"]["content"])
        except (urllib.error.URLError, OSError, KeyError, IndexError, TypeError, ValueError) as error:
            raise ModelUnusable(f"the endpoint {url} gave no usable answer ({error})") from None

    return model_drafter(ask)
