"""The Markdown memos are written in: CommonMark with tables and strikethrough, raw HTML off (so
`<script>` and `<!-- -->` stay text), CJK-friendly emphasis (cjk_emphasis.py) and bare URLs as
links (memo_linkify.py). No footnotes: a footnote's definition (`[^1]: 注释`) is no link reference
either, so it stays text as typed (CommonMark read a note without a space, as Chinese writes it, as
a link's definition: its words vanished and `[^1]` linked to them as a relative address).
One definition, because two readers must agree on it: the
renderer (web/kit/markdown.py) draws it, and the tag rule (kernel/tags.py) reads from the same
parse which text is prose, so a `#` in code or in a link is no tag in either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock


def _reference_but_no_footnote(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """CommonMark's link reference definition, except one whose label starts with `^` (a footnote's
    definition, `[^1]: 注释`): that one is left to the paragraph, as text."""
    from markdown_it.rules_block import reference

    if state.src.startswith("[^", state.bMarks[start] + state.tShift[start]):
        return False
    return reference(state, start, end, silent)


def markdown_parser(**options: Any) -> MarkdownIt:
    """A new parser of memo Markdown; `options` are rendering options (`breaks`) that do not change
    what the parse finds."""
    # Imported here: ~40 ms that only a page or a write with a `#` in it needs (not a cold start).
    from markdown_it import MarkdownIt

    from .cjk_emphasis import cjk_friendly_emphasis
    from .memo_linkify import MemoLinkify

    parser = (
        MarkdownIt("commonmark", {**options, "html": False, "linkify": True})
        .use(cjk_friendly_emphasis)
        .enable(["table", "strikethrough", "linkify"])
    )
    parser.block.ruler.at("reference", _reference_but_no_footnote)
    parser.linkify = MemoLinkify()  # a URL's text is a link's, so never a tag either
    return parser
