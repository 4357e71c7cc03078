"""The vault on disk: finding it, safe paths, atomic and conflict-checked writes, init."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from brain.errors import InvalidInput, NoteExists, Remedy, UnsafePath, VaultNotFound, WriteConflict
from brain.vault.init import GITIGNORE, init_vault
from brain.vault.note_files import OUTSIDE_SYMLINK, Skip, SkipKind, is_note_path, note_files
from brain.vault.vault import Vault
from tests.conftest import lexical_vault, run_brain, write


@pytest.mark.parametrize(
    "hostile",
    [
        "../outside.md",
        "notes/../../outside.md",
        "/etc/passwd",
        "C:\\Windows\\x.md",
        "CON.md",
        "notes/nul.txt.md",
        ".brain/config.md",
        "",
        "a\x00b.md",
    ],
)
def test_paths_cannot_escape_or_use_reserved_names(vault, hostile):
    with pytest.raises(UnsafePath):
        vault.safe_path(hostile)


def test_symlink_out_of_the_vault_is_refused_and_not_listed(vault, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# secret\n")
    os.symlink(outside, vault.root / "linked")
    os.symlink(outside / "secret.md", vault.root / "alias.md")
    with pytest.raises(UnsafePath):
        vault.safe_path("linked/secret.md")
    assert "linked/secret.md" not in list(vault.iter_files())
    assert "alias.md" not in list(vault.iter_files())


def test_titles_become_safe_file_names():
    assert Vault.filename_for("../../etc/passwd") == "-..-etc-passwd.md"
    assert Vault.filename_for('What: a "title"?') == "What- a -title-.md"
    with pytest.raises(InvalidInput):
        Vault.filename_for("CON")
    with pytest.raises(InvalidInput):
        Vault.filename_for("...")


def test_write_is_atomic_and_refuses_to_clobber(vault):
    stamp = vault.write("notes/a.md", "one\n", create=True)
    with pytest.raises(NoteExists):
        vault.write("notes/a.md", "two\n", create=True)
    assert (vault.root / "notes/a.md").read_text() == "one\n"
    assert stamp.size == 4
    assert not [p for p in (vault.root / "notes").iterdir() if p.name.startswith(".brain-")]


def test_write_refused_when_file_changed_since_read(vault):
    vault.write("notes/a.md", "original\n", create=True)
    read = vault.read("notes/a.md")
    (vault.root / "notes/a.md").write_text("edited in an editor\n")
    with pytest.raises(WriteConflict, match="changed on disk"):
        vault.write("notes/a.md", "from brain\n", expected=read.stamp)
    assert (vault.root / "notes/a.md").read_text() == "edited in an editor\n"
    assert not [p for p in (vault.root / "notes").iterdir() if p.name.startswith(".brain-")]


def test_listeners_hear_of_writes_moves_and_deletes(vault):
    heard = []
    vault.on_change(heard.append)
    vault.write("notes/a.md", "x\n", create=True)
    vault.move("notes/a.md", "archive/a.md")
    vault.delete("archive/a.md")
    assert heard == [("notes/a.md",), ("archive/a.md", "notes/a.md"), ("archive/a.md",)]


def test_batched_changes_reach_listeners_once_at_the_end(vault):
    heard = []
    vault.on_change(heard.append)
    with vault.batched_changes():
        vault.write("notes/a.md", "x\n", create=True)
        with vault.batched_changes():  # nested: still one notice, from the outer block
            vault.write("notes/b.md", "y\n", create=True)
        vault.write("notes/a.md", "z\n")
        assert heard == []
    assert heard == [("notes/a.md", "notes/b.md")]


def test_find_vault_from_option_env_and_upwards(vault, monkeypatch, tmp_path):
    deep = vault.root / "episodes" / "deeper"
    deep.mkdir()
    monkeypatch.delenv("BRAIN_VAULT", raising=False)
    assert Vault.find(cwd=deep).root == vault.root
    monkeypatch.setenv("BRAIN_VAULT", str(vault.root))
    assert Vault.find(cwd=tmp_path).root == vault.root
    assert Vault.find(str(vault.root)).root == vault.root
    monkeypatch.delenv("BRAIN_VAULT")
    with pytest.raises(VaultNotFound, match=r"create one with init_vault\('PATH'\), give the vault's path") as none:
        Vault.find(cwd=tmp_path)
    assert none.value.remedies == (Remedy("init_vault", path="PATH"), Remedy("vault"))
    with pytest.raises(VaultNotFound, match="does not exist"):
        Vault.find(str(tmp_path / "missing"))
    monkeypatch.setenv("BRAIN_VAULT", "missing")  # relative: read from the current folder, not the shell's at export
    with pytest.raises(VaultNotFound) as relative:
        Vault.find(cwd=tmp_path)
    assert str(relative.value).startswith(
        f"$BRAIN_VAULT is 'missing', which does not exist in '{tmp_path.resolve()}' (a relative path is read from"
    )


def test_init_adds_what_is_missing_and_changes_nothing_else(tmp_path: Path):
    root = tmp_path / "existing"
    write(Vault(root.mkdir() or root), "episodes/mine.md", "# mine\n")
    write(Vault(root), "templates/episode.md", "my own template\n")
    _vault, created = init_vault(root)
    assert (root / "episodes/mine.md").read_text() == "# mine\n"
    assert (root / "templates/episode.md").read_text() == "my own template\n"
    assert "templates/episode.md" not in created and "templates/pattern.md" in created
    for folder in ("episodes", "patterns", "causal", "contexts", "facts", "runs", "tips", "templates"):
        assert (root / folder).is_dir()
    assert (root / ".brain/config.toml").is_file()
    assert ".brain/.gitignore" in created
    snapshot = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    _, again = init_vault(root)
    assert again == []
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == snapshot


def test_init_gives_an_older_vault_its_gitignore_and_keeps_a_teams_own(tmp_path: Path):
    older, _ = init_vault(tmp_path / "older")
    (older.brain_dir / ".gitignore").unlink()  # a vault made before brain wrote the file
    _, created = init_vault(older.root)
    assert created == [".brain/.gitignore"]
    assert (older.brain_dir / ".gitignore").read_text(encoding="utf-8") == GITIGNORE
    (older.brain_dir / ".gitignore").write_text("index/\n", encoding="utf-8")
    assert init_vault(older.root)[1] == []
    assert (older.brain_dir / ".gitignore").read_text(encoding="utf-8") == "index/\n"


def test_git_sees_nothing_brain_writes_under_dot_brain_but_the_settings(tmp_path: Path):
    """A vault in a git repository, put through commands that write each kind of state brain keeps
    (index, vault id, write lock, note history, recall journal, hold register, hooks' markers and log):
    `git status` shows the notes written and nothing under .brain/."""
    vault = lexical_vault(tmp_path / "vault")
    root = str(vault.root)

    def git(*args: str) -> str:
        return _git(vault.root, *args)

    assert _committed(vault.root, ".brain") == [".brain/.gitignore", ".brain/config.toml"]
    first_prompt = json.dumps(
        {"session_id": "s1", "hook_event_name": "UserPromptSubmit", "prompt": "retry the failed writes with a key"}
    )

    def brain(*args: str, stdin: str | None = None) -> None:
        done = run_brain(*args, "--vault", root, input=stdin)
        assert done.exit_code == 0, (args, done.output)

    brain("note", "write", "Retries", "-f", "-", stdin="Retry writes with a key.\n")
    brain("note", "edit", "Retries", "--append", "Only with a key.")
    brain("index")
    brain("fact", "record", "config", "ttl", "900")
    (fact,) = (vault.root / "facts").glob("*.md")
    brain("fact", "hold", fact.stem, "--reason", "audit")
    brain("fact", "recall", "--subject", "ttl")
    brain("hooks", "run", "first-prompt", stdin=first_prompt)
    brain("hooks", "run", "session-end", stdin="{not json")
    state = {str(p.relative_to(vault.brain_dir)).split("/")[0] for p in vault.brain_dir.rglob("*") if p.is_file()}
    assert {"index", "vault-id", "write.lock", "history", "journal", "hooks", "logs"} <= state
    changed = sorted(line[3:] for line in git("status", "--porcelain", "--untracked-files=all").splitlines())
    assert changed == [f"facts/{fact.name}", "notes/Retries.md"]


def test_an_obsidian_vault_commits_the_templates_waiting_in_dot_brain(tmp_path: Path):
    (tmp_path / "obsidian" / ".obsidian").mkdir(parents=True)
    init_vault(tmp_path / "obsidian")
    committed = _committed(tmp_path / "obsidian", ".brain")
    assert committed[:2] == [".brain/.gitignore", ".brain/config.toml"]
    assert committed[2:] and all(path.startswith(".brain/templates/") for path in committed[2:])


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True).stdout


def _committed(folder: Path, under: str) -> list[str]:
    """Make `folder` a git repository, commit all it holds, and list the files committed under `under`."""
    _git(folder, "init", "-q")
    _git(folder, "add", "-A")
    _git(folder, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "a vault")
    return _git(folder, "ls-files", under).splitlines()


def test_templates_are_not_notes(vault):
    assert not [path for path in vault.iter_files() if path.startswith("templates/")]
    assert (vault.root / "templates/episode.md").is_file()


def test_one_rule_for_note_files_whole_vault_or_listed_paths(vault, tmp_path):
    write(vault, "notes/a.md", "a\n")
    write(vault, ".obsidian/x.md", "editor state\n")
    write(vault, "notes/.hidden.md", "hidden\n")
    (tmp_path / "outside.md").write_text("secret\n")
    (vault.root / "notes/out.md").symlink_to(tmp_path / "outside.md")
    (vault.root / "notes/loop.md").symlink_to(vault.root / "notes/loop.md")
    found, left_out = note_files(vault.root)
    assert set(found) == {"notes/a.md"}  # templates/, .obsidian/, hidden files and links are no notes
    assert left_out == {
        "notes/out.md": OUTSIDE_SYMLINK,
        "notes/loop.md": Skip(SkipKind.UNREADABLE, "cannot be read: Too many levels of symbolic links"),
    }
    listed = [
        "notes/a.md",
        "notes/out.md",
        "notes/loop.md",
        "notes/gone.md",
        ".obsidian/x.md",
        "notes/.hidden.md",
        "notes/a.txt",
    ]
    assert note_files(vault.root, listed) == (
        found,
        left_out,
    )  # the same answers for listed paths; a gone path is in neither
    assert [is_note_path(p) for p in listed] == [True, True, True, True, False, False, False]
    assert list(vault.iter_files()) == sorted(found)


def test_batches_delete_and_rewrite_under_one_lock_and_stop_at_the_first_error(vault):
    heard = []
    vault.on_change(heard.append)
    texts = {f"notes/n{n:02d}.md": f"---\ntitle: N{n}\n---\nsee [[old]]\n" for n in range(40)}
    for path, text in texts.items():
        vault.write(path, text, create=True)
    heard.clear()

    deleted = vault.delete_many(["notes/n00.md", "notes/gone.md", "notes/n01.md"])
    assert deleted.changed == {path: texts[path].encode() for path in ("notes/n00.md", "notes/n01.md")}
    assert (deleted.gone, deleted.error) == (("notes/gone.md",), None)
    assert not (vault.root / "notes/n00.md").exists() and not (vault.root / "notes/n01.md").exists()

    def plain(text: str) -> str:
        return text.replace("[[old]]", "old (purged)")

    rewritten = vault.update_many(
        {**{f"notes/n{n:02d}.md": plain for n in range(2, 20)}, "notes/n20.md": lambda text: text}
    )
    assert rewritten.changed == {f"notes/n{n:02d}.md": texts[f"notes/n{n:02d}.md"].encode() for n in range(2, 20)}
    assert rewritten.error is None
    assert (vault.root / "notes/n02.md").read_text() == "---\ntitle: N2\n---\nsee old (purged)\n"
    assert (vault.root / "notes/n20.md").read_text() == texts["notes/n20.md"]  # unchanged text: not written
    assert heard == [("notes/n00.md", "notes/n01.md"), tuple(f"notes/n{n:02d}.md" for n in range(2, 20))]

    # A file brain may not edit (not UTF-8) is refused as `update` refuses it, and the batch stops:
    # the files after it are left as they were.
    (vault.root / "notes/n21.md").write_bytes(b"---\ntitle: N21\n---\n\xff [[old]]\n")
    stopped = vault.update_many({f"notes/n{n:02d}.md": plain for n in range(21, 40)})
    assert isinstance(stopped.error, InvalidInput) and str(stopped.error) == (
        "'notes/n21.md' is not valid UTF-8 (byte 19); brain does not edit it, so its bytes stay as they are. "
        "Convert it to UTF-8 in an editor first"
    )  # the same refusal as `update`'s
    assert (vault.root / "notes/n21.md").read_bytes() == b"---\ntitle: N21\n---\n\xff [[old]]\n"
    assert stopped.changed == {}  # the files are done in order: none after the refused one was touched
    for n in range(22, 40):
        path = f"notes/n{n:02d}.md"
        assert (vault.root / path).read_text() == texts[path]
    assert not [p for p in (vault.root / "notes").iterdir() if p.name.startswith(".brain-")]


def test_a_batch_refuses_a_path_through_a_symlink_out_of_the_vault(vault, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("---\ntitle: X\n---\nsee [[old]]\n")
    for path in ("notes/a.md", "notes/b.md", "notes/c.md"):
        vault.write(path, "---\ntitle: T\n---\nsee [[old]]\n", create=True)
    os.symlink(outside, vault.root / "notes" / "linked")
    os.symlink(outside / "x.md", vault.root / "notes" / "alias.md")  # a file that is a symlink itself
    plain = lambda text: text.replace("[[old]]", "old")  # noqa: E731

    for hostile in ("notes/linked/x.md", "notes/alias.md"):
        rewritten = vault.update_many({"notes/a.md": plain, hostile: plain, "notes/b.md": plain})
        assert isinstance(rewritten.error, UnsafePath) and f"'{hostile}' leads outside the vault" in str(
            rewritten.error
        )
        assert (
            set(rewritten.changed) <= {"notes/a.md"}
            and (outside / "x.md").read_text() == "---\ntitle: X\n---\nsee [[old]]\n"
        )
        deleted = vault.delete_many(["notes/c.md", hostile])
        assert isinstance(deleted.error, UnsafePath) and (outside / "x.md").exists()
    assert (vault.root / "notes/b.md").read_text().endswith("see [[old]]\n") and not (
        vault.root / "notes/c.md"
    ).exists()


def test_a_folder_swapped_for_a_symlink_during_a_batch_is_not_followed_out_of_the_vault(vault, tmp_path: Path) -> None:
    """A batch resolves each folder once, and checks before each file that it is still the same
    directory: one swapped for a symlink meanwhile (here from the batch's own change function,
    where another program's `mv notes/sub x && ln -s /outside notes/sub` could land) is refused."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.md").write_text(
        "---\ntitle: T\n---\nsee [[old]]\n"
    )  # the file in flight is brain's to lose (as before)
    (outside / "b.md").write_text("---\ntitle: B\n---\nsee [[old]]\n")
    sub = vault.root / "notes" / "sub"
    sub.mkdir(parents=True)
    for name in ("a.md", "b.md"):
        (sub / name).write_text("---\ntitle: T\n---\nsee [[old]]\n")

    def swap_then_unlink(text: str) -> str:
        os.rename(sub, vault.root / "notes" / "moved")
        os.symlink(outside, sub)
        return text.replace("[[old]]", "old")

    batch = vault.update_many(
        {"notes/sub/a.md": swap_then_unlink, "notes/sub/b.md": lambda text: text.replace("[[old]]", "old")}
    )
    assert (
        outside / "b.md"
    ).read_text() == "---\ntitle: B\n---\nsee [[old]]\n"  # a file outside the vault is never rewritten
    assert (
        isinstance(batch.error, UnsafePath)
        and "notes/sub/b.md" not in batch.changed
        and "leads outside the vault" in str(batch.error)
    )
