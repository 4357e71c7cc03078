"""The embedded Chroma store's vector segments on disk: what each one's files take, the most they may
take, and the folders Chroma leaves behind. Read from the files and `chroma.sqlite3`, without chromadb.

Chroma keeps each collection's HNSW index in a folder named by its segment's id: `header.bin` (the
index's parameters and element count), `data_level0.bin` (each element's vector and level-0 links),
`length.bin` (the size of each element's upper-level links), `link_lists.bin` (those links) and
`index_metadata.pickle` (ids and labels). Their sizes follow from the element count, and the element
count from the records the collection holds, but for two things. Chroma never reuses a deleted
record's slot, so every chunk embedded again adds an element for good. And projects that embed Chroma
saw `link_lists.bin` grow to hundreds of GB (resize-and-persist cycles, killed writers, two processes
writing one segment). So each segment is held to a bound from its records (`Segment.bound`), checked
after every write, and rebuilt beyond it (`brain/index/sync/disk_bound.py`); `brain doctor` reports it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brain.index.vectors.hnsw_files import HEADER as _HEADER
from brain.index.vectors.hnsw_files import header_fields as _header_fields
from brain.index.vectors.identity import SHARED_SUFFIX, collection_name
from brain.index.vectors.vectors import HNSW, HNSW_BATCH, Metadata, VectorStore

SEGMENT_FILES = ("header.bin", "data_level0.bin", "length.bin", "link_lists.bin", "index_metadata.pickle")
GARBAGE_SLACK = 1024  # elements (deleted ones included) allowed beyond twice the records held
FILE_SLACK = 1 << 20  # bytes allowed beyond what the elements need
IDS_PER_ELEMENT = 256  # index_metadata.pickle: a record's id (brain's are under 70 characters) and label, both ways
DEFAULT_M = 16  # Chroma's max_neighbors, for a segment not persisted yet
_SEGMENT_FOLDER = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass(frozen=True)
class Segment:
    """One vector segment folder and its bound."""

    id: str
    collection: str  # the collection's name; '' for a folder no collection uses (left behind)
    records: int  # records the collection holds (Chroma's metadata segment)
    elements: int | None  # the HNSW index's elements, deleted ones included; None before its first persist
    apparent: int  # bytes the files say they hold (a sparse file counts whole)
    on_disk: int  # bytes the files take on disk
    allowed_elements: int
    bound: int  # the most bytes the files may hold

    @property
    def in_bounds(self) -> bool:
        return (
            bool(self.collection)
            and max(self.apparent, self.on_disk) <= self.bound
            and (self.elements or 0) <= self.allowed_elements
        )

    def why(self) -> str:
        """What is out of bounds, in a line ('' when nothing is)."""
        held = max(self.apparent, self.on_disk)
        if not self.collection:
            return f"the vector segment {self.id} belongs to no collection ({held} bytes)"
        if (self.elements or 0) > self.allowed_elements:
            return (
                f"the vector segment {self.id} ({self.collection}) has {self.elements} elements for "
                f"{self.records} records, over the {self.allowed_elements} they allow"
            )
        if held > self.bound:
            return (
                f"the vector segment {self.id} ({self.collection}) holds {held} bytes for {self.records} records, "
                f"over the {self.bound} they allow"
            )
        return ""


def segments(chroma_dir: Path) -> list[Segment]:
    """Every vector segment folder of the embedded store at `chroma_dir`, by id; [] when there is no
    store or its list of segments cannot be read."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{chroma_dir / 'chroma.sqlite3'}?mode=ro", uri=True)) as db:
            rows = db.execute(
                "SELECT s.id, c.name, COALESCE(c.dimension, 0), "
                "(SELECT COUNT(*) FROM embeddings e JOIN segments m ON e.segment_id = m.id "
                " WHERE m.collection = s.collection AND m.scope = 'METADATA') "
                "FROM segments s JOIN collections c ON c.id = s.collection WHERE s.scope = 'VECTOR'"
            ).fetchall()
        folders = sorted(entry.name for entry in os.scandir(chroma_dir) if entry.is_dir(follow_symlinks=False))
    except (sqlite3.Error, OSError):
        return []
    known = {str(segment): (str(name), int(dimension), int(records)) for segment, name, dimension, records in rows}
    found = []
    for folder in folders:
        if folder in known or _SEGMENT_FOLDER.fullmatch(folder):
            name, dimension, records = known.get(folder, ("", 0, 0))
            found.append(_segment(chroma_dir / folder, name, dimension, records))
    return found


def _segment(folder: Path, collection: str, dimension: int, records: int) -> Segment:
    apparent = on_disk = 0
    for name in SEGMENT_FILES:
        try:
            info = os.stat(folder / name)
        except OSError:
            continue
        apparent += info.st_size
        on_disk += info.st_blocks * 512
    header = _header(folder / "header.bin")
    if header is not None:
        elements, element_bytes, upper_links = header
    else:
        elements = None
        element_bytes = 4 + 2 * DEFAULT_M * 4 + dimension * 4 + 8  # level-0 links, the vector, the label
        upper_links = 4 + DEFAULT_M * 4
    allowed = 2 * records + GARBAGE_SLACK if collection else 0
    # Per element: its vector and level-0 links, its length entry, a full list of upper-level links
    # (most elements have none: about one in M does), and its id and label.
    per_element = element_bytes + 4 + upper_links + IDS_PER_ELEMENT
    bound = allowed * per_element + _HEADER.size + FILE_SLACK if collection else 0
    return Segment(folder.name, collection, records, elements, apparent, on_disk, allowed, bound)


