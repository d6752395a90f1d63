"""What a client may put in front of a person: its self-asserted `client_name`, and URLs the
consent page shows (redirect URIs, a metadata-document `client_id`).

A client names itself (RFC 7591 §2, §5: the server must not trust it for display without care).
Invisible characters let the stored text differ from what the page shows: a RIGHT-TO-LEFT
OVERRIDE (U+202E) makes "Claude", RLO, "loot.evil", PDF read "Claudelive.tool", a line break or a line
separator starts a second line that looks like the page's own words, invisible tag characters
carry text only a model reads. Registration refuses them (`invalid_client_metadata`), a CIMD
document that has them is refused, and names stored before the rule are cleaned when shown.
"""

from __future__ import annotations

import unicodedata

from ...kernel.i18n import N_

#: Cc: C0/C1 controls (CR, LF, TAB, NUL, NEL); Zl/Zp: U+2028/U+2029 line and paragraph
#: separators; Cf: format characters (bidi embeddings, overrides, isolates and marks U+202A..E,
#: U+2066..9, U+200E/F, U+061C; zero-width space U+200B, word joiner, BOM, soft hyphen, tags
#: U+E0000…); Cs: a lone surrogate (a JSON `\ud800` escape), which is no character at all.
HIDDEN_CATEGORIES = frozenset({"Cc", "Zl", "Zp", "Cf", "Cs"})
#: ZERO WIDTH NON-JOINER and JOINER: Persian and Indic spelling and emoji sequences (👩‍💻) need
#: them, and they neither reorder nor break text (RFC 8264 §9.8 admits them in context).
JOINERS = frozenset({"\u200c", "\u200d"})
#: A client_name's length (what registration admits and a page shows).
MAX_NAME_LENGTH = 200
#: Combining marks in a row: stacked marks ("Zalgo" text) grow a name up and down over the lines
#: around it, the redirect host among them. Real scripts stack a few (Vietnamese two, Tibetan four).
MAX_COMBINING_RUN = 8
#: The name MeSQ gives a client that registered none (RFC 7591 makes `client_name` optional). It is
#: MeSQ's own words, stored as English: a page says it in its language (`web/kit/scope_words.app_name`).
UNNAMED_CLIENT = N_("Unnamed client")


def hidden_characters(text: str, *, joiners: bool = False) -> list[str]:
    """The characters of `text` a person would not see as written, as `U+XXXX` (first 5, in order);
    `joiners` admits ZWNJ/ZWJ (names, not URLs)."""
    found: list[str] = []
    for character in text:
        if joiners and character in JOINERS:
            continue
        if unicodedata.category(character) in HIDDEN_CATEGORIES:
            code = f"U+{ord(character):04X}"
            if code not in found:
                found.append(code)
            if len(found) == 5:
                break
    return found


def longest_combining_run(text: str) -> int:
    longest = run = 0
    for character in text:
        run = run + 1 if unicodedata.combining(character) or unicodedata.category(character) == "Me" else 0
        longest = max(longest, run)
    return longest


def name_problem(name: str, max_length: int = MAX_NAME_LENGTH) -> str | None:
    """Why `name` cannot be a client's display name, or None."""
    if not 1 <= len(name.strip()) <= max_length:
        return f"client_name must be 1..{max_length} characters"
    hidden = hidden_characters(name, joiners=True)
    if hidden:
        return (
            "client_name must not contain control or format characters (line breaks, bidi overrides and"
            f" isolates, zero-width or invisible characters): found {', '.join(hidden)}"
        )
    if longest_combining_run(name) > MAX_COMBINING_RUN:
        return f"client_name must not stack more than {MAX_COMBINING_RUN} combining marks on one character"
    return None


def shown_name(name: str, fallback: str = UNNAMED_CLIENT, max_length: int = MAX_NAME_LENGTH) -> str:
    """A stored name as the pages show it: a line break or control becomes a space, format
    characters go, stacked marks are cut, spaces fold, at most `max_length` characters (names
    registered before registration refused these)."""
    kept: list[str] = []
    run = 0
    for character in name:
        category = unicodedata.category(character)
        if category in ("Cc", "Zl", "Zp"):
            kept.append(" ")
        elif category in HIDDEN_CATEGORIES and character not in JOINERS:
            continue
        else:
            run = run + 1 if unicodedata.combining(character) or category == "Me" else 0
            if run <= MAX_COMBINING_RUN:
                kept.append(character)
    folded = " ".join("".join(kept).split())
    return folded[:max_length].rstrip() or fallback
