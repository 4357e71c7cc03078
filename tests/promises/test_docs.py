"""The docs keep up with the code: every command is explained in a guide page, the generated CLI and
MCP references match the code, the site's pages are in its nav, the README's links survive the
package index, CI (and `just check`) runs exactly the README's test command, the examples in the
docs are what the commands print, docs/architecture.md's tree names every package and module of
brain/ and nothing that is gone, and the README's library example runs against vault-example and
prints what its comments say."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import typer
import typer.main
import yaml

from brain.cli import app
from brain.mcp.common import tools_in
from brain.mcp.server import GROUPS
from tests.conftest import REPO, run_brain

DOCS = REPO / "docs"
GUIDE_PAGES = sorted(path for path in DOCS.rglob("*.md") if path.parent.name != "reference")


def _generator():
    spec = importlib.util.spec_from_file_location("gen_reference", DOCS / "gen_reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def command_paths() -> list[str]:
    generator = _generator()
    return sorted(
        " ".join(path)
        for path, command, _ in generator.command_tree(typer.main.get_command(app))
        if not hasattr(command, "list_commands")  # a group is documented by its commands
    )


def test_every_command_is_explained_in_a_guide_page():
    paths = command_paths()
    assert "brain episode store" in paths and "brain pattern path" in paths and "brain fact sweep" in paths
    guides = "\n".join(page.read_text(encoding="utf-8") for page in GUIDE_PAGES)
    missing = [path for path in paths if f"`{path}" not in guides]
    assert missing == [], f"commands missing from the guide pages under docs/: {missing}"


def test_the_cli_reference_is_generated_from_the_code():
    generator = _generator()
    text = generator.cli_reference()
    for path in command_paths():
        assert f"`{path}`" in text  # every command has its own section
    assert "brain note edit [OPTIONS]" in text and "--replace-section" in text
    committed = generator.CLI_PAGE.read_text(encoding="utf-8")
    assert committed == text, f"docs/reference/cli.md is stale: {generator.STALE}"


def test_the_mcp_reference_is_generated_from_the_code():
    generator = _generator()
    text = generator.mcp_reference()
    from brain.mcp.common import tools_in
    from brain.mcp.server import GROUPS

    names = [fn.__name__ for modules in GROUPS.values() for module in modules for fn in tools_in(module)]
    assert len(names) >= 27 and "record_fact" in names
    for name in names:
        assert f"## `{name}`" in text
    assert "| `title` | string | yes |" in text  # write_note's schema, as a table
    committed = generator.MCP_PAGE.read_text(encoding="utf-8")
    assert committed == text, f"docs/reference/mcp.md is stale: {generator.STALE}"


def test_every_docs_page_is_in_the_nav():
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(entries: list) -> list[str]:
        found: list[str] = []
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            found += pages(value) if isinstance(value, list) else [value]
        return found

    listed = pages(config["nav"])
    on_disk = sorted(str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md"))
    assert sorted(listed) == on_disk


def test_the_readme_links_survive_the_package_index():
    """PyPI shows the README without the repository around it: a relative link would lead nowhere.
    An image is the exception: GitHub and a clone show it, and where it cannot be fetched its alt
    text names the file; it must exist."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)", readme)
    assert [image for image in images if not (REPO / image).is_file()] == []
    links = re.sub(r"!\[[^\]]*\]\([^)\s]+\)", "", readme)
    targets = re.findall(r"\]\(([^)\s]+)", links) + re.findall(r"""(?:href|src)=["']([^"']+)""", links)
    relative = [target for target in targets if not re.match(r"(https?://|mailto:|#)", target)]
    assert relative == [], f"relative links in README.md (name the path in backticks instead): {relative}"
    assert len(readme.splitlines()) <= 250


def test_the_benchmark_history_lives_in_the_docs():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    benchmarks = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    assert "p95" not in readme
    assert "*Measured 2026-11-23" in benchmarks and "| sweep of 10,000 due facts" in benchmarks


def readme_test_command() -> re.Match[str] | None:
    readme = (REPO / "README.md").read_text()
    return re.search(r"<!-- test-command -->\n```bash\n(.+?)\n```\n<!-- /test-command -->", readme, re.S)


