"""Jinja2 templates (autoescaped) and the response helpers every page uses."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context, select_autoescape
from jinja2.runtime import Context
from markupsafe import Markup, escape
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ...attachments.uploads import BIDI_CONTROLS
from ...kernel import formats
from ...kernel.errors import ValidationError
from ...kernel.tags import TAG_TYPED_PATTERN
from ...kernel.timestamps import parse_timestamp
from ...store.blob_downloads import inline_safe_type
from ..settings.pages import SETTINGS_NAVS, SETTINGS_PAGES
from .i18n import DEFAULT_LANGUAGE, LANGUAGES, render_context
from .recurrence_words import recurrence_filter
from .script_words import script_words
from .security import page_headers

TEMPLATES = Path(__file__).parents[1] / "templates"


#: The context variable holding the browser's IANA zone name (`Page.render` sets it from the
#: `mesq_tz` cookie): every stored time a page shows is turned into it.
VIEWER_ZONE = "viewer_zone"


def _isolated(text: object) -> str:
    """A name for an attribute (alt, aria-label), where `<bdi>` cannot go: its direction controls
    dropped (a stored U+2069 would close the isolate early and let a U+202E turn the rest of the
    label round), and what is left isolated from the words around it."""
    value = str(text)
    kept = "".join(c for c in value if c not in BIDI_CONTROLS)
    return f"\u2068{kept}\u2069" if kept != value else value


def _thumbnail_type(mime_type: object) -> bool:
    return isinstance(mime_type, str) and inline_safe_type(mime_type).startswith("image/")


def when(timestamp: str, zone: str = "UTC", language: str = DEFAULT_LANGUAGE) -> str:
    """`2026-11-29T08:00:00.000000Z` in `zone` -> `2026-11-29 16:00 +0800` (in UTC: `... 08:00
    UTC`), as CLDR writes it in `language` (`kernel/formats.moment_text`)."""
    try:
        here = ZoneInfo(zone)
        moment = parse_timestamp(timestamp, "at")
    except (ValidationError, ValueError, LookupError):  # not a stored time (or no such zone): as it is
        return f"{timestamp[:10]} {timestamp[11:16]} UTC" if len(timestamp) >= 16 else timestamp
    return formats.moment_text(moment, here, language)


@pass_context
def _when_for_viewer(context: Context, timestamp: str) -> str:
    return when(timestamp, context.get(VIEWER_ZONE) or "UTC", context.get("language") or DEFAULT_LANGUAGE)


@pass_context
def _size(context: Context, count: int) -> str:
    """A file's size in the page's language (`5 bytes` / `5字节`, `1.2 MB`)."""
    return formats.size(int(count), context.get("language") or DEFAULT_LANGUAGE)


@pass_context
def _listing(context: Context, items: list[Any]) -> Markup:
    """Phrases joined as the page's language lists things (`a, b, and c` / `a、b和c`); each phrase
    is escaped unless it is markup already (a catalog string with its values escaped)."""
    return Markup(formats.listing([str(escape(item)) for item in items], context.get("language") or DEFAULT_LANGUAGE))  # noqa: S704 -- every part escaped above; CLDR's separators hold no markup


@pass_context
def _zone_name(context: Context, zone: str) -> str:
    """An IANA zone by its generic name, in the page's language (`中国时间`); a name that is no
    zone as it is."""
    try:
        return formats.zone_name(ZoneInfo(zone), context.get("language") or DEFAULT_LANGUAGE)
    except (ValueError, LookupError):
        return zone


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def keep_dates(text: str) -> Markup:
    """`text` with each date (2026-12-04) kept on one line: in a narrow table cell a line would
    otherwise break at a date's hyphens ("2026-12-" | "04"); it still breaks between words."""
    wrapped = Markup('<span class="nowrap">%s</span>')
    parts, start = [], 0
    for found in _DATE.finditer(text):
        parts += [escape(text[start : found.start()]), wrapped % found.group(0)]
        start = found.end()
    return Markup("").join([*parts, escape(text[start:])])


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
    # `{{ _("Save") }}`, `{% trans %}` and `ngettext` mark every user-visible string for the
    # message catalog. "newstyle" is a compile-time switch; the null translations installed here
    # are only a fallback: `render` passes the request's `gettext`/`ngettext` in each render's
    # context (the Environment is shared by every request and thread, so nothing is installed
    # on it per request).
    env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]
    env.filters["when"] = _when_for_viewer  # in the browser's zone
    env.filters["size"] = _size  # bytes in the page's language
    env.filters["listing"] = _listing  # phrases as the page's language lists them
    env.filters["zone_name"] = _zone_name  # an IANA zone by its place, in the page's language
    env.filters["recurrence"] = recurrence_filter  # an RRULE in words, in the page's language
    env.filters["keep_dates"] = keep_dates  # dates whole in narrow table cells
    # An image a download keeps as an image on every store (an SVG is a file: on S3 its
    # presigned GET is application/octet-stream, which an <img> does not decode).
    env.tests["thumbnail_type"] = _thumbnail_type
    # A file name in an attribute (alt, aria-label), where <bdi> cannot go: a stored name with
    # direction controls goes inside FSI ... PDI, so it cannot reorder the words around it.
    env.filters["isolated"] = _isolated
    env.globals["settings_pages"] = SETTINGS_PAGES
    env.globals["settings_navs"] = SETTINGS_NAVS
    env.globals["languages"] = LANGUAGES
    env.globals["script_words"] = script_words  # base.html's JSON block for static/words.js
    env.globals["tag_typed_pattern"] = TAG_TYPED_PATTERN  # the composer's `#` suggestions (memos.js)
    return env


def render(
    template: str,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    consent: bool = False,
    language: str = DEFAULT_LANGUAGE,
    **context: Any,
) -> HTMLResponse:
    """The page in `language` (its catalog's `gettext`/`ngettext`, `html_lang` for `<html lang>`)."""
    html = environment().get_template(template).render(**render_context(language), **context)
    return HTMLResponse(html, status_code=status, headers={**page_headers(consent=consent), **(headers or {})})


def redirect(url: str) -> Response:
    """303 See Other: after a POST the browser follows with a GET (reload never re-posts)."""
    return RedirectResponse(url, status_code=303, headers=page_headers())
