"""A text change as a person reads it: the lines that changed, each with its words (or, in
Chinese and Japanese, its characters) struck out or inserted, the unchanged lines around them
folded away.

Tokens are words in scripts that space their words, single characters in the CJK scripts (which
do not): "把周报改好" against "把月报改好" marks 周 and 月, not the whole sentence. The matching is
the standard library's `difflib.SequenceMatcher` (lines first, then the tokens of each changed
block), bounded so a huge memo never costs more than a line-level comparison.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

Kind = Literal["same", "del", "ins"]

#: Characters of the scripts written without spaces between words, one token each.
_CJK = (
    "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\uff00-\uffef"
)
_TOKEN = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])[^\W_])+|\s+|.", re.DOTALL)
#: Unchanged lines kept around a change; a longer unchanged run is folded into a gap.
CONTEXT_LINES = 1
#: Past this many tokens on a side, a changed block is shown as its old and new lines, whole.
MAX_BLOCK_TOKENS = 4000
#: Past this many characters on a side, lines only (a long memo compared in well under a second).
MAX_TEXT_CHARACTERS = 200_000


@dataclass(frozen=True)
class Piece:
    kind: Kind
    text: str


@dataclass(frozen=True)
class Row:
    """One shown line of the comparison (its pieces), or a gap of `folded` unchanged lines."""

    pieces: tuple[Piece, ...] = ()
    folded: int = 0


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _merged(pieces: list[Piece]) -> list[Piece]:
    out: list[Piece] = []
    for piece in pieces:
        if not piece.text:
            continue
        if out and out[-1].kind == piece.kind:
            out[-1] = Piece(piece.kind, out[-1].text + piece.text)
        else:
            out.append(piece)
    return out


def _readable(pieces: list[Piece]) -> list[Piece]:
    """A lone space or punctuation mark kept between two changes is folded into them: "a b c" ->
    "x y z" reads as one replacement, not three."""
    out: list[Piece] = []
    for index, piece in enumerate(pieces):
        between = 0 < index < len(pieces) - 1 and pieces[index - 1].kind != "same" and pieces[index + 1].kind != "same"
        if piece.kind == "same" and between and len(tokens(piece.text)) == 1 and not piece.text.isalnum():
            out += [Piece("del", piece.text), Piece("ins", piece.text)]
        else:
            out.append(piece)
    # Deletions before insertions within each changed run, then adjacent pieces of a kind joined.
    ordered: list[Piece] = []
    run: list[Piece] = []
    for piece in [*out, Piece("same", "")]:
        if piece.kind == "same":
            ordered += [p for p in run if p.kind == "del"] + [p for p in run if p.kind == "ins"] + [piece]
            run = []
        else:
            run.append(piece)
    return _merged(ordered)


def inline(before: str, after: str) -> list[Piece]:
    """`before` -> `after` as pieces: kept, struck out, inserted (token by token)."""
    old, new = tokens(before), tokens(after)
    if len(old) > MAX_BLOCK_TOKENS or len(new) > MAX_BLOCK_TOKENS:
        return _merged([Piece("del", before), Piece("ins", after)])
    pieces: list[Piece] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            pieces.append(Piece("same", "".join(old[i1:i2])))
            continue
        pieces += [Piece("del", "".join(old[i1:i2])), Piece("ins", "".join(new[j1:j2]))]
    return _readable(_merged(pieces))


def _split_rows(pieces: list[Piece]) -> list[tuple[Piece, ...]]:
    """Pieces spanning several lines cut at each line end, one row per line."""
    rows: list[list[Piece]] = [[]]
    for piece in pieces:
        parts = piece.text.split("\n")
        for number, part in enumerate(parts):
            if number:
                rows.append([])
            if part:
                rows[-1].append(Piece(piece.kind, part))
    return [tuple(row) for row in rows if row]


def compare(before: str, after: str) -> list[Row]:
    """The changed lines of `before` -> `after` with CONTEXT_LINES around each change; folded
    gaps for the rest."""
    old, new = before.split("\n"), after.split("\n")
    rows: list[Row] = []
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    groups = list(matcher.get_grouped_opcodes(CONTEXT_LINES))
    if not groups:
        return []
    shown_until = 0
    long_text = max(len(before), len(after)) > MAX_TEXT_CHARACTERS
    for group in groups:
        first = group[0][1]
        if first > shown_until:
            rows.append(Row(folded=first - shown_until))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows += [Row((Piece("same", line),)) for line in old[i1:i2]]
            elif tag == "replace" and not long_text:
                pieces = inline("\n".join(old[i1:i2]), "\n".join(new[j1:j2]))
                rows += [Row(row) for row in _split_rows(pieces)]
            else:
                rows += [Row((Piece("del", line),)) for line in old[i1:i2] if line]
                rows += [Row((Piece("ins", line),)) for line in new[j1:j2] if line]
            shown_until = i2
    if shown_until < len(old):
        rows.append(Row(folded=len(old) - shown_until))
    return rows


__all__ = ["Piece", "Row", "compare", "inline", "tokens"]
