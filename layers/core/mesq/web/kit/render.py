"""Jinja2 templates (autoescaped) and the response helpers every page uses."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ...todos.quick_add import describe_recurrence
from ..settings.pages import SETTINGS_PAGES
from .security import page_headers

TEMPLATES = Path(__file__).parents[1] / "templates"


def when(timestamp: str) -> str:
    """`2026-11-29T08:00:00.000000Z` -> `2026-11-29 08:00 UTC` (stored times are fixed-width UTC)."""
    return f"{timestamp[:10]} {timestamp[11:16]} UTC" if len(timestamp) >= 16 else timestamp


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
    env.filters["when"] = when
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
