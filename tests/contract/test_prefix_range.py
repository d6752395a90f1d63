"""A prefix query reads exactly the sort keys that start with the prefix, on every store: the
SQLite store reads it as an index range (the prefix up to its last character's successor), so
the range's edges are checked here with the characters where a successor is special: CJK, a
character before the surrogates, an astral one, `%` and `_`."""

from __future__ import annotations

from typing import Any

import pytest

PARTITION = "U#prefix-range"
PREFIXES = ["TAG#读书", "TAG#\ud7ff", "TAG#😀", "TAG#50%_off", "TAG#"]
KEYS = [
    "TAG#读书", "TAG#读书/三体", "TAG#读乙", "TAG#读书\U0010ffff", "TAG#读", "TAG#\ud7ff", "TAG#\ud7ffx",
    "TAG#\ue000", "TAG#😀", "TAG#😀!", "TAG#😁", "TAG#50%_off", "TAG#50%_offer", "TAG#50%Xoff", "TAH#", "TAG",
]  # fmt: skip


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_prefix_reads_exactly_its_keys(store: Any, prefix: str) -> None:
    for sort_key in KEYS:
        store.put({"pk": PARTITION, "sk": sort_key})
    found = [item["sk"] for item in store.query(PARTITION, prefix=prefix).items]
    assert found == sorted((key for key in KEYS if key.startswith(prefix)), key=lambda key: key.encode("utf-8"))
    descending = [item["sk"] for item in store.query(PARTITION, prefix=prefix, descending=True).items]
    assert descending == found[::-1]
