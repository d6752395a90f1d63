"""What your agents did, written for people: `/activity` (one group per session, newest first,
each with who, when and what in one line, its changes one sentence each with their details
folded, "Undo this session" after a preview) and a record's History panel (the memo editor's,
the task page's, `/activity/history/{record_id}`: every version with its author, its details and
a way back to it).

Every read and undo goes through `Page.invoke` (list_changes, undo_changes and its dry run,
list_todo_spaces and batch_get_memos for names): the same operations REST and MCP run, with the
signed-in user's full rights. What an undo or a restore did is said on the page the browser
lands on by a one-time notice (`Page.redirect_with_flash`), never by text in the URL: a link
cannot make these pages say anything, and no value from the URL is shown.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from starlette.responses import Response
from starlette.routing import Route

from ...auth.oauth.names import UNNAMED_CLIENT
from ...history.records import is_moved_to_board
from ...kernel.concurrency import run_sync
from ...kernel.context import new_run_id
from ...kernel.errors import Conflict, NotFound, RevisionConflict, ValidationError
from ...kernel.timestamps import format_timestamp, parse_timestamp
from ...todos.views.history_subtasks import history_subtask_ids
from ..kit.forms import MAX_FORM_FIELDS
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import N_, Translator
from ..kit.request_values import form_revision, is_htmx
from .sessions import Group, Sessions, is_undo, last_sessions
from .times import local, moment_words, span_words
from .undo_words import nothing_since, preview_report, undo_report
from .words import Line, Names, line, referenced_ids, summary, title_of

PAGE = "/activity"
#: Sessions one page shows; the next ones are behind "Older".
GROUPS_PER_PAGE = 50
#: list_changes pages (of READ_SIZE) one view reads at most, however the groups fall.
MAX_READS = 5
READ_SIZE = 100
#: Sentences a group lists; the rest are in the session's own view.
LINES_PER_GROUP = 100
#: undo_changes takes this many change ids per call; an Undo of more goes in rounds.
UNDO_BATCH = 100
#: Change ids one form may post (a group's pending changes on one page: at most a page's reads).
MAX_FORM_IDS = MAX_READS * READ_SIZE
#: Change ids a form posts one per field (its other fields: csrf, back, redo); more are packed
#: IDS_PER_FIELD a field (forms.MAX_FORM_FIELDS caps the fields of every form).
PLAIN_IDS = MAX_FORM_FIELDS - 3
IDS_PER_FIELD = 20
#: Undo of a run or session (an import): undo_changes rounds, so 20,000 records undo in one click.
MAX_ROUNDS = 200
_FILTERS = ("sessionId", "actor", "recordId", "kind", "runId")
#: `actor` values one view reads (a connected app's row links every connection of the app:
#: `?actor=oauth:A&actor=oauth:B`); each is one list_changes read per page read, merged by id.
MAX_ACTORS = 20
#: Filters that show some of a session's changes (one record's, one kind's): a group then undoes
#: only the changes it lists, never the rest of its session. A run's view (an import's report links
#: there) undoes the run; an actor's view shows whole sessions (a session is one credential's).
_PART_FILTERS = ("recordId", "kind")
#: The actor kinds, as a person knows them.
_ACTOR_KINDS = {"pat": N_("access token"), "oauth": N_("connected app")}
_ACTOR_NAMES = {"web": N_("Web app"), "cli": N_("Command line")}
#: Names the service gives a credential that has none of its own, said in the page's language.
_DEFAULT_NAMES = {"Access token": N_("Access token"), "Connected app": N_("Connected app"),
                  UNNAMED_CLIENT: UNNAMED_CLIENT}  # fmt: skip
#: What each filter says on the page: never its value from the URL (a link anyone can make).
_FILTER_WORDS = {"sessionId": N_("one session"), "runId": N_("one run"), "recordId": N_("one record")}
_KIND_WORDS = {"memo": N_("memos"), "task": N_("tasks"), "subtask": N_("subtasks"), "inbox": N_("inbox items"),
               "space": N_("spaces"), "column": N_("columns"), "tag": N_("tags")}  # fmt: skip


def actor_name(actor: dict[str, Any], say: Translator) -> str:
    """The web app and the command line by their names in the page's language; an agent by the
    name its token or app was given."""
    if actor.get("kind") in _ACTOR_NAMES:
        return say.gettext(_ACTOR_NAMES[actor["kind"]])
    name = str(actor.get("name") or "")
    return say.gettext(_DEFAULT_NAMES[name]) if name in _DEFAULT_NAMES else name


def actor_kind(actor: dict[str, Any], say: Translator) -> str:
    kind = actor.get("kind")
    return say.gettext(_ACTOR_KINDS[kind]) if kind in _ACTOR_KINDS else ""


@dataclass(frozen=True)
class GroupView:
    """One session as the page shows it."""

    group: Group
    who: str
    kind: str
    span: str
    count: int
    summary: str
    lines: tuple[Line, ...]
    hidden: int
    #: What the group's Undo takes back: "session" (undo_changes `sessionId`), "run" (on a run's
    #: view: `runId`), "listed" (on a view of some of a session's changes: the ids it lists).
    scope: Literal["session", "run", "listed"] = "session"
    #: An undo group whose changes put back what an earlier undo took (a redo): its button undoes
    #: them again ("Undo these changes"); an undo group's own button redoes ("Redo these changes").
    redo: bool = False
    #: The page's reads ended inside this group (MAX_READS): its session may hold more changes than
    #: `count`, on the older pages, and its count reads "at least".
    continues: bool = False

    @property
    def redoes(self) -> bool:
        """Whether this group's button brings back what an undo took: an undo group, not a redo."""
        return self.group.undo and not self.redo

    @property
    def undo_fields(self) -> list[tuple[str, str]]:
        """What the group's Undo posts: its session or its run, all of it (what it created and left
        empty included), when the page shows the whole of either; else the ids the group lists as
        pending (an undo group's, or those a filtered page shows: a person never undoes changes
        the page did not show them)."""
        group = self.group
        run_id = group.changes[0].get("runId") if group.changes else None
        if not group.undo and self.scope == "session" and group.session_id:
            return [("sessionId", group.session_id)]
        if not group.undo and self.scope == "run" and run_id:
            return [("runId", str(run_id))]
        return id_fields(group.pending[:MAX_FORM_IDS])


