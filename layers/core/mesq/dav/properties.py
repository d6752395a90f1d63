"""The WebDAV properties of each kind of resource, and the multistatus answer that carries them.

A property is a function that fills its element; a resource offers a table of them (name ->
function). A PROPFIND or REPORT asks for names (or `allprop` / `propname`); what the table has is
answered 200, the rest 404, each group in its own `propstat` (RFC 4918 §9.1).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from email.utils import format_datetime
from xml.etree import ElementTree as ET

from ..kernel.ports.storage import Item
from ..kernel.timestamps import parse_timestamp
from ..todos.sync.reads import SyncPoint, newest_change, sync_point
from .ical_in import MAX_OBJECT_BYTES
from .ical_out import CONTENT_TYPE, ZONE_MARK_CHARS, calendar_timezone, zone_mark
from .session import Collection, Session
from .xml import APPLE, CALDAV, CALSERVER, DAV, element, href_element, tag

Fill = Callable[[ET.Element], None]
Table = dict[str, Fill]

SYNC_TOKEN_PREFIX = "urn:x-mesq:sync:"
REPORTS = ((CALDAV, "calendar-query"), (CALDAV, "calendar-multiget"), (DAV, "sync-collection"))
#: What `allprop` answers (RFC 4918: the live properties a client needs, never calendar-data).
ALLPROP = frozenset(
    tag(ns, name)
    for ns, name in (
        (DAV, "resourcetype"), (DAV, "displayname"), (DAV, "getetag"), (DAV, "getcontenttype"),
        (DAV, "getlastmodified"), (DAV, "getcontentlength"), (DAV, "current-user-principal"),
        (CALDAV, "supported-calendar-component-set"), (DAV, "sync-token"), (CALSERVER, "getctag"),
    )
)  # fmt: skip


def _text(value: str) -> Fill:
    def fill(prop: ET.Element) -> None:
        prop.text = value

    return fill


def _href(value: str) -> Fill:
    def fill(prop: ET.Element) -> None:
        href_element(prop, value)

    return fill


def _children(*names: str) -> Fill:
    def fill(prop: ET.Element) -> None:
        for name in names:
            ET.SubElement(prop, name)

    return fill


def _privileges(session: Session, *, container: bool) -> Fill:
    names = [(DAV, "read"), (DAV, "read-current-user-privilege-set")]
    if session.caller.can_write:
        names += [(DAV, "write"), (DAV, "write-content")] + ([(DAV, "bind"), (DAV, "unbind")] if container else [])

    def fill(prop: ET.Element) -> None:
        for namespace, name in names:
            ET.SubElement(element(prop, tag(DAV, "privilege")), tag(namespace, name))

    return fill


def _reports(prop: ET.Element) -> None:
    for namespace, name in REPORTS:
        report = element(element(prop, tag(DAV, "supported-report")), tag(DAV, "report"))
        ET.SubElement(report, tag(namespace, name))


def _common(session: Session) -> Table:
    return {
        tag(DAV, "current-user-principal"): _href(session.home_href()),
        tag(DAV, "principal-collection-set"): _href(session.base + "/dav/"),
    }


def root_properties(session: Session) -> Table:
    return {**_common(session), tag(DAV, "resourcetype"): _children(tag(DAV, "collection"))}


def home_properties(session: Session) -> Table:
    home = session.home_href()
    return {
        **_common(session),
        tag(DAV, "resourcetype"): _children(tag(DAV, "collection"), tag(DAV, "principal")),
        tag(DAV, "displayname"): _text(session.username),
        tag(DAV, "principal-URL"): _href(home),
        tag(DAV, "owner"): _href(home),
        tag(CALDAV, "calendar-home-set"): _href(home),
        tag(DAV, "current-user-privilege-set"): _privileges(session, container=True),
        tag(DAV, "supported-report-set"): _reports,
    }


#: Change ids a token carries (the last half minute's); past it they are left out, and the
#: client gets those few changes again.
MAX_SEEN_IN_TOKEN = 64


@dataclass(frozen=True)
class Since:
    """What a sync token says a client has: every change up to `point`, and its tasks' bodies
    written in the zone of mark `zone` (ical_out.zone_mark; a switch of zone writes no change
    record, so the token carries the zone the bodies it stands for were written in)."""

    point: SyncPoint
    zone: str


def sync_token(at: SyncPoint, zone: str) -> str:
    """`urn:x-mesq:sync:<point>[.<change id>,...][~<zone mark>]` (reads.SyncPoint, Since)."""
    seen = sorted(at.seen) if len(at.seen) <= MAX_SEEN_IN_TOKEN else []
    return SYNC_TOKEN_PREFIX + at.point + ("." + ",".join(seen) if seen else "") + (f"~{zone}" if zone else "")


def since_of(token: str) -> Since | None:
    """What a token names (None: not one of ours). One without a zone mark was given while no
    zone was set (or before tokens carried one)."""
    if not token.startswith(SYNC_TOKEN_PREFIX):
        return None
    text, marked, zone = token[len(SYNC_TOKEN_PREFIX) :].partition("~")
    point, _, seen = text.partition(".")
    ids = frozenset(part for part in seen.split(",") if part)
    if not (len(point) == 17 and point.isdigit()) or len(ids) > MAX_SEEN_IN_TOKEN:
        return None
    if marked and not (len(zone) == ZONE_MARK_CHARS and set(zone) <= set(string.hexdigits.lower())):
        return None
    return Since(SyncPoint(point, ids), zone)


class Points:
    """A collection's CTag and sync token, read once per request when asked (they are the
    account's: every collection of one PROPFIND shares them, and the token starts from the
    newest change the CTag is). Both carry the user's zone mark: a switch of zone changes the
    bodies of the tasks written in it without a change record, and must move them too."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._newest: str | None = None
        self._token: str | None = None

    def _newest_change(self) -> str:
        if self._newest is None:
            self._newest = newest_change(self._session.services.items, self._session.user_id)
        return self._newest

    def fill_ctag(self, prop: ET.Element) -> None:
        zone = zone_mark(self._session.zone)
        prop.text = self._newest_change() + (f"~{zone}" if zone else "")

    def fill_token(self, prop: ET.Element) -> None:
        if self._token is None:
            items, user_id = self._session.services.items, self._session.user_id
            point = sync_point(items, user_id, self._newest_change())
            self._token = sync_token(point, zone_mark(self._session.zone))
        prop.text = self._token


