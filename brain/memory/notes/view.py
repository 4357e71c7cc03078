"""Notes and contexts as JSON and lines, shared by the CLI and the MCP server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brain.markdown.model import Note
from brain.plain import plain
from brain.vault.history_log import Usage

if TYPE_CHECKING:  # the services' types, for annotations: a view loads no service
    from brain.memory.causal.neighbourhood import BuiltContext
    from brain.memory.notes.history import NoteHistory, PurgeReceipt, Restored
    from brain.memory.notes.listing import Listed
    from brain.memory.notes.move_journal import Moved
    from brain.memory.notes.service import Written


def note_json(note: Note) -> dict[str, Any]:
    """The parsed form of a note: frontmatter, body, and what brain read from it."""
    return {
        "path": note.path,
        "title": note.title,
        "type": note.type,
        "tags": list(note.tags),
        "frontmatter": plain(note.frontmatter),
        "body": note.body,
        "links": sorted({link.target for link in note.links}),
        "observations": plain(note.observations),
        "relations": plain(note.relations),
        "causal_relations": plain(note.causal_relations),
        "problems": list(note.problems),
    }


def written_line(written: Written) -> str:
    return f"{'created' if written.created else 'updated'} {written.path}"


def edited_line(written: Written, operation: str) -> str:
    return f"edited {written.path} ({operation})"


def context_json(built: BuiltContext) -> dict[str, Any]:
    """A built context: what it started from, the budget it used, and each note packed into it."""
    return {
        "start": built.start,
        "depth": built.depth,
        "budget_tokens": built.budget_tokens,
        "used_tokens": built.used_tokens,
        "items": [
            {
                "path": item.path,
                "title": item.title,
                "type": item.type,
                "distance": item.distance,
                "via": item.via,
                "from": item.from_path,
                "truncated": item.truncated,
                "text": item.text,
            }
            for item in built.items
        ],
        "omitted": list(built.omitted),
        "missing": list(built.missing),
    }


def moved_line(moved: Moved) -> str:
    if not moved.moved:
        return f"{moved.path} is there already; nothing moved"
    updated = f"{_count(moved.links, 'link')} in {_count(len(moved.notes), 'note')} updated"
    line = f"moved {moved.moved_from} to {moved.path}; {updated}"
    if moved.failed:
        line += f"; {_count(len(moved.failed), 'note')} not updated: " + "; ".join(moved.failed)
    return line


def finished_move_line(moved: Moved) -> str:
    """What `brain doctor` says of a move killed part-way that opening the vault finished."""
    return f"finished the interrupted move: {moved_line(moved)}"


def moved_json(moved: Moved) -> dict[str, Any]:
    return {
        "path": moved.path,
        "title": moved.title,
        "moved_from": moved.moved_from,
        "moved": moved.moved,
        "links_updated": moved.links,
        "notes_updated": list(moved.notes),
        "failed": list(moved.failed),
    }


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _short_time(text: str) -> str:
    return text[:19] + "Z" if len(text) > 19 else text


def history_json(found: NoteHistory) -> dict[str, Any]:
    return {
        "path": found.path,
        "title": found.title,
        "exists": found.exists,
        "current_sha256": found.current_sha256,
        "changed_outside": found.changed_outside,
        "versions": [
            {
                "version": entry.v,
                "event": entry.event,
                "time": entry.time,
                "by": entry.by,
                "command": entry.command,
                "size": entry.size,
                "sha256": entry.sha256,
                "moved_from": entry.moved_from,
                "path_then": entry.path,  # where the note was (a note renamed outside brain keeps its history)
                "current": bool(entry.sha256) and entry.sha256 == found.current_sha256 and entry is found.versions[0],
            }
            for entry in found.entries
        ],
    }


def history_lines(found: NoteHistory) -> list[str]:
    """Newest first: version, time, who, command, size, hash (what `brain note history` prints)."""
    state = "" if found.exists else " (deleted; `restore` brings it back)"
    lines = [f"{found.path}: {_count(len(found.versions), 'version')}{state}"]
    if found.changed_outside:
        lines.append("  the file was changed outside brain since; that version is kept at brain's next write")
    for row in history_json(found)["versions"]:
        what = row["command"] or row["event"]
        if row["sha256"] is None:
            lines.append(f"v{row['version']:<4} {_short_time(row['time'])}  {row['by']:<8} {what:<16} deleted")
            continue
        extra = f"  from {row['moved_from']}" if row["moved_from"] else ""
        extra += "  (current)" if row["current"] else ""
        lines.append(
            f"v{row['version']:<4} {_short_time(row['time'])}  {row['by']:<8} {what:<16} "
            f"{row['size']:>9,} B  {row['sha256'][:12]}{extra}"
        )
    return lines


def restored_line(restored: Restored) -> str:
    if not restored.written:
        return f"{restored.path} already holds version {restored.version}; nothing written"
    verb = "brought back" if restored.created else "restored"
    return f"{verb} {restored.path} at version {restored.version}"


def restored_json(restored: Restored) -> dict[str, Any]:
    return {
        "path": restored.path,
        "version": restored.version,
        "written": restored.written,
        "created": restored.created,
    }


def purged_line(purged: PurgeReceipt) -> str:
    if purged.version is not None:
        return (
            f"purged version {purged.version} of {purged.path}: {_count(purged.purged.versions, 'version')} of those "
            f"bytes gone for good; the note and its other versions stay (receipt {purged.receipt})"
        )
    what = "deleted and purged" if purged.file_deleted else "purged"
    return f"{what} {purged.path}: {_count(purged.purged.versions, 'version')} gone for good (receipt {purged.receipt})"


def purged_json(purged: PurgeReceipt) -> dict[str, Any]:
    return {
        "path": purged.path,
        "title": purged.title,
        "file_deleted": purged.file_deleted,
        "versions_purged": purged.purged.versions,
        "objects_purged": purged.purged.objects,
        "receipt": purged.receipt,
        **({"version": purged.version} if purged.version is not None else {}),
    }


def listed_json(listed: Listed) -> dict[str, Any]:
    return {
        "path": listed.path,
        "title": listed.title,
        "type": listed.type,
        "tags": list(listed.tags),
        "modified": listed.modified.replace(microsecond=0).isoformat().replace("+00:00", "Z"),
    }


def listed_lines(found: list[Listed]) -> list[str]:
    width = max((len(item.type) for item in found), default=4)
    return [
        f"{item.modified.strftime('%Y-%m-%d %H:%M')}  {item.type:<{width}}  {item.path}"
        + (f"  #{' #'.join(item.tags)}" if item.tags else "")
        for item in found
    ]


def usage_json(usage: Usage) -> dict[str, Any]:
    """The history's size in `brain doctor --json` (bytes on disk: stored versions and logs)."""
    return {
        "notes": usage.notes,
        "versions": usage.versions,
        "objects": usage.objects,
        "bytes": usage.bytes,
        "path": ".brain/history",
    }


def usage_line(usage: Usage) -> str:
    """What `brain doctor` says of the history."""
    size = f"{usage.bytes / 2**20:.1f} MiB" if usage.bytes >= 2**20 else f"{usage.bytes / 1024:.1f} KiB"
    return (
        f"history: {_count(usage.versions, 'version')} of {_count(usage.notes, 'note')}, {size} in .brain/history "
        "(pruned by `brain index` after [history] keep_days / max_versions)"
    )