def id_fields(change_ids: list[str]) -> list[tuple[str, str]]:
    """Change ids as hidden `changeId` fields: one id each while they fit a form's field limit
    (MAX_FORM_FIELDS, with the csrf, back and redo fields), else IDS_PER_FIELD ids a field, space
    separated: one field per id made a group of over 97 pending changes (an undo of 120 changes'
    "Redo these changes", a record's page) post more fields than any form may, and its button
    answered an error page."""
    if len(change_ids) <= PLAIN_IDS:
        return [("changeId", change_id) for change_id in change_ids]
    return [
        ("changeId", " ".join(change_ids[start : start + IDS_PER_FIELD]))
        for start in range(0, len(change_ids), IDS_PER_FIELD)
    ]


def filter_words(filters: dict[str, str], changes: list[dict[str, Any]], say: Translator) -> str:
    """The filters in words: the actor's name as the changes found say it (the person's own
    data), a kind only once validated, a session, run or record as "one session" and so on."""
    words = []
    if "actor" in filters:
        names = {actor_name(change["actor"], say) for change in changes}
        words.append(say.gettext("by %(name)s", name=names.pop()) if len(names) == 1 else say.gettext("by one agent"))
    if filters.get("kind") in _KIND_WORDS:
        words.append(say.gettext(_KIND_WORDS[filters["kind"]]))
    words += [say.gettext(_FILTER_WORDS[name]) for name in ("sessionId", "runId", "recordId") if name in filters]
    return say.gettext(", ").join(word for word in words if word)


def _filters(page: Page) -> tuple[dict[str, str], list[str]]:
    """The view's filters but `actor`, and its actors: `actor` may be given several times (the
    connections of one app), the first MAX_ACTORS distinct ones read."""
    query = page.request.query_params
    given = [name for name in _FILTERS if name != "actor" and query.get(name) and len(query[name]) <= 200]
    filters = {name: query[name] for name in given}
    actors = list(dict.fromkeys(actor for actor in query.getlist("actor") if actor and len(actor) <= 200))
    return filters, actors[:MAX_ACTORS]


def _query(filters: dict[str, str], actors: list[str], **more: str) -> str:
    """The view's filters as a query string, in _FILTERS order, every actor given, then `more`."""
    pairs = [(name, value) for name in _FILTERS for value in (actors if name == "actor" else [filters.get(name)])]
    return urlencode([*((name, value) for name, value in pairs if value), *more.items()])


async def _list_changes(page: Page, arguments: dict[str, Any], actors: list[str]) -> dict[str, Any]:
    """list_changes of one actor or none as it answers; of several, each actor's page merged newest
    first and cut where the first of them that has more stops (below it one of them is unread), so
    the next page's cursor leaves nothing out."""
    if len(actors) <= 1:
        return dict(await page.invoke("list_changes", {**arguments, **({"actor": actors[0]} if actors else {})}))
    answers = [await page.invoke("list_changes", {**arguments, "actor": actor}) for actor in actors]
    merged = sorted({change["id"]: change for data in answers for change in data["changes"]}.values(),
                    key=lambda change: change["id"], reverse=True)  # fmt: skip
    unread_below = [str(data["nextCursor"]) for data in answers if data.get("nextCursor")]
    if not unread_below:
        return {"changes": merged}
    frontier = max(unread_below)
    return {"changes": [change for change in merged if change["id"] >= frontier], "nextCursor": frontier}


