"""search_memos' predicate over the literal index's candidates (memos/filters.py): the fast form
a status-only filter gets answers exactly as `literal_match` does, for every filter."""

from __future__ import annotations

import itertools

import pytest

from mesq.memos.filters import MemoFilter, literal_match, literal_matcher

ROWS = [
    {"status": status, "pinned": pinned, "tagPaths": tags, "createdAt": "2026-03-01T00:00:00Z",
     "updatedAt": "2026-03-02T00:00:00Z"}
    for status, pinned, tags in itertools.product(("NORMAL", "ARCHIVED", "DELETED"), (True, False), ([], ["家"]))
]  # fmt: skip
FILTERS = [
    MemoFilter(statuses=("NORMAL",)),
    MemoFilter(statuses=("NORMAL", "ARCHIVED")),
    MemoFilter(statuses=("DELETED",)),
    MemoFilter(statuses=("NORMAL",), tags=("家",)),
    MemoFilter(statuses=("NORMAL",), pinned=True),
    MemoFilter(statuses=("NORMAL", "ARCHIVED"), untagged=True),
    MemoFilter(statuses=("NORMAL",), created_from="2026-04-01T00:00:00Z"),
]


@pytest.mark.parametrize("memo_filter", FILTERS)
def test_the_bound_predicate_answers_as_literal_match(memo_filter: MemoFilter) -> None:
    matcher = literal_matcher(memo_filter, "周报")
    for fields, text in itertools.product(ROWS, ("本周周报", "月报", "")):
        assert matcher(fields, text) == literal_match(memo_filter, "周报", fields, text), (memo_filter, fields, text)