def collection_properties(session: Session, collection: Collection, points: Points) -> Table:
    def components(prop: ET.Element) -> None:
        element(prop, tag(CALDAV, "comp")).set("name", "VTODO")

    def data(prop: ET.Element) -> None:
        found = element(prop, tag(CALDAV, "calendar-data"))
        found.set("content-type", "text/calendar")
        found.set("version", "2.0")

    def zone(prop: ET.Element) -> None:  # what a time-range query reads dates and floating times in
        prop.text = calendar_timezone(session.zone)

    return {
        **_common(session),
        tag(DAV, "resourcetype"): _children(tag(DAV, "collection"), tag(CALDAV, "calendar")),
        tag(DAV, "displayname"): _text(collection.name),
        tag(DAV, "owner"): _href(session.home_href()),
        tag(CALDAV, "supported-calendar-component-set"): components,
        tag(CALDAV, "supported-calendar-data"): data,
        tag(CALDAV, "max-resource-size"): _text(str(MAX_OBJECT_BYTES)),
        tag(CALDAV, "calendar-timezone"): zone,
        tag(DAV, "sync-token"): points.fill_token,
        tag(CALSERVER, "getctag"): points.fill_ctag,
        tag(DAV, "current-user-privilege-set"): _privileges(session, container=True),
        tag(DAV, "supported-report-set"): _reports,
        tag(APPLE, "calendar-order"): _text(str(collection.order)),
    }


def object_properties(session: Session, record: Item, body: bytes | None, etag: str) -> Table:
    """A task's properties; `body` (its calendar data) when a property needs it; `etag`: its
    ETag (ical_out.etag: it may name the user's zone)."""
    changed = parse_timestamp(str(record["updatedAt"]), "updatedAt")
    table: Table = {
        **_common(session),
        tag(DAV, "resourcetype"): lambda prop: None,
        tag(DAV, "getetag"): _text(etag),
        tag(DAV, "getcontenttype"): _text(CONTENT_TYPE),
        tag(DAV, "getlastmodified"): _text(format_datetime(changed, usegmt=True)),
        tag(DAV, "current-user-privilege-set"): _privileges(session, container=False),
    }
    if body is not None:
        table[tag(DAV, "getcontentlength")] = _text(str(len(body)))
        table[tag(CALDAV, "calendar-data")] = _text(body.decode("utf-8"))
    return table


NEEDS_BODY = frozenset({tag(DAV, "getcontentlength"), tag(CALDAV, "calendar-data")})


# -- the answer ------------------------------------------------------------------------------


def multistatus() -> ET.Element:
    return ET.Element(tag(DAV, "multistatus"))


def _status(parent: ET.Element, code: int, text: str) -> None:
    element(parent, tag(DAV, "status"), f"HTTP/1.1 {code} {text}")


def add_response(
    root: ET.Element, href: str, table: Table, wanted: Iterable[str] | None, *, names_only: bool = False
) -> None:
    """One `response`: the wanted properties the table has (200) and the ones it has not (404).
    `wanted` None: every property the table has (allprop's set); `names_only`: propname."""
    response = element(root, tag(DAV, "response"))
    href_element(response, href)
    asked = [name for name in table if name in ALLPROP] if wanted is None else list(dict.fromkeys(wanted))
    if names_only:
        asked = list(table)
    found = [name for name in asked if name in table]
    missing = [name for name in asked if name not in table]
    if found or not missing:
        propstat = element(response, tag(DAV, "propstat"))
        prop = element(propstat, tag(DAV, "prop"))
        for name in found:
            child = ET.SubElement(prop, name)
            if not names_only:
                table[name](child)
        _status(propstat, 200, "OK")
    if missing:
        propstat = element(response, tag(DAV, "propstat"))
        prop = element(propstat, tag(DAV, "prop"))
        for name in missing:
            ET.SubElement(prop, name)
        _status(propstat, 404, "Not Found")


#: The `xml:lang` attribute (the `xml` prefix needs no declaration).
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def add_refused(root: ET.Element, href: str, names: Iterable[str], why: str, language_tag: str) -> None:
    """One `response` refusing every named property (403), for PROPPATCH; `why` in the person's
    words, tagged with their language (xml:lang: the multistatus around it is no prose)."""
    response = element(root, tag(DAV, "response"))
    href_element(response, href)
    propstat = element(response, tag(DAV, "propstat"))
    prop = element(propstat, tag(DAV, "prop"))
    for name in names:
        ET.SubElement(prop, name)
    _status(propstat, 403, "Forbidden")
    element(response, tag(DAV, "responsedescription"), why).set(_XML_LANG, language_tag)
