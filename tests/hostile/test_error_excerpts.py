"""Issue 38: no error message repeats more than a short, cut excerpt of the offending value,
on every error path (not only the importer's).

- Structurally: no error raised or built anywhere in `mesq` formats a value with `!r` (the
  whole repr); values are quoted through `kernel.messages.quoted`. The exceptions are errors
  about MeSQ's own spec and code, never about a caller's value.
- Behaviourally: error paths of every kind of input (a timestamp, a todo tag and slug, a
  reading import, a Markdown note's front matter, an archive line, a configuration value) fed a
  100,000-character value answer with at most QUOTE_CHARS of it. (The hostile matrix,
  test_hostile_inputs.py, checks the same of every operation's 2 MB strings over REST and MCP.)
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from mesq.archive.format import ArchiveError, parse_record
from mesq.archive.markdown_import import NoteError, parse_note
from mesq.kernel.errors import MesqError
from mesq.kernel.messages import MESSAGE_CHARS, QUOTE_CHARS, bounded_message, quoted
from mesq.kernel.timestamps import parse_timestamp
from mesq.reading.importer import parse_document
from mesq.todos.model import check_slug, check_tags
from mesq.wiring.config import ConfigError, Settings

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "core" / "mesq"
#: Errors about MeSQ's own spec documents and code (a developer's mistake), not a caller's value.
EXEMPT = {"kernel/spec.py", "search/follow.py"}
_ERROR_NAMES = ("Error", "NotFound", "Conflict", "Forbidden", "Unauthorized", "TooLarge", "Unavailable",
                "Exception", "_fail", "_redirect_error", "_rpc_error", "Refused")  # fmt: skip
HUGE = "Z" * 100_000


def _whole_reprs(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        target: ast.AST | None = None
        if isinstance(node, ast.Raise):
            target = node.exc
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None) or ""
            target = node if name.endswith(_ERROR_NAMES) else None
        for sub in ast.walk(target) if target is not None else ():
            if isinstance(sub, ast.FormattedValue) and sub.conversion == ord("r"):
                lines.append(sub.lineno)
    return lines


def test_no_error_formats_a_whole_repr() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative not in EXEMPT:
            found += [f"{relative}:{line}" for line in _whole_reprs(ast.parse(path.read_text()))]
    assert found == [], f"quote values with quoted(): {found}"


def _reading() -> None:
    parse_document({"provider": HUGE, "books": []})


def _markdown_tag() -> None:
    parse_note("u", "a.md", f"---\ntags: ['{HUGE[:30000]} x']\n---\nbody".encode(), {}, 5)


def _markdown_created() -> None:
    parse_note("u", "a.md", f"---\ncreated: '{HUGE[:30000]}'\n---\nbody".encode(), {}, 5)


def _archive_line() -> None:
    parse_record(json.dumps({"pk": HUGE[:400_000], "sk": "MEMO#x"}).encode(), 1, "owner")


def _config() -> None:
    Settings.from_env({"MESQ_STORAGE": HUGE})


PATHS: dict[str, Callable[[], None]] = {
    "timestamp": lambda: parse_timestamp(HUGE, "createdAt") and None,
    "todo tag": lambda: check_tags([HUGE]) and None,
    "todo slug": lambda: check_slug(HUGE) and None,
    "reading import": _reading,
    "markdown tag": _markdown_tag,
    "markdown created": _markdown_created,
    "archive line": _archive_line,
    "configuration": _config,
}


@pytest.mark.parametrize("name", sorted(PATHS))
def test_an_error_quotes_a_cut_excerpt_of_a_huge_value(name: str) -> None:
    with pytest.raises((MesqError, ArchiveError, NoteError, ConfigError)) as raised:
        PATHS[name]()
    message = getattr(raised.value, "message", None) or str(raised.value)
    assert "Z" * (QUOTE_CHARS + 1) not in message and len(message) <= MESSAGE_CHARS, (name, len(message))


def test_quoted_and_the_message_cap() -> None:
    assert quoted("short") == "'short'"
    assert quoted(HUGE) == "'" + "Z" * QUOTE_CHARS + "…'"
    assert quoted([[HUGE] * 1000] * 1000) == "an array"
    assert len(bounded_message("x" * 10_000)) <= MESSAGE_CHARS
    assert len(MesqError("y" * 10_000).message) <= MESSAGE_CHARS
