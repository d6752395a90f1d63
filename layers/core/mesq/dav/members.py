"""The tasks of one collection as calendar objects: read once per request (todo/sync/reads.py),
each rendered once when a property or filter needs its data, a subtask with its task's UID as
RELATED-TO."""

from __future__ import annotations

from dataclasses import dataclass, field

from icalendar import Calendar

from ..kernel.ports.storage import Item
from ..todos.sync import reads
from ..todos.sync.links import RecordKind, name_of, uid_of
from .ical_out import body, depends_on_zone, etag, render
from .session import Session


@dataclass
class Member:
    kind: RecordKind
    record: Item
    parent_uid: str | None
    #: The user's zone: a recurring task without its own is written in it (ical_out.shown_zone).
    zone: str | None = None
    _body: bytes | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return name_of(self.record)

    @property
    def calendar(self) -> Calendar:
        """For filters: the VTODO without VTIMEZONEs (its times carry their zones). Not kept: a
        query reads it once per member, and kept for each of a large calendar's tasks (some KiB
        each) it would hold the whole calendar in memory while the answer stays small."""
        return render(self.kind, self.record, self.parent_uid, timezones=False, user_zone=self.zone)

    @property
    def depends_on_zone(self) -> bool:
        return depends_on_zone(self.record, self.parent_uid)

    @property
    def etag(self) -> str:
        return etag(self.record, self.parent_uid, self.zone)

    @property
    def body(self) -> bytes:
        if self._body is None:
            self._body = body(self.kind, self.record, self.parent_uid, self.zone)
        return self._body


def _parent_uids(session: Session, pairs: list[tuple[RecordKind, Item]]) -> dict[str, str]:
    """The UIDs of the subtasks' tasks: from the same read when the task is in it, else by key."""
    known = {str(record["id"]): uid_of(record) for kind, record in pairs if kind == "task"}
    wanted = {str(record["parentId"]) for kind, record in pairs if kind == "task" and record.get("parentId")} - set(
        known
    )
    for parent_id in wanted:
        parent = reads.task_record(session.services.items, session.user_id, parent_id)
        if parent is not None:
            known[parent_id] = uid_of(parent)
    return known


def members_of(pairs: list[tuple[RecordKind, Item]], session: Session) -> list[Member]:
    uids = _parent_uids(session, pairs)
    return [
        Member(kind, record, uids.get(str(record.get("parentId"))) if record.get("parentId") else None, session.zone)
        for kind, record in pairs
    ]


def collection_members(session: Session, collection_id: str) -> list[Member]:
    return members_of(reads.members(session.services.items, session.user_id, collection_id), session)


def named_members(session: Session, collection_id: str, names: list[str]) -> dict[str, Member]:
    found = reads.by_names(session.services.items, session.user_id, collection_id, names)
    members = members_of(list(found.values()), session)
    return {member.name: member for member in members}
