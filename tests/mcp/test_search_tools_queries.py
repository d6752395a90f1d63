"""search_tools finds the fitting tool (issue 29, point 2): 30 queries an agent writes, in English
and Chinese, each with the tools that fit it, and the misses issue 42 named. One of them must be in
the top 3, and no `delete_*` tool may rank above it unless the query asks to delete. These are the
queries the ranking (the bundled model + BM25, the synonym table, the weights) was fitted on; the
held-out intents are test_search_tools_held_out.py's."""

from __future__ import annotations

import pytest

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.mcp.code.search import (
    asks_a_question,
    asks_to_delete,
    asks_to_write,
    catalog_wording,
    intent_of,
    names_the_trash,
    rank,
)
from mesq.mcp.code.tool_vectors import ToolVectors, phrasings
from mesq.mcp.service import default_catalog

CATALOG = default_catalog()
REACH = [tool for tool in CATALOG.tools.values() if tool.toolset != "code"]

#: query -> the tools that answer it (any one of them is a fit).
QUERIES: dict[str, tuple[str, ...]] = {
    "move overdue tasks to tomorrow": ("batch_update_todo_tasks", "update_todo_task", "query_todos"),
    "把过期的任务改到明天": ("batch_update_todo_tasks", "update_todo_task", "query_todos"),
    "reschedule": ("update_todo_task", "batch_update_todo_tasks"),
    "标签改名": ("rename_memo_tag", "update_todo_tag"),
    "rename a tag": ("rename_memo_tag", "update_todo_tag"),
    "what is overdue": ("query_todos",),
    "逾期的任务": ("query_todos",),
    "urgent tasks due this week": ("query_todos",),
    "postpone a task": ("update_todo_task", "batch_update_todo_tasks"),
    "任务改期": ("update_todo_task", "batch_update_todo_tasks"),
    "mark a task done": ("complete_todo_task", "batch_complete_todo_tasks"),
    "完成任务": ("complete_todo_task", "batch_complete_todo_tasks"),
    "create a task": ("create_todo_task",),
    "新建任务": ("create_todo_task",),
    "write a memo": ("create_memo",),
    "记一条笔记": ("create_memo",),
    "search memos": ("search_memos", "search_ai_memos"),
    "搜索笔记": ("search_memos", "search_ai_memos"),
    "set a reminder": ("set_todo_reminders",),
    "设置提醒": ("set_todo_reminders",),
    "reading highlights from a book": ("list_reading_notes", "search_reading_notes"),
    "读书划线": ("list_reading_notes", "search_reading_notes"),
    "undo my last change": ("undo_changes",),
    "撤销刚才的修改": ("undo_changes",),
    "what time zone is the user in": ("get_context",),
    "今天是几号 时区": ("get_context",),
    "restore a trashed task": ("restore_todo_task", "restore_todo_item"),
    "恢复删除的任务": ("restore_todo_task", "restore_todo_item", "list_todo_trash"),
    "add to inbox": ("create_todo_inbox_item",),
    "delete a memo": ("delete_memo",),
}
#: Issue 42's misses (fitted on too).
ISSUE_MISSES: dict[str, tuple[str, ...]] = {
    "what changed today": ("list_changes",),
    "archive a memo": ("update_memo",),
    "pin a note": ("update_memo",),
    "move a task to another board": ("move_todo_task",),
    "找回删掉的笔记": ("restore_memo",),
}
#: More tuning phrasings (2026-12-05, for the ranking's several views per tool): other words for
#: the same jobs, across the catalog, in both languages. Fitted on, like the two lists above.
MORE: dict[str, tuple[str, ...]] = {
    "write down what I learned today": ("create_memo",),
    "edit a memo's content": ("update_memo",),
    "list my latest memos": ("list_memos",),
    "look up notes containing a word": ("search_memos", "search_ai_memos"),
    "notes about a topic even if worded differently": ("search_ai_memos",),
    "show one memo by its id": ("get_memo",),
    "files attached to a memo": ("list_memo_resources",),
    "upload an image for a note": ("upload_memo_resource", "create_memo_upload_session"),
    "give a task a deadline": ("update_todo_task", "batch_update_todo_tasks"),
    "check off a subtask": ("complete_todo_subtask", "set_todo_inbox_subtask_done"),
    "break a task down into steps": ("create_todo_subtask",),
    "order of the checklist items": ("reorder_todo_subtasks",),
    "tasks tagged urgent": ("query_todos",),
    "what do I have to do today": ("query_todos", "list_todos"),
    "remove the alarm on a task": ("clear_todo_reminders",),
    "make a copy of a task": ("duplicate_todo_task",),
    "a new board for a project": ("create_todo_space",),
    "rename my board": ("update_todo_space",),
    "quick capture without choosing a column": ("create_todo_inbox_item",),
    "what did the agent change": ("list_changes",),
    "roll back an agent's edits": ("undo_changes",),
    "quotes I saved from books": ("search_reading_notes", "list_reading_notes"),
    "change my timezone": ("set_time_zone",),
    "memos to summarise for a monthly review": ("select_memos_for_insight",),
    "写一条新笔记": ("create_memo",),
    "改一下这条笔记": ("update_memo",),
    "列出我的笔记": ("list_memos",),
    "找包含某个词的笔记": ("search_memos", "search_ai_memos"),
    "意思相近的笔记": ("search_ai_memos",),
    "笔记里的附件": ("list_memo_resources",),
    "给任务设个截止日期": ("update_todo_task", "batch_update_todo_tasks"),
    "完成一个子任务": ("complete_todo_subtask", "set_todo_inbox_subtask_done"),
    "把任务拆成几个小步骤": ("create_todo_subtask",),
    "今天要做哪些事": ("query_todos", "list_todos"),
    "删掉任务的闹钟": ("clear_todo_reminders",),
    "再复制一份任务": ("duplicate_todo_task",),
    "新建一个看板": ("create_todo_space",),
    "收件箱的条目": ("list_todo_inbox_items",),
    "智能体改了哪些东西": ("list_changes",),
    "撤回智能体的修改": ("undo_changes",),
    "书里摘的句子": ("search_reading_notes", "list_reading_notes"),
    "修改我的时区": ("set_time_zone",),
    "选出笔记做月度总结": ("select_memos_for_insight",),
    "任务移到别的列": ("move_todo_task",),
}


