"""Jinja2 templates (autoescaped) and the response helpers every page uses."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context, select_autoescape
from jinja2.runtime import Context
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ...kernel.errors import ValidationError
from ...kernel.timestamps import parse_timestamp
from ...todos.quick_add import describe_recurrence
from ..settings.pages import SETTINGS_PAGES
from .security import page_headers

TEMPLATES = Path(__file__).parents[1] / "templates"


#: The context variable holding the browser's IANA zone name (`Page.render` sets it from the
#: `mesq_tz` cookie): every stored time a page shows is turned into it.
VIEWER_ZONE = "viewer_zone"


def when(timestamp: str, zone: str = "UTC") -> str:
    """`2026-11-29T08:00:00.000000Z` in `zone` -> `2026-11-29 16:00 CST` (in UTC: `... 08:00 UTC`)."""
    try:
        moment = parse_timestamp(timestamp, "at").astimezone(ZoneInfo(zone))
    except (ValidationError, ValueError, LookupError):  # not a stored time (or no such zone): as it is
        return f"{timestamp[:10]} {timestamp[11:16]} UTC" if len(timestamp) >= 16 else timestamp
    return f"{moment:%Y-%m-%d %H:%M} {moment.tzname()}"


@pass_context
def _when_for_viewer(context: Context, timestamp: str) -> str:
    return when(timestamp, context.get(VIEWER_ZONE) or "UTC")


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 file`, `2 files`: an English count with its noun in the right number."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


@cache
def environment() -> Environment:
    # FileSystemLoader over the package directory: works from a wheel, a Lambda layer and a checkout.
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,  # a missing variable is a bug, not an empty string
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    # `{{ _("Save") }}` and `{% trans %}` mark every user-visible string for the message catalog;
    # until a request's language is chosen they render the English source text.
    env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]
    env.filters["when"] = _when_for_viewer  # in the browser's zone
    env.filters["counted"] = counted
    env.filters["recurrence"] = describe_recurrence  # an RRULE in words ("Every week on Friday")
    env.globals["settings_pages"] = SETTINGS_PAGES
    return env


def render(
    template: str,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    consent: bool = False,
    **context: Any,
) -> HTMLResponse:
    html = environment().get_template(template).render(**context)
    return HTMLResponse(html, status_code=status, headers={**page_headers(consent=consent), **(headers or {})})


def redirect(url: str) -> Response:
    """303 See Other: after a POST the browser follows with a GET (reload never re-posts)."""
    return RedirectResponse(url, status_code=303, headers=page_headers())
