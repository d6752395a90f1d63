"""What an AI search answers while the user has no AI index yet (its build is queued or running):
the literal indexes' matches of the query's words, ranked by how many of them a record holds.

The terms are the query's words as the literal index sees them (NFKC, case-folded): each word of
two or more letters outside Han, kana and hangul, stop words dropped, and each character pair of
a Han run (the literal index's own bigrams: 科幻小说 -> 科幻, 幻小, 小说), so a partial Chinese
match still counts. jieba is not loaded for this. A record's score is the share of the terms it
contains (0-1; every candidate is checked against its folded text, as a literal search checks
it); ties keep each index's own order (memos: pinned, then newest). The first `limit` are read
by key, so the hits carry the record's own text, and the caller's filter decides on them.
A kind whose literal index is missing too (a new account's first search, an index being rebuilt)
is read from the store, as a literal search without its index scans, and its rebuild is queued:
the record written a moment ago is found either way.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from itertools import pairwise

from aws_lambda_powertools import Logger

from ..kernel.context import Services
from ..kernel.keys import user_partition
from .documents import Doc, Kind
from .literal_index import LiteralIndex
from .literal_kind import LiteralKind, fold
from .literal_store import repository
from .searchables import Searchables, searchables_of
from .tokenizer import CJK_CHARACTERS, STOPWORDS

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
#: The tokenizer's runs: a word of other letters and digits ends where a CJK run begins.
_RUNS = re.compile(rf"([{CJK_CHARACTERS}]+)|([^\W_{CJK_CHARACTERS}]+)")
#: Candidates read by key per hit wanted: the caller's filter may drop some.
READ_AHEAD = 3


def terms(query: str) -> list[str]:
    folded = fold(unicodedata.normalize("NFKC", query))
    found: list[str] = []
    for han, word in _RUNS.findall(folded):
        if han:
            found += [a + b for a, b in pairwise(han)] if len(han) > 1 else [han]
        elif len(word) > 1 and word not in STOPWORDS:
            found.append(word)
    return list(dict.fromkeys(found))


def literal_of(searchables: Searchables, kinds: set[Kind]) -> list[LiteralKind]:
    """The literal indexes that hold records of these searchable kinds (the one whose rows come
    from each kind's records), each once."""
    held = [source.prefix for source in searchables.documents if source.kind in kinds]
    return [kind for kind in searchables.literal if any(kind.owns(prefix) for prefix in held)]


def _scored(services: Services, user_id: str, kind: LiteralKind, wanted: list[str]) -> list[tuple[float, int, str]]:
    """(share of the terms, place in the index's order, sort key) of every row holding a term."""
    loaded = repository(services, kind).load(user_id)
    if loaded is None:
        services.search.literal_missing(user_id, kind.name)
        index = LiteralIndex.build(kind.order, kind.all_rows(services.items, user_id), kind.descending)
    else:
        index = loaded[0]
    counts: Counter[str] = Counter()
    place: dict[str, int] = {}
    for term in wanted:
        snapshot, overlay = index.candidates(term)
        for row in (*snapshot, *overlay):
            if term in row.text:
                counts[row.id] += 1
                place.setdefault(row.id, index.ordinals.get(row.id, len(index.rows)))
    return [(count / len(wanted), place[row_id], kind.sort_key(row_id)) for row_id, count in counts.items()]


def literal_hits(
    services: Services, user_id: str, query: str, kinds: set[Kind], accept: Callable[[Doc], bool], limit: int
) -> list[tuple[Doc, float]]:
    """The best `limit` records of `kinds` that `accept` takes, with their scores."""
    wanted = terms(query)
    if not wanted:
        return []
    scored: list[tuple[float, int, str]] = []
    searchables = searchables_of(services)
    for kind in literal_of(searchables, kinds):
        try:
            scored += _scored(services, user_id, kind, wanted)
        except Exception:  # an accelerator only: this kind gives nothing now
            log.exception("search fallback: literal %s index failed", kind.name)
    scored.sort(key=lambda hit: (-hit[0], hit[1], hit[2]))
    hits: list[tuple[Doc, float]] = []
    partition = user_partition(user_id)
    for begin in range(0, len(scored), limit * READ_AHEAD):
        page = scored[begin : begin + limit * READ_AHEAD]
        found = {item["sk"]: item for item in services.items.batch_get([(partition, key) for _, _, key in page])}
        for share, _place, key in page:
            doc = searchables.doc_of(found[key]) if key in found else None
            if doc is not None and doc.kind in kinds and accept(doc):
                hits.append((doc, round(share, 6)))
                if len(hits) >= limit:
                    return hits
    return hits
