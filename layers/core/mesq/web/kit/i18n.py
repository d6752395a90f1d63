"""One language at a time: English (the source text) or Chinese, per request.

The language is the signed-in user's choice (Settings → Language, kept in the account's
interface settings) or else the best match of the browser's `Accept-Language`; English when
neither says. Every user-visible string is English source text marked for the message catalog:
`{{ _("Save") }}` / `{% trans %}` / `ngettext` in templates, `page.gettext("...")` (or `N_` for a
constant translated later) in Python. The catalogs are `web/locale/<lang>/LC_MESSAGES/messages.po`
(sources, edited by people) and the compiled `messages.mo` beside each, committed: a Lambda layer
is a read-only file system and its cold start should not compile anything, and the runtime then
needs only the standard library's `gettext` (Babel is a development tool: extract, update,
compile; docs/i18n.md).

Thread safety: the Jinja2 Environment is cached and shared by every request, so the request's
`gettext`/`ngettext` are passed in each render's context (`template_functions`), never installed
on the Environment.
"""

from __future__ import annotations

import gettext as stdlib_gettext
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

LOCALE_DIR = Path(__file__).parents[1] / "locale"
DOMAIN = "messages"
DEFAULT_LANGUAGE = "en"
#: The languages a user can choose, in the Settings form's order, with their own names.
LANGUAGES: dict[str, str] = {"en": "English", "zh": "中文"}
#: `<html lang>` for each language: the pages are in Simplified Chinese.
HTML_LANG = {"en": "en", "zh": "zh-Hans"}
MAX_ACCEPT_LANGUAGE = 500  # characters of the header read; the rest is ignored


def N_(message: str) -> str:
    """Mark a constant for the catalog without translating it now (it is translated where shown)."""
    return message


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a plural pair for the catalog (translated later with `ngettext(*pair, count)`)."""
    return singular, plural


@cache
def translations(language: str) -> stdlib_gettext.NullTranslations:
    """The compiled catalog of `language` (read once per process); English falls back to the
    source text for a string its catalog lacks."""
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.mo"
    with path.open("rb") as handle:
        return stdlib_gettext.GNUTranslations(handle)


def negotiate(accept_language: str | None) -> str:
    """The supported language the browser prefers most (`zh-CN,zh;q=0.9,en;q=0.8` -> `zh`);
    English when it names none of them."""
    best, best_q = DEFAULT_LANGUAGE, 0.0
    for position, part in enumerate((accept_language or "")[:MAX_ACCEPT_LANGUAGE].split(",")):
        tag, _, params = part.strip().partition(";")
        primary = tag.strip().lower().split("-")[0]
        if primary not in LANGUAGES:
            continue
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        q -= position * 1e-6  # equal weights: the earlier one wins
        if q > best_q:
            best, best_q = primary, q
    return best


def choose_language(stored: str | None, accept_language: str | None) -> str:
    """The user's stored choice when it is a language we have, else the browser's."""
    return stored if stored in LANGUAGES else negotiate(accept_language)


@dataclass(frozen=True)
class Translator:
    """One language's gettext for Python page code: flash notices, labels built in Python."""

    language: str

    def gettext(self, message: str, /, **variables: Any) -> str:
        text = translations(self.language).gettext(message)
        return text % variables if variables else text

    def ngettext(self, singular: str, plural: str, count: int, /, **variables: Any) -> str:
        text = translations(self.language).ngettext(singular, plural, count)
        return text % {"num": count, **variables}


@cache
def render_context(language: str) -> dict[str, Any]:
    """`gettext` and `ngettext` for one render, with the i18n extension's "newstyle" behaviour:
    the result is Markup under autoescape and `%(name)s` is filled from keyword arguments (each
    value escaped), so `{{ _("Hello %(name)s", name=user) }}` is safe. `_` resolves `gettext`
    from the render's context, so passing these per render is enough."""
    catalog = translations(language)

    @pass_context
    def gettext(context: Context, message: str, /, **variables: Any) -> str:
        text = catalog.gettext(message)
        if context.eval_ctx.autoescape:
            text = Markup(text)  # noqa: S704 -- the committed catalog is trusted markup; variables are escaped by %
        return text % variables

    @pass_context
    def ngettext(context: Context, singular: str, plural: str, num: int, /, **variables: Any) -> str:
        variables.setdefault("num", num)
        text = catalog.ngettext(singular, plural, num)
        if context.eval_ctx.autoescape:
            text = Markup(text)  # noqa: S704 -- as in gettext
        return text % variables

    return {"gettext": gettext, "ngettext": ngettext, "html_lang": HTML_LANG[language], "language": language}
