"""PROPFIND (RFC 4918 §9.1) at depth 0 or 1 over the root, the home, a collection or a task;
`infinity` is refused with DAV:propfind-finite-depth (403), as RFC 4918 lets a server do: the
home's answer at infinity would be every task of every calendar, and clients ask 0 or 1."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from ..kernel.i18n import DEFAULT_LANGUAGE, LANGUAGE_TAGS, Text, Translator
from ..kernel.messages import quoted
from .budget import Answer, Build
from .errors import DavError
from .members import Member, collection_members, named_members, whole_members
from .paths import Target
from .properties import (
    NEEDS_BODY,
    Points,
    Table,
    add_refused,
    add_response,
    collection_properties,
    home_properties,
    multistatus,
    object_properties,
    root_properties,
)
from .session import Session
from .xml import DAV, tag

Wanted = tuple[list[str] | None, bool]


def requested(root: ET.Element | None, container: str = "propfind") -> Wanted:
    """(property names or None for allprop, whether only names are asked) of a PROPFIND body,
    or of the `prop` of a REPORT body."""
    if root is None:
        return None, False
    if container == "propfind" and root.tag != tag(DAV, "propfind"):
        raise DavError(400, "a PROPFIND body is a DAV:propfind element")
    for child in root:
        if child.tag == tag(DAV, "prop"):
            return [prop.tag for prop in child], False
        if child.tag == tag(DAV, "allprop"):
            return None, False
        if child.tag == tag(DAV, "propname"):
            return None, True
    return (None, False) if container == "propfind" else ([tag(DAV, "getetag")], False)


def depth_of(header: str | None, default: str = "0") -> int:
    value = (header or default).strip().lower()
    if value == "infinity":
        raise DavError(403, "PROPFIND at Depth: infinity is not served; ask 0 or 1", (DAV, "propfind-finite-depth"))
    if value not in ("0", "1"):
        raise DavError(400, f"Depth must be 0 or 1, not {quoted(value[:20])}")
    return int(value)


def needs_record(wanted: Wanted) -> bool:
    """Whether the properties `wanted` need a task's whole record (its calendar data, or its size),
    not only what its listing keeps (name, ETag, Last-Modified)."""
    names, names_only = wanted
    return names is None or names_only or bool(NEEDS_BODY & set(names))


def object_response(root: ET.Element, session: Session, collection_id: str, member: Member, wanted: Wanted) -> None:
    names, names_only = wanted
    body = member.body if needs_record(wanted) else None
    table = object_properties(session, member.record, body, member.etag)
    add_response(root, session.object_href(collection_id, member.name), table, names, names_only=names_only)


def member_response(session: Session, collection_id: str, member: Member, wanted: Wanted) -> Build:
    """What adds `member`'s response to an answer (budget.Answer)."""

    def build(parent: ET.Element) -> None:
        object_response(parent, session, collection_id, member, wanted)

    return build


def propfind(session: Session, target: Target, depth: int, wanted: Wanted) -> Answer:
    """The answer; a collection's members at depth 1 as far as the answer's budget goes, then
    the 507 that says the listing was cut (budget.py; docs/caldav.md says what a client does)."""
    names, names_only = wanted
    answer = Answer()

    def add(href: str, table: Table) -> None:
        answer.add_always(lambda parent: add_response(parent, href, table, names, names_only=names_only))

    if target.level == "root":
        add(session.base + "/dav/", root_properties(session))
        if depth:
            add(session.home_href(), home_properties(session))
        return answer
    if target.level == "home":
        add(session.home_href(), home_properties(session))
        if depth:
            points = Points(session)
            for collection in session.collections:
                add(session.collection_href(collection.id), collection_properties(session, collection, points))
        return answer
    calendar = session.collection(target.collection)
    if calendar is None:
        raise DavError(404, Text("no calendar %(name)s: a space's id or inbox", name=quoted(target.collection)))
    if target.level == "collection":
        href = session.collection_href(calendar.id)
        add(href, collection_properties(session, calendar, Points(session)))
        if depth:
            listed = collection_members(session, calendar.id)
            for each in whole_members(session, calendar.id, listed) if needs_record(wanted) else listed:
                if not answer.add(member_response(session, calendar.id, each, wanted)):
                    answer.truncated(href)
                    break
        return answer
    member = named_members(session, calendar.id, [target.name]).get(target.name)
    if member is None:
        raise DavError(404, Text("no task %(name)s in this calendar", name=quoted(target.name)))
    answer.add_always(member_response(session, calendar.id, member, wanted))
    return answer


def proppatch(href: str, root: ET.Element | None, say: Translator) -> ET.Element:
    """PROPPATCH (a list's colour or order set in an app): every property refused, 403 each in one
    multistatus (RFC 4918 §9.2): names and order are the spaces' own, changed in MeSQ (said in
    the person's language: `say`, an app may show it)."""
    if root is None or root.tag != tag(DAV, "propertyupdate"):
        raise DavError(400, "a PROPPATCH body is a DAV:propertyupdate element")
    names = [prop.tag for change in root for holder in change if holder.tag == tag(DAV, "prop") for prop in holder]
    answer = multistatus()
    said = say.gettext("names, colours and order are the spaces' own: change them in MeSQ")
    add_refused(answer, href, names, said, LANGUAGE_TAGS.get(say.language, LANGUAGE_TAGS[DEFAULT_LANGUAGE]))
    return answer
