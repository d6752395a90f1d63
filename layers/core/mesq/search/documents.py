"""What the search index holds: one `Doc` per searchable record of a user, built from the
stored item by the record's own domain (`DOCUMENTS` in memos/, todos/, reading/ `literal.py`:
memos not in the trash, live todo tasks, subtasks and inbox items, reading notes not deleted
upstream), each a `DocumentSource` the engine is handed (searchables.py).

A source decides from the item alone, so the indexer can re-read any changed key and know
whether it is searchable now (a memo moved to the trash simply stops being a Doc).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..kernel.ports.storage import Item

Kind = Literal["memo", "todo_task", "inbox_item", "reading_note"]
KINDS: tuple[Kind, ...] = ("memo", "todo_task", "inbox_item", "reading_note")
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


@dataclass(frozen=True)
class DocumentSource:
    """One kind of record the index holds: its records' sort-key prefix (its domain's `keys`), its
    Doc kind, and the Doc of a stored item (None: not searchable now, e.g. in the trash)."""

    prefix: str
    kind: Kind
    doc: Callable[[Item], Doc | None]


def joined(*parts: Any) -> str:
    """A Doc's text from some fields: the ones present, one per line."""
    return "\n".join(str(part) for part in parts if part)


def snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARACTERS else flat[: SNIPPET_CHARACTERS - 1] + "…"