async def _read_groups(
    page: Page, filters: dict[str, str], actors: list[str], cursor: str | None
) -> tuple[list[Group], str | None, bool]:
    """The first GROUPS_PER_PAGE sessions from `cursor` on, the cursor of the next page, and whether
    the reads ended inside the last group (MAX_READS, more to read): list_changes read page after
    page until one more session would start (or MAX_READS)."""
    sessions = Sessions()
    last: str | None = None
    for _read in range(MAX_READS):
        arguments: dict[str, Any] = {**filters, "limit": READ_SIZE, **({"cursor": cursor} if cursor else {})}
        data = await _list_changes(page, arguments, actors)
        for change in data["changes"]:
            if len(sessions.groups) >= GROUPS_PER_PAGE and sessions.would_open(change):
                return sessions.groups, last, False
            sessions.add(change)
            last = change["id"]
        cursor = data.get("nextCursor")
        if cursor is None:
            return sessions.groups, None, False
    return sessions.groups, cursor, True


async def names_for(page: Page, changes: list[dict[str, Any]]) -> Names:
    """Columns and spaces by name (one list_todo_spaces), titles of memos whose changes predate
    titles (one batch_get_memos): only when the changes need them."""
    columns, untitled = referenced_ids(changes)
    column_names: dict[str, str] = {}
    space_names: dict[str, str] = {}
    titles: dict[str, str] = {}
    if columns:
        listing = await page.invoke("list_todo_spaces", {})
        column_names = {column["id"]: column["name"] for column in listing["columns"]}
        space_names = {space["id"]: space["name"] for space in listing["spaces"]}
    if untitled:
        found = await page.invoke("batch_get_memos", {"ids": sorted(untitled)[:100]})
        fake = [{"record": {"kind": "memo", "id": memo["id"]}, "after": memo} for memo in found["memos"]]
        titles = {change["record"]["id"]: title_of(change, Names()) for change in fake}
    return Names(columns=column_names, spaces=space_names, titles=titles)


def _now(page: Page) -> datetime:
    return datetime.fromtimestamp(page.web.clock(), UTC)


def group_view(
    group: Group,
    names: Names,
    zone: str,
    now: datetime,
    say: Translator,
    *,
    scope: Literal["session", "run", "listed"] = "session",
    undo_ids: frozenset[str] = frozenset(),
) -> GroupView:
    """`undo_ids`: the undo entries the page read, so a group undoing one of them reads as a redo."""
    shown = group.changes[:LINES_PER_GROUP]
    return GroupView(
        group=group, who=actor_name(group.actor, say), kind=actor_kind(group.actor, say),
        span=span_words(group.oldest, group.newest, zone, now, say), count=len(group.changes),
        summary=summary(group.changes, say), lines=tuple(line(change, names, zone, now, say) for change in shown),
        hidden=len(group.changes) - len(shown), scope=scope,
        redo=group.undo and any(change.get("undoes") in undo_ids for change in group.changes),
    )  # fmt: skip


@dataclass(frozen=True)
class AppUndoView:
    """ "Undo everything <app> did since ...": one app or agent of the page, with the time its
    earliest session shown starts (the form's default, the reader's wall clock to the minute)."""

    actor: str
    who: str
    kind: str
    since: str
    since_words: str
    #: The exact instant `since` stands for (a UTC timestamp), posted beside the field: in an
    #: autumn clock change its wall clock happens twice, and the field carries no zone.
    since_at: str


def app_undo_views(groups: list[Group], zone: str, now: datetime, say: Translator) -> list[AppUndoView]:
    """Each app or agent with changes still to undo on the page, newest first: every actor but
    the web app (the person's own clicks undo by their session or their toast). Its default time
    is the start of its earliest session shown, floored to the minute, so the default takes back
    exactly what the page shows of it, and what it did since."""
    earliest: dict[str, Group] = {}
    pending: set[str] = set()
    for group in groups:
        if group.undo or group.actor.get("kind") == "web":
            continue
        actor_id = str(group.actor["id"])
        earliest[actor_id] = group  # groups come newest first: the last seen is the earliest
        if group.pending:
            pending.add(actor_id)
    views = []
    for actor_id, group in earliest.items():
        if actor_id not in pending:
            continue
        start = local(group.oldest, zone).replace(second=0, microsecond=0)
        views.append(AppUndoView(
            actor=actor_id, who=actor_name(group.actor, say), kind=actor_kind(group.actor, say),
            since=start.replace(tzinfo=None).isoformat(timespec="minutes"),
            since_words=moment_words(format_timestamp(start), zone, now, say), since_at=format_timestamp(start),
        ))  # fmt: skip
    return views


