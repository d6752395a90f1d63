"""`search_tools`: which of the tools a script can reach fit a query.

Ranking: tools whose name, title or summary contains the query literally come first (a name
match before a text match), then the rest by BM25 (k1 = 1.2, b = 0.75) over each tool's words:
its name split at `_`, its title, its description and its argument names. The corpus is the
caller's reach (a few dozen documents), so the ranking is computed per call; a search library
(numpy and scipy for the usual ones) would cost more at cold start than it saves.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from ..catalog import CatalogTool

_WORD = re.compile(r"[a-z0-9]+")
_K1 = 1.2
_B = 0.75


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("_", " "))


def summary(tool: CatalogTool) -> str:
    """The first sentence of the tool's description (its one-line summary)."""
    text = " ".join(tool.operation.description.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def _document(tool: CatalogTool) -> list[str]:
    arguments = " ".join(tool.input_schema.get("properties", {}))
    return words(f"{tool.name} {tool.operation.mcp.title} {tool.operation.description} {arguments}")


def bm25(query: Sequence[str], documents: Sequence[Sequence[str]]) -> list[float]:
    count = len(documents)
    average = sum(len(doc) for doc in documents) / count if count else 0.0
    frequency = Counter(term for doc in documents for term in set(doc))
    scores = []
    for doc in documents:
        terms = Counter(doc)
        score = 0.0
        for term in set(query):
            seen = terms.get(term, 0)
            if not seen:
                continue
            idf = math.log(1 + (count - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * seen * (_K1 + 1) / (seen + _K1 * (1 - _B + _B * len(doc) / (average or 1)))
        scores.append(score)
    return scores


def rank(tools: Sequence[CatalogTool], query: str, limit: int) -> list[CatalogTool]:
    needle = " ".join(query.lower().split())
    scores = bm25(words(query), [_document(tool) for tool in tools])

    def literal(tool: CatalogTool) -> int:
        if needle in tool.name or needle.replace(" ", "_") in tool.name:
            return 2
        return 1 if needle in f"{tool.operation.mcp.title} {summary(tool)}".lower() else 0

    ranked = sorted(
        ((literal(tool), score, index) for index, (tool, score) in enumerate(zip(tools, scores, strict=True))),
        key=lambda entry: (-entry[0], -entry[1], entry[2]),
    )
    return [tools[index] for hit, score, index in ranked if hit or score > 0][:limit]
