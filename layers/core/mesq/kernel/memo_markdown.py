"""The Markdown memos are written in: CommonMark with tables, strikethrough and footnotes, raw HTML
off (so `<script>` and `<!-- -->` stay text), CJK-friendly emphasis (cjk_emphasis.py) and bare URLs
as links (memo_linkify.py).

Footnotes as Obsidian, Typora and flomo exports write them (mdit-py-plugins' footnote plugin):
`正文[^1]` with `[^1]: 出处` anywhere in the memo (a note without a space, as Chinese writes it, is
one too); a label has at most MAX_LABEL characters. Inline notes (`^[出处]`, Obsidian's alone) are
not read: the plugin reads each unclosed `^[` to the memo's end (7 s for 50,000 characters of
them), so they stay text, as before. The notes are listed at the memo's end, in the order of their first
reference; a definition no reference names is listed there too (after the others), so no words a
person typed are dropped. A note's text is prose: a `#tag` in it is a tag; a footnote's label
(`[^读书#1]`) is not. A definition is never a link reference (CommonMark read a note without a
space as a link's definition: its words vanished and `[^1]` linked to them as a relative address).

One definition, because two readers must agree on it: the renderer (web/kit/markdown.py) draws it,
and the tag rule (kernel/tags.py) reads from the same parse which text is prose, so a `#` in code
or in a link is no tag in either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_inline import StateInline


def _reference_but_no_footnote(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """CommonMark's link reference definition, except one whose label starts with `^` (a footnote's
    definition that the footnote rule did not take, `[^a b]: 注释`): that one is left to the
    paragraph, as text."""
    from markdown_it.rules_block import reference

    if state.src.startswith("[^", state.bMarks[start] + state.tShift[start]):
        return False
    return reference(state, start, end, silent)


#: A footnote label's longest (`[^` and `]` not counted): a longer one is text.
MAX_LABEL = 100


def _short_footnote_ref(state: StateInline, silent: bool) -> bool:
    """The plugin's footnote reference, for a label of at most MAX_LABEL characters: the plugin
    reads each `[^` up to its `]`, a space or the paragraph's end, so `[^[^[^…` took seconds."""
    from mdit_py_plugins.footnote.index import footnote_ref

    start = state.pos
    if not state.src.startswith("[^", start):
        return False
    if state.src.find("]", start + 2, min(state.posMax, start + 3 + MAX_LABEL)) < 0:
        return False
    return footnote_ref(state, silent)


def _short_footnote_def(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """The plugin's footnote definition, for a label of at most MAX_LABEL characters (a longer one
    is no reference's either: the line stays text)."""
    from mdit_py_plugins.footnote.index import footnote_def

    first = state.bMarks[start] + state.tShift[start]
    if state.src.find("]", first + 2, min(state.eMarks[start], first + 3 + MAX_LABEL)) < 0:
        return False
    return footnote_def(state, start, end, silent)


def _list_unreferenced_notes(state: StateCore) -> None:
    """Each footnote definition that no reference names gets a place in the list at the memo's end
    (the plugin's tail step drops it, and its words and tags with it)."""
    notes = state.env.get("footnotes")
    if not notes:
        return
    listed = notes.setdefault("list", {})
    for key, number in notes.get("refs", {}).items():
        if number < 0:
            notes["refs"][key] = len(listed)
            listed[len(listed)] = {"label": key[1:], "count": 0}


def markdown_parser(**options: Any) -> MarkdownIt:
    """A new parser of memo Markdown; `options` are rendering options (`breaks`) that do not change
    what the parse finds."""
    # Imported here: ~40 ms that only a page or a write with a `#` in it needs (not a cold start).
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin

    from .cjk_emphasis import cjk_friendly_emphasis
    from .memo_linkify import MemoLinkify

    parser = (
        MarkdownIt("commonmark", {**options, "html": False, "linkify": True})
        .use(cjk_friendly_emphasis)
        .use(footnote_plugin, inline=False)
        .enable(["table", "strikethrough", "linkify"])
    )
    parser.block.ruler.at("reference", _reference_but_no_footnote)
    parser.inline.ruler.at("footnote_ref", _short_footnote_ref)
    parser.block.ruler.at("footnote_def", _short_footnote_def, {"alt": ["paragraph", "reference"]})
    parser.core.ruler.before("footnote_tail", "mesq_unreferenced_notes", _list_unreferenced_notes)
    parser.linkify = MemoLinkify()  # a URL's text is a link's, so never a tag either
    return parser
