"""Memo Markdown to safe HTML: markdown-it-py renders (raw HTML in the source off, so `<script>`
stays text), then nh3 (the Rust ammonia sanitizer) keeps only an allow-list of tags and
attributes, links only to http, https and mailto, and marks every link
`rel="noopener noreferrer nofollow"`. Two layers on purpose: a renderer bug or plugin that lets
markup through still meets the sanitizer.

Images are not in the allow-list: the page's CSP allows images from this origin only, so an image
in the text becomes a link to it (its alt text as the words). No `style` attribute either (the
CSP has no inline styles): a table's column alignment is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup, escape

ALLOWED_TAGS = frozenset(
    {
        "p", "br", "hr", "strong", "em", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li", "a",
        "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "noopener noreferrer nofollow"


def _image_as_link(renderer: object, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[index]
    alt = "".join(child.content for child in token.children or []) or "image"
    return f'<a href="{escape(str(token.attrGet("src") or ""))}">{escape(alt)}</a>'


@cache
def _parser() -> MarkdownIt:
    # CommonMark with tables and strikethrough; `breaks`: a memo's single newlines are line breaks.
    parser = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(["table", "strikethrough"])
    parser.add_render_rule("image", _image_as_link)
    return parser


def render_markdown(text: str) -> Markup:
    """Memo text as HTML that can never run script (safe to put into a template unescaped)."""
    html = _parser().render(text)
    cleaned = nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
    )
    return Markup(cleaned)  # noqa: S704 - sanitized by nh3 just above
