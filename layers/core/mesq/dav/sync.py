"""sync-collection (RFC 6578) on a calendar collection, cut into answers a client follows to the end.

Without a token the answer is the collection's members; with one, what the change history
(todo/sync/reads.py) says changed since it: what is a member now with its properties, what left
the collection (trashed, moved, deleted, an inbox item moved to the board) as 404. A token
carries the mark of the user's zone (properties.Since): when it is not the zone's now, the
members whose bodies are written in that zone (ical_out.depends_on_zone) come too, as changed:
a switch of zone writes no change record. A token older than the kept history, or with more
changes behind it than one answer reads, is refused with `DAV:valid-sync-token` (403): the
client reads the collection afresh.

Members go out in the order of their names. When the client's `DAV:limit/DAV:nresults` or the
answer's byte budget (budget.py) is reached, the answer ends as RFC 6578 3.6 says: a 507
response for the collection and a continuation token, `<start>/<resume>/<scope>/<after>`: the
names up to `after` are current as of the point `resume`, those after it as of `start` (the token
the client came with, or `new`: it has none of them yet); `scope` names the account and calendar
it was given for, where alone it is valid (RFC 6578 3.2: another calendar's token is refused).
The next answer reads the changes since `resume` for the names up to `after`, and since `start`
(or the members) for the rest, so a change made between two answers is not lost; once nothing is
left, the token is a plain one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from xml.etree import ElementTree as ET

from ..todos.sync import reads
from ..todos.sync.reads import SyncPoint
from .budget import Answer, gone
from .errors import DavError
from .ical_out import zone_mark
from .members import Member, collection_members, listed_members, loaded, zoned
from .properties import SYNC_TOKEN_PREFIX, Since, since_of, sync_token
from .propfind import member_response, needs_record, requested
from .session import Session
from .xml import DAV, element, tag

#: What a token carries instead of `start` when the client has read nothing yet.
_NEW = "new"
#: name -> the member, or None: it left the collection (a 404 in the answer)
Entries = dict[str, Member | None]


@dataclass(frozen=True)
class Continuation:
    """Where a cut answer stopped: names up to `after` are current as of `resume`, later ones as
    of `start` (None: the client has none of them)."""

    start: Since | None
    resume: Since
    after: str


def scope_of(session: Session, collection_id: str) -> str:
    """What a continuation token names its calendar by: its `after` is a name of that calendar
    (used on another, the names before it would be taken as current there and never sent)."""
    digest = hashlib.sha256(f"{session.user_id}\x00{collection_id}".encode()).digest()[:9]
    return base64.urlsafe_b64encode(digest).decode()


def continuation_token(at: Continuation, scope: str) -> str:
    def part(since: Since) -> str:
        return sync_token(since.point, since.zone).removeprefix(SYNC_TOKEN_PREFIX)

    after = base64.urlsafe_b64encode(at.after.encode()).decode().rstrip("=")
    start = _NEW if at.start is None else part(at.start)
    return f"{SYNC_TOKEN_PREFIX}{start}/{part(at.resume)}/{scope}/{after}"


def _refused(reason: str) -> DavError:
    return DavError(403, reason, (DAV, "valid-sync-token"))


def _checked(since: Since | None) -> Since:
    if since is None:
        raise _refused("not a sync token of this server; sync afresh")
    if reads.from_the_future(since.point):
        raise _refused("this sync token is from the future; sync afresh")
    return since


def position_of(token: str, scope: str) -> Since | Continuation | None:
    """What a client's token says it has (None: nothing, an initial sync) in the calendar of
    `scope` (`scope_of`)."""
    if not token:
        return None
    parts = token.removeprefix(SYNC_TOKEN_PREFIX).split("/") if token.startswith(SYNC_TOKEN_PREFIX) else []
    if len(parts) != 4:
        return _checked(since_of(token))
    start_text, resume_text, token_scope, after_text = parts
    if token_scope != scope:
        raise _refused("this sync token was given for another calendar; sync afresh")
    try:
        after = base64.b64decode(after_text + "=" * (-len(after_text) % 4), altchars=b"-_", validate=True).decode()
    except (binascii.Error, ValueError):
        after = ""
    if not after:
        raise _refused("not a sync token of this server; sync afresh")
    start = None if start_text == _NEW else _checked(since_of(SYNC_TOKEN_PREFIX + start_text))
    resume = _checked(since_of(SYNC_TOKEN_PREFIX + resume_text))
    return Continuation(start, resume, after)


def _changes(session: Session, collection_id: str, since: Since) -> tuple[Entries, SyncPoint]:
    items, user_id = session.services.items, session.user_id
    changes = reads.changed_since(items, user_id, since.point, session.services.deployment.history_days)
    if changes is None:
        raise _refused("this sync token is too old; sync afresh")
    present, left = reads.answer(items, user_id, collection_id, changes, derive=zoned)
    entries: Entries = dict.fromkeys(left)
    entries.update((member.name, member) for member in listed_members(session, present))
    if since.zone != zone_mark(session.zone):  # the zone changed since: its bodies did
        for member in collection_members(session, collection_id):
            if entries.get(member.name) is None and member.depends_on_zone:
                entries[member.name] = member
    return entries, changes.point


def _members(session: Session, collection_id: str, after: str | None = None) -> tuple[Entries, SyncPoint]:
    """The collection's members as listed (those named after `after` when given), and the point."""
    point = reads.sync_point(session.services.items, session.user_id)  # first: a change made while listing comes again
    return {member.name: member for member in collection_members(session, collection_id, after)}, point


