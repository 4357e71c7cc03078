"""The one way brain replaces a file it owns: whole or not at all, its mode as asked, through a link."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from brain.vault.atomic import replace_file, write_json


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old\n", encoding="utf-8")

    def half_then_fail(handle) -> None:
        handle.write(b"new and half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        replace_file(target, half_then_fail)
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["state.json"]


def test_text_bytes_and_json_replace_the_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "state.json"
    replace_file(target, "één\n")
    assert target.read_bytes() == "één\n".encode()
    replace_file(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    write_json(target, {"a": [1, 2]}, indent=None)
    assert target.read_text(encoding="utf-8") == '{"a":[1,2]}\n'
    write_json(target, {"a": 1})
    assert json.loads(target.read_text(encoding="utf-8")) == {"a": 1}


def test_the_mode_asked_for_is_the_files_whatever_the_umask(tmp_path: Path) -> None:
    target = tmp_path / "private"
    old = os.umask(0o077)
    try:
        replace_file(target, "x", mode=0o644)
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    replace_file(target, "y", mode=0o600)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_through_a_symlink_the_target_is_replaced_and_the_link_stays(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "config.toml"
    real.parent.mkdir()
    real.write_text("a = 1\n", encoding="utf-8")
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    replace_file(link, "a = 2\n")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "a = 2\n"
