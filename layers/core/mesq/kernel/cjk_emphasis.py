"""CJK-friendly emphasis for markdown-it-py: `这是**“重点”**内容` and `**《三体》**很好看` are bold.

CommonMark decides whether `**` opens or closes emphasis by its neighbours (the "flanking" rules,
https://spec.commonmark.org/0.31.2/#left-flanking-delimiter-run). A run that touches punctuation
on its inside counts only when whitespace or punctuation is on its outside: that suits languages
with spaces between words and fails Chinese and Japanese, where a closing `”**` or `》**` is
followed by a letter. The asterisks then stay on the page and pair with the wrong run, which can
carry the damage into the next line (CommonMark issue 650:
https://github.com/commonmark/commonmark-spec/issues/650).

This module implements the "CommonMark CJK-friendly Amendments" (tats-u/markdown-cjk-friendly,
https://github.com/tats-u/markdown-cjk-friendly/blob/main/specification.md, section 6.2), which
GitLab, VitePress and markdown-it-cjk-friendly (npm) use. The amended rules, in the form of the
spec's "Tips for Implementers", for a run with no whitespace on either side:

- left-flanking: the next character is not punctuation, or the previous one is punctuation, or
  either neighbour is a CJK character;
- right-flanking: the previous character is not punctuation, or the next one is punctuation, or
  either neighbour is a CJK character.

The CJK part applies to `*` (and `~`, which markdown-it scans the same way), not to `_`, whose
rules the amendment leaves as they were. A character followed by a variation selector (U+FE00..
U+FE0E) is read as that character; `‘’“”` followed by U+FE01 (their full-width form) and an
ideographic variation selector before the run count as CJK. Text without CJK characters parses as
CommonMark says. Only parsers that `use(cjk_friendly_emphasis)` change; no class is patched.

No Python library implements the amendment: mdit-py-cjk-friendly (PyPI) pins markdown-it-py < 4,
patches `StateInline.scanDelims` for every parser in the process, follows a simplified rule of its
own and joins soft line breaks between CJK characters (docs/decisions.md, "CJK emphasis").
"""

from __future__ import annotations

from bisect import bisect_right

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.parser_inline import ParserInline
from markdown_it.rules_inline.state_inline import Scanned, StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType

# The spec's "CJK character" (East Asian Width W, F or H and not an emoji by default, or the
# Hangul script), as inclusive code point ranges: ranges.md of the spec repository, Unicode 17.
_CJK_RANGES = (
    (0x1100, 0x11FF), (0x20A9, 0x20A9), (0x2329, 0x232A), (0x2630, 0x2637), (0x268A, 0x268F),
    (0x2E80, 0x2E99), (0x2E9B, 0x2EF3), (0x2F00, 0x2FD5), (0x2FF0, 0x303E), (0x3041, 0x3096),
    (0x3099, 0x30FF), (0x3105, 0x312F), (0x3131, 0x318E), (0x3190, 0x31E5), (0x31EF, 0x321E),
    (0x3220, 0x3247), (0x3250, 0xA48C), (0xA490, 0xA4C6), (0xA960, 0xA97C), (0xAC00, 0xD7A3),
    (0xD7B0, 0xD7C6), (0xD7CB, 0xD7FB), (0xF900, 0xFAFF), (0xFE10, 0xFE19), (0xFE30, 0xFE52),
    (0xFE54, 0xFE66), (0xFE68, 0xFE6B), (0xFF01, 0xFFBE), (0xFFC2, 0xFFC7), (0xFFCA, 0xFFCF),
    (0xFFD2, 0xFFD7), (0xFFDA, 0xFFDC), (0xFFE0, 0xFFE6), (0xFFE8, 0xFFEE), (0x16FE0, 0x16FE4),
    (0x16FF0, 0x16FF6), (0x17000, 0x18CD5), (0x18CFF, 0x18D1E), (0x18D80, 0x18DF2),
    (0x1AFF0, 0x1AFF3), (0x1AFF5, 0x1AFFB), (0x1AFFD, 0x1AFFE), (0x1B000, 0x1B122),
    (0x1B132, 0x1B132), (0x1B150, 0x1B152), (0x1B155, 0x1B155), (0x1B164, 0x1B167),
    (0x1B170, 0x1B2FB), (0x1D300, 0x1D356), (0x1D360, 0x1D376), (0x1F200, 0x1F200),
    (0x1F202, 0x1F202), (0x1F210, 0x1F219), (0x1F21B, 0x1F22E), (0x1F230, 0x1F231),
    (0x1F237, 0x1F237), (0x1F23B, 0x1F23B), (0x1F240, 0x1F248), (0x1F260, 0x1F265),
    (0x20000, 0x3FFFD),
)  # fmt: skip
_CJK_STARTS = tuple(first for first, _ in _CJK_RANGES)
# "CJK ambiguous punctuation sequences": these quotes followed by U+FE01 are their full-width forms.
_FULL_WIDTH_SELECTOR = "\ufe01"
_QUOTES_WITH_FULL_WIDTH_FORM = frozenset("‘’“”")


