"""The tasks of one collection as calendar objects: listed once per request (todo/sync/reads.py:
names, ETag inputs and parent links only), their whole records read by key a batch at a time as
an answer writes them (`loaded`) and dropped once written, each rendered once when a property or
filter needs its data, a subtask with its task's UID as RELATED-TO."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from icalendar import Calendar

from ..kernel.ports.storage import Item
from ..todos.sync import reads
from ..todos.sync.links import RecordKind, name_of, uid_of
from .ical_out import body, depends_on_zone, etag, render, zone_dependence, zoned_given
from .session import Session

#: Whole records read by key at a time as an answer fills (DynamoDB's BatchGetItem takes 100).
LOAD_BATCH = 100
#: What a listing keeps of a record besides reads.listed: whether the body MeSQ writes for it
#: depends on the user's zone (its ETag then names the zone: ical_out.etag), decided from the
#: whole record as the listing passes it. For a recurring subtask the app wrote (the board lets
#: only root tasks recur) it may turn on its task's UID, known once the listing is done: then the
#: digest that UID must have (ical_out.zone_dependence), decided without reading it again.
ZONED = "zoned"


@dataclass(slots=True)
class Member:
    kind: RecordKind
    #: The whole record, or while `whole` is False what the listing keeps of it (reads.listed):
    #: enough for its name, ETag and Last-Modified, not for its calendar data.
    record: Item
    parent_uid: str | None
    #: The user's zone: a recurring task without its own is written in it (ical_out.shown_zone).
    zone: str | None = None
    whole: bool = True
    _body: bytes | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return name_of(self.record)

    @property
    def calendar(self) -> Calendar:
        """For filters: the VTODO without VTIMEZONEs (its times carry their zones). Not kept: a
        query reads it once per member, and kept for each of a large calendar's tasks (some KiB
        each) it would hold the whole calendar in memory while the answer stays small."""
        assert self.whole, "a listed member is rendered once loaded"
        return render(self.kind, self.record, self.parent_uid, timezones=False, user_zone=self.zone)

    @property
    def depends_on_zone(self) -> bool:
        if not self.whole:
            return bool(self.record[ZONED])
        return depends_on_zone(self.record, self.parent_uid)

    @property
    def etag(self) -> str:
        return etag(self.record, self.parent_uid, self.zone, self.depends_on_zone)

    @property
    def body(self) -> bytes:
        assert self.whole, "a listed member is rendered once loaded"
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


def zoned(record: Item) -> dict[str, Any]:
    """What a listing keeps of a record for its ETag besides reads.LISTED_FIELDS (`ZONED`)."""
    return {ZONED: zone_dependence(record)}


def collection_members(session: Session, collection_id: str, after: str | None = None) -> list[Member]:
    """The collection's members as listed (`whole` False; only those named after `after` when
    given), in the store's order."""
    return listed_members(session, reads.listing(session.services.items, session.user_id, collection_id, after, zoned))


def listed_members(session: Session, found: reads.Listing) -> list[Member]:
    """A listing's records (listed with `derive=zoned`) as members (`whole` False)."""
    members = []
    for kind, record in found.members:
        parent = record.get("parentId")
        uid = found.parent_uids[str(parent)] if parent else None
        record[ZONED] = zoned_given(record[ZONED], uid)
        members.append(Member(kind, record, uid, session.zone, whole=False))
    return members


def loaded(
    session: Session,
    collection_id: str,
    entries: Iterable[tuple[str, Member | None]],
    room: Callable[[], int | None] | None = None,
) -> Iterator[tuple[str, Member | None]]:
    """`entries` (name or href -> member, or None for one that is no member) with each listed
    member's whole record, read by key LOAD_BATCH at a time as the caller takes them, so an answer
    holds one batch of records and one cut early reads no further; `room`: how many more responses
    the answer takes (a client's DAV:limit; None: no such limit), so a batch reads no more than
    those and the one the cut stops at. A member that is no longer what it was listed as
    (trashed, moved, renamed since) comes as None: gone from that name."""
    each = iter(entries)
    while batch := list(islice(each, _batch_size(room))):
        listed = [member for _, member in batch if member is not None and not member.whole]
        records = reads.whole(
            session.services.items, session.user_id, collection_id, [(m.kind, m.record) for m in listed]
        )
        current = iter(records)  # in the order of `listed`
        for name, member in batch:
            if member is None or member.whole:
                yield name, member
                continue
            record = next(current)
            yield name, None if record is None else Member(member.kind, record, member.parent_uid, member.zone)


def _batch_size(room: Callable[[], int | None] | None) -> int:
    left = None if room is None else room()
    return LOAD_BATCH if left is None else max(1, min(LOAD_BATCH, left + 1))


def whole_members(session: Session, collection_id: str, members: Iterable[Member]) -> Iterator[Member]:
    """`members` with their whole records (`loaded`), those changed since their listing left out."""
    for _, member in loaded(session, collection_id, ((member.name, member) for member in members)):
        if member is not None:
            yield member


#: Names a request may ask one by one (a lookup and a read each); past it, the collection is listed.
NAMED_ONE_BY_ONE = 20


def named_members(session: Session, collection_id: str, names: list[str]) -> dict[str, Member]:
    """The members of the collection named in `names`: whole, read one by one, when a few are
    asked; as listed (`whole` False: `loaded` reads them as an answer takes them) when many are
    (a multiget of every changed task), so their records are never held together."""
    wanted = set(names)
    if len(wanted) > NAMED_ONE_BY_ONE:
        return {member.name: member for member in collection_members(session, collection_id) if member.name in wanted}
    found = reads.by_names(session.services.items, session.user_id, collection_id, names)
    members = members_of(list(found.values()), session)
    return {member.name: member for member in members}