def _header(path: Path) -> tuple[int, int, int] | None:
    """(elements, bytes per element at level 0, bytes of one upper-level link list), or None."""
    fields = _header_fields(path)
    if fields is None:
        return None
    _, _, _, elements, element_bytes, _, _, _, _, max_m, *_ = fields
    return int(elements), int(element_bytes), 4 + int(max_m) * 4


def remove_orphan_segments(chroma_dir: Path) -> list[str]:
    """Delete the segment folders no collection uses any more; the ids of those deleted. Chroma deletes
    a collection's rows but leaves its segment's files, so each `brain reindex` left a whole copy of the
    vectors behind. Nothing is deleted when the store's list of segments cannot be read."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{chroma_dir / 'chroma.sqlite3'}?mode=ro", uri=True)) as db:
            used = {str(row[0]) for row in db.execute("SELECT id FROM segments")}
        folders = [entry.name for entry in os.scandir(chroma_dir) if entry.is_dir(follow_symlinks=False)]
    except (sqlite3.Error, OSError):
        return []
    orphans = sorted(name for name in folders if _SEGMENT_FOLDER.fullmatch(name) and name not in used)
    for name in orphans:
        shutil.rmtree(chroma_dir / name, ignore_errors=True)
    return orphans


def drop_vault_collections(
    index_dir: Path, vault_root: Path, chroma_url: str | None, vault_id: str | None = None
) -> int:
    """Delete every collection of this vault, whatever embedder wrote it (reindex). Returns how many.

    Not a shared collection on a server (`shared_collection_name`): its records are named by their
    text, so none is ever stale, and the vault's other clones use it."""
    store = VectorStore.__new__(VectorStore)
    store.chroma_url, store.path, store._client, store._collection = chroma_url, Path(index_dir) / "chroma", None, None
    if not chroma_url and not store.path.exists():
        return 0
    client = store._connect()
    prefix = collection_name(vault_root, "x", vault_id if chroma_url else None)[:-1]
    dropped = 0
    try:
        for collection in client.list_collections():
            name = collection if isinstance(collection, str) else collection.name
            if name.startswith(prefix) and not name.endswith(SHARED_SUFFIX):
                client.delete_collection(name)
                dropped += 1
    finally:
        client.close()
    if not chroma_url:
        remove_orphan_segments(store.path)  # Chroma leaves a deleted collection's files behind
    return dropped


def rebuild_collection(
    store: VectorStore, name: str, ids: Sequence[str], embeddings: Any, metadatas: Sequence[Metadata]
) -> None:
    """Replace the vault's collection `name` by a new one holding exactly these records (under the index
    lock): a segment out of its bound is never read again, only replaced; its folder is deleted."""
    with store._lock:
        store._check_fresh()
        if store._client is None:
            store._client = store._connect()
        metadata = store._client.get_collection(name, embedding_function=None).metadata  # read from Chroma's catalog
        store._client.delete_collection(name)
        store._collection = None
        new = store._client.create_collection(
            name, metadata=metadata, configuration={"hnsw": HNSW}, embedding_function=None
        )
        for start in range(0, len(ids), HNSW_BATCH):
            end = start + HNSW_BATCH
            new.add(ids=list(ids[start:end]), embeddings=embeddings[start:end], metadatas=list(metadatas[start:end]))
    remove_orphan_segments(store.path)


# ---------------------------------------------------------------- what the store keeps of the notes' text


def kept_strings(chroma_dir: Path) -> list[tuple[str | None, str]]:
    """Every string of the records' metadata the embedded store keeps (a chunk's `section` is a heading
    of its note), with the note's path where the metadata names it: the metadata records hold now
    (`embedding_metadata`) and Chroma's own operation log (`embeddings_queue`), which keeps every
    write's metadata until its vector index is written out. `brain redact` looks for secrets there."""
    found: list[tuple[str | None, str]] = []
    try:
        with contextlib.closing(sqlite3.connect(f"file:{chroma_dir / 'chroma.sqlite3'}?mode=ro", uri=True)) as db:
            for (text,) in db.execute("SELECT metadata FROM embeddings_queue WHERE metadata IS NOT NULL"):
                found += _metadata_strings(text)
            found += db.execute(
                "SELECT p.string_value, m.string_value FROM embedding_metadata m "
                "LEFT JOIN embedding_metadata p ON p.id = m.id AND p.key = 'path' "
                "WHERE m.string_value IS NOT NULL AND m.key != 'path'"
            ).fetchall()
    except (sqlite3.Error, OSError):  # no store yet, or one of another layout
        return found
    return found


def _metadata_strings(text: Any) -> list[tuple[str | None, str]]:
    try:
        metadata = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return []
    if not isinstance(metadata, dict):
        return []
    path = metadata.get("path") if isinstance(metadata.get("path"), str) else None
    return [(path, value) for key, value in metadata.items() if isinstance(value, str) and key != "path"]


def compact_store(chroma_dir: Path) -> None:
    """Rewrite `chroma.sqlite3` without free pages (what deleted rows held), its journal emptied.
    Under the index lock, after the collections holding old text were rebuilt."""
    with contextlib.closing(sqlite3.connect(str(chroma_dir / "chroma.sqlite3"), timeout=60)) as db:
        db.execute("VACUUM")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
