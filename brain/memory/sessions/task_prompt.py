"""Whether a prompt states a task: what the first-prompt hook waits for before it hands out context.

A session often opens with something that is no task: a slash command (`/model`, `/clear`,
`/compact focus on tests`), a greeting or a thank-you (`hi`, `hello there`, `thanks!`), or a word or
two (`continue`, `go on`). Context chosen for such a prompt is chosen for nothing, so the
first-prompt context waits for the first prompt that is none of these.
"""

from __future__ import annotations

import re

MIN_WORDS = 3  # "fix the tests" is a task; "go on" is not
_COMMAND = re.compile(r"^/[A-Za-z][\w:.-]*(?:\s|$)")  # /model, /review:pr; not /srv/app/main.py
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?")
# Chinese and Japanese write no spaces: two of these characters count as a word
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_SMALL_TALK = frozenset(
    """hi hello hey hiya howdy yo hola sup greetings morning afternoon evening good day there all everyone
    thanks thank you thx ty cheers much lot so very ok okay cool great nice awesome perfect bye goodbye
    how are doing today is it going what's up whats claude codex assistant buddy friend please again""".split()
)


def states_a_task(prompt: str) -> bool:
    """False for a slash command, a greeting or thanks, or fewer than MIN_WORDS words."""
    text = prompt.strip()
    if not text or _COMMAND.match(text):
        return False
    words = [word.lower() for word in _WORD.findall(text)]
    if len(words) + len(_UNSPACED.findall(text)) // 2 < MIN_WORDS:
        return False
    return not all(word in _SMALL_TALK for word in words)
