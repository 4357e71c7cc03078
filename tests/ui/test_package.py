"""The viewer's templates and assets ship in the wheel: a page needs nothing from anywhere else."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import REPO


def test_every_template_and_asset_is_in_the_wheel(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    ui = REPO / "brain" / "ui"
    wanted = {
        path.relative_to(REPO).as_posix()
        for folder in ("templates", "static")
        for path in (ui / folder).iterdir()
        if path.is_file()
    }
    assert {"brain/ui/static/style.css", "brain/ui/templates/base.html"} <= wanted
    assert wanted - shipped == set()
