"""What your agents did: `/activity` (changes grouped by agent and run, newest first, each group
with Undo all, each change with its diff and Undo) and a record's History panel
(`/activity/history/{record_id}`: every version with its author and diff, restore a version).

Every read and undo goes through `Page.invoke` (list_changes, undo_changes): the same operations
REST and MCP run, with the signed-in user's full rights. What an undo or a restore did is said on
the page the browser lands on by a one-time notice (`Page.redirect_with_flash`), never by text in
the URL: a link cannot make these pages say anything.
"""

from __future__ import annotations

from collections import Counter
from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response
from starlette.routing import Route

from ...kernel.errors import ValidationError
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import DEFAULT_LANGUAGE, N_, NP_, Translator
from ..kit.request_values import request_zone
from ..kit.toast import not_undone_words
from .change_words import actor_name, change_view, kind_noun, record_names

PAGE = "/activity"
PAGE_SIZE = 100
MAX_UNDO = 100
#: Undo of a run filtered on the page (`/activity?runId=`): undo_changes rounds of MAX_UNDO each,
#: so an import of up to 20,000 records is undone by one click.
MAX_RUN_ROUNDS = 200
#: A record kind counted (singular, plural) and an action done, as English source text (docs/i18n.md).
_NOUN = {"memo": NP_("%(num)d memo", "%(num)d memos"), "task": NP_("%(num)d task", "%(num)d tasks"),
         "subtask": NP_("%(num)d subtask", "%(num)d subtasks"),
         "inbox": NP_("%(num)d inbox item", "%(num)d inbox items"),
         "space": NP_("%(num)d space", "%(num)d spaces"), "column": NP_("%(num)d column", "%(num)d columns"),
         "tag": NP_("%(num)d tag", "%(num)d tags")}  # fmt: skip
_VERB = {"create": N_("created"), "update": N_("edited"), "move": N_("moved"), "trash": N_("trashed"),
         "restore": N_("restored"), "delete": N_("deleted")}  # fmt: skip
ENGLISH = Translator(DEFAULT_LANGUAGE)
_FILTERS = ("actor", "runId", "recordId", "kind")


def summary(changes: list[dict[str, Any]], say: Translator = ENGLISH) -> str:
    """`30 memos edited, 1 task moved`."""
    counts = Counter((c["record"]["kind"], c["action"]) for c in changes)
    parts = []
    for (kind, action), count in counts.most_common():
        singular, plural = _NOUN.get(kind, (f"%(num)d {kind}", f"%(num)d {kind}"))
        things = say.ngettext(singular, plural, count)
        verb = say.gettext(_VERB[action]) if action in _VERB else action
        parts.append(say.gettext("%(things)s %(verb)s", things=things, verb=verb))
    return say.gettext(", ").join(parts)


def groups(changes: list[dict[str, Any]], say: Translator = ENGLISH, zone: str = "UTC") -> list[dict[str, Any]]:
    """Consecutive changes of one actor (newest first), and within them its runs: one run_code
    run, one batch call or one single write each; each change in words (`change_words.py`)."""
    found: list[dict[str, Any]] = []
    names = record_names(changes)
    for change in (change_view(c, say, zone, names) for c in changes):
        if not found or found[-1]["actor"]["id"] != change["actor"]["id"]:
            found.append({"actor": change["actor"], "at": change["at"], "runs": []})
        runs = found[-1]["runs"]
        if not runs or runs[-1]["runId"] != change["runId"]:
            runs.append({"runId": change["runId"], "at": change["at"], "changes": []})
        runs[-1]["changes"].append(change)
    for group in found:
        group["changes"] = [change for run in group["runs"] for change in run["changes"]]
        group["summary"] = summary(group["changes"], say)
        group["pending"] = [c["id"] for c in group["changes"] if c["undoable"] and "undoneBy" not in c]
        for run in group["runs"]:
            run["summary"] = summary(run["changes"], say)
    return found


#: What each filter says on the page: never its value from the URL (a link anyone can make).
_FILTER_WORDS = {"runId": N_("one run"), "recordId": N_("one record")}
_KIND_WORDS = {"memo": N_("memos"), "task": N_("tasks"), "subtask": N_("subtasks"), "inbox": N_("inbox items"),
               "space": N_("spaces"), "column": N_("columns"), "tag": N_("tags")}  # fmt: skip


def filter_words(filters: dict[str, str], changes: list[dict[str, Any]], say: Translator = ENGLISH) -> str:
    """The filters in words: the actor's name as the changes found say it (the person's own
    data), a kind only once validated (one of KINDS), a run or record as "one run"/"one record"."""
    words = []
    if "actor" in filters:
        names = {actor_name(change["actor"], say) for change in changes}
        words.append(say.gettext("by %(name)s", name=names.pop()) if len(names) == 1 else say.gettext("by one agent"))
    if filters.get("kind") in _KIND_WORDS:
        words.append(say.gettext(_KIND_WORDS[filters["kind"]]))
    words += [say.gettext(_FILTER_WORDS[name]) for name in ("runId", "recordId") if name in filters]
    return say.gettext(", ").join(word for word in words if word)


