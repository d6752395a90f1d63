"""A task id that names no live task: what the person reads and what an agent reads. The task
may be in the trash, or deleted for good (purged, or never there): the words must not promise
the trash holds it, nor say that a trashed task is in the trash (which tells nothing)."""

from __future__ import annotations

from mesq.kernel.i18n import Translator
from mesq.todos.misses import task_not_found


def test_a_missing_task_says_it_may_be_in_the_trash() -> None:
    miss = task_not_found("NoSuchTask")
    page = Translator("en").text(miss.text)
    assert page == "todo task 'NoSuchTask' not found (a deleted task may be in the trash)"
    for_agents = "todo task 'NoSuchTask' not found (a deleted task may be in the trash, listed by list_todo_trash)"
    assert str(miss) == for_agents
    assert Translator("zh").text(miss.text) == "找不到待办任务“NoSuchTask”（已删除的任务可能在回收站里）"