async def activity_page(page: Page) -> Response:
    filters, actors = _filters(page)
    cursor = page.request.query_params.get("cursor")
    if "kind" in filters and filters["kind"] not in _KIND_WORDS:
        raise _not_a_link_of_ours()
    try:
        cursor_given = cursor if cursor and len(cursor) <= 64 else None
        groups, next_cursor, cut = await _read_groups(page, filters, actors, cursor_given)
    except NotFound:  # a session or run none of whose changes are kept (expired, purged with its memo)
        if not any(name in filters for name in ("sessionId", "runId")):
            raise
        groups, next_cursor, cut, gone = [], None, False, True
    except ValidationError:  # a value from the URL list_changes refuses (a mangled cursor): not the API's advice
        raise _not_a_link_of_ours() from None
    else:
        gone = False
    changes = [change for group in groups for change in group.changes[:LINES_PER_GROUP]]
    names = await names_for(page, changes)
    zone, now, say = page.time_zone, _now(page), page.translator
    scope: Literal["session", "run", "listed"] = "run" if "runId" in filters else "session"
    if any(name in filters for name in _PART_FILTERS):
        scope = "listed"
    undo_ids = frozenset(change["id"] for group in groups if group.undo for change in group.changes)
    views = await run_sync(  # CPU
        lambda: [group_view(group, names, zone, now, say, scope=scope, undo_ids=undo_ids) for group in groups]
    )
    if cut and views:  # the older page goes on with this session: a count here is only what was read
        views[-1] = replace(views[-1], continues=True)
    if cursor and views and scope == "session" and await _begun_on_a_newer_page(page, groups[0]):
        views[0] = replace(views[0], continues=True)  # the rest of a session: its Undo takes all of it
    back = PAGE + ("?" + _query(filters, actors) if filters or actors else "")
    # Per app "Undo everything it did since ...": on the newest page of whole sessions only (all
    # activity, or one actor's), so its default time takes back only what the page shows. A view
    # of several actors (one app's connections) offers it for none: undo_changes takes one actor,
    # and one row per connection would name the same app twice; each session keeps its Undo.
    apps = [] if cursor or filters or len(actors) > 1 else app_undo_views(groups, zone, now, say)
    shown = {**filters, **({"actor": " ".join(actors)} if actors else {})}
    return page.render(
        "activity/activity.html", nav="activity", groups=views, filters=shown,
        more=_query(filters, actors, cursor=next_cursor) if next_cursor else None,
        back=back, filter_words=filter_words(shown, changes, say), gone=gone, apps=apps,
    )  # fmt: skip


async def _begun_on_a_newer_page(page: Page, group: Group) -> bool:
    """Whether an older page's first group is the rest of a session a newer page showed (its reads
    ended inside it): the session has changes of the group's sort (done or undo) newer than the
    group's newest, read by the session's index from the group's newest time on (one query)."""
    if not group.session_id:
        return False
    newest = group.changes[0]
    try:
        data = await page.invoke("list_changes", {"sessionId": group.session_id, "since": newest["at"],
                                                  "limit": READ_SIZE})  # fmt: skip
    except NotFound:  # the session's changes expired since the page's own read
        return False
    return any(change["id"] > newest["id"] and is_undo(change) == group.undo for change in data["changes"])


def _not_a_link_of_ours() -> ValidationError:
    """A link with a filter or a page /activity never made (a kind the history has no records of, a
    cursor that is no change id): said in the page's words, never list_changes' advice to an agent."""
    return ValidationError("This link does not open a page of your activity: open Activity from the menu.")