def _filters(page: Page) -> dict[str, str]:
    query = page.request.query_params
    return {name: query[name] for name in _FILTERS if query.get(name) and len(query[name]) <= 200}


async def activity_page(page: Page) -> Response:
    filters = _filters(page)
    arguments: dict[str, Any] = {**filters, "limit": PAGE_SIZE}
    cursor = page.request.query_params.get("cursor")
    if cursor and len(cursor) <= 64:
        arguments["cursor"] = cursor
    data = await page.invoke("list_changes", arguments)
    more = urlencode({**filters, "cursor": data["nextCursor"]}) if "nextCursor" in data else None
    return page.render(
        "memos/activity.html", nav="activity", filters=filters,
        groups=groups(data["changes"], page.translator, request_zone(page.request)),
        more=more,
        back=PAGE + ("?" + urlencode(filters) if filters else ""),
        filter_words=filter_words(filters, data["changes"], page.translator),
    )  # fmt: skip


#: What "restore this version" puts back, per kind, and the operation that writes it.
_RESTORABLE = {
    "memo": ("update_memo", "id", ("content", "pinned", "resources")),
    "task": ("update_todo_task", "id", ("title", "notes", "priority", "tags", "due", "timezone", "recurrence")),
}


async def history_of(page: Page, record_id: str) -> dict[str, Any]:
    """The History panel of one record: its versions newest first (one per change)."""
    data = await page.invoke("list_changes", {"recordId": record_id, "limit": PAGE_SIZE})
    changes = data["changes"]
    kind = changes[0]["record"]["kind"] if changes else None
    say, names = page.translator, record_names(changes)
    shown = [change_view(change, say, request_zone(page.request), names) for change in changes]
    return {
        "recordId": record_id, "changes": shown, "restorable": kind in _RESTORABLE,
        "kind": kind_noun(kind, say), "label": names.get(record_id, ""),
    }  # fmt: skip


def version_values(changes: list[dict[str, Any]], version_id: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The fields to set so the record reads as it did right after change `version_id` (changes
    newest first): each field a later change touched gets the value the oldest of those found
    (its `before`); a field no later change touched already has that version's value."""
    index = next((i for i, change in enumerate(changes) if change["id"] == version_id), None)
    if index is None:
        raise ValidationError("that version is not in this record's kept history")
    values: dict[str, Any] = {}
    for change in reversed(changes[:index]):  # oldest later change first
        for name in change["fields"]:
            if name in names and name not in values and name in change["before"]:
                values[name] = change["before"][name]
    return values


async def history_page(page: Page) -> Response:
    history = await history_of(page, page.request.path_params["record_id"])
    return page.render("memos/activity_history.html", nav="activity", history=history)


async def restore_submit(page: Page) -> Response:
    record_id, version_id = page.fields.text("recordId"), page.fields.text("changeId")
    history = await history_of(page, record_id)
    changes = history["changes"]
    if not changes or not history["restorable"]:
        raise ValidationError("this record has no version to restore here")
    operation, id_name, names = _RESTORABLE[changes[0]["record"]["kind"]]
    values = version_values(changes, version_id, names)
    if values:
        revision = changes[0]["revisions"]["after"]
        await page.invoke(operation, {id_name: record_id, "expectedRevision": revision, **values})
    return page.redirect_with_flash(_back(page), page.gettext("Version restored."))


def _back(page: Page) -> str:
    back = page.fields.text("back")
    allowed = back.startswith(("/activity", "/memos/", "/todos/")) and "//" not in back and "\\" not in back
    return back if allowed else PAGE


async def undo_submit(page: Page) -> Response:
    run_id = page.fields.text("runId")
    change_ids = [str(value) for value in page.fields.all("changeId") if value][:MAX_UNDO]
    if bool(run_id) == bool(change_ids):
        raise ValidationError("give one run or some changes to undo")
    arguments: dict[str, Any] = {"runId": run_id} if run_id else {"changeIds": change_ids}
    data = await page.invoke("undo_changes", arguments)
    for _round in range(MAX_RUN_ROUNDS if run_id else 0):  # a whole run (an import): every change of it
        if not data.get("more"):
            break
        following = await page.invoke("undo_changes", arguments)
        if not following["undone"]:
            break
        data = {**following, "undone": data["undone"] + following["undone"]}
    return page.redirect_with_flash(_back(page), undo_report(data, page.translator))


def undo_report(data: dict[str, Any], say: Translator = ENGLISH) -> str:
    """`2 changes undone.` and, when some were not, how many for each reason code."""
    count = len(data["undone"])
    report = say.ngettext("%(num)d change undone.", "%(num)d changes undone.", count)
    if data["notUndone"]:
        report += " " + say.gettext("Not undone: %(reasons)s.", reasons=not_undone_words(data["notUndone"], say))
    return report


def activity_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, activity_page), methods=["GET"]),
        Route(PAGE + "/undo", endpoint(web, undo_submit), methods=["POST"]),
        Route(PAGE + "/restore", endpoint(web, restore_submit), methods=["POST"]),
        Route(PAGE + "/history/{record_id}", endpoint(web, history_page), methods=["GET"]),
    ]