def _covers(point: SyncPoint, change_id: str) -> bool:
    return change_id[:17] < point.point or change_id in point.seen


def _joined(first: SyncPoint, second: SyncPoint) -> SyncPoint:
    """The point two reads stand at together: the earlier one, and of the changes after it those
    both reads saw (one only one read saw may have touched a name the other read answered)."""
    point = min(first.point, second.point)
    seen = {change for change in first.seen | second.seen if _covers(first, change) and _covers(second, change)}
    return SyncPoint(point, frozenset(change for change in seen if change[:17] >= point))


def _entries(
    session: Session, collection_id: str, position: Since | Continuation | None
) -> tuple[Entries, SyncPoint, Since | None]:
    """(what this answer may hold, the point it stands at once all is sent, the `start` a cut
    answer's token carries)."""
    if position is None:
        entries, point = _members(session, collection_id)
        return entries, point, None
    if isinstance(position, Since):
        entries, point = _changes(session, collection_id, position)
        return entries, point, position
    if position.start is None:
        later, later_point = _members(session, collection_id, position.after)
    else:
        later, later_point = _changes(session, collection_id, position.start)
    earlier, earlier_point = _changes(session, collection_id, position.resume)
    entries = {name: entry for name, entry in earlier.items() if name <= position.after}
    entries.update((name, entry) for name, entry in later.items() if name > position.after)
    return entries, _joined(earlier_point, later_point), position.start


def _nresults(root: ET.Element) -> int | None:
    """The client's `DAV:limit/DAV:nresults` (RFC 6578 3.7, RFC 5323 5.17), or None."""
    found = root.find(f"{tag(DAV, 'limit')}/{tag(DAV, 'nresults')}")
    if found is None:
        return None
    text = str(found.text or "").strip()
    if not text.isdigit() or not text.isascii():
        raise DavError(400, "DAV:nresults is a whole number")
    if len(text) > 9:  # more than any collection holds: no limit
        return None
    if int(text) < 1:  # an answer of nothing would never move the client on
        raise DavError(507, "DAV:nresults must be 1 or more", (DAV, "number-of-matches-within-limits"))
    return int(text)


def sync_collection(session: Session, collection_id: str, root: ET.Element) -> Answer:
    wanted = requested(root, "report")
    token_element = root.find(tag(DAV, "sync-token"))
    scope = scope_of(session, collection_id)
    position = position_of(str(token_element.text or "").strip() if token_element is not None else "", scope)
    answer = Answer(max_responses=_nresults(root))
    entries, point, start = _entries(session, collection_id, position)
    zone = zone_mark(session.zone)
    token = sync_token(point, zone)
    last: str | None = None
    ordered = ((name, entries[name]) for name in sorted(entries))
    read = loaded(session, collection_id, ordered, room=answer.responses_left) if needs_record(wanted) else ordered
    for name, member in read:
        href = session.object_href(collection_id, name)
        if not answer.add(gone(href) if member is None else member_response(session, collection_id, member, wanted)):
            answer.truncated(session.collection_href(collection_id))
            assert last is not None  # an answer's first response is always added
            token = continuation_token(Continuation(start, Since(point, zone), last), scope)
            break
        last = name
    answer.add_always(lambda parent: element(parent, tag(DAV, "sync-token"), token))
    return answer
