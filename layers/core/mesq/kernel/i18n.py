"""One language at a time, for everything a person reads: English (the source text) or Chinese.

Every user-visible string is English source text marked for the one message catalog
(`mesq/locale/<lang>/LC_MESSAGES/messages.po`, compiled to the `messages.mo` beside it and
committed; docs/i18n.md). The pages, the toasts, the reminder messages and the domain errors a
page shows are all translated through it, so a Chinese reader never meets an English sentence
that has no way into the catalog:

- `N_("...")` marks a constant translated where it is shown, `NP_` a plural pair, `NC_` a
  string with a context (`pgettext`): one English word that means two things gets two msgids.
- `Text(template, **params)` is a message not yet in a language (a domain error's message, a
  reminder channel's failure reason): English when turned into `str` (REST, MCP, logs), the
  reader's language through `Translator.text`. Babel extracts its template (and those of the
  error classes, `MesqError("...", name=value)`), so it is in the catalog.
- `Translator(language)`: gettext, ngettext, pgettext, npgettext and `text` for one language.

The runtime reads the compiled catalogs with the standard library's `gettext` (Babel extracts
and compiles, and formats dates, relative times and units: `kernel/formats.py`).
"""

from __future__ import annotations

import gettext as stdlib_gettext
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .messages import Quoted

LOCALE_DIR = Path(__file__).parents[1] / "locale"
DOMAIN = "messages"
DEFAULT_LANGUAGE = "en"
#: The languages a user can choose, in the Settings form's order, with their own names.
LANGUAGES: dict[str, str] = {"en": "English", "zh": "中文"}
#: The language tag each is written with (`<html lang>`, `Content-Language`): Chinese is Simplified.
LANGUAGE_TAGS: dict[str, str] = {"en": "en", "zh": "zh-Hans"}
MAX_ACCEPT_LANGUAGE = 500  # characters of the header read; the rest is ignored
_PLACEHOLDER = re.compile(r"%\((\w+)\)")
#: One Han character (the CJK unified ideographs, extension A, the compatibility ideographs).
HAN = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_HAN = re.compile(HAN)
_LATIN_LETTERS = re.compile(r"[A-Za-z]")
#: The arguments a person's own words are in (a title, a note); ids, dates and choices say nothing.
_PROSE_FIELDS = frozenset({"title", "content", "description", "name", "note", "notes", "text"})
_MAX_WORDS_READ = 2000  # characters: plenty to tell Chinese from English


def is_chinese(text: str) -> bool:
    """Mostly Chinese: more Han characters than a third of its Latin letters (a Han character
    carries about as much as a three-letter word). The same test the search index applies to a note."""
    han = len(_HAN.findall(text))
    return han > 0 and han * 3 >= len(_LATIN_LETTERS.findall(text))


def _prose(value: Any, field: str = "") -> Iterator[str]:
    if isinstance(value, str):
        if field in _PROSE_FIELDS:
            yield value
    elif isinstance(value, Mapping):
        for name, inner in value.items():
            yield from _prose(inner, str(name))
    elif isinstance(value, list):
        for inner in value:
            yield from _prose(inner, field)


def written_language(arguments: Mapping[str, Any]) -> str:
    """The language of the person's own words in a call's arguments (its titles, contents,
    names, also inside a batch's items): "zh" when they are mostly Chinese, "en" when they have
    Latin letters, "" when they say nothing (no prose, or only digits and emoji). The weakest hint
    of what to name things in, after every choice and header (`auth.users.preferred_language`)."""
    words = "\n".join(_prose(arguments))[:_MAX_WORDS_READ]
    if is_chinese(words):
        return "zh"
    return "en" if _LATIN_LETTERS.search(words) else ""