@pytest.fixture(scope="module")
def vectors() -> ToolVectors:
    return ToolVectors(BundledEmbedder())


def test_there_are_thirty_queries_in_both_languages():
    assert len(QUERIES) == 30
    assert sum(1 for query in QUERIES if not query.isascii()) >= 12


def test_every_tool_a_script_can_reach_has_a_chinese_title():
    """search_tools matches a Chinese query against it (x-mcp `titleZh`)."""
    missing = [
        tool.name for tool in REACH if not any("\u4e00" <= char <= "\u9fff" for char in tool.operation.mcp.title_zh)
    ]
    assert not missing


def test_every_tool_a_script_can_reach_has_as_many_english_as_chinese_phrasings_three_or_four():
    """search_tools matches a query against what people say when they want the tool
    (tool_phrasings.yaml: three a language, a fourth for a field the three leave out); the file
    names no tool that does not exist."""
    said = phrasings()
    assert set(said) == {tool.name for tool in REACH}
    for name, texts in said.items():
        chinese = [text for text in texts if not text.isascii()]
        assert len(texts) in (6, 8) and 2 * len(chinese) == len(texts), (name, texts)
    everything = [text for texts in said.values() for text in texts]
    assert len(set(everything)) == len(everything), "a phrasing is given to two tools"


def test_41_of_the_44_more_phrasings_find_a_fitting_tool_in_the_top_3_with_no_delete_above_it(vectors):
    """Fitted on, but not one by one: 3 stay missed."""
    found = 0
    for query, fits in MORE.items():
        names = [tool.name for tool in rank(REACH, query, 10, vectors)]
        found += any(name in fits for name in names[:3])
        first = min((names.index(name) for name in fits if name in names), default=len(names))
        if not asks_to_delete(query):  # 删掉任务的闹钟 may show delete_* first
            assert not any(name.startswith("delete_") for name in names[:first]), (query, names)
    assert len(MORE) == 44 and found >= 41


@pytest.mark.parametrize("query", [*QUERIES, *ISSUE_MISSES])
def test_a_fitting_tool_is_in_the_top_3_with_no_delete_above_it(query, vectors):
    names = [tool.name for tool in rank(REACH, query, 10, vectors)]
    fits = QUERIES.get(query) or ISSUE_MISSES[query]
    top = names[:3]
    assert any(name in fits for name in top), (query, names)
    first = min(names.index(name) for name in fits if name in names)
    if not any(name.startswith("delete_") for name in fits):
        assert not any(name.startswith("delete_") for name in names[:first]), (query, names)


@pytest.mark.parametrize(
    ("query", "worded"),
    [
        ("which labels exist on my tasks", "which tags exist on my tasks"),
        ("what Boards do I have", "what spaces do I have"),
        ("upload a photo for a note", "upload a attachment for a memo"),
        ("remove a column from the board", None),  # the board is where the column is
        ("my notes on this book", None),  # a note about a book is a reading note
        ("list my memos", None),
    ],
)
def test_the_model_also_reads_the_query_in_the_catalogs_words(query: str, worded: str | None) -> None:
    assert catalog_wording(query) == worded


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("看看删掉的任务", "list_todo_trash"),  # the deleted tasks: to see, not to delete
        ("删掉的笔记在哪", "restore_memo"),
        ("把这条笔记删掉", "delete_memo"),  # to delete: a delete tool may lead
    ],
)
def test_a_chinese_delete_word_that_describes_is_no_request_to_delete(query: str, first: str, vectors) -> None:
    names = [tool.name for tool in rank(REACH, query, 10, vectors)]
    asks = first.startswith("delete_")
    assert first in names[:3], names
    assert asks == names[0].startswith("delete_"), names


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("take the task out of the trash", "restore_todo_task"),  # the trash as a place
        ("get rid of the Archive column", "delete_todo_column"),
        ("throw away this memo", "delete_memo"),
    ],
)
def test_the_trash_as_a_place_asks_to_restore_and_throwing_away_asks_to_delete(query: str, first: str, vectors) -> None:
    names = [tool.name for tool in rank(REACH, query, 10, vectors)]
    assert first in names[:3], names
    assert first.startswith("delete_") == names[0].startswith("delete_"), names


