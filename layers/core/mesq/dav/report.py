"""REPORT: calendar-query (RFC 4791 §7.8), calendar-multiget (§7.9) and sync-collection
(RFC 6578) on a calendar collection.

sync-collection reads the change history since the token (todo/sync/reads.py): what changed is
answered with its properties, what left the collection (trashed, moved, deleted, an inbox item
moved to the board) as 404, with a new token. A token older than the kept history, or with more
changes behind it than one answer reads, is refused with `DAV:valid-sync-token` (403): the client
reads the collection afresh.
"""

from __future__ import annotations

from datetime import UTC, tzinfo
from xml.etree import ElementTree as ET
from zoneinfo import ZoneInfo

from ..kernel.messages import quoted
from ..todos.sync import reads
from .errors import DavError
from .filters import matches
from .members import Member, collection_members, members_of, named_members
from .paths import Target, name_in
from .properties import add_gone, multistatus, sync_point_of, sync_token
from .propfind import object_response, requested
from .session import Session
from .xml import CALDAV, DAV, element, tag
from .zones import zone_of_calendar


def report(session: Session, target: Target, root: ET.Element | None) -> ET.Element:
    if root is None:
        raise DavError(400, "a REPORT needs a body")
    if target.level not in ("collection", "object"):
        raise DavError(403, "reports run on a calendar or a task", (DAV, "supported-report"))
    collection = session.collection(target.collection)
    if collection is None:
        raise DavError(404, f"no calendar {quoted(target.collection)}: a space's id or inbox")
    if root.tag == tag(CALDAV, "calendar-query"):
        return _query(session, target, collection.id, root)
    if root.tag == tag(CALDAV, "calendar-multiget"):
        return _multiget(session, collection.id, root)
    if root.tag == tag(DAV, "sync-collection") and target.level == "collection":
        return _sync(session, collection.id, root)
    raise DavError(403, f"report {root.tag[:80]} is not supported here", (DAV, "supported-report"))


def _scope(session: Session, target: Target, collection_id: str) -> list[Member]:
    if target.level == "object":
        found = named_members(session, collection_id, [target.name]).get(target.name)
        return [found] if found is not None else []
    return collection_members(session, collection_id)


def _query(session: Session, target: Target, collection_id: str, root: ET.Element) -> ET.Element:
    wanted = requested(root, "report")
    filter_element = root.find(tag(CALDAV, "filter"))
    if filter_element is None:
        raise DavError(400, "calendar-query needs a filter", (CALDAV, "valid-filter"))
    floating = _calendar_zone(session, root)
    answer = multistatus()
    for member in _scope(session, target, collection_id):
        if matches(member.calendar, filter_element, floating):
            object_response(answer, session, collection_id, member, wanted)
    return answer


def _calendar_zone(session: Session, root: ET.Element) -> tzinfo:
    """The zone a date or a floating time is read in (RFC 4791 §9.9): the query's own
    `CALDAV:timezone`, else the calendar's, which is the user's (the collection's
    `calendar-timezone`), UTC while none is set."""
    sent = root.find(tag(CALDAV, "timezone"))
    if sent is None:
        return ZoneInfo(session.zone) if session.zone else UTC
    try:
        return zone_of_calendar(sent.text or "")
    except ValueError as error:
        raise DavError(400, f"calendar-query timezone: {error}", (CALDAV, "valid-calendar-data")) from None


def _multiget(session: Session, collection_id: str, root: ET.Element) -> ET.Element:
    wanted = requested(root, "report")
    hrefs = [str(h.text or "").strip() for h in root.findall(tag(DAV, "href"))]
    if not hrefs:
        raise DavError(400, "calendar-multiget names at least one href")
    base = session.collection_href(collection_id)
    names = {href: name_in(href, base) for href in hrefs}
    found = named_members(session, collection_id, [name for name in names.values() if name])
    answer = multistatus()
    for href, name in names.items():
        member = found.get(name) if name else None
        if member is None:
            add_gone(answer, href)
        else:
            object_response(answer, session, collection_id, member, wanted)
    return answer


def _point_of(token: str) -> reads.SyncPoint | None:
    if not token:
        return None
    point = sync_point_of(token)
    if point is None:
        raise DavError(403, "not a sync token of this server; sync afresh", (DAV, "valid-sync-token"))
    if reads.from_the_future(point):
        raise DavError(403, "this sync token is from the future; sync afresh", (DAV, "valid-sync-token"))
    return point


def _sync(session: Session, collection_id: str, root: ET.Element) -> ET.Element:
    wanted = requested(root, "report")
    token_element = root.find(tag(DAV, "sync-token"))
    point = _point_of(str(token_element.text or "").strip() if token_element is not None else "")
    items, user_id = session.services.items, session.user_id
    answer = multistatus()
    if point is None:
        new_point = reads.sync_point(items, user_id)  # read first: a change made while listing comes again
        for member in collection_members(session, collection_id):
            object_response(answer, session, collection_id, member, wanted)
    else:
        changes = reads.changed_since(items, user_id, point, session.services.deployment.history_days)
        if changes is None:
            raise DavError(403, "this sync token is too old; sync afresh", (DAV, "valid-sync-token"))
        new_point = changes.point
        present, gone = reads.answer(items, user_id, collection_id, changes)
        for member in members_of(present, session):
            object_response(answer, session, collection_id, member, wanted)
        for name in sorted(gone):
            add_gone(answer, session.object_href(collection_id, name))
    element(answer, tag(DAV, "sync-token"), sync_token(new_point))
    return answer
