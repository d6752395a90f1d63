"""Which characters are CJK text, for the two rules that read memo text as Chinese writers type
it: where a `#` starts a tag (kernel/tags.py: `今天去买菜#生活`) and where a bare URL ends
(kernel/memo_linkify.py and the tag rule's URL read-over: `看https://example.com/页面很好` links
`https://example.com/`). Chinese puts no space around either, so the script itself is the border.

Written as the body of a regular-expression character class that means the same in Python's `re`
and in ECMA-262 with the `u` flag (the composer's script compiles the tag rule): `\\uXXXX` escapes
and, for the supplementary planes, literal characters (the two engines spell `\\U` differently).
"""

from __future__ import annotations

#: CJK text and punctuation: Hangul Jamo; Supplemental Punctuation (`⸺`), CJK radicals, Kangxi,
#: description characters; CJK symbols and punctuation (U+3000-303F), kana, Bopomofo, Hangul
#: compatibility Jamo, kanbun, strokes, enclosed and compatibility CJK, Extension A and the URO (to
#: U+9FFF); Hangul Jamo extended-A and syllables; compatibility ideographs; variation selectors,
#: vertical and compatibility forms; half- and fullwidth forms (`，` `：` `！` `）`); the supplementary
#: ideographic planes (Extension B onwards, U+20000-3FFFF).
CJK_CHARS = (
    r"\u1100-\u11ff\u2e00-\u2fff\u3000-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\ufe00-\ufe1f"
    r"\ufe30-\ufe4f\uff00-\uffef" + "\U00020000-\U0003ffff"
)
#: What ends a bare URL besides whitespace and `<` `>`: a CJK character (Han, kana, Hangul, CJK
#: punctuation, fullwidth forms), and the General Punctuation Chinese text puts right after a
#: link (curly quotes, the ellipsis, the dash: `他说“https://x.test/a”。`). The rule of the chat
#: and microblog apps Chinese readers know: `看https://example.com/页面很好` links
#: `https://example.com/`; a Chinese path is kept whole by `<…>` or `[文字](…)`.
BARE_URL_STOPS = CJK_CHARS + "“”‘’…—"

__all__ = ["BARE_URL_STOPS", "CJK_CHARS"]
