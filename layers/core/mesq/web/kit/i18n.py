"""One language at a time on the pages: English (the source text) or Chinese, per request.

The language is the signed-in user's choice (Settings → Language, kept in the account's
interface settings) or else the best match of the browser's `Accept-Language`; English when
neither says. The catalog, `Translator`, `Text` and the marks (`N_`, `NP_`, `NC_`) are the
kernel's (`kernel/i18n.py`: reminder messages and domain errors are translated by the same
catalog); this module adds what the templates need. Every user-visible string is English source
text marked for the message catalog: `{{ _("Save") }}` / `{% trans %}` / `ngettext` /
`pgettext` in templates, `page.gettext("...")` (or `N_` for a constant translated later) in
Python (docs/i18n.md).

Thread safety: the Jinja2 Environment is cached and shared by every request, so the request's
`gettext`/`ngettext`/`pgettext` are passed in each render's context (`render_context`), never
installed on the Environment.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from ...kernel.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGE_TAGS,
    LANGUAGES,
    N_,
    NC_,
    NP_,
    Text,
    Translator,
    choose_language,
    negotiate,
    translations,
)

#: `<html lang>` for each language: the pages are in Simplified Chinese.
HTML_LANG = LANGUAGE_TAGS


@cache
def render_context(language: str) -> dict[str, Any]:
    """`gettext`, `ngettext`, `pgettext` and `npgettext` for one render, with the i18n extension's
    "newstyle" behaviour: the result is Markup under autoescape and `%(name)s` is filled from
    keyword arguments (each value escaped), so `{{ _("Hello %(name)s", name=user) }}` is safe.
    `_` resolves `gettext` from the render's context, so passing these per render is enough.
    `say` is the render's `Translator` (a `Text`, an error's message: `say.text(error.text)`)."""
    catalog = translations(language)

    def _markup(context: Context, text: str, variables: dict[str, Any]) -> str:
        if context.eval_ctx.autoescape:
            text = Markup(text)  # noqa: S704 -- the committed catalog is trusted markup; variables are escaped by %
        return text % variables

    @pass_context
    def gettext(context: Context, message: str, /, **variables: Any) -> str:
        return _markup(context, catalog.gettext(message), variables)

    @pass_context
    def ngettext(context: Context, singular: str, plural: str, num: int, /, **variables: Any) -> str:
        variables.setdefault("num", num)
        return _markup(context, catalog.ngettext(singular, plural, num), variables)

    @pass_context
    def pgettext(context: Context, msgctxt: str, message: str, /, **variables: Any) -> str:
        return _markup(context, catalog.pgettext(msgctxt, message), variables)

    @pass_context
    def npgettext(context: Context, msgctxt: str, singular: str, plural: str, num: int, /, **variables: Any) -> str:
        variables.setdefault("num", num)
        return _markup(context, catalog.npgettext(msgctxt, singular, plural, num), variables)

    return {
        "gettext": gettext,
        "ngettext": ngettext,
        "pgettext": pgettext,
        "npgettext": npgettext,
        "say": Translator(language),
        "html_lang": HTML_LANG[language],
        "language": language,
        # What sets two sentences, or a label and its bracketed hint, side by side: a space in
        # English, nothing in Chinese (its full stops and brackets carry their own room; a space
        # there reads as a stray gap). Write `{{ _("A.") }}{{ gap }}{{ _("B.") }}`, never a space.
        "gap": catalog.gettext("%(first)s %(second)s") % {"first": "", "second": ""},
    }


__all__ = [
    "DEFAULT_LANGUAGE", "HTML_LANG", "LANGUAGES", "NC_", "NP_", "N_", "Text", "Translator", "choose_language",
    "negotiate", "render_context", "translations",
]  # fmt: skip
