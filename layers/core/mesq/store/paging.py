"""Reading a whole query, page after page: the one loop every domain uses over `ItemStore.query`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..kernel.ports.storage import Item, ItemStore

#: Items per query page: one DynamoDB response is at most 1 MB anyway.
QUERY_PAGE = 1000


def walk(items: ItemStore, partition: str, *, limit: int | None = None, **query: Any) -> Iterator[Item]:
    """Every item a query yields, page after page, reading no further than `limit` items."""
    after = None
    remaining = limit
    while remaining is None or remaining > 0:
        page_size = QUERY_PAGE if remaining is None else min(remaining, QUERY_PAGE)
        page = items.query(partition, limit=page_size, after=after, **query)
        yield from page.items
        if remaining is not None:
            remaining -= len(page.items)
        if page.next_key is None:
            return
        after = page.next_key
