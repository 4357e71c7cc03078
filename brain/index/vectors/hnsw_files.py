"""A vector segment's HNSW files as hnswlib (Chroma's fork) writes them: their header, and zeroing the
capacity no element uses. Apart from `segments.py` so that the store itself (`vectors.py`) can clear
what it leaves when it stops, without importing the segments' bounds (which import the store)."""

from __future__ import annotations

import contextlib
import os
import struct
from pathlib import Path
from typing import Any

# hnswlib's header as Chroma persists it: a format version, then offsetLevel0, max_elements,
# cur_element_count, size_data_per_element, label_offset, offsetData, maxlevel, enterpoint_node,
# maxM, maxM0, M, mult, ef_construction.
HEADER = struct.Struct("<iQQQQQQiIQQQdQ")


def header_fields(path: Path) -> tuple[Any, ...] | None:
    """The header's fields (see HEADER), or None when it is not one of the format Chroma writes."""
    try:
        with open(path, "rb") as file:
            data = file.read(HEADER.size)
        fields = HEADER.unpack(data)
    except (OSError, struct.error):
        return None
    return fields if fields[0] == 1 else None


def clear_unused_capacity(chroma_dir: Path) -> None:
    """Zero what each segment's `data_level0.bin` and `length.bin` hold past the index's elements.

    hnswlib allocates a new index's whole capacity with malloc and Chroma's fork writes all of it
    when the index is first persisted (`initPersistentIndex`), so the slots no element uses yet
    carry whatever this process freed there before: a note's text, or a secret `brain redact` is
    removing (issue 40). hnswlib never reads those slots as elements (it zeroes a slot when it adds
    one), so each file is cut at the last element and extended again to its size: the rest reads as
    zeros. The layout comes from the segment's own header; a header of another format, or one whose
    element count its files do not hold, is left alone. Under the index lock (no writer meanwhile)."""
    try:
        folders = [entry.path for entry in os.scandir(chroma_dir) if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for folder in folders:
        fields = header_fields(Path(folder) / "header.bin")
        if fields is None:
            continue
        _, level0_offset, capacity, elements, element_bytes, *_ = fields
        if level0_offset != 0 or element_bytes <= 0 or not 0 <= elements <= capacity:
            continue
        _cut_and_extend(Path(folder) / "data_level0.bin", elements * element_bytes)
        _cut_and_extend(Path(folder) / "length.bin", elements * 4)  # a float per element


def _cut_and_extend(path: Path, used: int) -> None:
    """Bytes of `path` past `used` made zeros (a sparse hole where the file system has them)."""
    with contextlib.suppress(OSError), open(path, "r+b") as file:
        size = os.fstat(file.fileno()).st_size
        if size > used:
            file.truncate(used)
            file.truncate(size)
