"""What an account's records are, in the words a person knows them by: `mesq export` and `mesq
import` report `3 memos, 1 task and 5 history entries` (not `3 MEMO, 5 CHANGE, 2 STATS`), and an
import that fails names `a memo`, never its storage key. Counters, index entries, board columns
and settings are not counted: they come with what they count or belong to."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from ..attachments.paths import MEMO, TODO
from ..history.records import CHANGE_PREFIX
from ..kernel.i18n import N_, Text
from ..memos.keys import MEMO_PREFIX
from ..reading.keys import BOOK_PREFIX, NOTE_PREFIX
from ..todos.keys import KIND_PREFIX

#: Sort-key prefix -> (one, several), longest prefixes first (`MEMOATT#` before `MEMO#`), in the
#: order a summary names them.
_KINDS: tuple[tuple[str, str, str], ...] = (
    (MEMO.record_prefix, "attachment", "attachments"),
    (TODO.record_prefix, "attachment", "attachments"),
    (MEMO_PREFIX, "memo", "memos"),
    (KIND_PREFIX["task"], "task", "tasks"),
    (KIND_PREFIX["inbox"], "inbox item", "inbox items"),
    (KIND_PREFIX["space"], "space", "spaces"),
    (BOOK_PREFIX, "book", "books"),
    (NOTE_PREFIX, "reading note", "reading notes"),
    (CHANGE_PREFIX, "history entry", "history entries"),
)
ORDER = ("memos", "tasks", "inbox items", "spaces", "attachments", "books", "reading notes", "history entries")
_ONE = {several: one for _prefix, one, several in _KINDS}


def kind_of(sk: str) -> str | None:
    """The plural a record counts under ("memos"), None for one a person does not count."""
    return next((several for prefix, _one, several in _KINDS if sk.startswith(prefix)), None)


def described(sk: str) -> str:
    """`a memo`, `an inbox item`, or `a record` for a kind without a word of its own."""
    kind = kind_of(sk)
    one = _ONE[kind] if kind else "record"
    return f"{'an' if one[0] in 'aeiou' else 'a'} {one}"


#: `described` and `in_words` as templates, for a page in its reader's language.
_ONE_TEXT = {
    "memos": N_("a memo"), "tasks": N_("a task"), "inbox items": N_("an inbox item"), "spaces": N_("a space"),
    "attachments": N_("an attachment"), "books": N_("a book"), "reading notes": N_("a reading note"),
    "history entries": N_("a history entry"),
}  # fmt: skip
#: What a summary counts, as (one, several) templates (English needs both; the catalog's Chinese
#: is the same for the two): the archive's kinds, and what other apps' imports count besides.
_COUNTED = {
    "memos": (N_("%(count)s memo"), N_("%(count)s memos")),
    "tasks": (N_("%(count)s task"), N_("%(count)s tasks")),
    "inbox items": (N_("%(count)s inbox item"), N_("%(count)s inbox items")),
    "spaces": (N_("%(count)s space"), N_("%(count)s spaces")),
    "attachments": (N_("%(count)s attachment"), N_("%(count)s attachments")),
    "books": (N_("%(count)s book"), N_("%(count)s books")),
    "reading notes": (N_("%(count)s reading note"), N_("%(count)s reading notes")),
    "history entries": (N_("%(count)s history entry"), N_("%(count)s history entries")),
    "tags": (N_("%(count)s tag"), N_("%(count)s tags")),
    "comments": (N_("%(count)s comment"), N_("%(count)s comments")),
    "columns": (N_("%(count)s column"), N_("%(count)s columns")),
    "subtasks": (N_("%(count)s subtask"), N_("%(count)s subtasks")),
}


def counted(kind: str, count: int) -> Text:
    """`3 memos` / `1 memo` as a `Text` (`kind`: one of the plurals above)."""
    return Text(_COUNTED[kind][count != 1], count=count)


def described_text(sk: str) -> Text:
    """`described` as a `Text`."""
    kind = kind_of(sk)
    return Text(_ONE_TEXT[kind] if kind else N_("a record"))


def in_words_text(counts: Mapping[str, int]) -> Text | None:
    """`in_words` as a `Text`; None when nothing a person counts is there."""
    parts = [counted(kind, counts[kind]) for kind in ORDER if counts.get(kind)]
    if not parts:
        return None
    said = parts[0]
    for part in parts[1:-1]:
        said = Text("%(list)s, %(item)s", list=said, item=part)
    return Text("%(list)s and %(item)s", list=said, item=parts[-1]) if len(parts) > 1 else said


def count(sort_keys: Iterable[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for sk in sort_keys:
        kind = kind_of(sk)
        if kind:
            counts[kind] += 1
    return counts


def in_words(counts: Mapping[str, int]) -> str:
    """`3 memos, 1 task and 5 history entries`; "" when nothing a person counts is there."""
    parts = [f"{counts[kind]} {_ONE[kind] if counts[kind] == 1 else kind}" for kind in ORDER if counts.get(kind)]
    if len(parts) > 1:
        return f"{', '.join(parts[:-1])} and {parts[-1]}"
    return parts[0] if parts else ""


__all__ = ["ORDER", "count", "described", "described_text", "in_words", "in_words_text", "kind_of"]
