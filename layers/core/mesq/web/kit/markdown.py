"""Memo Markdown to safe HTML: markdown-it-py renders (raw HTML in the source off, so `<script>`
stays text), then nh3 (the Rust ammonia sanitizer) keeps only an allow-list of tags and
attributes, links only to http, https and mailto, and marks every link
`rel="noopener noreferrer nofollow"`. Two layers on purpose: a renderer bug or plugin that lets
markup through still meets the sanitizer.

Images are not in the allow-list: the page's CSP allows images from this origin only, so an image
in the text becomes a link to it (its alt text as the words). No `style` attribute either (the
CSP has no inline styles): a table's column alignment is dropped.

Three changes to CommonMark, all for text as people type it, made in the one memo parser
(`kernel/memo_markdown.py`, which the tag rule reads too):

- Emphasis is CJK-friendly (`kernel/cjk_emphasis.py`): `这是**“重点”**内容` and `**《三体》**很好看`
  are bold, where plain CommonMark shows the asterisks.
- A bare URL is a link (linkify-it-py, `kernel/memo_linkify.py`): `http://`, `https://`, `mailto:` and `www.` links and
  e-mail addresses; not bare domains such as `example.com` or file names such as `README.md`.
  linkify-it ends a URL at whitespace and some ASCII punctuation but takes any other character
  into its path; here non-ASCII punctuation and symbols (`，。）」“…` and the like) and CJK
  characters end it too, as Chinese chat and microblog apps do, so `见https://example.com/a，很好`
  links `https://example.com/a` and `看https://example.com/页面很好` links `https://example.com/`.
  A Chinese path is kept whole by `<https://example.com/页面>` or `[文字](https://example.com/页面)`.
- Footnotes (`正文[^1]` and `[^1]: 注释`; not inline `^[注释]`, see memo_markdown.py): a numbered
  superscript link to the note, the notes in a list at the memo's end, each with a link back to where it is referenced
  (named for screen readers in the page's language, `back_name`). Their ids carry the memo's
  (`doc_id`: `fn-<memo>-1`, `fnref-<memo>-1`), so two memos on one timeline never share one, and
  the sanitizer prefixes any other id with `fn` (nh3's `id_prefix`): no id the page's own script
  uses can be written from a memo. A label is never drawn (only its number), so it carries no
  markup.

Two additions of this module's own, never by widening the allow-list:

- `#tag` and `#a/b` in prose become links to the timeline filtered by that tag (class `memo-tag`,
  kept by the sanitizer, as the footnotes' three are), so a card needs no second list of its
  tags. The links are the stored tags by construction: `kernel.tags.mark_tags` puts a marker where each candidate's
  sign stood, and the markers that this parse leaves in prose text (`kernel.tags.prose_text`, the
  test `parse_tags` reads) become links; every other marker turns back into its sign. Text
  inside a link (a Markdown link or a linkified URL) never holds a tag link.
- A list item that starts with `[ ]` or `[x]` is a task. The renderer leaves a marker (a
  private-use character that the source can never carry: it is replaced on the way in) where its
  checkbox goes; after sanitizing, each marker becomes an `<input type="checkbox">` written here.
  `toggle_task` ticks the n-th box in the source text, found by the same parse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from typing import Any
from urllib.parse import quote, unquote

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup, escape

from ...kernel.memo_markdown import markdown_parser
from ...kernel.tags import MARKER, MAX_TAG_LENGTH, TAG_NAME_IN_TEXT, mark_tags, marker_index, prose_text, unmark

ALLOWED_TAGS = frozenset(
    {
        "p", "br", "hr", "strong", "em", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li", "a",
        "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "sup", "section",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title", "id", "aria-label"}, "ol": {"start"}, "li": {"id"}}
ALLOWED_CLASSES = {"a": {"memo-tag", "footnote-back"}, "sup": {"footnote-ref"}, "section": {"footnotes"}}
#: Every id a memo's HTML keeps starts so (nh3 prefixes any other): the footnotes' own.
ID_PREFIX = "fn"
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "noopener noreferrer nofollow"

_BOX_START, _BOX_END = "\ue000", "\ue001"  # private use: the source never keeps them (_MARKERS)
_MARKERS = {ord(_BOX_START): "\ufffd", ord(_BOX_END): "\ufffd"}
_BOX = re.compile(f"{_BOX_START}([0-9]+){_BOX_END}")
_TASK_PREFIX = re.compile(r"\[([ xX])\](?=[ \t]|$)[ \t]*")
# The list marker before the box on the item's first line (inside blockquotes too).
_TASK_LINE = re.compile(r"^((?:[ \t]*>)*[ \t]*(?:[-*+]|[0-9]{1,9}[.)])[ \t]+)\[([ xX])\]")
LABEL_CHARACTERS = 200
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


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
        tasks.append((ticked, unmark(label).strip()[:LABEL_CHARACTERS], line))


# A marker inside a link target: markdown-it percent-encodes it (U+F0000..U+10FFFF in UTF-8).
_ENCODED_MARKER = re.compile(r"%F3%B[0-9A-F](?:%[89AB][0-9A-F]){2}|%F4%8[0-9A-F](?:%[89AB][0-9A-F]){2}")


def _tag_links(text: Token, names: Sequence[str]) -> list[Token]:
    """A prose text token split into text and a link at each tag marker in it."""
    content = text.content
    pieces: list[Token] = []
    last = 0
    for found in MARKER.finditer(content):
        index = marker_index(found.group())
        if index >= len(names) or len(names[index]) > MAX_TAG_LENGTH:
            continue  # no tag (or no marker: toggle_task parses unmarked text): back to a sign in _unmark
        name = names[index]
        # The name as the parse shows it (an entity in it decoded): read again, not cut to length,
        # and only up to the next marker: it stands for a `#`, which ends a tag (`#生活#家务`), but
        # to the name's pattern it is a letter (the whole run was drawn twice).
        following = MARKER.search(content, found.end())
        shown = TAG_NAME_IN_TEXT.match(content, found.end(), following.start() if following else len(content))
        end = shown.end() if shown else found.end()
        if found.start() > last:
            pieces.append(_text_token(text, content[last : found.start()]))
        link = Token("link_open", "a", 1)
        link.attrs = {"href": "/?tag=" + quote(name, safe=""), "class": "memo-tag"}
        pieces += [link, _text_token(text, unmark(content[found.start() : end])), Token("link_close", "a", -1)]
        last = end
    if not pieces:
        return [text]
    if last < len(content):
        pieces.append(_text_token(text, content[last:]))
    return pieces


def _text_token(template: Token, content: str) -> Token:
    token = Token("text", "", 0)
    token.content, token.level = content, template.level
    return token


def _unmarked_value(value: Any) -> Any:
    """An attribute with every marker back to its sign, percent-encoded ones (a link target) too."""
    if not isinstance(value, str):
        return value
    encoded = _ENCODED_MARKER.sub(lambda found: quote(unmark(unquote(found.group())), safe="#"), value)
    return unmark(encoded)


def _unmark(tokens: Sequence[Token]) -> None:
    """Every marker left (in code, a link's text or target, an image) back to its sign."""
    for token in tokens:
        token.content, token.info = unmark(token.content), unmark(token.info)
        token.attrs = {name: _unmarked_value(value) for name, value in token.attrs.items()}
        if token.children:
            _unmark(token.children)


def _link_tags(state: StateCore) -> None:
    """Each tag marker in prose becomes a link to the timeline's tag filter: the tags `parse_tags`
    stores, read from the same parse."""
    names = [name for _start, _end, name in state.env.get("tags", [])]
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        prose = set(prose_text(token.children))
        token.children = [
            piece
            for index, child in enumerate(token.children)
            for piece in (_tag_links(child, names) if index in prose else [child])
        ]
    _unmark(state.tokens)


def _note_id(tokens: Sequence[Token], index: int, env: EnvType) -> str:
    """A footnote's id within the page: the memo's id (`docId`) and the note's number."""
    return f"{env.get('docId', 'memo')}-{tokens[index].meta['id'] + 1}"


def _back_id(tokens: Sequence[Token], index: int, env: EnvType) -> str:
    """The id of the n-th reference to a note (its first has the note's own number alone)."""
    sub = tokens[index].meta.get("subId", 0)
    return _note_id(tokens, index, env) + (f"-{sub + 1}" if sub > 0 else "")


def _footnote_ref(renderer: object, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    note, number = escape(_note_id(tokens, index, env)), tokens[index].meta["id"] + 1
    back = escape(_back_id(tokens, index, env))
    return f'<sup class="footnote-ref"><a href="#fn-{note}" id="fnref-{back}">{number}</a></sup>'


def _footnotes_open(renderer: object, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    return '<section class="footnotes"><ol>\n'


def _footnotes_close(renderer: object, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    return "</ol></section>\n"


def _footnote_open(renderer: object, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    return f'<li id="fn-{escape(_note_id(tokens, index, env))}">'


def _footnote_back(renderer: object, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """The link back to a reference; none for a note that no reference names."""
    note = env.get("footnotes", {}).get("list", {}).get(tokens[index].meta["id"], {})
    if "label" in note and not note.get("count"):
        return ""
    name = escape(env.get("backName", "Back to the text"))
    # U+FE0E: the arrow as text, not Apple's emoji.
    back = escape(_back_id(tokens, index, env))
    return f' <a href="#fnref-{back}" class="footnote-back" aria-label="{name}">\u21a9\ufe0e</a>'


@cache
def _parser() -> MarkdownIt:
    # `breaks`: a memo's single newlines are line breaks.
    parser = markdown_parser(breaks=True)  # the memo Markdown parse_tags reads, too
    parser.add_render_rule("image", _image_as_link)
    parser.add_render_rule("footnote_ref", _footnote_ref)
    parser.add_render_rule("footnote_block_open", _footnotes_open)
    parser.add_render_rule("footnote_block_close", _footnotes_close)
    parser.add_render_rule("footnote_open", _footnote_open)
    parser.add_render_rule("footnote_anchor", _footnote_back)
    parser.core.ruler.push("mesq_tasks", _mark_tasks)
    parser.core.ruler.push("mesq_tags", _link_tags)
    return parser


def _english_task_name(number: int) -> str:
    return f"Task {number}"


def _checkbox(index: int, ticked: bool, label: str, interactive: bool, task_name: Callable[[int], str]) -> str:
    state = " checked" if ticked else ""
    inert = "" if interactive else " disabled"
    name = escape(label or task_name(index + 1))
    return f'<input type="checkbox" class="memo-task" data-task="{index}" aria-label="{name}"{state}{inert}>'


def render_markdown(
    text: str,
    *,
    interactive: bool = True,
    task_name: Callable[[int], str] = _english_task_name,
    doc_id: str = "memo",
    back_name: str = "Back to the text",
) -> Markup:
    """Memo text as HTML that can never run script (safe to put into a template unescaped).
    `interactive`: task checkboxes can be ticked (the timeline) or are shown disabled (a preview).
    `task_name`: a task box's accessible name when its item has no words (`- [ ] `), from its
    number, in the page's language. `doc_id`: what makes the footnotes' ids unique on the page
    (the memo's id); `back_name`: a footnote's link back, for screen readers, in the page's
    language."""
    marked, tags = mark_tags(text.translate(_MARKERS))
    env: dict[str, Any] = {"tags": tags, "docId": _ID_UNSAFE.sub("", doc_id) or "memo", "backName": back_name}
    html = _parser().render(marked, env)
    cleaned = nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        allowed_classes={tag: set(names) for tag, names in ALLOWED_CLASSES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
        id_prefix=ID_PREFIX,
    )
    tasks = env.get("tasks", [])

    def checkbox(found: re.Match[str]) -> str:
        index = int(found.group(1))
        if index >= len(tasks):
            return ""
        return _checkbox(index, tasks[index][0], tasks[index][1], interactive, task_name)

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
