"""What the search index holds: one `Doc` per searchable record of a user, built from the stored
item. Memos (not in the trash), live todo root tasks and subtasks (title + notes), live inbox items
(title + notes + their subtasks' titles) and reading notes (not deleted upstream).

`doc_of` decides from the item alone, so the indexer can re-read any changed key and know
whether it is searchable now (a memo moved to the trash simply stops being a Doc).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..kernel.keys import partition_owner
from ..kernel.ports.storage import Item

Kind = Literal["memo", "todo_task", "inbox_item", "reading_note"]
KINDS: tuple[Kind, ...] = ("memo", "todo_task", "inbox_item", "reading_note")
# The sort-key prefixes of the records `doc_of` can index (the indexer ignores every other key).
SOURCE_PREFIXES: dict[str, Kind] = {
    "MEMO#": "memo",
    "TODO#TASK#": "todo_task",
    "TODO#INBOX#": "inbox_item",
    "READ#NOTE#": "reading_note",
}
SNIPPET_CHARACTERS = 200


@dataclass(frozen=True)
class Doc:
    kind: Kind
    id: str
    text: str
    #: Filter fields: memos keep status, tagPaths, createdAt; every kind keeps createdAt if known.
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.id}"


def source_kind(sort_key: str) -> Kind | None:
    for prefix, kind in SOURCE_PREFIXES.items():
        if sort_key.startswith(prefix):
            return kind
    return None


def searchable_owner(pk: str, sk: str) -> str | None:
    """Is this key a searchable user record, and whose? The one rule the stream consumer
    (stream.py), the in-process follower (follow.py) and, through SOURCE_PREFIXES, the indexer's
    stream filter in template.yaml apply (tests/search/test_searchable_keys.py ties them)."""
    owner = partition_owner(pk)
    return owner if owner is not None and source_kind(sk) is not None else None


def _joined(*parts: Any) -> str:
    return "\n".join(str(part) for part in parts if part)


def doc_of(item: Item) -> Doc | None:
    """The Doc of a stored item, or None when the item is not (or no longer) searchable."""
    kind = source_kind(str(item.get("sk", "")))
    if kind == "memo":
        if item["status"] == "DELETED":
            return None
        meta = {"status": item["status"], "tagPaths": list(item.get("tagPaths", [])), "createdAt": item["createdAt"]}
        return Doc("memo", item["id"], item["content"], meta)
    if kind in ("todo_task", "inbox_item"):
        if item.get("deletedAt") is not None:
            return None
        subtasks = [sub.get("title") for sub in item.get("subtasks", []) if isinstance(sub, dict)]
        text = _joined(item.get("title"), item.get("notes"), *subtasks)
        return Doc(kind, item["id"], text, {"createdAt": item.get("createdAt")})
    if kind == "reading_note":
        if item.get("deletedUpstream"):
            return None
        text = _joined(item.get("content"), item.get("quotedText"), item.get("chapterTitle"))
        meta = {"createdAt": item.get("createdAt"), "bookId": item["bookId"], "noteType": item.get("noteType")}
        return Doc("reading_note", item["id"], text, meta)
    return None


def snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARACTERS else flat[: SNIPPET_CHARACTERS - 1] + "…"
