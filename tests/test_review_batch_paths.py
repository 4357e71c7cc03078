"""Review of 360246b (a batch resolves each folder once): a folder swapped for a symlink while a batch
runs. The folder cache keeps the resolution made before the swap, so later files of the batch are
read and written through the symlink, outside the vault; resolving each file (as before) refuses
them. The swap is made from the batch's own change function, which runs where another process's
`mv notes/sub elsewhere && ln -s /outside notes/sub` could land.
"""

from __future__ import annotations

import os
from pathlib import Path

from brain.errors import UnsafePath


def test_a_folder_swapped_for_a_symlink_during_a_batch_is_not_followed_out_of_the_vault(vault, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.md").write_text("---\ntitle: T\n---\nsee [[old]]\n")  # the file in flight is brain's to lose (as before)
    (outside / "b.md").write_text("---\ntitle: B\n---\nsee [[old]]\n")
    sub = vault.root / "notes" / "sub"
    sub.mkdir(parents=True)
    for name in ("a.md", "b.md"):
        (sub / name).write_text("---\ntitle: T\n---\nsee [[old]]\n")

    def swap_then_unlink(text: str) -> str:
        os.rename(sub, vault.root / "notes" / "moved")
        os.symlink(outside, sub)
        return text.replace("[[old]]", "old")

    batch = vault.update_many({"notes/sub/a.md": swap_then_unlink, "notes/sub/b.md": lambda text: text.replace("[[old]]", "old")})
    assert (outside / "b.md").read_text() == "---\ntitle: B\n---\nsee [[old]]\n"  # a file outside the vault is never rewritten
    assert isinstance(batch.error, UnsafePath) and "notes/sub/b.md" not in batch.changed and "leads outside the vault" in str(batch.error)