def test_ci_runs_the_readme_test_command():
    block = readme_test_command()
    assert block, "README.md must hold the test command between <!-- test-command --> markers"
    assert "\n" not in block.group(1)  # one line
    assert 'mkdocs build --strict --site-dir "$(mktemp -d)"' in block.group(1)  # the site, outside the tree
    ci = (REPO / ".ci" / "run").read_text()
    extraction = re.search(r"^command=\$\((.+)\)$", ci, re.M)
    assert extraction, ".ci/run must take its command from README.md"
    extracted = subprocess.run(
        ["bash", "-c", extraction.group(1)], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert extracted.stdout.strip() == block.group(1)  # what CI extracts is exactly the README's block ...
    assert 'bash -euo pipefail -c "$command"' in ci  # ... and CI runs it


def justfile_recipes() -> dict[str, list[str]]:
    """Each recipe of the justfile, by name: the lines of its body, stripped (a leading `@` too)."""
    recipes: dict[str, list[str]] = {}
    body: list[str] | None = None
    for line in (REPO / "justfile").read_text(encoding="utf-8").splitlines():
        if line[:1].isspace():
            if body is not None:
                body.append(line.strip().removeprefix("@"))
        elif line and not line.startswith("#"):  # a recipe's header, or a setting (`set`, `:=`)
            header = ":" in line and ":=" not in line and not line.startswith("set ")
            body = recipes.setdefault(line.split()[0].rstrip(":"), []) if header else None
    return recipes


def test_just_check_runs_the_readme_test_command_in_the_existing_venv():
    """`just check` runs CI's steps, the README's test command, but the ones that make the venv and
    install brain into it; `lint`, `typecheck`, `docs` and `test` run the same commands."""
    block = readme_test_command()
    assert block
    steps = block.group(1).split(" && ")
    setup = [step for step in steps if step.startswith("python3 -m venv ") or " install " in step]
    assert setup and steps[: len(setup)] == setup  # the venv is made first
    recipes = justfile_recipes()
    assert recipes["check"] == steps[len(setup) :]
    for name in ("lint", "typecheck", "docs"):
        assert recipes[name] and set(recipes[name]) <= set(recipes["check"]), name
    assert recipes["test"] == [recipes["check"][-1] + " {{ args }}"]


def test_the_version_is_defined_once():
    import tomllib

    import brain

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert brain.__version__ == project["version"]
    source = (REPO / "brain" / "__init__.py").read_text(encoding="utf-8")
    assert project["version"] not in source
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{project['version']}]" in changelog


def test_the_mcp_server_reports_the_package_version(tmp_path):
    import asyncio
    import tomllib

    from mcp import Client

    from brain.mcp.server import build_server
    from brain.vault.init import init_vault

    vault, _ = init_vault(tmp_path / "vault")

    async def server_info():
        async with Client(build_server(vault)) as client:
            return client.server_info

    info = asyncio.run(server_info())
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert info is not None and info.name == "brain" and info.version == project["version"]


