"""Which fact subjects a task names, by their words: "tune the database pool size" names `db-pool-size`.

Words are compared in one form: lower case, a plural 's' dropped, and a common abbreviation read as
the word it stands for (db: database, config: configuration, env: environment, repo: repository,
auth: authentication ...), so either spelling in the subject matches either in the task.

A subject is named when every one of its words is in the task, or, for a subject of three words or
more, when at least two of them and at least half are: "grow the pool size" names `db-pool-size`.
One shared word is never enough ("fix the font size" names no `db-pool-size`): a wrong fact in an
agent's context costs more than a missing one.
"""

from __future__ import annotations

import re

# abbreviation -> the word it stands for (both sides are compared in this form)
ABBREVIATIONS: dict[str, str] = {
    "addr": "address",
    "admin": "administrator",
    "app": "application",
    "arg": "argument",
    "attr": "attribute",
    "auth": "authentication",
    "authn": "authentication",
    "authz": "authorization",
    "cfg": "configuration",
    "config": "configuration",
    "conf": "configuration",
    "conn": "connection",
    "db": "database",
    "dep": "dependency",
    "dependencie": "dependency",  # 'dependencies' with its plural dropped
    "dev": "development",
    "dir": "directory",
    "doc": "documentation",
    "env": "environment",
    "fn": "function",
    "func": "function",
    "img": "image",
    "impl": "implementation",
    "info": "information",
    "k8": "kubernetes",  # 'k8s' with its plural dropped
    "lib": "library",
    "max": "maximum",
    "mem": "memory",
    "min": "minimum",
    "msg": "message",
    "param": "parameter",
    "perf": "performance",
    "pkg": "package",
    "prod": "production",
    "pwd": "password",
    "passwd": "password",
    "repo": "repository",
    "req": "request",
    "spec": "specification",
    "src": "source",
    "tmp": "temporary",
    "temp": "temporary",
    "var": "variable",
    "ver": "version",
}
GENERIC_WORDS = frozenset("a an and the of for to in on at by with default current".split())


def words(text: str) -> frozenset[str]:
    """The words of `text` in the one form they are compared in (see the module doc)."""
    found = (
        word.removesuffix("s") if len(word) > 3 and not word.endswith("ss") else word
        for word in re.findall(r"[a-z0-9]+", text.lower())
    )
    return frozenset(ABBREVIATIONS.get(word, word) for word in found) - GENERIC_WORDS


def names(subject_words: frozenset[str], task_words: frozenset[str]) -> int:
    """How many of the subject's words the task names, when that names the subject; else 0."""
    shared = len(subject_words & task_words)
    if not subject_words or not shared:
        return 0
    if shared == len(subject_words) or (len(subject_words) >= 3 and shared >= 2 and 2 * shared >= len(subject_words)):
        return shared
    return 0
