"""Changes grouped as a person remembers them: one group per session (one agent's run of
writes, one import, one sitting at the web app), the undo entries of a session in a group of
their own. The one place that decides what belongs together on `/activity`.

A change record carries its `sessionId` (assigned when it is written: one actor's writes with no
gap over SESSION_GAP, one run_code run, one batch call). A record written before sessions
existed has none: it is grouped the same way here, by actor and gap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from ...kernel.timestamps import parse_timestamp

#: The gap that ends a session when the record does not say its session (the service's default).
SESSION_GAP = timedelta(minutes=15)


@dataclass
class Group:
    """One session's changes on this page, newest first; `undo` when they are undo entries."""

    key: str
    actor: dict[str, Any]
    session_id: str | None
    undo: bool
    changes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def newest(self) -> str:
        return str(self.changes[0]["at"])

    @property
    def oldest(self) -> str:
        return str(self.changes[-1]["at"])

    @property
    def pending(self) -> list[str]:
        """The ids still to undo: undoable, not undone yet."""
        return [change["id"] for change in self.changes if change["undoable"] and "undoneBy" not in change]


def is_undo(change: dict[str, Any]) -> bool:
    """An undo's entry: a revert (`undoes`), or a record the revert rewrote with it (a tag rename's
    undo renames the tag back, `undoes`, and rewrites each task carrying it: same call, no `undoes`),
    so the undo reads as one group and never as a session of edits the person did not make."""
    return "undoes" in change or change.get("operation") == "undo_changes"


class Sessions:
    """Groups changes fed newest first (one page of list_changes after another): `add` answers
    the group a change joins, creating it when the change opens a new one."""

    def __init__(self) -> None:
        self.groups: list[Group] = []
        self._by_key: dict[str, Group] = {}
        self._open: dict[tuple[str, bool], Group] = {}  # records without a sessionId: actor's newest group

    def key_of(self, change: dict[str, Any]) -> str:
        """The group `change` belongs in (without adding it)."""
        undo = is_undo(change)
        session_id = change.get("sessionId")
        if session_id:
            return f"{session_id}|{'undo' if undo else 'do'}"
        actor = str(change["actor"]["id"])
        group = self._open.get((actor, undo))
        if group is not None and _gap(change["at"], group.oldest) <= SESSION_GAP:
            return group.key
        return f"{actor}|{'undo' if undo else 'do'}|{change['id']}"

    def add(self, change: dict[str, Any]) -> Group:
        key = self.key_of(change)
        group = self._by_key.get(key)
        if group is None:
            group = Group(key, change["actor"], change.get("sessionId") or None, is_undo(change))
            self._by_key[key] = group
            self.groups.append(group)
        group.changes.append(change)
        if not change.get("sessionId"):
            self._open[(str(change["actor"]["id"]), group.undo)] = group
        return group

    def would_open(self, change: dict[str, Any]) -> bool:
        return self.key_of(change) not in self._by_key


def _gap(older: str, newer: str) -> timedelta:
    return parse_timestamp(newer, "at") - parse_timestamp(older, "at")


def group_sessions(changes: list[dict[str, Any]]) -> list[Group]:
    """`changes` (newest first) in groups, each group where its newest change is."""
    sessions = Sessions()
    for change in changes:
        sessions.add(change)
    return sessions.groups


def last_sessions(changes: list[dict[str, Any]]) -> dict[str, Group]:
    """Each actor's newest session among `changes` (newest first), by actor id; undo entries
    aside (an agent's last session is its last work)."""
    found: dict[str, Group] = {}
    for group in group_sessions(changes):
        if not group.undo:
            found.setdefault(str(group.actor["id"]), group)
    return found


__all__ = ["SESSION_GAP", "Group", "Sessions", "group_sessions", "is_undo", "last_sessions"]
