"""REPORT: calendar-query (RFC 4791 §7.8), calendar-multiget (§7.9) and sync-collection
(RFC 6578) on a calendar collection.

Each answer stays within its byte budget (budget.py): calendar-query is cut with a 507 for the
request's resource, a multiget answers each href past the budget with its own 507, and
sync-collection (sync.py) is cut with the 507 and a token that continues where it stopped.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, tzinfo
from xml.etree import ElementTree as ET
from zoneinfo import ZoneInfo

from ..auth.user_zone import MAX_ZONE_CHARS, is_zone_name
from ..kernel.i18n import Text
from ..kernel.messages import quoted
from .budget import Answer, gone, insufficient_bytes
from .errors import DavError
from .filters import matches
from .members import Member, collection_members, loaded, named_members, whole_members
from .paths import Target, name_in
from .propfind import member_response, needs_record, requested
from .session import Session
from .sync import sync_collection
from .xml import CALDAV, DAV, tag
from .zones import zone_of_calendar


def report(session: Session, target: Target, root: ET.Element | None) -> Answer:
    if root is None:
        raise DavError(400, "a REPORT needs a body")
    if target.level not in ("collection", "object"):
        raise DavError(403, "reports run on a calendar or a task", (DAV, "supported-report"))
    collection = session.collection(target.collection)
    if collection is None:
        raise DavError(404, Text("no calendar %(name)s: a space's id or inbox", name=quoted(target.collection)))
    if root.tag == tag(CALDAV, "calendar-query"):
        return _query(session, target, collection.id, root)
    if root.tag == tag(CALDAV, "calendar-multiget"):
        return _multiget(session, collection.id, root)
    if root.tag == tag(DAV, "sync-collection") and target.level == "collection":
        return sync_collection(session, collection.id, root)
    raise DavError(403, f"report {root.tag[:80]} is not supported here", (DAV, "supported-report"))


def _scope(session: Session, target: Target, collection_id: str) -> Iterable[Member]:
    """The members a query tests, with their whole records (a filter reads the VTODO): a
    collection's read a batch at a time as the answer fills."""
    if target.level == "object":
        found = named_members(session, collection_id, [target.name]).get(target.name)
        return [found] if found is not None else []
    return whole_members(session, collection_id, collection_members(session, collection_id))


def _query(session: Session, target: Target, collection_id: str, root: ET.Element) -> Answer:
    """The matching members as far as the answer's budget goes, then the 507 for the request's
    resource that says the answer was cut (budget.py)."""
    wanted = requested(root, "report")
    filter_element = root.find(tag(CALDAV, "filter"))
    if filter_element is None:
        raise DavError(400, "calendar-query needs a filter", (CALDAV, "valid-filter"))
    floating = _calendar_zone(session, root)
    answer = Answer()
    for member in _scope(session, target, collection_id):
        if not matches(member.calendar, filter_element, floating):
            continue
        if not answer.add(member_response(session, collection_id, member, wanted)):
            href = session.collection_href(collection_id)
            answer.truncated(href if target.level == "collection" else session.object_href(collection_id, target.name))
            break
    return answer


def _calendar_zone(session: Session, root: ET.Element) -> tzinfo:
    """The zone a date or a floating time is read in (RFC 4791 §9.9): the query's own
    `CALDAV:timezone`, or its `CALDAV:timezone-id` (RFC 7809 §5.3: a zone by name), else the
    calendar's, which is the user's (the collection's `calendar-timezone`), UTC while none is set."""
    sent = root.find(tag(CALDAV, "timezone"))
    named = root.find(tag(CALDAV, "timezone-id"))
    if sent is not None and named is not None:
        raise DavError(400, "calendar-query: send CALDAV:timezone or CALDAV:timezone-id, not both")
    if named is not None:
        return _zone_named(named.text or "")
    if sent is None:
        return ZoneInfo(session.zone) if session.zone else UTC
    try:
        return zone_of_calendar(sent.text or "")
    except ValueError as error:
        raise DavError(400, f"calendar-query timezone: {error}", (CALDAV, "valid-calendar-data")) from None


def _zone_named(text: str) -> tzinfo:
    """A `CALDAV:timezone-id`: a zone of the IANA database by its name (what MeSQ's own zones are,
    auth/user_zone.py), else 400 with RFC 7809's precondition `CALDAV:valid-timezone`."""
    name = text.strip()
    if not is_zone_name(name):
        shown = quoted(name[:MAX_ZONE_CHARS])
        raise DavError(
            400, f"calendar-query timezone-id: {shown} is no IANA time zone name (e.g. Europe/Berlin)",
            (CALDAV, "valid-timezone"),
        )  # fmt: skip
    return ZoneInfo(name)


def _multiget(session: Session, collection_id: str, root: ET.Element) -> Answer:
    """Each href's data as far as the answer's budget goes, keeping room for a 507 for each
    href after it: the client named them, so each is answered, those past the budget with 507
    (RFC 4918 11.5: the server cannot hold the representation this request needs) for the client
    to ask again in a smaller multiget."""
    wanted = requested(root, "report")
    hrefs = list(dict.fromkeys(str(h.text or "").strip() for h in root.findall(tag(DAV, "href"))))
    if not hrefs:
        raise DavError(400, "calendar-multiget names at least one href")
    base = session.collection_href(collection_id)
    names = {href: name_in(href, base) for href in hrefs}
    found = named_members(session, collection_id, [name for name in names.values() if name])
    entries = ((href, found.get(name) if name else None) for href, name in names.items())
    answer = Answer()
    costs = [insufficient_bytes(href) for href in hrefs]
    left = sum(costs)
    for index, (href, member) in enumerate(
        loaded(session, collection_id, entries) if needs_record(wanted) else entries
    ):
        left -= costs[index]
        build = gone(href) if member is None else member_response(session, collection_id, member, wanted)
        if not answer.add(build, keep_free=left):
            for each in hrefs[index:]:  # past the budget: 507 each, their records never read
                answer.truncated(each)
            break
    return answer