@pytest.mark.parametrize(
    ("query", "trash_first"),
    [
        ("tasks I created yesterday", False),  # read close to "tasks I have deleted"
        ("the tasks I finished this week", False),
        ("show me the tasks I deleted", True),
        ("what is in the todo trash", True),
        ("看看删掉的任务", True),
        ("待办回收站里有什么", True),
    ],
)
def test_the_todo_trash_is_offered_only_to_a_query_that_names_the_trash_or_deleting(
    query: str, trash_first: bool, vectors
) -> None:
    """The trash listing answers what was deleted: "tasks I created yesterday" ranked it first."""
    assert names_the_trash(query) is trash_first
    names = [tool.name for tool in rank(REACH, query, 10, vectors)]
    assert ("list_todo_trash" in names[:3]) is trash_first, names


@pytest.mark.parametrize(
    "query", ["tasks I created yesterday", "tasks I completed today", "昨天创建的任务", "本周完成的任务"]
)
def test_a_query_naming_tasks_by_what_was_done_to_them_reads_them(query: str, vectors) -> None:
    """ "tasks I created yesterday" ranked `create_todo_task` first: its verb says which tasks."""
    assert not asks_to_write(query)
    names = [tool.name for tool in rank(REACH, query, 10, vectors)]
    assert not any(CATALOG.tools[name].is_write for name in names[:3]), names
    assert {"list_todos", "query_todos", "list_changes"} & set(names[:3]), names


def test_every_write_tools_verb_but_delete_asks_to_write() -> None:
    verbs = {tool.name.removeprefix("batch_").split("_")[0] for tool in CATALOG.tools.values() if tool.is_write}
    assert all(asks_to_write(f"{verb} it") for verb in verbs - {"delete"}), verbs


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("随手记个想法：明天试试番茄工作法 #效率", "随手记个想法"),
        ("create a memo: buy milk and eggs", "create a memo"),
        ("我哪条笔记里写过“降噪耳机”这几个字", "我哪条笔记里写过 这几个字"),
        ("add a 'Waiting on others' lane to my board", "add a lane to my board"),
        ("change the task's priority", "change the task's priority"),  # an apostrophe is no quote
        ("remind me at 10:30 tomorrow", "remind me at 10:30 tomorrow"),  # nor a clock's colon
        ("rename #work to #job in my notes", "rename to in my notes"),
        ("看看我读《人类简史》时写的感想", "看看我读 时写的感想"),
        ("“买菜”", "“买菜”"),  # nothing but payload: the query itself
    ],
)
def test_the_payload_a_query_carries_is_not_ranked(query: str, intent: str) -> None:
    assert intent_of(query) == intent


@pytest.mark.parametrize(
    ("query", "first", "asks"),
    [
        ("找出上周写的笔记", "list_memos", False),  # the notes written last week: to find, not to write
        ("我昨天写的笔记", "list_memos", False),
        ("看看上个月新建的任务", "list_todos", False),
        ("the notes I wrote last week", "list_memos", False),
        ("帮我写一条笔记", "create_memo", True),  # to write: a write tool leads
        ("新建一个任务", "create_todo_task", True),
    ],
)
def test_a_write_word_that_describes_the_records_is_no_request_to_write(
    query: str, first: str, asks: bool, vectors
) -> None:
    """找出上周写的笔记 ranked create_memo first: 写 asked to write, though 写的笔记 names which
    notes (verb + 的, as 删掉的任务 does for deleting)."""
    assert asks_to_write(query) is asks
    names = [tool.name for tool in rank(REACH, query, 10, vectors)]
    assert names[0] == first, names


@pytest.mark.parametrize(
    ("query", "question"),
    [
        ("我哪条笔记里写过这几个字", True),
        ("what did I write about sleep", True),
        ("do I have tasks due today", True),
        ("笔记里有多少标签", True),
        ("还能找回来吗", False),  # a polite request
        ("how do I pin a note", False),
        ("can you restore my deleted memo?", False),
        ("write a memo about sleep", False),
        ("把这条笔记改一下", False),
    ],
)
def test_a_question_asks_to_read_whatever_verb_it_holds(query: str, question: bool) -> None:
    assert asks_a_question(query) is question


def test_a_query_that_carries_what_to_write_finds_the_tool_that_writes_it(vectors) -> None:
    names = [tool.name for tool in rank(REACH, "save this thought: the #garden needs water on Friday", 10, vectors)]
    assert names[0] == "create_memo", names
