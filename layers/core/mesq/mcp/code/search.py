"""`search_tools`: which of the tools a script can reach fit a query, and where to go for what
no tool does.

Ranking, one score per tool: the bundled embedding model's similarity of the query (and of the
query in the catalog's words, `CATALOG_NOUNS`) to the tool's texts (the whole, the title, and for
a Chinese query the Chinese title: tool_vectors.py), each read as a z-score over the caller's
reach and the best of them kept; plus BM25 (k1 = 1.2, b =
0.75) over the tool's words (its name split at `_`, counted twice; title; description; argument
names; enum values) normalised by the best match; plus, for a Chinese query, BM25 over the
character pairs of the Chinese titles, normalised the same way.
The query is read without its payload (`intent_of`: quoted text, #tags, what follows a colon),
then expanded through `SYNONYMS`, a short table kept only for what the model misses
(test_search_tools_queries.py holds the phrasings it was fitted on; the held-out intents of
test_search_tools_held_out.py were never read while fitting). Then the intent rules: a name or
summary that contains the query leads; a query that does not ask to delete never ranks a
`delete_*` tool above another (so "recover a deleted note" shows `restore_*`, never `delete_*`,
first); a query that asks to change something, and is no question, prefers the tools that
change data; one that names its records by a write done to them and asks for no other ("tasks I
created yesterday", "本周完成的任务") ranks no tool that changes data above one that reads.
Without the model (not installed, or failed to load) the ranking is the lexical one alone.

`elsewhere` answers what MCP cannot do: the REST routes that are no tool (export, import, file
downloads; read from the spec) and the settings pages (language), matched by the same words.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import cache

from ...kernel.spec import load_spec
from ..catalog import CatalogTool
from .tool_vectors import ToolVectors, enum_values, phrasings, tool_views

_WORD = re.compile(r"[a-z0-9]+")

#: Query words -> the catalog's words, only where the model alone misses: the catalog's nouns for
#: the user's words, the phrasings left (pruned on the tuning queries: an entry stays only if
#: removing it loses one), and the words the intent rules and `elsewhere` read in Chinese (删除
#: asks to delete, 恢复 to restore, 导出 for the export route).
#: Keys are lower-case English words or Chinese substrings (each found anywhere in the query).
SYNONYMS: dict[str, tuple[str, ...]] = {
    # The catalog's nouns for the user's words (a "note" is a memo here; the model cannot know).
    "note": ("memo",),
    "idea": ("memo",),
    "task": ("todo", "task"),
    "highlight": ("reading", "note"),
    "book": ("reading",),
    "file": ("attachment",),
    "label": ("tag",),
    "board": ("todo", "column"),
    "笔记": ("memo",),
    "备忘": ("memo",),
    "想法": ("memo",),
    "任务": ("todo", "task"),
    "待办": ("todo", "task"),
    "子任务": ("subtask",),
    "标签": ("tag",),
    "提醒": ("reminder",),
    "看板": ("todo", "board", "column"),
    "列": ("column",),
    "空间": ("space",),
    "附件": ("attachment",),
    "优先级": ("priority",),
    "截止": ("due",),
    "到期": ("due",),
    "收件箱": ("inbox", "item"),
    "划线": ("reading", "note"),
    "书": ("reading", "book"),
    # Phrasings the model misses.
    "reschedule": ("update", "due"),
    "postpone": ("update", "due"),
    "add": ("create",),
    "write": ("create",),
    "archive": ("update", "archived", "status"),
    "pin": ("pinned", "update"),
    "recover": ("restore",),
    "undelete": ("restore",),
    "download": ("export",),
    "urgent": ("priority", "query"),
    "逾期": ("query", "overdue", "due"),
    "新建": ("create",),
    "记一条": ("create", "memo"),
    "搜索": ("search",),
    "撤销": ("undo", "changes"),
    "里的": ("list",),
    "收集箱": ("inbox", "item"),
    "删除": ("delete",),
    "删掉": ("delete",),
    "重新打开": ("reopen",),
    "恢复": ("restore",),
    "还原": ("restore",),
    "找回": ("restore",),
    "导出": ("export",),
    "备份": ("export",),
    "导入": ("import",),
    "语言": ("language",),
}
#: The user's nouns the model should also read in the catalog's words: the query (or a Chinese
#: query's gloss) with these replaced is a second text the model matches (`catalog_wording`).
CATALOG_NOUNS: dict[str, str] = {
    "note": "memo",
    "notes": "memos",
    "label": "tag",
    "labels": "tags",
    "board": "space",
    "boards": "spaces",
    "picture": "attachment",
    "image": "attachment",
    "photo": "attachment",
    "checklist": "subtasks",
    "step": "subtask",
    "steps": "subtasks",
}
_NOUN = re.compile(r"[A-Za-z]+")
#: What a board holds: a query naming one of them is about it, on a board.
_BOARD_PARTS = frozenset({"column", "task", "subtask", "card", "item", "todo"})
#: Query words about reading (a "note" among them is a reading note, not a memo).
_READING_WORDS = frozenset({"reading", "highlight", "book", "quote", "kindle", "chapter", "thought"})
#: A delete word that says where or what, not what to do: a Chinese one that describes what was
#: deleted ("删掉的任务"), the trash as a place ("out of the trash": to restore from it).
_DELETED = re.compile(r"(?:删掉|删除|删了|删)的|\b(?:from|out of|in|inside)\s+(?:the\s+|my\s+)?trash\b", re.IGNORECASE)
#: A write word that says which records, not what to do: a Chinese one that describes what was
#: written ("上周写的笔记", "新建的任务": verb + 的; the 记 of 笔记 and 日记 is a noun's), an English
#: one after its subject ("the notes I wrote", "tasks we created"). Such a query asks to read them.
_DESCRIBED = re.compile(
    r"(?:写|(?<![笔日])记|新建|创建|建|添加|加|改|修改|更新|完成)(?:了|过)?的"
    r"|\b(?:i|we|you|they|he|she)\s+(?:just\s+|have\s+|had\s+)?"
    r"(?:wrote|written|created|added|made|updated|changed|edited|completed|finished)\b",
    re.IGNORECASE,
)
#: Query words that ask to delete (only then may a `delete_*` tool lead).
_DELETE_WORDS = frozenset({"delete", "remove", "trash", "erase", "discard", "throw", "rid"})
#: Query words that ask to change something (tools that change data are preferred): the verb of
#: every write tool but `delete_*` (its own rule above).
_WRITE_WORDS = frozenset(
    {"update", "create", "rename", "complete", "reopen", "restore", "undo", "upload", "move", "set"}
    | {"cancel", "clear", "duplicate", "reorder"}
)
_K1 = 1.2
_B = 0.75


def words(text: str) -> list[str]:
    """Lower-case words, a plural `s` dropped (`items` matches `item`, `changes` `change`)."""
    return [_singular(word) for word in _WORD.findall(text.lower().replace("_", " "))]


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def expand(query: str) -> list[str]:
    """The query's words plus their `SYNONYMS` (Chinese keys are matched as substrings)."""
    lowered = query.lower()
    terms = words(lowered)
    extra = [synonym for term in terms for synonym in SYNONYMS.get(term, ())]
    extra += [synonym for key, found in SYNONYMS.items() if not key.isascii() and key in lowered for synonym in found]
    return terms + [_singular(term) for term in extra]


