"""A toast's Undo, so that it never lies: the write it offered to undo is undone together with
what this browser did to the same record after it, newest first ("undo in order": pin, trash,
then the pin's Undo takes the memo out of the trash and unpins it), and the answer says what the
record is now. When someone else changed the record since, nothing is undone and the answer
says so, in the page's language, offering to open the record; never the service's own message,
a revision or an id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..kit.framework import Page
from ..kit.i18n import N_
from .undo_words import reasons, undone_state

#: The record's newest changes read to find what came after the toast's write.
LATER_READ = 50
#: Refusals a toast does not mention: a write's side effect that has no undo (the tag a new task
#: registered), while the record itself was undone.
_QUIET = frozenset({"NOT_UNDOABLE"})
_CHANGED = {
    "memo": N_("This memo changed since, so it was left as it is."),
    "task": N_("This task changed since, so it was left as it is."),
    "subtask": N_("This subtask changed since, so it was left as it is."),
    "inbox": N_("This inbox item changed since, so it was left as it is."),
}


@dataclass(frozen=True)
class Undone:
    """What a toast's Undo did: its sentence, and whether the record was left as it is because it
    changed since (the toast then offers to open it)."""

    message: str
    changed_since: bool = False


def in_effect(later: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The changes of `later` still in effect: not undone by one of them (nor an undo whose own
    change is among them and was not redone)."""
    by_id = {change["id"]: change for change in later}
    cancelled: set[str] = set()
    for change in later:
        if change.get("undoes") in by_id:
            continue
        chain, current = [change["id"]], change
        while current.get("undoneBy") in by_id:
            current = by_id[current["undoneBy"]]
            chain.append(current["id"])
        if len(chain) % 2 == 0:  # undone (not redone): the whole chain nets out
            cancelled |= set(chain)
        else:
            cancelled |= set(chain[:-1])  # redone: only its newest entry is in effect
    return [change for change in later if change["id"] not in cancelled]


async def undo_in_order(page: Page, record_id: str, change_ids: list[str]) -> Undone:
    history = await page.invoke("list_changes", {"recordId": record_id, "limit": LATER_READ})
    changes: list[dict[str, Any]] = history["changes"]  # newest first
    own = set(change_ids)
    newest_own = max(change_ids)
    later = in_effect([change for change in changes if change["id"] > newest_own and change["id"] not in own])
    kind = next((change["record"]["kind"] for change in changes if change["id"] in own), "memo")
    if any("undoneBy" in change for change in changes if change["id"] in own):
        return Undone(page.gettext("Already undone."))
    mine = page.principal.credential_id
    if any(change["actor"]["id"] != mine or not change["undoable"] for change in later):
        return Undone(page.gettext(_CHANGED.get(kind, _CHANGED["memo"])), changed_since=True)
    answer = await page.invoke("undo_changes", {"changeIds": [change["id"] for change in later] + change_ids})
    undone_ids = {entry["changeId"] for entry in answer["undone"]}
    refused = [entry for entry in answer["notUndone"] if entry.get("code") not in _QUIET]
    if any(entry.get("code") == "REVISION_CONFLICT" for entry in refused) and not undone_ids:
        return Undone(page.gettext(_CHANGED.get(kind, _CHANGED["memo"])), changed_since=True)
    if refused and not undone_ids:
        return Undone(page.gettext("Nothing was undone: %(reasons)s.", reasons=reasons(refused, page.translator)))
    return Undone(undone_state([change for change in changes if change["id"] in undone_ids], page.translator))


__all__ = ["Undone", "in_effect", "undo_in_order"]
