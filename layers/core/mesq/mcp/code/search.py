"""`search_tools`: which of the tools a script can reach fit a query.

Ranking: tools whose name, title or summary contains the query literally come first (a name
match before a text match), then the rest by BM25 (k1 = 1.2, b = 0.75) over each tool's words:
its name split at `_` (counted twice: a name is the strongest hint), its title, its description
and its argument names. The query is first expanded through `SYNONYMS` (English and Chinese
phrasings -> the words the catalog uses: "reschedule" / "改到" -> update due), and its intent
decides the order among close scores: a query that does not ask to delete never ranks a
`delete_*` tool above another match, and a query that asks to change something prefers the
tools that change data. The corpus is the
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

#: Query phrasing -> the catalog's words. Keys are lower-case English words or Chinese
#: substrings (Chinese has no spaces: each key found anywhere in the query counts).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "move": ("update", "due", "move"),
    "reschedule": ("update", "due"),
    "postpone": ("update", "due"),
    "delay": ("update", "due"),
    "tomorrow": ("due",),
    "today": ("due", "context"),
    "deadline": ("due",),
    "overdue": ("query", "overdue", "due"),
    "late": ("overdue", "due"),
    "rename": ("rename", "update", "name"),
    "finish": ("complete", "done"),
    "done": ("complete", "done"),
    "check": ("complete", "done"),
    "add": ("create",),
    "write": ("create",),
    "inbox": ("inbox", "item"),
    "new": ("create",),
    "make": ("create",),
    "remove": ("delete",),
    "trash": ("delete", "trash"),
    "find": ("search", "query"),
    "look": ("search", "query"),
    "show": ("list", "get"),
    "remind": ("reminders",),
    "reminder": ("reminders",),
    "task": ("todo", "task"),
    "tasks": ("todo", "task"),
    "todos": ("todo",),
    "note": ("memo",),
    "notes": ("memo",),
    "highlight": ("reading", "notes"),
    "highlights": ("reading", "notes"),
    "book": ("reading",),
    "books": ("reading",),
    "file": ("attachment", "upload"),
    "attach": ("attachment", "upload"),
    "timezone": ("context",),
    "zone": ("context",),
    "revert": ("undo", "changes"),
    "history": ("changes",),
    "urgent": ("priority", "query"),
    "改到": ("update", "due"),
    "改期": ("update", "due"),
    "推迟": ("update", "due"),
    "延期": ("update", "due"),
    "挪到": ("update", "due"),
    "明天": ("due",),
    "今天": ("due", "context"),
    "截止": ("due",),
    "过期": ("query", "overdue", "due"),
    "逾期": ("query", "overdue", "due"),
    "到期": ("due", "query"),
    "改名": ("rename", "update", "name"),
    "重命名": ("rename", "update", "name"),
    "完成": ("complete", "done"),
    "做完": ("complete", "done"),
    "新建": ("create",),
    "创建": ("create",),
    "添加": ("create",),
    "记一条": ("create", "memo"),
    "删除": ("delete",),
    "删掉": ("delete",),
    "恢复": ("restore",),
    "还原": ("restore",),
    "撤销": ("undo", "changes"),
    "历史": ("changes", "list"),
    "搜索": ("search",),
    "查找": ("search", "query"),
    "找": ("search", "query"),
    "查询": ("query",),
    "列出": ("list",),
    "所有": ("list",),
    "提醒": ("reminders",),
    "标签": ("tag", "tags"),
    "任务": ("todo", "task"),
    "待办": ("todo", "task"),
    "子任务": ("subtask",),
    "收件箱": ("inbox", "item"),
    "笔记": ("memo",),
    "备忘": ("memo",),
    "想法": ("memo",),
    "读书": ("reading",),
    "书": ("reading", "books"),
    "划线": ("reading", "notes"),
    "附件": ("attachment",),
    "上传": ("upload", "attachment"),
    "优先级": ("priority",),
    "紧急": ("priority", "urgent"),
    "时区": ("context",),
    "置顶": ("pinned", "update"),
    "看板": ("list", "todos", "board"),
    "列": ("column",),
    "空间": ("space",),
}
#: Query words that ask to delete (only then may a `delete_*` tool lead).
_DELETE_WORDS = frozenset({"delete", "remove", "trash", "erase"})
#: Query words that ask to change something (tools that change data are preferred).
_WRITE_WORDS = frozenset({"update", "create", "rename", "complete", "restore", "undo", "upload", "move", "set"})
_K1 = 1.2
_B = 0.75


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("_", " "))


def expand(query: str) -> list[str]:
    """The query's words plus their `SYNONYMS` (Chinese keys are matched as substrings)."""
    lowered = query.lower()
    terms = words(lowered)
    extra = [synonym for term in terms for synonym in SYNONYMS.get(term, ())]
    extra += [synonym for key, found in SYNONYMS.items() if not key.isascii() and key in lowered for synonym in found]
    return terms + extra


def summary(tool: CatalogTool) -> str:
    """The first sentence of the tool's description (its one-line summary)."""
    text = " ".join(tool.operation.description.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def _document(tool: CatalogTool) -> list[str]:
    arguments = " ".join(tool.input_schema.get("properties", {}))
    name = tool.name.replace("_", " ")
    return words(f"{name} {name} {tool.operation.mcp.title} {tool.operation.description} {arguments}")


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
    terms = expand(query)
    scores = bm25(terms, [_document(tool) for tool in tools])
    # "restore what I deleted" asks to restore, not to delete.
    deleting = bool(_DELETE_WORDS & set(terms)) and "restore" not in terms
    writing = bool(_WRITE_WORDS & set(terms))

    def literal(tool: CatalogTool) -> int:
        if needle in tool.name or needle.replace(" ", "_") in tool.name:
            return 2
        return 1 if needle in f"{tool.operation.mcp.title} {summary(tool)}".lower() else 0

    def weight(tool: CatalogTool, score: float) -> float:
        if writing and tool.is_write:
            return score * 1.3
        if not writing and not tool.is_write:
            return score * 1.1
        return score

    def unwanted(tool: CatalogTool) -> bool:
        return not deleting and tool.name.startswith("delete_")

    ranked = sorted(
        (
            (unwanted(tool), literal(tool), weight(tool, score), index)
            for index, (tool, score) in enumerate(zip(tools, scores, strict=True))
        ),
        key=lambda entry: (entry[0], -entry[1], -entry[2], entry[3]),
    )
    return [tools[index] for _, hit, score, index in ranked if hit or score > 0][:limit]