def catalog_wording(text: str) -> str | None:
    """`text` with the user's nouns in the catalog's words (CATALOG_NOUNS; a "note" stays one in a
    text about reading), or None when it has none of them."""
    said = set(words(text))
    reading = bool(_READING_WORDS & said)
    # "a column on the board": the board is where, not what (it is the space only when alone).
    inside = bool(_BOARD_PARTS & said)

    def replaced(match: re.Match[str]) -> str:
        word = match.group(0)
        if (reading and word.lower().startswith("note")) or (inside and word.lower().startswith("board")):
            return word
        return CATALOG_NOUNS.get(word.lower(), word)

    worded = _NOUN.sub(replaced, text)
    return worded if worded != text else None


def summary(tool: CatalogTool) -> str:
    """The first sentence of the tool's description (its one-line summary)."""
    text = " ".join(tool.operation.description.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


@cache
def _han_runs() -> re.Pattern[str]:
    # Imported on the first search_tools call, not with the MCP function (tests/mcp/test_cold_import.py).
    from ...kernel.i18n import HAN

    return re.compile(HAN + "+")


def character_pairs(text: str) -> list[str]:
    """A Chinese text's overlapping character pairs (a lone character stands for itself): the
    words of a language written without spaces, with no segmenter to ship."""
    return [run[at : at + 2] for run in _han_runs().findall(text) for at in range(max(len(run) - 1, 1))]


def _document(tool: CatalogTool) -> list[str]:
    arguments = " ".join(tool.input_schema.get("properties", {}))
    name = tool.name.replace("_", " ")
    values = " ".join(enum_values(tool.input_schema))
    return words(f"{name} {name} {tool.operation.mcp.title} {tool.operation.description} {arguments} {values}")


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


#: The fused score: z-score of the model's similarity + LEXICAL * (BM25 / the best BM25) +
#: LEXICAL_ZH * (the Chinese titles' BM25 / its best) + INTENT when the tool changes data exactly
#: when the query asks to change something. Fitted on the tuning queries
#: (test_search_tools_queries.py), never on the held-out ones.
LEXICAL = 1.8
LEXICAL_ZH = 1.5
INTENT = 0.3


#: What a query carries for the call, not about the tool: quoted text ("...", “...”, '...', 「...」,
#: 《...》), a #tag, and what follows a colon ("jot down: buy milk #home"; a clock's 10:30 is kept).
_PAYLOAD = re.compile(
    # \u201c \u201d \u2018 \u2019: curly quotes; \uff0c \u3002 \uff1a: the full-width comma, full stop, colon
    r"[\"\u201c\u201d][^\"\u201c\u201d]*[\"\u201c\u201d]|(?<!\w)'[^']+'(?!\w)|\u2018[^\u2019]*\u2019"
    r"|「[^」]*」|『[^』]*』|《[^》]*》|#[^\s#,\uff0c\u3002]+|(?<!\d)[:\uff1a](?!\d).*$"
)


def intent_of(query: str) -> str:
    """The query without its payload: an agent often sends the words it will write ("随手记个想法:
    明天试试番茄工作法 #效率"), and those name no tool. The query itself when nothing else is left."""
    intent = " ".join(_PAYLOAD.sub(" ", query).split())
    return intent or query


def rank(tools: Sequence[CatalogTool], query: str, limit: int, vectors: ToolVectors | None = None) -> list[CatalogTool]:
    query = intent_of(query)
    needle = " ".join(query.lower().split())
    gloss = _gloss(query)
    terms = expand(query) + (expand(gloss) if gloss else [])
    lexical = _normalised(bm25(terms, [_document(tool) for tool in tools]))
    pairs = character_pairs(query)
    chinese = _normalised(bm25(pairs, [character_pairs(tool.operation.mcp.title_zh) for tool in tools]))
    semantic = _similarity(tools, query, vectors, gloss, bool(pairs))
    # "restore what I deleted" asks to restore, not to delete; "看看删掉的任务" (the deleted
    # tasks) asks to see them.
    deleting = asks_to_delete(query) and "restore" not in terms
    writing = asks_to_write(query)

    def literal(tool: CatalogTool) -> int:
        if needle in tool.name or needle.replace(" ", "_") in tool.name:
            return 2
        return 1 if needle in f"{tool.operation.mcp.title} {summary(tool)}".lower() else 0

    def score(tool: CatalogTool, at: int) -> float:
        value = LEXICAL * lexical[at] + LEXICAL_ZH * chinese[at]
        if semantic is not None:
            value += semantic[at]
        return value + (INTENT if writing == tool.is_write else 0.0)

    trash = names_the_trash(query)
    # "tasks I created yesterday", "昨天创建的任务": the write word says which records and no
    # other asks for a change, so the query reads; its verb alone put `create_todo_task` first.
    reading_written = not writing and bool(_DESCRIBED.search(query))

    def unwanted(tool: CatalogTool) -> bool:
        # A trash listing answers a query about what was deleted: "tasks I created yesterday"
        # read close to "tasks I have deleted" and put the todo trash first.
        return (
            (not deleting and tool.name.startswith("delete_"))
            or (not trash and tool.name.endswith("_trash"))
            or (reading_written and tool.is_write)
        )

    ranked = sorted(
        ((unwanted(tool), literal(tool), score(tool, at), at) for at, tool in enumerate(tools)),
        key=lambda entry: (entry[0], -entry[1], -entry[2], entry[3]),
    )
    found = (at for _, hit, _, at in ranked if semantic is not None or hit or lexical[at] > 0 or chinese[at] > 0)
    return [tools[at] for at in found][:limit]


#: A question about what is there asks to read ("我哪条笔记里写过…", "what did I write about
#: sleep", "do I have tasks due"), whatever verb it holds. "How do I", "can you" and 吗 ask for an
#: action, politely: they are no such question.
_QUESTION = re.compile(r"哪|什么|多少|^\s*(?:which|what|where|when|who|did|do|does|have|has|is|are)\b", re.IGNORECASE)


def asks_a_question(query: str) -> bool:
    return bool(_QUESTION.search(query))


def asks_to_write(query: str) -> bool:
    """The query asks to change something: a write word, but not one that describes the records
    it names (写的笔记, "the tasks I created"), and no question about what is there."""
    if asks_a_question(query):
        return False
    asked = _DESCRIBED.sub(" ", query)
    gloss = _gloss(asked)
    return bool(_WRITE_WORDS & set(expand(asked) + (expand(gloss) if gloss else [])))


#: Words that name the trash or what went into it, in either language ("deleted", "the bin",
#: 回收站, 删掉的, 扔掉的).
_TRASH = re.compile(r"delet|remov|trash|bin\b|recycl|threw|thrown|discard|删|回收|垃圾|扔", re.IGNORECASE)


def names_the_trash(query: str) -> bool:
    return bool(_TRASH.search(query))


def asks_to_delete(query: str) -> bool:
    """The query asks to delete something: a delete word, but not a Chinese one that describes
    (删掉的 / 删除的 / 删了的: "the deleted ...") nor the trash as a place ("out of the trash")."""
    asked = _DELETED.sub(" ", query)
    gloss = _gloss(asked)
    return bool(_DELETE_WORDS & set(expand(asked) + (expand(gloss) if gloss else [])))


def _normalised(scores: list[float]) -> list[float]:
    best = max(scores, default=0.0)
    return [score / best for score in scores] if best > 0 else [0.0] * len(scores)


def _gloss(query: str) -> str | None:
    """A Chinese query's English gloss (CC-CEDICT, search/crosslingual.py): the tools are
    described in English, and the small model matches a Chinese query to English text poorly."""
    from ...kernel.i18n import is_chinese
    from ...search.crosslingual import GLOSSARY

    return GLOSSARY.translate(query, wait=False) if is_chinese(query) else None


def _similarity(
    tools: Sequence[CatalogTool],
    query: str,
    vectors: ToolVectors | None,
    gloss: str | None = None,
    chinese: bool = False,
) -> list[float] | None:
    """The model's similarity to each tool as a z-score over `tools`, the best of: the query (and
    its gloss) against the tool's whole text and its title, and a Chinese query against the
    Chinese title. None without the model (or when it fails: the lexical ranking still answers)."""
    if vectors is None or len(tools) < 2:
        return None
    import numpy as np

    from ...kernel.ports.models import ProviderError

    try:
        texts = [query, gloss] if gloss else [query]
        worded = catalog_wording(texts[-1])
        asked = [vectors.query(text) for text in ([*texts, worded] if worded else texts)]
        wholes, titles, chinese_titles = zip(*(tool_views(tool, summary(tool)) for tool in tools), strict=True)
        english = [vectors.matrix(wholes), vectors.matrix(titles)]
        scores = [matrix @ vector for matrix in english for vector in asked]
        if chinese and all(chinese_titles):
            scores.append(vectors.matrix(chinese_titles) @ asked[0])
        said = [(at, text) for at, tool in enumerate(tools) for text in phrasings().get(tool.name, ())]
        if said:  # a tool's best phrasing, per query text (a tool without phrasings: its lowest view)
            owners = np.array([at for at, _text in said])
            matrix = vectors.matrix([text for _at, text in said])
            lowest = np.minimum.reduce(scores[: len(english) * len(asked)]).astype(np.float32)
            for vector in asked:
                best = lowest.copy()
                np.maximum.at(best, owners, matrix @ vector)
                scores.append(best)
    except ProviderError:
        return None
    standard = [(score - float(score.mean())) / (float(score.std()) or 1.0) for score in scores]
    return np.maximum.reduce(standard).tolist()  # type: ignore[no-any-return]


#: What only a page does (no REST route an agent could call): the words that ask for it.
PAGES: tuple[tuple[str, str, str], ...] = (
    ("language", "/settings (Language)", "the interface language of the web pages"),
)
#: The page beside a REST-only route, where a person does the same.
ROUTE_PAGES = {"export_account": "/settings/export", "import_from_app": "/settings/import"}


@cache
def _rest_only() -> tuple[tuple[str, str, str, str], ...]:
    """Every operation of the spec that is no MCP tool: (operationId, "METHOD path", summary, page)."""
    spec = load_spec()
    found = []
    for path, methods in spec.document.get("paths", {}).items():
        for method, operation in methods.items():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            name = operation["operationId"]
            if name in spec.operations and spec.operations[name].mcp.exposed:
                continue
            summary_text = str(operation.get("summary", ""))
            found.append((name, f"{method.upper()} {path}", summary_text, ROUTE_PAGES.get(name, "")))
    return tuple(found)


def elsewhere(query: str, tools: Sequence[CatalogTool]) -> list[dict[str, str]]:
    """What the query asks for that no tool does: REST routes and pages whose words match it at
    least as well as the best tool's (at most 2)."""
    terms = expand(query)
    routes = _rest_only()
    documents = [words(f"{name.replace('_', ' ')} {summary_text}") for name, _route, summary_text, _page in routes]
    documents += [words(f"{word} {what}") for word, _page, what in PAGES]
    documents += [_document(tool) for tool in tools]
    scores = bm25(terms, documents)
    best_tool = max(scores[len(routes) + len(PAGES) :], default=0.0)
    found: list[tuple[float, dict[str, str]]] = []
    for at, (_name, route, summary_text, page) in enumerate(routes):
        if scores[at] > 0 and scores[at] >= best_tool:
            answer = {"need": summary_text, "rest": route}
            found.append((scores[at], {**answer, "page": page} if page else answer))
    for at, (_word, page, what) in enumerate(PAGES, start=len(routes)):
        if scores[at] > 0 and scores[at] >= best_tool:
            found.append((scores[at], {"need": what, "page": page}))
    return [answer for _score, answer in sorted(found, key=lambda item: -item[0])[:2]]
