"""What the search engines are handed: every kind of record the indexes hold, as the domains
describe them (`DOCUMENTS` and `LITERAL` in memos/, todos/, reading/ `literal.py`), gathered
once in application/registries.py (`SEARCHABLES`) and set by the composition root on the
process's search runtime (`services.search.searchables`), where the indexer, the literal store,
the in-process follower and the stream consumer read it. Search itself names no domain.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..kernel.context import Services
from ..kernel.keys import partition_owner
from ..kernel.ports.storage import Item
from .documents import Doc, DocumentSource, Kind
from .literal_kind import LiteralKind


@dataclass(frozen=True)
class Searchables:
    #: The AI index's sources, in the order a rebuild reads them.
    documents: tuple[DocumentSource, ...]
    #: The literal indexes, one per kind.
    literal: tuple[LiteralKind, ...]

    @property
    def prefixes(self) -> dict[str, Kind]:
        """The sort-key prefixes of the records the AI index can hold (the indexer's stream
        filter in template.yaml names exactly these: tests/search/test_searchable_keys.py)."""
        return {source.prefix: source.kind for source in self.documents}

    @property
    def literal_prefixes(self) -> tuple[str, ...]:
        return tuple(prefix for kind in self.literal for prefix in kind.prefixes)

    def source(self, sort_key: str) -> DocumentSource | None:
        return next((source for source in self.documents if sort_key.startswith(source.prefix)), None)

    def source_kind(self, sort_key: str) -> Kind | None:
        source = self.source(sort_key)
        return None if source is None else source.kind

    def doc_of(self, item: Item) -> Doc | None:
        """The Doc of a stored item, or None when the item is not (or no longer) searchable."""
        source = self.source(str(item.get("sk", "")))
        return None if source is None else source.doc(item)

    def owner(self, pk: str, sk: str) -> str | None:
        """Is this key a searchable user record, and whose? The one rule the stream consumer
        (stream.py) and the in-process follower (follow.py) apply."""
        owner = partition_owner(pk)
        return owner if owner is not None and self.source(sk) is not None else None

    def literal_named(self, name: str) -> LiteralKind:
        return next(kind for kind in self.literal if kind.name == name)


def searchables_of(services: Services) -> Searchables:
    """The process's searchables (the composition root sets them on `services.search`)."""
    found = services.search.searchables()
    if not isinstance(found, Searchables):
        raise RuntimeError("services.search.searchables is not set (the composition root sets it)")
    return found
