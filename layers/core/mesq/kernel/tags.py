"""Tags live in memo content: `#tag` and hierarchical `#a/b`.

A tag starts with `#` at the start of the text or after whitespace (so `# Heading`, `a#b` and
URLs with fragments are not tags) and runs until whitespace or punctuation. Code spans and
fenced code blocks are skipped: `#include` in a snippet is not a tag. `a/b` implies `a`.
"""

from __future__ import annotations

import re

# Whitespace in both engines: Python's `\s` and ECMA-262's disagree (Python adds U+001C..U+001F and
# U+0085, ECMA adds U+FEFF), and the TagName schema must mean the same to JS hosts (Ajv) as here.
# `\s` plus the characters only the other engine counts is the union of both in either engine
# (tests/kernel/test_tags.py checks every code point), and far shorter in every tools/list than the
# set written out.
WHITESPACE_CHARS = r"\s\x1c-\x1f\x85\ufeff"
# Characters a tag can never contain besides the hierarchy separator '/': whitespace, '#' and
# punctuation (ASCII and CJK) that ends a tag in running text.
_NOT_IN_TAG = (
    rf"{WHITESPACE_CHARS}#,.;:!?()\[\]{{}}<>"
    '"'  # bare: `\"` is not a valid escape in ECMA-262 unicode mode
    r"'`|\\*~=^$%"
    r"，。；：！？（）【】「」『』、《》“”‘’"
)
TAG_SEGMENT_CLASS = rf"[^{_NOT_IN_TAG}/]"
# The TagName schema in openapi.yaml (a unit test keeps them equal): segments joined by single
# '/'s, written with the class once (it is long, and every tools/list carries it many times).
# `$(?!\n)`: Python's `$` also matches before a final newline, ECMA's only at the end.
TAG_NAME_PATTERN = rf"^(?!/|.*//|.*/$)[^{_NOT_IN_TAG}]+$(?!\n)"

_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`", re.DOTALL)
_TAG = re.compile(rf"(?<![^{WHITESPACE_CHARS}])#({TAG_SEGMENT_CLASS}+(?:/{TAG_SEGMENT_CLASS}+)*)")
_TAG_NAME = re.compile(TAG_NAME_PATTERN)

MAX_TAG_LENGTH = 100


def _prose_segments(content: str) -> list[tuple[bool, str]]:
    """Split content into (is_prose, text) pieces; code pieces are left alone."""
    pieces: list[tuple[bool, str]] = []
    last = 0
    for match in _CODE.finditer(content):
        pieces.append((True, content[last : match.start()]))
        pieces.append((False, match.group(0)))
        last = match.end()
    pieces.append((True, content[last:]))
    return pieces


def parse_tags(content: str) -> list[str]:
    """Distinct tags in order of first appearance."""
    found: dict[str, None] = {}
    for is_prose, text in _prose_segments(content):
        if is_prose:
            for match in _TAG.finditer(text):
                tag = match.group(1)
                if len(tag) <= MAX_TAG_LENGTH:
                    found.setdefault(tag, None)
    return list(found)


def expand_tag_paths(tags: list[str]) -> list[str]:
    """Every tag plus its ancestors (`a/b/c` -> `a`, `a/b`, `a/b/c`), sorted."""
    paths: set[str] = set()
    for tag in tags:
        parts = tag.split("/")
        paths.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return sorted(paths)


def within(tag: str, parent: str) -> bool:
    """`tag` is `parent` or below it (`家/装修` is within `家`): how a tag filter matches, for
    memos (their `tagPaths`) and todos (query_todos) alike."""
    return tag == parent or tag.startswith(parent + "/")


def is_valid_tag(tag: str) -> bool:
    return len(tag) <= MAX_TAG_LENGTH and _TAG_NAME.fullmatch(tag) is not None


def rename_tag(content: str, old: str, new: str) -> str:
    """Rewrite `#old` and `#old/...` to `#new` / `#new/...` outside code."""

    def replace(match: re.Match[str]) -> str:
        tag = match.group(1)
        if tag == old:
            return f"#{new}"
        if tag.startswith(old + "/"):
            return f"#{new}{tag[len(old) :]}"
        return match.group(0)

    return "".join(_TAG.sub(replace, text) if is_prose else text for is_prose, text in _prose_segments(content))
