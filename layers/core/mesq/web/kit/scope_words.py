"""Scopes in plain words, in the page's language, for the consent page, the token form and the
connected apps (docs/contract.md §1 scopes). The scope itself (`memo:read`) is a protocol name,
shown as code beside them."""

from __future__ import annotations

from .i18n import DEFAULT_LANGUAGE, N_, Translator

SCOPE_WORDS: dict[str, str] = {
    "memo:read": N_("Read your memos and their attachments"),
    "memo:write": N_("Create and change memos, move them to the trash"),
    "todo:read": N_("Read your todos"),
    "todo:write": N_("Create and change todos"),
    "reading:read": N_("Read your reading shelf: books and highlights"),
}


ENGLISH = Translator(DEFAULT_LANGUAGE)


def describe(scope: str, say: Translator = ENGLISH) -> str:
    words = SCOPE_WORDS.get(scope)
    return say.gettext(words) if words else scope
