"""Tags live in memo content: `#tag` and hierarchical `#a/b`.

A tag starts with `#` at the start of the text or after whitespace (so `# Heading`, `a#b` and
URLs with fragments are not tags) and runs until whitespace or punctuation. Code spans and
fenced code blocks are skipped: `#include` in a snippet is not a tag. `a/b` implies `a`.
"""

from __future__ import annotations

import re

# Characters a tag segment can never contain: whitespace, '#', the hierarchy separator and
# punctuation (ASCII and CJK) that ends a tag in running text. The TagName schema in
# openapi.yaml is built from the same class (a unit test keeps them equal).
TAG_SEGMENT_CLASS = (
    r"[^\s#/,.;:!?()\[\]{}<>\"'`|\\*~=^$%"
    r"，。；：！？（）【】「」『』、《》“”‘’]"
)
TAG_NAME_PATTERN = rf"^{TAG_SEGMENT_CLASS}+(/{TAG_SEGMENT_CLASS}+)*$"

_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`", re.DOTALL)
_TAG = re.compile(rf"(?<!\S)#({TAG_SEGMENT_CLASS}+(?:/{TAG_SEGMENT_CLASS}+)*)")
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