def is_cjk(char: str) -> bool:
    """Whether `char` is a "CJK character" in the amendment's sense (2.1): a Han, kana or Hangul
    letter, or full-width punctuation such as `，。《》（）「」`, but not `“”` (ambiguous width)."""
    code = ord(char)
    if code < 0x1100:  # nothing below is CJK: the common case for Latin text
        return False
    index = bisect_right(_CJK_STARTS, code) - 1
    return index >= 0 and code <= _CJK_RANGES[index][1]


def _is_general_use_selector(char: str) -> bool:
    """A variation selector that is not the emoji one (U+FE0F)."""
    return "\ufe00" <= char <= "\ufe0e"


def _is_ideographic_selector(char: str) -> bool:
    return "\U000e0100" <= char <= "\U000e01ef"


def _is_punctuation(char: str) -> bool:
    return isMdAsciiPunct(ord(char)) or isPunctChar(char)


class CjkFriendlyStateInline(StateInline):
    def scanDelims(self, start: int, canSplitWord: bool) -> Scanned:
        """The delimiter run at `start`: whether it can open or close emphasis, by the amendment."""
        source = self.src
        marker = source[start]
        end = start
        while end < self.posMax and source[end] == marker:
            end += 1
        length = end - start
        # The start and the end of the inline text count as whitespace (CommonMark 6.2).
        before = source[start - 1] if start > 0 else " "
        after = source[end] if end < self.posMax else " "
        two_before: str | None = None
        before_base = before  # `before` without a variation selector: what the text shows
        if _is_general_use_selector(before):
            two_before = source[start - 2] if start > 1 else " "
            if not isWhiteSpace(ord(two_before)):
                before_base = two_before

        before_is_space, after_is_space = isWhiteSpace(ord(before_base)), isWhiteSpace(ord(after))
        if before_is_space or after_is_space:  # punctuation and CJK do not matter then
            return Scanned(not after_is_space, not before_is_space, length)

        before_is_punctuation, after_is_punctuation = _is_punctuation(before_base), _is_punctuation(after)
        # With no whitespace around, this is exactly CommonMark's answer for `_`.
        can_open, can_close = before_is_punctuation, after_is_punctuation
        if canSplitWord:  # `*` and `~`
            either_is_cjk = is_cjk(after) or _before_is_cjk(before, two_before)
            can_open = can_open or either_is_cjk or not after_is_punctuation
            can_close = can_close or either_is_cjk or not before_is_punctuation
        return Scanned(can_open, can_close, length)


def _before_is_cjk(before: str, two_before: str | None) -> bool:
    """Whether the character before a run is CJK; `two_before` is set when `before` is a
    variation selector, and is then the character it modifies."""
    if two_before is None:
        return is_cjk(before) or _is_ideographic_selector(before)
    return is_cjk(two_before) or (before == _FULL_WIDTH_SELECTOR and two_before in _QUOTES_WITH_FULL_WIDTH_FORM)


class CjkFriendlyParserInline(ParserInline):
    """markdown-it-py's inline parser, scanning delimiter runs with `CjkFriendlyStateInline`."""

    def parse(self, src: str, md: MarkdownIt, env: EnvType, tokens: list[Token]) -> list[Token]:
        state = CjkFriendlyStateInline(src, md, env, tokens)
        self.tokenize(state)
        for rule in self.ruler2.getRules(""):
            rule(state)
        return state.tokens


def cjk_friendly_emphasis(md: MarkdownIt) -> None:
    """markdown-it-py plugin: `MarkdownIt(...).use(cjk_friendly_emphasis)`. The parser keeps its
    inline rules, their enabled state and its text terminators; only the State class changes."""
    inline = CjkFriendlyParserInline()
    vars(inline).update(vars(md.inline))
    md.inline = inline