def test_the_license_ships_with_the_package():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (REPO / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


# ---------------------------------------------------------------- examples in the docs are what the commands print


def console_block(page: Path, first_command: str) -> list[tuple[list[str], list[str]]]:
    """The (command args, output lines) of the console block holding `first_command`."""
    text = page.read_text(encoding="utf-8")
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        if first_command not in block:
            continue
        runs: list[tuple[list[str], list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ brain "):
                runs.append((shlex.split(line[len("$ brain ") :]), []))
            else:
                runs[-1][1].append(line)
        return runs
    raise AssertionError(f"no console block with {first_command!r} in {page}")


def test_the_episode_list_example_is_what_brain_prints(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(REPO / "vault-example", vault, ignore=shutil.ignore_patterns(".brain"))
    runs = console_block(DOCS / "guide" / "episodes.md", "episode list --outcome failure")
    assert [args[:2] for args, _ in runs] == [["episode", "store"], ["episode", "list"]]
    for args, expected in runs:
        printed = run_brain(*args, "--vault", str(vault))
        assert printed.exit_code == 0, printed.output
        assert printed.stdout.splitlines() == expected, args
    listed = runs[1][1]
    assert listed and all("  failure  " in line for line in listed)


def test_the_mcp_tools_table_lists_every_tool() -> None:
    table = (DOCS / "guide" / "mcp.md").read_text(encoding="utf-8").split("## Tools", 1)[1].split("###", 1)[0]
    listed = set(re.findall(r"`([a-z_]+)`", table))
    served = {fn.__name__ for modules in GROUPS.values() for module in modules for fn in tools_in(module)}
    assert served - listed == set()
    assert {"record_fact", "supersede_fact", "invalidate_fact", "recall_facts"} <= listed


def test_the_readme_shows_what_the_hooks_print_and_what_a_session_became(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    part = readme.split("<!-- hook-example: begin -->")[1].split("<!-- hook-example: end -->")[0]
    shown_context = re.search(r"```text\n(.*?)```", part, flags=re.S).group(1)  # type: ignore[union-attr]
    vault = tmp_path / "vault"
    shutil.copytree(REPO / "vault-example", vault, ignore=shutil.ignore_patterns(".brain"))
    hook = subprocess.run(
        [sys.executable, "-m", "brain", "hooks", "run", "session-start", "--vault", str(vault)],
        input=json.dumps({"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup"}),
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"] == shown_context

    command = re.search(r"```console\n\$ brain (.*?)\n(.*?)\n```", part, flags=re.S)
    assert command is not None
    transcript = REPO / "tests/data/transcripts/public/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
    shutil.copy(transcript, tmp_path / transcript.name)
    shutil.copytree(transcript.parent / transcript.stem, tmp_path / transcript.stem)  # its subagents
    args = [*shlex.split(command.group(1)), "--vault", str(vault)]
    args[2] = str(tmp_path / transcript.name)
    result = run_brain(*args)
    assert result.exit_code == 0 and result.output.strip() == command.group(2)
    note = (
        (vault / "episodes/EPISODE-2026-02-12-ae4a77f8-aedd-4bc1-888f-c94edc91af04.md")
        .read_text(encoding="utf-8")
        .splitlines()
    )
    shown = re.search(r"```markdown\n(.*?)```", part, flags=re.S).group(1).splitlines()  # type: ignore[union-attr]
    lines = iter(note)
    assert all(line in lines for line in shown), "the README's episode is not an excerpt of the note, in order"


# ---------------------------------------------------------------- the architecture page names every package and module


DOC = REPO / "docs" / "architecture.md"
_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def tree_block() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("```\nbrain/\n")
    return text[start + 4 : text.index("```", start + 4)].splitlines()


def documented() -> tuple[set[str], set[str], set[str]]:
    """(packages, modules, modules named as files) the tree names, as paths from the repository root.

    A line is a folder (`name/  what it holds`, which may list its modules as bare words:
    `facts/  service, recall, ...`), or one or more modules (`a.py b.py  what they do`); a deeper
    line that is neither continues the description, and the module list, of the line above."""
    packages: set[str] = set()
    modules: set[str] = set()
    files: set[str] = set()
    stack: list[tuple[int, str]] = []  # (indent, folder) of the folders above this line
    listing: str | None = None  # the folder whose bare-word module list may continue
    for line in tree_block():
        tokens = line.split()
        if not tokens:
            continue
        indent = len(line) - len(line.lstrip())
        if tokens[0].endswith(("/", ".py")):
            while stack and stack[-1][0] >= indent:
                stack.pop()
        parent = stack[-1][1] if stack else ""
        if tokens[0].endswith("/"):
            folder = f"{parent}/{tokens[0][:-1]}" if parent else tokens[0][:-1]
            packages.add(folder)
            stack.append((indent, folder))
            listing, words = folder, " ".join(tokens[1:])
        elif tokens[0].endswith(".py"):
            for token in tokens:
                if not token.endswith(".py"):
                    break
                files.add(f"{parent}/{token}")
            listing = None
            continue
        elif listing is not None:
            words = line
        else:
            continue
        for word in re.sub(r"\([^)]*\)", "", words).replace(",", " ").split():
            word = word.rstrip(":")
            if _NAME.fullmatch(word):
                modules.add(f"{listing}/{word}.py")
    return packages, modules | files, files


def actual() -> tuple[set[str], set[str]]:
    source = REPO / "brain"
    packages = {str(p.parent.relative_to(REPO)) for p in source.rglob("__init__.py")}
    modules = {str(p.relative_to(REPO)) for p in source.rglob("*.py") if p.name != "__init__.py"}
    return packages, modules


def test_the_tree_names_every_package_and_module() -> None:
    (doc_packages, doc_modules, _), (packages, modules) = documented(), actual()
    assert sorted(packages - doc_packages) == []
    assert sorted(modules - doc_modules) == []


def test_the_tree_names_nothing_that_is_gone() -> None:
    (doc_packages, _, doc_files), (packages, modules) = documented(), actual()
    assert sorted(doc_packages - packages) == []
    initial = {str(p.relative_to(REPO)) for p in (REPO / "brain").rglob("__init__.py")}
    assert sorted(doc_files - modules - initial) == []


# ---------------------------------------------------------------- the README's library example


def _block(name: str) -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- {name} -->\n```\w+\n(.*?)```\n<!-- /{name} -->", text, re.DOTALL)
    assert found, f"README.md has no {name} block"
    return found.group(1)


def test_the_readme_library_example_prints_what_the_readme_says(tmp_path):
    import shutil

    shutil.copytree(REPO / "vault-example", tmp_path / "vault-example", ignore=shutil.ignore_patterns(".brain"))
    (tmp_path / "vault-example" / ".brain").mkdir()
    run = subprocess.run(
        [sys.executable, "-c", _block("library-example")], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    expected = [line.removeprefix("# ") for line in _block("library-example").splitlines() if line.startswith("# ")]
    assert run.stderr == ""
    assert run.stdout.splitlines() == expected


def test_brain_offers_what_its_all_says():
    import brain

    assert sorted(brain.__all__) == [
        "AmbiguousName",
        "BrainError",
        "InvalidInput",
        "Memory",
        "NoteNotFound",
        "VaultNotFound",
        "__version__",
        "antipatterns",
        "causal_path",
        "get_episode",
        "list_episodes",
        "open",
        "recall_facts",
    ]
    for name in brain.__all__:
        assert getattr(brain, name) is not None


INSTALL_PAGES = [REPO / "README.md", *GUIDE_PAGES, *sorted((REPO / "plugins").rglob("*"))]


def test_every_install_line_can_be_copied_as_written() -> None:
    """brain is not on the package index and names no repository URL: an install line that names the
    package (`pip install "brain-vault-memory[e5]"`) or a placeholder for a URL or a GitHub repository
    (`git+<repository URL>`, `<owner>/<repo>`) cannot work. Every install runs from the clone."""
    wrong = re.compile(r"<repository URL>|<owner>/<repo>|install\s+\"?brain-vault-memory")
    found = [
        f"{path.relative_to(REPO)}: {match.group(0)}"
        for path in INSTALL_PAGES
        if path.is_file()
        for match in wrong.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_readmes_hooks_install_example_is_what_brain_prints(tmp_path: Path) -> None:
    """The README's `brain hooks install claude-code --vault ~/notes`, run in a git project of a home
    that has Claude Code's `~/.claude.json` and a vault in `~/notes`: every line, the one that keeps
    `.claude/settings.local.json` out of git included."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```console\n(\$ brain hooks install claude-code --vault ~/notes\n.*?)```", text, re.S)
    assert block is not None
    command, *shown = block.group(1).splitlines()
    home = tmp_path / "me"
    project = home / "my-project"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (home / ".claude.json").write_text("{}\n")
    env = {**os.environ, "HOME": str(home)}
    subprocess.run([sys.executable, "-m", "brain", "init", str(home / "notes")], check=True, capture_output=True)
    done = subprocess.run(
        command.removeprefix("$ ").replace("brain ", f"{sys.executable} -m brain ", 1),
        shell=True,
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.replace(str(home), "/home/me").splitlines() == shown


def test_the_readme_says_what_a_causal_paths_reliability_is() -> None:
    """`4 hops, reliability 0.03` is explained where the README shows it: the sentence that leads into
    the example says what is multiplied, and how 0.03 comes about."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    shown = text.index("4 hops, reliability 0.03")
    block = text.rindex("```console", 0, shown)
    lead = text[text.rindex("\n\n", 0, block - 2) : block]
    assert "reliability, 0 to 1, multiplies over its hops each link's weight" in " ".join(lead.split())
    assert "end at 0.03" in lead
