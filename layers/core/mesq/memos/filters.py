"""Which memos a list, search or insight selection means: the filter arguments as a
`MemoFilter` that matches index entries (projected attributes) and whole memos alike."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..kernel.errors import ValidationError
from ..kernel.ports.storage import Item
from ..kernel.timestamps import normalize_timestamp
from .keys import MEMO_PREFIX


def entry_id(entry: Item) -> str:
    """The memo id of an index entry or stored memo (from its sort key)."""
    return str(entry["sk"]).removeprefix(MEMO_PREFIX)


@dataclass(frozen=True)
class MemoFilter:
    statuses: tuple[str, ...]
    tags: tuple[str, ...] = ()
    untagged: bool | None = None
    pinned: bool | None = None
    created_from: str | None = None
    created_to: str | None = None
    updated_after: str | None = None

    @property
    def is_plain(self) -> bool:
        """Only a status: counters answer totalCount and the index order is the answer order."""
        return not (
            self.tags
            or self.untagged is not None
            or self.pinned is not None
            or self.created_from
            or self.created_to
            or self.updated_after
        )

    @property
    def is_empty_range(self) -> bool:
        return bool(self.created_from and self.created_to and self.created_from >= self.created_to)

    def matches(self, item: Item) -> bool:
        """Works on index entries (projected attributes) as well as whole memos."""
        if item["status"] not in self.statuses:
            return False
        paths = item.get("tagPaths", [])
        if self.tags and any(tag not in paths for tag in self.tags):  # no generator per memo when untagged
            return False
        if self.untagged is not None and self.untagged != (not paths):
            return False
        if self.pinned is not None and self.pinned != item["pinned"]:
            return False
        created = item["createdAt"]
        if self.created_from and created < self.created_from:
            return False
        if self.created_to and created >= self.created_to:
            return False
        return not (self.updated_after and item["updatedAt"] <= self.updated_after)


def literal_match(memo_filter: MemoFilter, needle: str, fields: Item, folded_content: str) -> bool:
    """search_memos' one predicate, for the scan (a whole memo and its content folded) and for the
    literal index's candidates (a row's fields and folded text) alike: `needle` is folded too."""
    return needle in folded_content and memo_filter.matches(fields)


def literal_matcher(memo_filter: MemoFilter, needle: str) -> Callable[[Item, str], bool]:
    """`literal_match` bound to a filter and a needle, for the literal index's candidates: with a
    status alone (search_memos' default) the filter is one comparison, not `matches`' seven (a
    common two-character needle has tens of thousands of candidates at 100k memos, and this
    predicate was most of the search's time)."""
    if memo_filter.is_plain:
        statuses = memo_filter.statuses
        if len(statuses) == 1:
            (status,) = statuses
            return lambda fields, text: needle in text and fields["status"] == status
        return lambda fields, text: needle in text and fields["status"] in statuses
    return functools.partial(literal_match, memo_filter, needle)


def statuses(value: str | None) -> tuple[str, ...]:
    if value == "ALL":
        return ("NORMAL", "ARCHIVED")
    return (value or "NORMAL",)


def time_arg(args: dict[str, Any], name: str) -> str | None:
    value = args.get(name)
    return normalize_timestamp(value, name) if value is not None else None


def filter_from(args: dict[str, Any]) -> MemoFilter:
    created_from = time_arg(args, "createdFrom")
    created_to = time_arg(args, "createdTo")
    if created_from and created_to and created_from > created_to:
        raise ValidationError("createdFrom must not be after createdTo")
    return MemoFilter(
        statuses=statuses(args.get("status")),
        tags=tuple(args.get("tags", ())),
        untagged=args.get("untagged"),
        pinned=args.get("pinned"),
        created_from=created_from,
        created_to=created_to,
        updated_after=time_arg(args, "updatedAfter"),
    )


def sort_key(entry: Item) -> tuple[bool, str, str]:
    return (bool(entry["pinned"]), entry["createdAt"], entry_id(entry))
