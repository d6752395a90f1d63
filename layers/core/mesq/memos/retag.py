"""Re-tag every memo by the current tag rule (`kernel/tags.py`, `TAG_RULE_VERSION`): a one-time,
idempotent migration after the rule changes (issue 41: `今天去买菜#生活` became a tag).

A memo's `tags` / `tagPaths` are derived from its content when it is written; memos written under
an older rule keep what that rule found until this pass recomputes them. It is not the person's
edit, so it writes no change record and leaves `revision` and `updatedAt` as they are. Each memo
whose tags differ is one transaction: the memo, conditioned on the revision and tag paths it was
read with (an edit meanwhile, which derived its tags by the new rule itself, or a second runner
that got there first, makes it skip: never a counter counted twice), and the counter deltas of
`store.counter_ops` (the `MEMOTAG#` counters and `STATS#MEMO`'s `untagged`), so counts stay exact.
A memo whose new tags would pass the per-memo cap keeps its old ones (and is reported).

A `#word` longer than a tag can be (MAX_TAG_LENGTH) stops nothing: the pass is no person's
write, so where create_memo would refuse it the memo is re-tagged all the same, the word stays
text where it stands (no tag, as after any write), and the report names the memo and the word
(`overlong`), so no tag is lost without a word: one a rule change made longer than the limit
(`#می` before rule 5 read a Persian word only up to its non-joiner) leaves the tag list with its
memo named.

The marker `U#<user>` / `RETAG#MEMO` holds the rule version a user's memos were re-tagged by: a
user already at the current version costs one read. `mesq serve` runs it for every listed user
at start (in the background: it listens first); on AWS, `mesq memos retag --storage dynamodb`
(docs/deploy.md). Reading and search indexes follow the writes as they follow any memo write.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..kernel.keys import user_partition
from ..kernel.messages import quoted
from ..kernel.ports.storage import Condition, ConditionFailed, Item, ItemStore, Key, Put
from ..kernel.tags import MAX_TAG_LENGTH, TAG_RULE_VERSION, expand_tag_paths, overlong_tags, parse_tags
from ..kernel.timestamps import now_timestamp
from . import store
from .keys import RETAG_SK
from .writes import MAX_TAG_PATHS_PER_MEMO, OVERLONG_TAG_SHOWN

MARKER_SK = RETAG_SK


@dataclass
class RetagReport:
    """What one user's pass did: memos looked at and re-tagged, those left as they were because
    the new tags would pass the cap, the `#word`s too long to be a tag that stay text (how many,
    and the first OVERLONG_LISTED as memo id and the word quoted and cut as an error shows it),
    and whether the user was at the current rule already."""

    memos: int = 0
    retagged: int = 0
    over_cap: list[str] = field(default_factory=list)
    overlong: list[tuple[str, str]] = field(default_factory=list)
    overlong_count: int = 0
    current: bool = False

    def keep_overlong(self, memo_id: str, word: str) -> None:
        self.overlong_count += 1
        if len(self.overlong) < OVERLONG_LISTED:
            self.overlong.append((memo_id, quoted("#" + word, limit=OVERLONG_TAG_SHOWN)))

    def overlong_line(self) -> str:
        """`1 #word too long to be a tag (over 100 characters) stays text, no tag: memo m1
        '#长长…'`, or "" when there is none (the command's and the server's log line)."""
        if not self.overlong_count:
            return ""
        named = ", ".join(f"memo {memo_id} {word}" for memo_id, word in self.overlong)
        more = self.overlong_count - len(self.overlong)
        words = "1 #word" if self.overlong_count == 1 else f"{self.overlong_count} #words"
        stays = "stays" if self.overlong_count == 1 else "stay"
        return f"{words} too long to be a tag (over {MAX_TAG_LENGTH} characters) {stays} text, no tag: {named}" + (
            f" and {more} more" if more > 0 else ""
        )


#: How many over-long words a report line names (the count stays exact).
OVERLONG_LISTED = 20


def marker_key(user_id: str) -> Key:
    return (user_partition(user_id), MARKER_SK)


def is_current(items: ItemStore, user_id: str) -> bool:
    marker = items.get(marker_key(user_id))
    return marker is not None and marker.get("version") == TAG_RULE_VERSION


def _retagged(memo: Item) -> Item | None:
    """The memo with its tags by the current rule, or None when they are the same already."""
    tags = parse_tags(str(memo["content"]))
    if tags == memo.get("tags") and expand_tag_paths(tags) == memo.get("tagPaths"):
        return None
    return {**memo, "tags": tags, "tagPaths": expand_tag_paths(tags)}


def _write(items: ItemStore, user_id: str, before: Item, after: Item) -> bool:
    """Store the re-tagged memo with its counter deltas; False when it changed since it was read."""
    unchanged = Condition(equals={"revision": before["revision"], "tagPaths": before["tagPaths"]})
    try:
        memo = Put(store.with_index_keys(user_id, after), unchanged)
        items.transact([memo, *store.counter_ops(user_id, before, after)])
    except ConditionFailed as failure:
        if failure.index == 0:
            return False
        raise
    return True


def retag_user(items: ItemStore, user_id: str) -> RetagReport:
    """Bring one user's memos to the current tag rule, then put the marker (re-runnable)."""
    report = RetagReport()
    if is_current(items, user_id):
        report.current = True
        return report
    for memo in store.all_memos(items, user_id):
        report.memos += 1
        for word in overlong_tags(str(memo["content"])):
            report.keep_overlong(str(memo["id"]), word)
        after = _retagged(memo)
        if after is None:
            continue
        if len(after["tagPaths"]) > MAX_TAG_PATHS_PER_MEMO:
            report.over_cap.append(str(memo["id"]))
            continue
        if _write(items, user_id, memo, after):
            report.retagged += 1
    pk, sk = marker_key(user_id)
    items.put({"pk": pk, "sk": sk, "version": TAG_RULE_VERSION, "retaggedAt": now_timestamp()})
    return report


__all__ = ["MARKER_SK", "RetagReport", "is_current", "marker_key", "retag_user"]
