"""What the memo pages show, shared by the timeline (`pages.py`) and the writes (`writes.py`),
which re-render the timeline when a composer or a save is refused: a memo as a card, the
timeline's whole context (list, search or AI search, the sidebar) and the page that carries it.

Every read is an operation run through `Page.invoke` (list_memos, search_memos,
search_ai_memos, batch_get_memos, list_tags), exactly as REST and MCP run them.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from starlette.responses import Response

from ...kernel.concurrency import run_sync
from ...kernel.errors import ServiceUnavailable
from ...kernel.timestamps import parse_timestamp
from ..kit.framework import Page
from ..kit.markdown import render_markdown
from ..kit.security import page_headers
from .marks import mark_matches
from .query import PAGE_SIZE, ZONE_COOKIE, TimelineQuery, browser_zone
from .uploads import direct_upload_origin

RECENT_DAYS = 14


def page_zone(page: Page) -> ZoneInfo | None:
    """The user's time zone, else the browser's (its `mesq_tz` cookie), None when neither is known."""
    return ZoneInfo(page.user_zone) if page.user_zone else browser_zone(page.request.cookies.get(ZONE_COOKIE))


def task_name(page: Page) -> Callable[[int], str]:
    """The accessible name of a task box whose item has no words, in the page's language."""
    return lambda number: page.gettext("Task %(num)d", num=number)


def back_name(page: Page) -> str:
    """The accessible name of a footnote's link back to its reference, in the page's language."""
    return page.gettext("Back to the text")


def _memo_view(memo: dict[str, Any], marked: str | None, name: Callable[[int], str], back: str) -> dict[str, Any]:
    html = render_markdown(memo["content"], task_name=name, doc_id=str(memo["id"]), back_name=back)
    return {**memo, "html": mark_matches(html, marked) if marked else html}


async def memo_views(page: Page, memos: list[dict[str, Any]], marked: str | None = None) -> list[dict[str, Any]]:
    """Memos as the templates show them: their fields and their sanitized HTML (the card shows
    the creation time with the `when` filter: the browser's zone, the page's language), the
    matches of `marked` (an exact-text search's query) in `<mark>`. Rendered in a worker thread:
    a memo's Markdown (up to 50,000 characters) can take most of a second, which the event loop
    never waits for."""
    name, back = task_name(page), back_name(page)
    return await run_sync(lambda: [_memo_view(memo, marked, name, back) for memo in memos])


async def memo_view(page: Page, memo: dict[str, Any]) -> dict[str, Any]:
    """One memo as `memo_views` shows it."""
    return (await memo_views(page, [memo]))[0]


def new_form_key() -> str:
    """The composer's idempotency key: a form sent twice (a double click, a reload) is one memo."""
    return secrets.token_urlsafe(18)


def _zone_arguments(zone: ZoneInfo | None) -> dict[str, Any]:
    return {"deviceTimeZone": zone.key} if zone else {}


#: Hits an AI search reads for the untagged or pinned view, which it filters itself: batch_get_memos'
#: 100 ids, less the closest matches' 3.
NARROWED_HITS = 97


def _shown(query: TimelineQuery, memo: dict[str, Any]) -> bool:
    """The untagged and pinned filters, which search_ai_memos does not take (its `tags`, `status`
    and creation range it applies itself): the notice says "untagged" or "pinned", so the hits are."""
    return (not query.untagged or not memo["tags"]) and (not query.pinned or memo["pinned"])


