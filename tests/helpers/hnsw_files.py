"""The room hnswlib keeps past a vector segment's elements, read and filled from its own files
(independently of brain's code), for the tests of issue 40: Chroma writes that room from memory it
never initialised, which held whatever the writing process had freed (a secret being redacted)."""

from __future__ import annotations

import struct
from pathlib import Path

HEADER = struct.Struct("<iQQQQQQiIQQQdQ")  # hnswlib's header as Chroma persists it
FREED = b"what the writing process freed: token=s3cretInTheHeap "  # as malloc hands it back, unzeroed


def layout(folder: Path) -> tuple[int, int, int]:
    """(capacity, elements, bytes per element) from the segment's `header.bin`."""
    _, _, capacity, elements, element_bytes, *_ = HEADER.unpack((folder / "header.bin").read_bytes()[: HEADER.size])
    return capacity, elements, element_bytes


def past_elements(chroma: Path) -> dict[str, int]:
    """Each segment file's bytes other than zero past the elements its header counts, by
    `segment/file` (`data_level0.bin`: a slot per element; `length.bin`: a float per element)."""
    found = {}
    for header in sorted(chroma.glob("*/header.bin")):
        _, elements, element_bytes = layout(header.parent)
        for name, used in (("data_level0.bin", elements * element_bytes), ("length.bin", elements * 4)):
            past = (header.parent / name).read_bytes()[used:]
            if past.count(0) != len(past):
                found[f"{header.parent.name}/{name}"] = len(past) - past.count(0)
    return found


def plant_freed(chroma: Path) -> dict[str, int]:
    """FREED written over every byte past each segment's elements, as hnswlib leaves them; the
    files' sizes by `segment/file` (each exactly the capacity the header names)."""
    sizes = {}
    for header in sorted(chroma.glob("*/header.bin")):
        capacity, elements, element_bytes = layout(header.parent)
        for name, used, whole in (
            ("data_level0.bin", elements * element_bytes, capacity * element_bytes),
            ("length.bin", elements * 4, capacity * 4),
        ):
            path = header.parent / name
            assert path.stat().st_size == whole, (path, whole)
            with open(path, "r+b") as file:
                file.seek(used)
                file.write((FREED * (whole // len(FREED) + 1))[: whole - used])
            sizes[f"{header.parent.name}/{name}"] = whole
    return sizes


def sizes(chroma: Path, names: dict[str, int]) -> dict[str, int]:
    return {name: (chroma / name).stat().st_size for name in names}
