"""Memo Markdown to safe HTML: markdown-it-py renders (raw HTML in the source off, so `<script>`
stays text), then nh3 (the Rust ammonia sanitizer) keeps only an allow-list of tags and
attributes, links only to http, https and mailto, and marks every link
`rel="noopener noreferrer nofollow"`. Two layers on purpose: a renderer bug or plugin that lets
markup through still meets the sanitizer.

Images are not in the allow-list: the page's CSP allows images from this origin only, so an image
in the text becomes a link to it (its alt text as the words). No `style` attribute either (the
CSP has no inline styles): a table's column alignment is dropped.

Two changes to CommonMark, both for text as people type it:

- Emphasis is CJK-friendly (`web/kit/cjk_emphasis.py`): `这是**“重点”**内容` and `**《三体》**很好看`
  are bold, where plain CommonMark shows the asterisks.
- A bare URL is a link (linkify-it-py): `http://`, `https://`, `mailto:` and `www.` links and
  e-mail addresses; not bare domains such as `example.com` or file names such as `README.md`.
  linkify-it ends a URL at whitespace and some ASCII punctuation but takes any other character
  into its path; here non-ASCII punctuation and symbols (`，。）」“…` and the like) end it too, so
  `见https://example.com/a，很好` links `https://example.com/a`. Letters do not:
  `看https://example.com/页面很好` links all of `https://example.com/页面很好`, as a Chinese path may.

Two additions of this module's own, never by widening the allow-list:

- `#tag` and `#a/b` in prose become links to the timeline filtered by that tag (class `memo-tag`,
  the one class the sanitizer keeps), so a card needs no second list of its tags. Text inside a
  link (a Markdown link or a linkified URL) never holds a tag link.
- A list item that starts with `[ ]` or `[x]` is a task. The renderer leaves a marker (a
  private-use character that the source can never carry: it is replaced on the way in) where its
  checkbox goes; after sanitizing, each marker becomes an `<input type="checkbox">` written here.
  `toggle_task` ticks the n-th box in the source text, found by the same parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache
from urllib.parse import quote

import nh3
from linkify_it import LinkifyIt
from linkify_it.main import Match
from markdown_it import MarkdownIt
from markdown_it.common.utils import isPunctChar
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup, escape

from ...kernel.tags import find_tags
from .cjk_emphasis import cjk_friendly_emphasis

ALLOWED_TAGS = frozenset(
    {
        "p", "br", "hr", "strong", "em", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li", "a",
        "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
ALLOWED_CLASSES = {"a": {"memo-tag"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "noopener noreferrer nofollow"

_BOX_START, _BOX_END = "\ue000", "\ue001"  # private use: the source never keeps them (_MARKERS)
_MARKERS = {ord(_BOX_START): "\ufffd", ord(_BOX_END): "\ufffd"}
_BOX = re.compile(f"{_BOX_START}([0-9]+){_BOX_END}")
_TASK_PREFIX = re.compile(r"\[([ xX])\](?=[ \t]|$)[ \t]*")
# The list marker before the box on the item's first line (inside blockquotes too).
_TASK_LINE = re.compile(r"^((?:[ \t]*>)*[ \t]*(?:[-*+]|[0-9]{1,9}[.)])[ \t]+)\[([ xX])\]")
LABEL_CHARACTERS = 200


def _image_as_link(renderer: object, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[index]
    alt = "".join(child.content for child in token.children or []) or "image"
    return f'<a href="{escape(str(token.attrGet("src") or ""))}">{escape(alt)}</a>'


def _task_items(tokens: Sequence[Token]) -> Iterator[tuple[Token, bool]]:
    """Each task item's inline token (its first line) and whether it is ticked, in source order."""
    for index, token in enumerate(tokens):
        if (
            token.type == "inline"
            and index >= 2
            and tokens[index - 1].type == "paragraph_open"
            and tokens[index - 2].type == "list_item_open"
            and token.children
            and token.children[0].type == "text"
        ):
            found = _TASK_PREFIX.match(token.children[0].content)
            if found:
                yield token, found.group(1) != " "


def _mark_tasks(state: StateCore) -> None:
    """Replace each task's `[ ]` with a marker; its state and label go into the render's env."""
    tasks = state.env.setdefault("tasks", [])
    for token, ticked in _task_items(state.tokens):
        assert token.children  # _task_items checked
        first = token.children[0]
        first.content = _TASK_PREFIX.sub("", first.content, count=1)
        label = "".join(child.content for child in token.children if child.type in ("text", "code_inline"))
        first.content = f"{_BOX_START}{len(tasks)}{_BOX_END}" + first.content
        line = token.map[0] if token.map else -1
        tasks.append((ticked, label.strip()[:LABEL_CHARACTERS], line))


def _tag_tokens(text: str, template: Token, preceding: str) -> list[Token] | None:
    """`text` split into text and tag links, or None when it holds no tag. `preceding`: what the
    source has right before `text` (`_before`), which decides whether a leading `#` starts a tag."""
    pieces: list[Token] = []
    last = 0
    # A task's checkbox marker stands where `[ ] ` was: a tag after it starts after a space.
    for start, end, tag in find_tags(text.replace(_BOX_END, " "), preceding):
        if start > last:
            pieces.append(_text_token(template, text[last:start]))
        link = Token("link_open", "a", 1)
        link.attrs = {"href": "/?tag=" + quote(tag, safe=""), "class": "memo-tag"}
        pieces += [link, _text_token(template, text[start:end]), Token("link_close", "a", -1)]
        last = end
    if not pieces:
        return None
    if last < len(text):
        pieces.append(_text_token(template, text[last:]))
    return pieces