async def _ai_search(page: Page, query: TimelineQuery, zone: ZoneInfo | None) -> dict[str, Any]:
    """search_ai_memos, then the whole memos of its hits and of its closest matches (below the
    confidence floor: drawn after a "less related" boundary), in its order, or why there are none."""
    arguments = query.ai_arguments(zone)
    narrowed = query.untagged or query.pinned
    if narrowed:  # search_ai_memos has neither filter: read more hits, keep those the view shows
        arguments["limit"] = NARROWED_HITS
    try:
        answer = await page.invoke("search_ai_memos", arguments)
    except ServiceUnavailable as error:
        return {
            "memos": [],
            "closest": [],
            "unavailable": page.error_text(error),
            "degraded": False,
            "stages": [],
            "period": None,
        }
    hits, closest = answer["items"], answer.get("closestMatches", [])
    ids = [item["id"] for item in hits + closest]
    found: dict[str, dict[str, Any]] = {}
    if ids:
        batch = await page.invoke("batch_get_memos", {"ids": ids})
        found = {memo["id"]: memo for memo in batch["memos"]}

    def memos_of(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # Which branches found each hit (keywords, meaning), shown instead of a raw fused score.
        return [
            {**found[item["id"]], "matched": item.get("matchedBy", [])}
            for item in items
            if item["id"] in found and found[item["id"]]["status"] != "DELETED" and _shown(query, found[item["id"]])
        ]

    return {
        "memos": memos_of(hits)[:PAGE_SIZE], "closest": memos_of(closest), "unavailable": None,
        "degraded": answer["degraded"], "stages": answer["stages"], "period": _period_days(page, answer),
    }  # fmt: skip


def _period_days(page: Page, answer: dict[str, Any]) -> dict[str, str] | None:
    """The days a time phrase of the query named (`period`: read in the user's zone, else UTC, as
    search_ai_memos read it), first and last, for the filter sentence: the page says which days
    it searched, so "上周读了什么书" is not read as a search of every date."""
    period = answer.get("period")
    if not period:
        return None
    zone = ZoneInfo(page.user_zone) if page.user_zone else ZoneInfo("UTC")
    start = parse_timestamp(period["createdFrom"], "createdFrom").astimezone(zone).date()
    end = parse_timestamp(period["createdTo"], "createdTo").astimezone(zone).date() - timedelta(days=1)
    days = {"phrase": period["phrase"], "first": start.isoformat(), "last": end.isoformat()}
    return {**days, "listed": bool(period.get("listed"))}


def tag_paths(nodes: list[dict[str, Any]]) -> list[str]:
    """Every tag path of the tree, parents before children: the composer's `#` suggestions."""
    paths: list[str] = []
    for node in nodes:
        paths.append(node["path"])
        paths.extend(tag_paths(node.get("children") or []))
    return paths


@dataclass(frozen=True)
class _Read:
    """What one page of a view lists: its memos (pinned first), the AI search's hits and closest
    matches, its paging (None for an AI search) and the `includeContext` answer for the sidebar."""

    data: dict[str, Any]
    memos: list[dict[str, Any]]
    pinned: list[dict[str, Any]]
    listing: dict[str, Any] | None
    ai: dict[str, Any] | None

    @property
    def shown(self) -> list[dict[str, Any]]:
        return [*self.pinned, *self.memos, *(self.ai["closest"] if self.ai else [])]


async def _read(page: Page, query: TimelineQuery, zone: ZoneInfo | None) -> _Read:
    paging = {"offset": query.offset, "limit": PAGE_SIZE, "includeContext": True, **_zone_arguments(zone)}
    if query.q and query.mode == "ai":
        ai = await _ai_search(page, query, zone)
        # The sidebar's context still comes from list_memos (AI search has none); one memo is enough.
        data = await page.invoke("list_memos", {**paging, "offset": 0, "limit": 1})
        return _Read(data, ai["memos"], [], None, ai)
    if query.q:
        data = await page.invoke("search_memos", {"query": query.q, **query.filters(zone), **paging})
    else:
        data = await page.invoke("list_memos", {**query.filters(zone), **paging})
    return _Read(data, data["timelineItems"], data["pinnedItems"], data["page"], None)


async def view_shows(page: Page, query: TimelineQuery, memo_id: str) -> bool:
    """Whether the first page of the view `query` shows the memo `memo_id`, read as the page reads
    it (the composer's redirect says when a new memo is saved outside the view it stays on)."""
    if not (query.filtered or query.q):
        return True  # every memo that is not archived, newest first: a new one is on top
    read = await _read(page, replace(query, offset=0), page_zone(page))
    return any(memo["id"] == memo_id for memo in read.shown)


async def _archived_with_tag(page: Page, query: TimelineQuery, paths: list[str]) -> int:
    """How many archived memos have the tag of a timeline view no memo of it has: an archived
    memo's tag link (its card, a bookmark) lands there, and the empty timeline points to them."""
    if not query.tag or query.tag in paths or query.status != "NORMAL" or query.q:
        return 0
    archived = await page.invoke("list_memos", {"status": "ARCHIVED", "tags": [query.tag], "offset": 0, "limit": 1})
    return int(archived["page"]["totalCount"])


async def timeline_context(page: Page, query: TimelineQuery, **extra: Any) -> dict[str, Any]:
    """Everything memos.html needs for `query`; `extra` (a composer error, ...) is passed on."""
    zone = page_zone(page)
    read = await _read(page, query, zone)
    data, memos, pinned, listing, ai = read.data, read.memos, read.pinned, read.listing, read.ai
    tags = await page.invoke("list_tags", {})
    paths = tag_paths(tags["tags"])
    days = list(data["filters"]["days"].items())
    marked = query.q if query.q and query.mode != "ai" else None  # what search_memos matched, exactly
    return {
        "nav": "memos",
        "query": query,
        "closest_memos": await memo_views(page, ai["closest"]) if ai else [],
        "pinned_memos": await memo_views(page, pinned, marked),
        "memos": await memo_views(page, memos, marked),
        "listing": listing,
        "ai": ai,
        "counts": data["filters"],
        "recent_days": days[:RECENT_DAYS],
        "older_days": days[RECENT_DAYS:],
        "tag_tree": tags["tags"],
        "tag_paths": paths,
        "tag_archived": await _archived_with_tag(page, query, paths),
        # The person's own tag: one a memo of the timeline has (list_tags counts those), or one the
        # view shows memos with (an archived memo's): the page may name it (never words from the
        # link alone).
        "tag_known": bool(query.tag) and (query.tag in paths or bool(read.shown)),
        "zone": zone.key if zone else None,
        "zone_set": page.user_zone is not None,  # the user's own: the browser's cannot change the counts
        "zone_cookie": ZONE_COOKIE,
        "double_click_edit": data["doubleClickEdit"],
        "content_max": data["contentMaxCharacters"],
        "here": query.url(offset=query.offset),
        "composer_text": "",
        "composer_error": None,
        "composer_resources": [],
        "form_key": new_form_key(),
        **extra,
    }


def timeline_page(page: Page, context: dict[str, Any], status: int = 200) -> Response:
    """memos.html; its CSP lets the composer's script PUT to object storage (direct uploads), and
    the cards' image thumbnails load from there (the attachment route redirects to a presigned GET)."""
    response = page.render("memos/timeline.html", **context)
    response.status_code = status
    origin = direct_upload_origin(page.web.services.blobs)
    if origin:
        csp = page_headers(connect_origins=(origin,))["Content-Security-Policy"]
        response.headers["Content-Security-Policy"] = csp.replace("img-src 'self'", f"img-src 'self' {origin}")
    return response


__all__ = [
    "RECENT_DAYS",
    "back_name",
    "memo_view",
    "memo_views",
    "page_zone",
    "tag_paths",
    "task_name",
    "timeline_context",
    "timeline_page",
    "view_shows",
]