def N_(message: str) -> str:
    """Mark a constant for the catalog without translating it now (it is translated where shown)."""
    return message


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a plural pair for the catalog (translated later with `ngettext(*pair, count)`)."""
    return singular, plural


def NC_(context: str, message: str) -> tuple[str, str]:
    """Mark a string with its context for the catalog (translated later with `pgettext(*pair)`)."""
    return context, message


@cache
def translations(language: str) -> stdlib_gettext.NullTranslations:
    """The compiled catalog of `language` (read once per process); English falls back to the
    source text for a string its catalog lacks, and an unknown language is English."""
    path = LOCALE_DIR / (language if language in LANGUAGES else DEFAULT_LANGUAGE) / "LC_MESSAGES" / f"{DOMAIN}.mo"
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


def requested_language(accept_language: str | None) -> str:
    """The supported language an `Accept-Language` header asks for, or "" when it names none
    (an API client that says nothing leaves the choice to the user's setting, then English)."""
    language = negotiate(accept_language)
    if language == DEFAULT_LANGUAGE and not any(
        part.strip().lower().split(";")[0].split("-")[0] == DEFAULT_LANGUAGE
        for part in (accept_language or "")[:MAX_ACCEPT_LANGUAGE].split(",")
    ):
        return ""
    return language


def choose_language(stored: str | None, accept_language: str | None) -> str:
    """The user's stored choice when it is a language we have, else the browser's."""
    return stored if stored in LANGUAGES else negotiate(accept_language)


class Text:
    """A message not yet in a language: an English template marked for the catalog (Babel
    extracts `Text("...")`) and its parameters (`%(name)s`; a parameter may be a `Text` itself).
    `str()` is the English, with the parameters' English."""

    __slots__ = ("params", "template")

    def __init__(self, template: str, /, **params: Any) -> None:
        self.template = template
        self.params: dict[str, Any] = params

    def __str__(self) -> str:
        return fill(self.template, {name: str(value) if isinstance(value, Text) else value
                                    for name, value in self.params.items()})  # fmt: skip

    def __repr__(self) -> str:
        return f"Text({self.template!r}, **{self.params!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Text) and (other.template, other.params) == (self.template, self.params)

    def __hash__(self) -> int:
        return hash(self.template)

    def stored(self) -> dict[str, Any]:
        """A plain form to keep in a record (`from_stored` reads it back): the template and the
        parameters, a `Text` parameter in its own stored form (so it is said in the reader's
        language too), any other as its English text."""
        return {"template": self.template,
                "params": {name: _stored_param(value) for name, value in self.params.items()}}  # fmt: skip

    @classmethod
    def from_stored(cls, value: Any, fallback: str = "") -> Text:
        """`stored()` back; anything else (a record written before messages were kept so): its
        English as it is (`fallback`), translated when it is itself a catalog string."""
        if isinstance(value, Mapping) and isinstance(value.get("template"), str):
            params = value.get("params")
            made = ForPrograms if value.get("forPrograms") is True else cls
            return made(value["template"], **{
                str(name): _param_from_stored(param)
                for name, param in (params.items() if isinstance(params, Mapping) else ())
            })  # fmt: skip
        return cls(fallback)


def _stored_param(value: Any) -> Any:
    """A parameter's stored form: a `Text`'s own, a quoted value's with what it quotes (so a
    Chinese page reading the record later quotes it in its marks too), any other's English."""
    if isinstance(value, Text):
        return value.stored()
    if isinstance(value, Quoted):
        return {"quoted": value.inner}
    return str(value)


def _param_from_stored(param: Any) -> Any:
    if isinstance(param, Mapping) and isinstance(param.get("quoted"), str):
        return Quoted("'" + param["quoted"] + "'")
    return Text.from_stored(param) if isinstance(param, Mapping) else param


class ForPrograms(Text):
    """Words only a program needs, such as the call that does what a message asks
    (`update_todo_space makeDefault`): part of the English that REST, MCP and the CLI answer
    with (`str`), left out where a person reads the message (`Translator.text`), whose page says
    the same in its own words. A parameter of a message, never a message of its own."""

    __slots__ = ()

    def stored(self) -> dict[str, Any]:
        return {**super().stored(), "forPrograms": True}


def fill(template: str, params: Mapping[str, Any]) -> str:
    """`template % params` when it has placeholders (a template without parameters may hold a
    bare `%`); a parameter the template lacks, or a bad placeholder, leaves the template as it is."""
    if not params or "%" not in template:
        return template
    try:
        return template % params
    except (KeyError, ValueError, TypeError):
        return template


@dataclass(frozen=True)
class Translator:
    """One language's catalog, for code that builds what a person reads in Python."""

    language: str

    def gettext(self, message: str, /, **variables: Any) -> str:
        text = translations(self.language).gettext(message)
        return text % variables if variables else text

    def ngettext(self, singular: str, plural: str, count: int, /, **variables: Any) -> str:
        text = translations(self.language).ngettext(singular, plural, count)
        return text % {"num": count, **variables}

    def pgettext(self, context: str, message: str, /, **variables: Any) -> str:
        text = translations(self.language).pgettext(context, message)
        return text % variables if variables else text

    def npgettext(self, context: str, singular: str, plural: str, count: int, /, **variables: Any) -> str:
        text = translations(self.language).npgettext(context, singular, plural, count)
        return text % {"num": count, **variables}

    def text(self, message: Text | str, /) -> str:
        """A `Text` in this language (its parameters too, when they are `Text`); a plain string
        is looked up as a msgid (a stored English message of a catalog string translates)."""
        if isinstance(message, str):
            return translations(self.language).gettext(message) if message else message
        if isinstance(message, ForPrograms):
            return ""
        params = {name: self.text(value) if isinstance(value, Text) else value
                  for name, value in message.params.items()}  # fmt: skip
        translated = translations(self.language).gettext(message.template) if message.template else ""
        if set(_PLACEHOLDER.findall(translated)) != set(_PLACEHOLDER.findall(message.template)):
            translated = message.template  # a translation that lost a placeholder: the English
        marks = _QUOTES.get(self.language)
        for name, value in params.items():
            if marks and isinstance(value, Quoted):
                # The template (trusted) loses the spaces it set around the English marks; the
                # value itself is never searched, whatever it holds.
                translated = re.sub(rf" ?%\({name}\)s ?", f"%({name})s", translated)
                params[name] = marks[0] + value.inner + marks[1]
        return fill(translated, params)


#: Quotation marks by language, where they are not the English `'…'` of `messages.quoted` (what
#: REST, MCP and logs say). Chinese sets no space beside its marks: the templates were written
#: around `'…'`, with spaces.
_QUOTES = {"zh": ("“", "”")}


ENGLISH = Translator(DEFAULT_LANGUAGE)

__all__ = [
    "DEFAULT_LANGUAGE",
    "ENGLISH",
    "LANGUAGES",
    "LOCALE_DIR",
    "NC_",
    "NP_",
    "N_",
    "ForPrograms",
    "Text",
    "Translator",
    "choose_language",
    "fill",
    "negotiate",
    "requested_language",
    "translations",
]  # fmt: skip
