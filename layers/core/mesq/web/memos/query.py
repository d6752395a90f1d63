"""What the memo timeline shows, read from its URL (`/?tag=work&day=2026-11-30&q=...`): the
filter, the search, the page, and the browser's time zone (the `mesq_tz` cookie a page script
sets from `Intl.DateTimeFormat().resolvedOptions().timeZone`). The pieces become the arguments
of `list_memos`, `search_memos` and `search_ai_memos`, which validate them again.

A bad value in the URL is a `ValidationError` with the parameter's name (an error page, 400);
a bad time-zone cookie is not the visitor's typing, so it is ignored (UTC) and said on the page.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from typing import Any, Literal
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from starlette.datastructures import QueryParams

from ...kernel.errors import ValidationError
from ...kernel.graphemes import has_words
from ...kernel.messages import quoted, quoted_list
from ..kit.request_values import ZONE_COOKIE, browser_zone, query_offset

STATUSES = ("NORMAL", "ARCHIVED", "ALL")
SearchMode = Literal["literal", "ai"]
MAX_QUERY = 1000
MAX_TAG = 100
PAGE_SIZE = 20


def _flag(params: QueryParams, name: str) -> bool:
    value = params.get(name, "")
    if value not in ("", "1", "true"):
        raise ValidationError("%(name)s: use %(name)s=1 or leave it out", name=name)
    return value in ("1", "true")


def _day(params: QueryParams) -> date | None:
    raw = params.get("day", "")
    if not raw:
        return None
    try:
        if len(raw) == 10:
            return date.fromisoformat(raw)
    except ValueError:
        pass
    raise ValidationError("day: %(raw)s is not a date like 2026-11-30", raw=quoted(raw[:20]))


def _bounded(params: QueryParams, name: str, limit: int) -> str:
    value = params.get(name, "").strip()
    if len(value) > limit:
        raise ValidationError("%(name)s: at most %(limit)s characters", name=name, limit=limit)
    return value


@dataclass(frozen=True)
class TimelineQuery:
    status: str = "NORMAL"
    tag: str = ""
    untagged: bool = False
    pinned: bool = False
    day: date | None = None
    q: str = ""
    mode: SearchMode = "literal"
    offset: int = 0

    @classmethod
    def from_params(cls, params: QueryParams) -> TimelineQuery:
        # The address is typed by people too: /?status=archived is the archive, as the API's codes are.
        status = (params.get("status", "NORMAL") or "NORMAL").strip().upper()
        if status not in STATUSES:
            raise ValidationError("status: one of %(statuses)s", statuses=quoted_list(STATUSES))  # codes, quoted
        mode = params.get("mode", "literal") or "literal"
        if mode not in ("literal", "ai"):
            raise ValidationError("mode: literal or ai")
        return cls(
            status=status,
            tag=_bounded(params, "tag", MAX_TAG).lstrip("#\uff03"),  # a sign typed in the address, either width
            untagged=_flag(params, "untagged"),
            pinned=_flag(params, "pinned"),
            day=_day(params),
            q=_bounded(params, "q", MAX_QUERY),
            mode="ai" if mode == "ai" else "literal",
            offset=query_offset(params),
        )

    @property
    def ai_can_find(self) -> bool:
        """Whether AI search could find anything for `q`: a query without a letter or digit
        (punctuation, symbols, spaces) answers nothing there (`kernel.graphemes.has_words`), so no
        page offers it."""
        return has_words(self.q)

    @property
    def filtered(self) -> bool:
        return bool(self.tag or self.untagged or self.pinned or self.day or self.status != "NORMAL")

    def day_range(self, zone: ZoneInfo | None) -> tuple[str, str] | None:
        """The day in the browser's zone as [createdFrom, createdTo) with its offsets."""
        if self.day is None:
            return None
        start = datetime.combine(self.day, time(), tzinfo=zone or ZoneInfo("UTC"))
        end = datetime.combine(self.day + timedelta(days=1), time(), tzinfo=zone or ZoneInfo("UTC"))
        return start.isoformat(), end.isoformat()

    def filters(self, zone: ZoneInfo | None) -> dict[str, Any]:
        """The filter arguments list_memos and search_memos share."""
        arguments: dict[str, Any] = {"status": self.status}
        if self.tag:
            arguments["tags"] = [self.tag]
        if self.untagged:
            arguments["untagged"] = True
        if self.pinned:
            arguments["pinned"] = True
        span = self.day_range(zone)
        if span:
            arguments["createdFrom"], arguments["createdTo"] = span
        return arguments

    def ai_arguments(self, zone: ZoneInfo | None) -> dict[str, Any]:
        """search_ai_memos takes tags, status and the creation range (not untagged or pinned)."""
        arguments: dict[str, Any] = {"query": self.q, "limit": PAGE_SIZE, "status": self.status}
        if self.tag:
            arguments["tags"] = [self.tag]
        span = self.day_range(zone)
        if span:
            arguments["createdFrom"], arguments["createdTo"] = span
        return arguments

    def url(self, **changes: Any) -> str:
        """This view's URL with `changes` (offset back to 0 unless given)."""
        if isinstance(changes.get("day"), str):
            changes["day"] = date.fromisoformat(changes["day"])  # a day of the sidebar's counts
        changed = replace(self, **{"offset": 0, **changes})
        params: dict[str, str] = {}
        if changed.status != "NORMAL":
            params["status"] = changed.status
        if changed.tag:
            params["tag"] = changed.tag
        if changed.untagged:
            params["untagged"] = "1"
        if changed.pinned:
            params["pinned"] = "1"
        if changed.day:
            params["day"] = changed.day.isoformat()
        if changed.q:
            params["q"] = changed.q
            if changed.mode == "ai":
                params["mode"] = "ai"
        if changed.offset:
            params["offset"] = str(changed.offset)
        return "/" + ("?" + urlencode(params) if params else "")

    def filter_url(self, **changes: Any) -> str:
        """A sidebar link: the filter `changes` make, without the search. The sidebar's counts
        are of the whole collection, so its links go to a filter of it; carrying the query they
        were two dozen copies of it (a 1,000-character one, 9 KB each in Chinese)."""
        return self.url(**{"q": "", "mode": "literal", **changes})


__all__ = ["PAGE_SIZE", "ZONE_COOKIE", "TimelineQuery", "browser_zone"]
