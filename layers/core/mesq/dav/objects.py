"""GET, PUT, DELETE and MOVE of one task (a calendar object resource).

PUT: the body is read whole and checked (ical_in.py) before anything is written, then saved by
`save_synced_todo` in one transaction: `If-None-Match: *` means the name must be free,
`If-Match` names the revision the client saw (a stale one is 412, nothing overwritten). No ETag
comes back: what MeSQ stores is not the client's bytes (RFC 4791 §5.3.4), so the client reads
it. DELETE moves the task to the trash through the board's own delete, which /activity can undo.
MOVE (RFC 4918 §9.9, how iOS moves a reminder to another list) to the same name in another space's
calendar moves the task there as the board's move does (its subtasks with it), or an inbox item
to the board; a subtask moves with its task, and nothing goes back to the inbox.
"""

from __future__ import annotations

from email.utils import format_datetime
from typing import Any
from urllib.parse import unquote, urlsplit

from starlette.responses import Response

from ..kernel.i18n import Text
from ..kernel.messages import quoted
from ..kernel.ports.storage import Item
from ..kernel.timestamps import parse_timestamp
from ..todos.sync import links
from ..todos.sync.reads import is_member, task_record
from .errors import DavError
from .ical_in import Incoming, read_vtodo
from .ical_out import CONTENT_TYPE, etag, faithful, names_etag, shown_zone
from .ical_out import body as body_of
from .paths import Target, parse
from .session import Session

_DELETES = {"task": "delete_todo_task", "subtask": "delete_todo_subtask", "inbox": "delete_todo_inbox_item"}


def _current(session: Session, collection_id: str, name: str) -> tuple[links.RecordKind, Item] | None:
    found = links.by_name(session.services.items, session.user_id, name)
    if found is None:
        return None
    kind, record = found
    parent = (
        task_record(session.services.items, session.user_id, str(record["parentId"]))
        if record.get("parentId")
        else None
    )
    return found if is_member(kind, record, collection_id, parent) else None


def _parent_uid(session: Session, record: Item) -> str | None:
    if not record.get("parentId"):
        return None
    parent = task_record(session.services.items, session.user_id, str(record["parentId"]))
    return links.uid_of(parent) if parent is not None else None


def _collection(session: Session, target: Target) -> str:
    collection = session.collection(target.collection)
    if collection is None:
        raise DavError(404, Text("no calendar %(name)s: a space's id or inbox", name=quoted(target.collection)))
    return collection.id


def get(session: Session, target: Target, *, head: bool = False) -> Response:
    collection_id = _collection(session, target)
    found = _current(session, collection_id, target.name)
    if found is None:
        raise DavError(404, Text("no task %(name)s in this calendar", name=quoted(target.name)))
    kind, record = found
    parent_uid = _parent_uid(session, record)
    body = body_of(kind, record, parent_uid, session.zone)
    headers = {
        "ETag": etag(record, parent_uid, session.zone),
        "Last-Modified": format_datetime(parse_timestamp(str(record["updatedAt"]), "updatedAt"), usegmt=True),
        "Cache-Control": "private, no-cache",
    }
    if head:
        headers["Content-Length"] = str(len(body))
        return Response(b"", media_type=CONTENT_TYPE, headers=headers)
    return Response(body, media_type=CONTENT_TYPE, headers=headers)


def _preconditions(
    session: Session, if_match: str | None, if_none_match: str | None, current: tuple[links.RecordKind, Item] | None
) -> dict[str, Any]:
    """`expectedRevision` / `mustBeNew` from the conditional headers (412 when they already fail),
    If-Match first, then If-None-Match (RFC 7232 §6). If-Match names the ETag the task has now:
    its revision, and the zone a body written in the user's zone was in (the client's copy of such
    a task is stale once the zone changed). If-None-Match `*` asks for a new task; a list of ETags
    fails when one of them is the task's now (weak comparison, RFC 7232 §3.2), else the write is
    held to the revision they were compared with."""
    none_match = [part.strip() for part in if_none_match.split(",") if part.strip()] if if_none_match else []
    if "*" in none_match:
        if current is not None:
            raise DavError(412, "If-None-Match: * but the task exists")
        return {"mustBeNew": True}
    if if_match is None and not none_match:
        return {}
    if current is None:
        if if_match is not None:
            raise DavError(412, "If-Match names a task that does not exist (any more)")
        return {}  # no task: none of the listed ETags is its
    record = current[1]
    now = etag(record, _parent_uid(session, record), session.zone)
    wanted = [part.strip() for part in if_match.split(",")] if if_match is not None else ["*"]
    if "*" not in wanted and not any(names_etag(part, now) for part in wanted):
        raise DavError(412, f"the task changed since (its ETag is now {now}); nothing was written")
    if any(names_etag(part.removeprefix("W/"), now) for part in none_match):
        raise DavError(412, f"If-None-Match names the task's ETag now ({now}); nothing was written")
    return {"expectedRevision": int(record["revision"])}


def _settled(fields: dict[str, Any], current: Item | None, user_zone: str | None = None) -> dict[str, Any]:
    """What the record already holds stays as it is stored: the same instant or date as its due
    keeps the stored due and time zone (a client writing it back in UTC changes nothing, nor one
    writing back the zone MeSQ wrote a zone-less recurring task in, `ical_out.shown_zone`)."""
    if current is None or fields.get("due") is None or current.get("due") is None:
        return fields
    new, old = fields["due"], current["due"]
    if new["type"] != old["type"]:
        return fields
    same = new == old or (
        new["type"] == "datetime" and parse_timestamp(new["at"], "due.at") == parse_timestamp(old["at"], "due.at")
    )
    if not same:
        return fields
    settled = {**fields, "due": old}
    if fields.get("timezone") is None or (
        current.get("timezone") is None and fields["timezone"] == shown_zone(current, user_zone)
    ):
        settled.pop("timezone", None)
    return settled


