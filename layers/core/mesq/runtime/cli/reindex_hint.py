"""Whether an import left the person's AI search index behind, and the command that catches it up.

`mesq import` writes with the in-process index updates off (main.py: one rebuild afterwards beats
one refresh per record). A user with no AI index yet needs nothing: the first search builds it
from the store. A user whose index existed before the import holds an index without the imported
records, which only a rebuild adds; on AWS (DynamoDB without a local endpoint) the table's stream
feeds the indexer function, which adds them itself. The literal indexes find themselves out of
step and rebuild on their own. Every import path asks `reindex_hint` (one place: when imports
build the index themselves, this is where the hint goes)."""

from __future__ import annotations

from ...kernel.ports.storage import ItemStore
from ...search.persist import pointer_key
from ...wiring.config import Settings
from .common import command_path, rerun_options


def reindex_needed(items: ItemStore, settings: Settings, user_id: str, created: int) -> bool:
    streamed = settings.storage == "dynamodb" and not settings.dynamodb_endpoint
    return created > 0 and not streamed and items.get(pointer_key(user_id)) is not None


def reindex_hint(items: ItemStore, settings: Settings, user_id: str, username: str, created: int) -> str | None:
    """The line that tells the person to rebuild, runnable as printed; None when nothing is needed."""
    if not reindex_needed(items, settings, user_id, created):
        return None
    command = f"{command_path()} search reindex {username}{rerun_options(settings)}"
    return f"AI search does not know the imported records yet: run `{command}` (the exact-text search does)"


__all__ = ["reindex_hint", "reindex_needed"]
