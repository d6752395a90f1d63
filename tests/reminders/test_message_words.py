"""The words of a reminder message say what its link opens (sweep F12): a task's reminder opens
the task, the settings page's test reminder opens the reminder settings."""

from __future__ import annotations

import pytest

from mesq.adapters.reminders.smtp import email_of
from mesq.reminders.channels import Channel
from mesq.reminders.message import message_of

PUBLIC = "https://mesq.example"
MAIL = Channel(id="c1", url="", secret="", kind="email", config={"from": "mesq@example.org", "to": "me@example.org"})


def _html(payload: dict, language: str) -> str:
    return email_of(MAIL, message_of(payload, PUBLIC, language)).get_body(("html",)).get_content()  # type: ignore[union-attr]


@pytest.mark.parametrize(("language", "words"), [("zh", "打开提醒设置"), ("en", "Open the reminder settings")])
def test_the_test_reminders_link_says_it_opens_the_settings(language: str, words: str) -> None:
    html = _html({"type": "test", "task": None}, language)
    assert f'<a href="{PUBLIC}/settings/reminders">{words}</a>' in html
    assert "打开任务" not in html and "Open the task" not in html


@pytest.mark.parametrize(("language", "words"), [("zh", "打开任务"), ("en", "Open the task")])
def test_a_tasks_reminder_link_opens_the_task(language: str, words: str) -> None:
    html = _html({"type": "todo.reminder", "task": {"id": "t1", "title": "浇花", "due": None}}, language)
    assert f'<a href="{PUBLIC}/todos/tasks/t1">{words}</a>' in html