def last_session_views(page: Page, changes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Settings' tokens and connected apps: each credential's last session in words (when, how
    many changes, what), linked to `/activity` showing that session alone, and when it ended
    (`newest`: of an app's connections, the row shows the session that ended last)."""
    zone, now, say = page.time_zone, _now(page), page.translator
    views = {}
    for actor_id, group in last_sessions(changes).items():
        link = {"sessionId": group.session_id} if group.session_id else {"actor": actor_id}
        views[actor_id] = {
            "span": span_words(group.oldest, group.newest, zone, now, say),
            "summary": say.gettext("%(count)s: %(summary)s", count=say.ngettext("%(num)d change", "%(num)d changes",
                                   len(group.changes)), summary=summary(group.changes, say)),
            "url": PAGE + "?" + urlencode(link),
            "newest": group.newest,
        }  # fmt: skip
    return views


# -- undo ----------------------------------------------------------------------------------------


def _back(page: Page) -> str:
    back = page.fields.text("back")
    allowed = back.startswith(("/activity", "/memos/", "/todos/")) and "//" not in back and "\\" not in back
    return back if allowed else PAGE


def _target(page: Page) -> dict[str, Any]:
    """What the form asks to undo: a session, a run, change ids, or an app's changes since a time
    (one of them)."""
    session_id, run_id, actor = page.fields.text("sessionId"), page.fields.text("runId"), page.fields.text("actor")
    packed = [str(value) for value in page.fields.all("changeId") if value]
    change_ids = [change_id for value in packed for change_id in value.split()][:MAX_FORM_IDS]
    given = [bool(session_id), bool(run_id), bool(change_ids), bool(actor)]
    if sum(given) != 1:
        raise ValidationError("give one session, one run or some changes to undo")
    if session_id:
        return {"sessionId": session_id}
    if run_id:
        return {"runId": run_id}
    if actor:
        return {"actor": actor, "since": _since(page)}
    return {"changeIds": change_ids}


#: A `datetime-local` input's value: the reader's wall clock, no zone.
_WALL_CLOCK = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?")


def _since(page: Page) -> str:
    """The time an app's undo starts from: the form's `datetime-local` value read in the reader's
    zone (the zone the page showed its times in), or the exact instant the preview's own form
    carries on (with its offset); as a UTC timestamp."""
    value = page.fields.text("since").strip()
    if _WALL_CLOCK.fullmatch(value):
        try:
            wall = datetime.fromisoformat(value)
        except ValueError:  # 2026-02-30T10:00: the shape, not a day
            raise _no_since() from None
        default = _default_since(page, wall)
        # A time typed in an autumn repeated hour is the earlier of the two (fold=0, zoneinfo's).
        return default or format_timestamp(wall.replace(tzinfo=ZoneInfo(page.time_zone)))
    if not value or len(value) > 64:
        raise _no_since()
    try:
        return format_timestamp(parse_timestamp(value, "since"))
    except ValidationError:  # said in the page's words, never the API's advice nor the value typed
        raise _no_since() from None


def _no_since() -> ValidationError:
    return ValidationError("since: choose a date and time to undo from")


def _default_since(page: Page, wall: datetime) -> str | None:
    """The exact instant the page offered (`sinceAt`), when the field still shows its wall clock:
    the field left at its default means that session's start, whichever of a repeated hour it is."""
    offered = page.fields.text("sinceAt").strip()
    if not offered or len(offered) > 64:
        return None
    try:
        instant = parse_timestamp(offered, "sinceAt")
    except ValidationError:
        return None
    shown = instant.astimezone(ZoneInfo(page.time_zone)).replace(tzinfo=None)
    return format_timestamp(instant) if shown == wall else None


def _redoing(page: Page) -> bool:
    """Whether the form undoes undo entries (an undo group's "Redo these changes", a line of it):
    only the words differ ("This redoes 2 changes", "Redid 2 changes"), never what is undone."""
    return page.fields.text("redo") == "1"


def _form_fields(target: dict[str, Any]) -> list[tuple[str, str]]:
    """`target` as the confirming form posts it back to `_target` (the ids as `id_fields`)."""
    if "changeIds" in target:
        return id_fields(target["changeIds"])
    return [(name, str(value)) for name, value in target.items()]


async def _undo_all(page: Page, target: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
    """undo_changes for the whole target: change ids in batches of UNDO_BATCH, a session or a run
    in rounds while the service says there is `more`."""
    if "changeIds" in target:
        ids = target["changeIds"]
        batches = [{"changeIds": ids[start : start + UNDO_BATCH]} for start in range(0, len(ids), UNDO_BATCH)]
    else:
        batches = [target]
    total: dict[str, Any] = {"undone": [], "notUndone": []}
    extra = {"dryRun": True} if dry_run else {}
    # Every call of one click under one runId (as a run_code run's or an import's): its reverts are
    # one session, so /activity shows the click as one undo group whose Redo takes all of it back;
    # each call its own session split 121 undone changes into groups of 100 and 21.
    one_undo = replace(page.principal, run_id=new_run_id())
    for batch in batches:
        for _round in range(1 if dry_run else MAX_ROUNDS):
            try:
                data = await page.invoke("undo_changes", {**batch, **extra}, principal=one_undo)
            except NotFound:  # an actor with no change here (a form edited by hand): nothing to undo,
                if "actor" not in batch:  # said in the page's words ("nothing since"), not the API's
                    raise
                data = {"undone": [], "notUndone": []}
            if dry_run:
                data = _after_earlier_batches(data, total["undone"])
            total["undone"] += data["undone"]
            total["notUndone"] += data["notUndone"]
            total["more"] = bool(data.get("more"))  # a dry run sees one round: the rest is not counted
            if "changeIds" in batch or not data.get("more") or not data["undone"]:
                break
    # Each round lists again what it leaves (a record changed since, what cannot be undone): one
    # change left, counted once, by its last word (a later round may have removed it after all).
    undone = {entry["changeId"] for entry in total["undone"]}
    left = {entry["changeId"]: entry for entry in total["notUndone"] if entry["changeId"] not in undone}
    total["notUndone"] = list(left.values())
    return total


def _after_earlier_batches(data: dict[str, Any], earlier: list[dict[str, Any]]) -> dict[str, Any]:
    """A dry run of a later batch of ids, as it reads once the earlier batches are undone: a record
    whose newer changes an earlier batch would undo is "changed since" only to a dry run that
    cannot see those undos; the real undo finds its later changes undone and goes on
    (`history/settled.py`). So its REVISION_CONFLICT counts as would-undo here, and the preview of
    a record's 120 changes says 120, as the undo then does."""
    records = {entry["record"]["id"] for entry in earlier}
    settled = [e for e in data["notUndone"] if e.get("code") == "REVISION_CONFLICT" and e["record"]["id"] in records]
    if not settled:
        return data
    left = [entry for entry in data["notUndone"] if entry not in settled]
    return {**data, "undone": data["undone"] + settled, "notUndone": left}


async def _app_name(page: Page, actor: str) -> str:
    """An app's or agent's name as its changes carry it (the person's own data, never the form's)."""
    found = await page.invoke("list_changes", {"actor": actor, "limit": 1})
    return actor_name(found["changes"][0]["actor"], page.translator) if found["changes"] else page.gettext("this app")


async def undo_preview(page: Page) -> Response:
    """ "Undo this session" (and "Undo everything <app> did since ..."): the dry run's answer in a
    sentence and a button that does it (in place of the group's Undo with htmx; a page of its own
    without script)."""
    target, redo, say = _target(page), _redoing(page), page.translator
    answer = await _undo_all(page, target, dry_run=True)
    fields = _form_fields(target) + ([("redo", "1")] if redo else [])
    report = preview_report(answer, say, redo=redo, run="runId" in target, since="actor" in target)
    question = ""
    if "actor" in target:
        name = await _app_name(page, target["actor"])
        when = moment_words(target["since"], page.time_zone, _now(page), say, in_sentence=True)
        question = say.gettext("Undo everything %(name)s did since %(time)s?", name=name, time=when)
        if not answer["undone"] and not answer["notUndone"]:
            report = nothing_since(name, say)
    context = {"report": report, "fields": fields, "back": _back(page), "question": question,
               "doable": bool(answer["undone"]), "whole": "sessionId" in target, "redo": redo}  # fmt: skip
    if is_htmx(page.request):
        return page.render("activity/_undo_preview.html", **context)
    return page.render("activity/undo_preview.html", nav="activity", **context)


async def undo_submit(page: Page) -> Response:
    target, say = _target(page), page.translator
    answer = await _undo_all(page, target)
    said = undo_report(answer, say, redo=_redoing(page))
    if "actor" in target and not answer["undone"] and not answer["notUndone"]:
        name = await _app_name(page, target["actor"])
        said = nothing_since(name, say, done=True)
    return page.redirect_with_flash(_back(page), said)


# -- a record's history ---------------------------------------------------------------------------

#: What "restore this version" puts back, per kind, and the operation that writes it.
_RESTORABLE = {
    "memo": ("update_memo", "id", ("content", "pinned", "resources")),
    "task": ("update_todo_task", "id", ("title", "notes", "priority", "tags", "due", "timezone", "recurrence")),
    "inbox": ("update_todo_inbox_item", "id", ("title", "notes", "priority", "tags", "due", "timezone")),
}
#: A restore refused because the record changed after the page showed it: nothing was written.
_CHANGED_SINCE = N_(
    "Nothing was restored: this was changed after the page showed it. The history now shows the newest version; "
    "choose the version again."
)
#: A memo restored from the trash, then changed by someone before its version was put back.
_BACK_NOT_RESTORED = N_(
    "The memo is back from the trash, but the version was not restored: it was changed meanwhile. Choose the "
    "version again."
)
#: A restore refused because the record is in the trash (a task; a memo's page offers to bring it back).
_IN_TRASH = {
    "memo": N_("Nothing was restored: this memo is in the trash. Restore it from the trash first."),
    "task": N_("Nothing was restored: this task is in the trash. Restore it from the todo trash first."),
    "inbox": N_("Nothing was restored: this inbox item is in the trash. Restore it from the todo trash first."),
}


#: The versions a record of each kind restores: its own kind's, and a task that was an inbox item
#: (moved to the board, its id kept) its item's too (the item's fields are a task's); an item moved
#: back to the inbox none of its task's days (the task's trash and creation are no item's version).
_RESTORES_ONTO = {"memo": ("memo",), "task": ("task", "inbox"), "inbox": ("inbox",)}
#: Subtask histories a task's panel reads at once (each a by-record query in a worker thread): a
#: task with 50 subtasks waited for 51 queries one after another, some 0.4 s on DynamoDB.
SUBTASK_READS_AT_ONCE = 8


async def history_of(
    page: Page,
    record_id: str,
    memo: dict[str, Any] | None = None,
    subtask_ids: Sequence[str] = (),
    *,
    find_subtasks: bool = False,
) -> dict[str, Any]:
    """The History panel of one record: its versions newest first (one per change), each in words;
    `revision`, the record's revision as shown (its newest version), which a restore sends back;
    `inTrash` for a memo in the trash (`memo`: the memo when the caller has read it). A task's
    panel (`subtask_ids`: its subtasks, at most model.MAX_SUBTASKS live and as many trashed) has its subtasks' changes
    among its own by time: each subtask's newest READ_SIZE read by record, merged, the newest
    READ_SIZE of all shown; only the record's own versions restore. With `find_subtasks` (a page
    that knows only the record's id: /activity/history/{id}), a task's subtasks are read here
    (`_subtasks_of`), once its own history says it is a task."""
    data = await page.invoke("list_changes", {"recordId": record_id, "limit": READ_SIZE})
    own = data["changes"]
    current = _current(own)
    kind = current["record"]["kind"] if current else None
    if find_subtasks and kind == "task" and not subtask_ids:
        subtask_ids = await _subtasks_of(page, record_id)
    if kind == "memo" and memo is None:
        memo = (await page.invoke("get_memo", {"id": record_id}))["memo"]
    older = await _older_than(page, record_id, data)
    theirs: list[dict[str, Any]] = []
    subtasks_older = False
    for start in range(0, len(subtask_ids), SUBTASK_READS_AT_ONCE):
        reads = await asyncio.gather(*(
            _history_and_older(page, subtask_id) for subtask_id in subtask_ids[start : start + SUBTASK_READS_AT_ONCE]
        ))  # fmt: skip
        for read, has_older in reads:
            theirs += read
            subtasks_older = subtasks_older or has_older
    merged = sorted([*own, *theirs], key=lambda change: change["id"], reverse=True)
    changes = merged[:READ_SIZE]
    # Activity's page of the record has the task's own older versions, not its subtasks': say which.
    subtasks_older = subtasks_older or any(change["record"]["id"] != record_id for change in merged[READ_SIZE:])
    older = older or any(change["record"]["id"] == record_id for change in merged[READ_SIZE:])
    names = await names_for(page, changes)
    zone, now, say = page.time_zone, _now(page), page.translator
    lines = await run_sync(lambda: [line(change, names, zone, now, say) for change in changes])
    by_id = {change["id"]: change for change in changes}
    newest_own = current["id"] if current else None
    # a change that undoes an undo's entry is a redo (as /activity marks its group), not an "Undo"
    versions = [{"line": shown, "who": actor_name(shown.change["actor"], say),
                 "redo": is_undo(by_id.get(str(shown.change.get("undoes")), {})),
                 "restorable": kind in _RESTORABLE and shown.change["record"]["id"] == record_id
                 and shown.change["id"] != newest_own and bool(shown.change["revisions"].get("after"))
                 and shown.change["record"]["kind"] in _RESTORES_ONTO.get(str(kind), ())}
                for shown in lines]  # fmt: skip
    title = next((title_of(change, names) for change in own if title_of(change, names)), "")
    return {"recordId": record_id, "versions": versions, "restorable": kind in _RESTORABLE, "title": title,
            "revision": current["revisions"]["after"] if current else None,
            "inTrash": kind == "memo" and memo is not None and memo["status"] == "DELETED",
            "olderDropped": any(change.get("olderDropped") for change in changes),
            "olderNotListed": older, "subtasksOlderNotListed": subtasks_older}  # fmt: skip


async def _subtasks_of(page: Page, task_id: str) -> list[str]:
    """A task's subtasks, live and the most recently trashed (what the task page's panel reads from
    get_todo_task's context), for a task on the board or in the trash alike (get_todo_task refuses
    a trashed task): the task by key and its subtasks' index list (todos/views/history_subtasks.py),
    never the timeline. Nothing for a task deleted for good: its own history alone."""
    return await run_sync(history_subtask_ids, page.web.services.items, page.user.user_id, task_id)


def _current(changes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The change that left the record as it is now (changes newest first): the newest, or for an
    inbox item moved to the board (its id now a task's) the task's newest, since the move's own
    change, the item's removal, may come last and has no revision after it; None for a record
    gone for good (nothing to restore a version onto)."""
    if not changes or changes[0]["revisions"]["after"] is not None:
        return changes[0] if changes else None
    if is_moved_to_board(changes[0]):
        return next((change for change in changes[1:] if change["revisions"]["after"] is not None), None)
    return None


async def _history_and_older(page: Page, record_id: str) -> tuple[list[dict[str, Any]], bool]:
    """A subtask's newest READ_SIZE changes and whether it has older ones: one task of a round, so
    the one-change read that answers the second goes beside the round's other reads, not after."""
    data = await page.invoke("list_changes", {"recordId": record_id, "limit": READ_SIZE})
    return data["changes"], await _older_than(page, record_id, data)


async def _older_than(page: Page, record_id: str, data: dict[str, Any]) -> bool:
    """Whether the record has versions older than the page of them `data` lists (a full page's
    cursor may lead to nothing: one version more is read to know)."""
    cursor = data.get("nextCursor")
    if cursor is None:
        return False
    if len(data["changes"]) < READ_SIZE:  # cut short by its size: the rest is there
        return True
    older = await page.invoke("list_changes", {"recordId": record_id, "limit": 1, "cursor": cursor})
    return bool(older["changes"])


def version_values(changes: list[dict[str, Any]], version_id: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The fields to set so the record reads as it did right after change `version_id` (changes
    newest first): each field a later change touched gets the value the oldest of those found
    (its `before`); a field no later change touched already has that version's value."""
    index = next((i for i, change in enumerate(changes) if change["id"] == version_id), None)
    if index is None:
        raise ValidationError("that version is not in this record's kept history")
    values: dict[str, Any] = {}
    for change in reversed(changes[:index]):  # oldest later change first
        for name in change["fields"]:  # a creation has no before (a task made by an inbox item's move)
            if name in names and name not in values and name in (change["before"] or {}):
                values[name] = change["before"][name]
    return values


async def gone_record_page(page: Page, record_id: str) -> Response | None:
    """A task's or an inbox item's page when the record is not there (in the todo trash, moved to
    the board, deleted): its history, which /activity links to, with a note saying where it went,
    instead of an error page asking for a trace id; None for a record with no kept history (the
    caller's not found stands)."""
    history = await history_of(page, record_id, find_subtasks=True)
    if not history["versions"]:
        return None
    return page.render("activity/history.html", nav="todos", history=history, gone=True, status=404)


async def history_page(page: Page) -> Response:
    history = await history_of(page, page.request.path_params["record_id"], find_subtasks=True)
    return page.render("activity/history.html", nav="activity", history=history)


async def restore_submit(page: Page) -> Response:
    """ "Restore this version", at the revision the page showed (`revision`): a record changed since
    is left as it is and the page says so, as every other edit does. A memo the page showed in the
    trash (`fromTrash`) is restored from it first, then given the version: what its button says."""
    record_id, version_id = page.fields.text("recordId"), page.fields.text("changeId")
    shown = form_revision(page.fields)
    data = await page.invoke("list_changes", {"recordId": record_id, "limit": READ_SIZE})
    changes = data["changes"]
    current = _current(changes)
    kind = current["record"]["kind"] if current else None
    if current is None or kind not in _RESTORABLE:
        raise ValidationError("this record has no version to restore here")
    operation, id_name, names = _RESTORABLE[kind]
    if any(c["id"] == version_id and c["record"]["kind"] not in _RESTORES_ONTO[str(kind)] for c in changes):
        raise ValidationError("this record has no version to restore here")  # a form the panel never offered
    values = version_values(changes, version_id, names)
    if current["revisions"]["after"] != shown:
        return page.redirect_with_flash(_back(page), page.gettext(_CHANGED_SINCE))
    untrashed = False
    try:
        if kind == "memo" and page.fields.text("fromTrash"):
            restored = await page.invoke("restore_memo", {"id": record_id, "expectedRevision": shown})
            shown, untrashed = restored["memo"]["revision"], True
        if values:
            await page.invoke(operation, {id_name: record_id, "expectedRevision": shown, **values})
    except RevisionConflict:
        if untrashed:  # edited between the two writes: out of the trash, its text left as the editor wrote it
            return page.redirect_with_flash(_back(page), page.gettext(_BACK_NOT_RESTORED))
        return page.redirect_with_flash(_back(page), page.gettext(_CHANGED_SINCE))
    except Conflict:  # in the trash (update_memo and update_todo_task refuse a trashed record)
        return page.redirect_with_flash(_back(page), page.gettext(_IN_TRASH[kind]))
    except NotFound:  # update_todo_inbox_item does not find a trashed item: its newest change says where it is
        if kind == "inbox" and changes[0]["action"] == "trash":
            return page.redirect_with_flash(_back(page), page.gettext(_IN_TRASH[kind]))
        raise
    if untrashed:
        return page.redirect_with_flash(_back(page), page.gettext("Version restored; the memo is back from the trash."))
    return page.redirect_with_flash(_back(page), page.gettext("Version restored."))


def activity_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, activity_page), methods=["GET"]),
        Route(PAGE + "/undo/preview", endpoint(web, undo_preview), methods=["POST"]),
        Route(PAGE + "/undo", endpoint(web, undo_submit), methods=["POST"]),
        Route(PAGE + "/restore", endpoint(web, restore_submit), methods=["POST"]),
        Route(PAGE + "/history/{record_id}", endpoint(web, history_page), methods=["GET"]),
    ]


__all__ = ["activity_routes", "actor_name", "gone_record_page", "history_of", "last_session_views", "names_for"]