def put(session: Session, target: Target, body: bytes, headers: dict[str, str | None]) -> Response:
    collection_id = _collection(session, target)
    if not session.caller.can_write:
        raise DavError(403, Text("this token lacks the scope %(scope)s: the calendar is read-only", scope="todo:write"))
    media = (headers.get("content-type") or "text/calendar").partition(";")[0].strip().lower()
    if media not in ("text/calendar", "application/octet-stream", ""):
        raise DavError(415, f"a task is sent as text/calendar, not {media[:60]}")
    incoming: Incoming = read_vtodo(body, session.zone, session.untitled)
    current = _current(session, collection_id, target.name)
    conditions = _preconditions(session, headers.get("if-match"), headers.get("if-none-match"), current)
    fields = _settled(incoming.fields, current[1] if current else None, session.zone)
    data = session.invoke(
        "save_synced_todo",
        writing=True,
        collection=collection_id,
        name=target.name,
        uid=incoming.uid,
        props=incoming.props,
        **conditions,
        **fields,
    )
    answer_headers = {"Cache-Control": "no-store"}
    saved = {**data["record"], "sync": data["link"]}
    parent_uid = incoming.fields.get("parentUid") if saved.get("parentId") else None
    if faithful(saved, parent_uid):
        # the client's bytes are what GET answers now (RFC 4791 §5.3.4)
        answer_headers["ETag"] = etag(saved, parent_uid, session.zone)
    return Response(status_code=201 if data["created"] else 204, headers=answer_headers)


def delete(session: Session, target: Target, if_match: str | None) -> Response:
    if target.level != "object":
        raise DavError(403, Text("calendars are spaces and the inbox: delete a space in MeSQ itself"))
    collection_id = _collection(session, target)
    if not session.caller.can_write:
        raise DavError(403, Text("this token lacks the scope %(scope)s: the calendar is read-only", scope="todo:write"))
    # Without If-Match the DELETE names the task, not a revision: a write committing between the
    # read and the delete is read again (up to 3 times) rather than answered 412.
    for attempt in range(1, _UNCONDITIONAL_ATTEMPTS + 1):
        current = _current(session, collection_id, target.name)
        if current is None:
            raise DavError(404, Text("no task %(name)s in this calendar", name=quoted(target.name)))
        expected = _preconditions(session, if_match, None, current).get("expectedRevision", int(current[1]["revision"]))
        kind, record = current
        shown = "inbox" if kind == "inbox" else "subtask" if record.get("parentId") else "task"
        try:
            session.invoke(_DELETES[shown], writing=True, id=str(record["id"]), expectedRevision=expected)
        except DavError as error:
            if error.status != 412 or if_match is not None or attempt == _UNCONDITIONAL_ATTEMPTS:
                raise
            continue
        break
    return Response(status_code=204, headers={"Cache-Control": "no-store"})


#: Tries of a DELETE without If-Match that lost a race with another write.
_UNCONDITIONAL_ATTEMPTS = 3


_MOVES = {"task": "move_todo_task", "inbox": "move_todo_inbox_item_to_board"}


def _destination(session: Session, header: str | None) -> Target:
    """The task a MOVE's Destination names (an absolute URI or a path, RFC 4918 §10.3)."""
    if not header or not header.strip():
        raise DavError(400, Text("MOVE needs a Destination: the task's address in the other calendar"))
    path = unquote(urlsplit(header.strip()).path)
    path = path.removeprefix(session.base) if session.base and path.startswith(session.base + "/") else path
    target = parse(path)
    if target is None or target.level != "object":
        raise DavError(403, Text("a task moves to another calendar of yours, under the same name"))
    if target.username.strip().lower() != session.username:
        raise DavError(403, Text("these calendars belong to another account"))
    return target


def move(session: Session, target: Target, destination: str | None, if_match: str | None) -> Response:
    collection_id = _collection(session, target)
    if not session.caller.can_write:
        raise DavError(403, Text("this token lacks the scope %(scope)s: the calendar is read-only", scope="todo:write"))
    to = _destination(session, destination)
    to_collection = session.collection(to.collection)
    if to_collection is None:
        raise DavError(409, Text("no calendar %(name)s: a space's id or inbox", name=quoted(to.collection)))
    if to.name != target.name or to_collection.id == collection_id:
        raise DavError(403, Text("a task moves to another calendar of yours, under the same name"))
    current = _current(session, collection_id, target.name)
    if current is None:
        if _current(session, to_collection.id, target.name) is not None:  # a subtask its task took along
            return Response(status_code=204, headers={"Cache-Control": "no-store"})
        raise DavError(404, Text("no task %(name)s in this calendar", name=quoted(target.name)))
    kind, record = current
    if record.get("parentId"):
        raise DavError(403, Text("a subtask moves with its task: move the task"))
    if to_collection.id == links.INBOX:
        raise DavError(403, Text("a task on a board does not go back to the inbox"))
    expected = _preconditions(session, if_match, None, current).get("expectedRevision", int(record["revision"]))
    session.invoke(
        _MOVES[kind], writing=True, id=str(record["id"]), spaceId=to_collection.id, expectedRevision=expected
    )
    return Response(status_code=201, headers={"Cache-Control": "no-store"})
