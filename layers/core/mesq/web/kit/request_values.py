"""The values every page reads off a request, each with one rule (issue 25): the `?offset=` of a
paged list, the revision a form carries back, whether htmx asked for a fragment, and the
browser's time zone (the `mesq_tz` cookie `static/theme.js` sets on every page)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from zoneinfo import ZoneInfo

from starlette.requests import Request

from ...kernel.errors import ValidationError
from ...kernel.i18n import ForPrograms
from ...kernel.timestamps import parse_zone
from .forms import Fields

#: The cookie holding the browser's IANA zone (`Intl.DateTimeFormat().resolvedOptions().timeZone`).
ZONE_COOKIE = "mesq_tz"

#: The deepest `?offset=` a page accepts (a list is paged with its "More" link, 50 or 100 a page).
MAX_OFFSET = 100_000


def query_offset(params: Mapping[str, str]) -> int:
    """`?offset=` of a paged list: absent or empty is 0; a whole number up to MAX_OFFSET is itself;
    anything else is a 400 that says so (not a silent first page)."""
    raw = params.get("offset", "") or "0"
    if not (raw.isascii() and raw.isdigit()) or len(raw) > len(str(MAX_OFFSET)) or int(raw) > MAX_OFFSET:
        raise ValidationError(
            "offset: a whole number from 0 to %(max_offset)s (follow the page's “More” link)", max_offset=MAX_OFFSET
        )
    return int(raw)


def form_revision(fields: Fields, name: str = "revision") -> int:
    """The revision a form (or a JSON body) carries back: a positive whole number, else a 400."""
    raw: Any = fields.get(name)
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 1:
        return raw
    if isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) <= 15 and int(raw) >= 1:
        return int(raw)
    raise ValidationError(
        "the form is incomplete or out of date; reload the page and try again%(detail)s",
        detail=ForPrograms(f" (expectedRevision: the form's {name} must be a positive integer)"),
    )


def is_htmx(request: Request) -> bool:
    """htmx asked for a fragment: `HX-Request: true`, and not a history restore (which wants the
    whole page back)."""
    headers = request.headers
    return headers.get("hx-request") == "true" and "hx-history-restore-request" not in headers


def browser_zone(cookie: str | None) -> ZoneInfo | None:
    """The browser's IANA zone from its cookie; None when absent or unknown (a bad cookie is not
    the visitor's typing: it is ignored, never an error page)."""
    if not cookie or len(cookie) > 64:
        return None
    try:
        return parse_zone(cookie, ZONE_COOKIE)
    except ValidationError:
        return None


def request_zone(request: Request) -> str:
    """The browser's IANA zone name (its cookie), else "UTC": every time a page shows is in it."""
    zone = browser_zone(request.cookies.get(ZONE_COOKIE))
    return str(zone) if zone else "UTC"
