"""The memo's keys (docs/data-model.md), written here once and read from here everywhere else:

- memo:         pk `U#<user>`  sk `MEMO#<id>`; gsi1 `U#<user>#MEMOS#<status>` /
                `<1 pinned|0>#<createdAt>#<id>` (projects status, pinned, tagPaths, times)
- counters:     pk `U#<user>`  sk `STATS#MEMO` (normal, archived, deleted, pinned, untagged)
- tag counters: pk `U#<user>`  sk `MEMOTAG#<tag path>` (count of NORMAL memos)
- re-tag mark:  pk `U#<user>`  sk `RETAG#MEMO` (the tag rule version the memos are at)
"""

from __future__ import annotations

from ..kernel.keys import user_partition

MEMO_PREFIX = "MEMO#"
STATS_SK = "STATS#MEMO"
TAG_PREFIX = "MEMOTAG#"
#: The tag rule version a user's memos were re-tagged by (`retag.py`).
RETAG_SK = "RETAG#MEMO"


def memo_key(user_id: str, memo_id: str) -> tuple[str, str]:
    return (user_partition(user_id), f"{MEMO_PREFIX}{memo_id}")


def timeline_partition(user_id: str, status: str) -> str:
    return f"{user_partition(user_id)}#MEMOS#{status}"
