"""The todo read views as operations: list_todos, query_todos, get_todo_task; get_context and
set_time_zone (the user's zone, auth/user_zone.py; the reminders it places move with it,
reminder_zone.py).

A list_todos page reads only what it shows (views/paged.py: the structure, the list sizes and
one index page per list it overlaps; the graph projection the same through views/graph_paged.py
and the graph counts); get_todo_task reads the structure, the task by key and
its subtasks' index list (and the live inbox for its context), and answers a page of the task's
notes (details.py). A query_todos narrowed by priority, due, overdue or done status reads the
due index's candidates (indexed.py). The other query_todos calls load the
caller's whole todo snapshot (`state.load_state`; every todo item of the user shares the
sort-key prefix `TODO#`; keys are built from the caller's user id, so another user's records are
simply not there) and run the pure algorithms of listing.py, query.py and details.py over it: a
bounded in-memory pass over one person's data (docs/data-model.md, "Views cost").
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any
from zoneinfo import ZoneInfo

from ...auth.scopes import order_scopes
from ...auth.user_zone import configured_zone, zone_in
from ...history.actor import actor_of
from ...history.sessions import current_session
from ...kernel import timestamps
from ...kernel.context import ACCOUNT_ZONE, Call
from .. import keys, model
from ..destinations import resolve_space
from ..due_index import ensure_indexed
from ..inbox.detail_context import effective_timezone
from ..misses import missing_task, task_not_found
from ..reminder_zone import set_user_zone
from ..state import TodoState, load_partial, load_state
from ..writes import ensure_default_space
from .budget import RESPONSE_BUDGET_CHARACTERS
from .details import task_details
from .graph_paged import graph_board_page
from .indexed import indexed_query, narrowed
from .listing import ListOptions, effective_limit
from .paged import plain_board_page
from .query import TodoQuery, floating_zone, names_a_day, parse_bounds, query_todos
from .text_candidates import text_board, text_candidates
from .traversal import Board, without_notes


def board_of(state: TodoState, *, records: bool = True) -> Board:
    """The snapshot for the pure views: spaces, columns and tags in their public shape (few),
    tasks and inbox items as stored, shaped by the views only when a response returns them.
    `records=False`: the structure only (no tasks, no inbox items; a paged read fetches those)."""
    default_id = state.default_space_id
    return Board(
        spaces=[model.public_space(space, default_id) for space in state.spaces.values()],
        columns=[model.public_column(column) for column in state.columns.values()],
        tasks=list(state.every_task()) if records else [],
        inbox_items=list(state.every_inbox_item()) if records else [],
        tags=[model.public_tag(tag) for tag in state.tags.values()],
        task_view=model.public_task,
        inbox_view=model.public_inbox_item,
        subtask_view=model.public_inbox_subtask,
    )


def _space_ids(state: TodoState, args: dict[str, Any]) -> frozenset[str] | None:
    space = resolve_space(state, args.get("spaceId"), args.get("spaceSlug"))
    return None if space is None else frozenset({space["id"]})


def list_todos_operation(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    # First use creates the default space (as every todo entry point does), so a new user's
    # board already shows where captured tasks will go.
    items, user_id = call.services.items, call.principal.user_id
    graph = args.get("projection", "plain") == "graph"
    # Either page reads the structure, the list sizes and the heads of the lists it overlaps
    # (views/paged.py); the graph page's subtask totals come from the graph counts
    # (views/graph_paged.py). Neither reads the board.
    state = ensure_default_space(items, user_id, partial=True, language=call.language, arguments=call.arguments)
    call.noted[ACCOUNT_ZONE] = zone_in(state.settings)  # read with the structure: MCP Apps' _meta reuses it
    space_ids = _space_ids(state, args)
    include_inbox = args.get("includeInbox", True)
    options = ListOptions(
        offset=args.get("offset", 0),
        limit=effective_limit(args.get("limit"), args.get("maxItems")),
        include_notes=args.get("includeNotes", False),
        projection="graph" if graph else "plain",
    )
    structure = board_of(state, records=False)
    page = graph_board_page if graph else plain_board_page
    return page(items, user_id, structure, include_inbox=include_inbox, space_ids=space_ids, options=options)


def query_todos_operation(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    items, user_id = call.services.items, call.principal.user_id
    now = timestamps.utc_now()
    # A bound naming a day (today, tomorrow, 今天, 明天, 2026-12-07: what a Shortcut sends) is read in the
    # user's zone, else UTC: one settings read, only then.
    named = any(names_a_day(bound) for bound in (args.get("dueAfter"), args.get("dueBefore")))
    zone = ZoneInfo((configured_zone(items, user_id) if named else None) or "UTC")
    due_after, due_before = parse_bounds(args.get("dueAfter"), args.get("dueBefore"), zone, now.astimezone(zone).date())
    wanted = args.get("priority")
    priorities = [wanted] if isinstance(wanted, str) else wanted
    query = TodoQuery(
        query=args.get("query"),
        priorities=frozenset(priorities) if priorities else None,
        overdue=args.get("overdue"),
        now=now,
        order_by=args.get("orderBy", "updated"),
        tags=tuple(args.get("tags", ())),
        status=args.get("status", "open"),
        due_after=due_after,
        due_before=due_before,
        include_notes=args.get("includeNotes", False),
        offset=args.get("offset", 0),
        limit=args.get("limit", 25),
    )
    # Narrowed by priority, due, overdue or done on an indexed board: the index's candidates
    # (views/indexed.py); otherwise the whole snapshot. A `query` text: only the literal index's
    # candidates of either (views/text_candidates.py). The pure query filters each the same way.
    text = text_candidates(call.services, user_id, query)
    indexed = narrowed(query) and ensure_indexed(items, user_id)
    state = load_partial(items, user_id) if indexed or text is not None else load_state(items, user_id)
    query = replace(
        query,
        space_ids=_space_ids(state, args),
        floating_zone=floating_zone(
            (state.settings or {}).get("timezone"),
            *(None if names_a_day(bound) else bound for bound in (args.get("dueAfter"), args.get("dueBefore"))),
        ),
    )
    if indexed:
        return indexed_query(items, user_id, state, board_of(state, records=False), query, within=text)
    if text is not None:
        return query_todos(text_board(items, user_id, board_of(state, records=False), text), query)
    return query_todos(board_of(state), query)


def get_todo_task_operation(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    return _task_answer(call, args)


def task_for_page(call: Call, task_id: str, include_context: bool = False) -> dict[str, Any]:
    """get_todo_task's answer for a person's page, not a tool: the task's notes whole, its
    subtasks without their notes (the page lists their titles), and no response budget, which is
    the agents' (a task whose subtasks' notes pass it still opens)."""
    data = _task_answer(call, {"id": task_id, "includeContext": include_context}, budget=sys.maxsize)
    data["subtasks"] = [without_notes(sub) for sub in data["subtasks"]]
    return data


def _task_answer(call: Call, args: dict[str, Any], budget: int = RESPONSE_BUDGET_CHARACTERS) -> dict[str, Any]:
    # What the answer shows, not the board: the structure, the task (and its parent) by key, its
    # subtasks from their index list, and the live inbox only when the context asks for it.
    state = load_partial(call.services.items, call.principal.user_id)
    task = state.task(args["id"])
    parent = state.task(task["parentId"]) if task is not None and task.get("parentId") else task
    # A subtask of a trashed task went to the trash with it (query_todos drops it too).
    if task is None:  # an inbox item's or a memo's id says so (a model mixes the kinds up)
        raise missing_task(call.services, call.principal.user_id, state, args["id"], "get_todo_task")
    if parent is None or not keys.live(task) or not keys.live(parent):
        raise task_not_found(args["id"])
    include_context = args.get("includeContext", False)
    # the context names the trashed ones too, as the index names them (no read by key), for the
    # History panel: the live and the trashed from one query of the subtask list
    live, trashed = state.subtasks_and_trash(task["id"]) if include_context else (state.subtasks_of(task["id"]), [])
    board = replace(
        board_of(state, records=False),
        tasks=[task, *live, *trashed],
        inbox_items=state.live_inbox() if include_context else [],
    )
    return task_details(
        board,
        task["id"],
        include_context=include_context,
        default_timezone=effective_timezone(call, None, state),
        notes_offset=args.get("notesOffset", 0),
        notes_limit=args.get("notesLimit"),
        budget=budget,
    )


def get_context_operation(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """ "Now" for the user: their todo zone (one settings read), today's date there, the instant,
    the credential's scopes, and who the caller is in the change history (its actor and the
    session its writes go to now: one more read). The MCP adapter adds the connection's toolsets."""
    zone = configured_zone(call.services.items, call.principal.user_id)
    now = timestamps.utc_now()
    return {
        "actor": actor_of(call),
        "sessionId": current_session(call),
        "timeZone": zone or "UTC",
        "timeZoneSet": zone is not None,
        "today": now.astimezone(ZoneInfo(zone or "UTC")).date().isoformat(),
        "now": timestamps.format_timestamp(now),
        "scopes": order_scopes(call.principal.scopes),
    }


def set_time_zone_operation(call: Call, args: dict[str, Any]) -> dict[str, Any]:
    """Store the zone the user named (an IANA name, else a validation error), move the reminders
    it places (a date-only due's, reminder_zone.py) and answer the context in it."""
    set_user_zone(call.services.items, call.principal.user_id, args["timeZone"], timestamps.utc_now())
    return get_context_operation(call, {})


OPERATIONS = {
    "get_context": get_context_operation,
    "set_time_zone": set_time_zone_operation,
    "list_todos": list_todos_operation,
    "query_todos": query_todos_operation,
    "get_todo_task": get_todo_task_operation,
}