def _before(previous: Token | None) -> str:
    """The source text a token ends with, as far as the tag rule reads it: a text's own end, a
    line break, the delimiter of emphasis, code or a link (`**`, `` ` ``, `)`)."""
    if previous is None:
        return ""
    if previous.type == "text":
        return previous.content
    if previous.type in ("softbreak", "hardbreak"):
        return "\n"
    if previous.type in ("link_close", "image"):
        return ")"
    return previous.markup


def _text_token(template: Token, content: str) -> Token:
    token = Token("text", "", 0)
    token.content, token.level = content, template.level
    return token


def _link_tags(state: StateCore) -> None:
    """`#tag` in prose (not in code, not inside a link) becomes a link to the timeline's tag filter.
    A tag starts where `kernel.tags` says, read against the source before each text token."""
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        children: list[Token] = []
        in_link = 0
        previous: Token | None = None
        for child in token.children:
            if child.type == "link_open":
                in_link += 1
            elif child.type == "link_close":
                in_link -= 1
            replaced = None
            if child.type == "text" and not in_link:
                replaced = _tag_tokens(child.content, child, _before(previous))
            children.extend(replaced or [child])
            previous = child
        token.children = children


def _first_non_ascii_punctuation(text: str) -> int | None:
    """The index of the first punctuation or symbol character outside ASCII in `text`, if any."""
    if text.isascii():  # most URLs are: no character to look at one by one
        return None
    return next((index for index, char in enumerate(text) if char > "\x7f" and isPunctChar(char)), None)


class _MemoLinkify(LinkifyIt):  # type: ignore[misc]  # linkify-it-py has no type hints
    """linkify-it for memo text: the schemes the sanitizer keeps (no `ftp:`, no `//x`), bare
    hosts only after `www.`, and a URL ends before non-ASCII punctuation."""

    def __init__(self) -> None:
        super().__init__(schemas={"ftp:": None, "//": None})

    def match(self, text: str) -> list[Match] | None:
        # A schema-less host is a link only after `www.`: `README.md` or `setup.py` is a file.
        found = [link for link in super().match(text) or [] if link.schema or link.raw[:4].lower() == "www."]
        return found or None

    def normalize(self, match: Match) -> None:
        # linkify-it's path takes any character but whitespace and some ASCII punctuation: in
        # `见https://example.com/a，很好。` the comma and the rest would be part of the URL.
        end = _first_non_ascii_punctuation(match.raw)
        if end is not None:
            kept = match.raw[:end].rstrip(".,:;!?'\"")  # what linkify-it drops at a URL's end
            match.last_index = match.index + len(kept)
            match.raw = match.text = match.url = kept
        super().normalize(match)


@cache
def _parser() -> MarkdownIt:
    # CommonMark with tables, strikethrough and bare URLs as links; CJK-friendly emphasis;
    # `breaks`: a memo's single newlines are line breaks.
    parser = (
        MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": True})
        .use(cjk_friendly_emphasis)
        .enable(["table", "strikethrough", "linkify"])
    )
    parser.linkify = _MemoLinkify()
    parser.add_render_rule("image", _image_as_link)
    parser.core.ruler.push("mesq_tasks", _mark_tasks)
    parser.core.ruler.push("mesq_tags", _link_tags)
    return parser


def _checkbox(index: int, ticked: bool, label: str, interactive: bool) -> str:
    state = " checked" if ticked else ""
    inert = "" if interactive else " disabled"
    name = escape(label or f"Task {index + 1}")
    return f'<input type="checkbox" class="memo-task" data-task="{index}" aria-label="{name}"{state}{inert}>'


def render_markdown(text: str, *, interactive: bool = True) -> Markup:
    """Memo text as HTML that can never run script (safe to put into a template unescaped).
    `interactive`: task checkboxes can be ticked (the timeline) or are shown disabled (a preview)."""
    env: dict[str, list[tuple[bool, str, int]]] = {}
    html = _parser().render(text.translate(_MARKERS), env)
    cleaned = nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        allowed_classes={tag: set(names) for tag, names in ALLOWED_CLASSES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
    )
    tasks = env.get("tasks", [])

    def checkbox(found: re.Match[str]) -> str:
        index = int(found.group(1))
        if index >= len(tasks):
            return ""
        return _checkbox(index, tasks[index][0], tasks[index][1], interactive)

    return Markup(_BOX.sub(checkbox, cleaned))  # noqa: S704 - sanitized by nh3 just above; boxes are ours


def toggle_task(text: str, index: int, ticked: bool) -> str | None:
    """`text` with its `index`-th task (in the order `render_markdown` numbers them) ticked or not;
    None when there is no such task."""
    env: dict[str, list[tuple[bool, str, int]]] = {}
    _parser().parse(text.translate(_MARKERS), env)
    tasks = env.get("tasks", [])
    if not 0 <= index < len(tasks):
        return None
    line_number = tasks[index][2]
    lines = text.split("\n")
    if not 0 <= line_number < len(lines):
        return None
    found = _TASK_LINE.match(lines[line_number])
    if not found:
        return None
    lines[line_number] = found.group(1) + ("[x]" if ticked else "[ ]") + lines[line_number][found.end() :]
    return "\n".join(lines)
