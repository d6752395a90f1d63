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


def _due(at: str, zone: str, language: str) -> str:
    task = {"id": "t1", "title": "浇花", "due": {"type": "datetime", "at": at}, "timezone": zone}
    return message_of({"type": "todo.reminder", "task": task}, PUBLIC, language).due_line


def test_a_reminder_at_9_in_shanghai_arrives_at_1_utc_and_says_9() -> None:
    assert _due("2026-12-08T01:00:00.000000Z", "Asia/Shanghai", "zh") == "截止 2026-12-08 09:00（中国时间）"
    assert _due("2026-12-08T01:00:00.000000Z", "Asia/Shanghai", "en") == "Due 2026-12-08 09:00 (China Time)"


@pytest.mark.parametrize(
    ("at", "en", "zh"),
    [  # New York's clock goes back at 02:00 EDT on 1 November 2026: 01:30 comes twice
        ("2026-11-01T05:30:00.000000Z", "Due 2026-11-01 01:30 (EDT)", "截止 2026-11-01 01:30（北美东部夏令时间）"),
        ("2026-11-01T06:30:00.000000Z", "Due 2026-11-01 01:30 (EST)", "截止 2026-11-01 01:30（北美东部标准时间）"),
    ],
)
def test_the_hour_a_clock_change_repeats_says_which_of_the_two_it_is(at: str, en: str, zh: str) -> None:
    assert _due(at, "America/New_York", "en") == en
    assert _due(at, "America/New_York", "zh") == zh


@pytest.mark.parametrize(
    ("at", "words"),
    [  # either side of the spring change (02:00 EST -> 03:00 EDT on 8 March 2026), and the day before
        ("2026-03-08T06:59:00.000000Z", "Due 2026-03-08 01:59 (Eastern Time)"),
        ("2026-03-08T07:00:00.000000Z", "Due 2026-03-08 03:00 (Eastern Time)"),
        ("2026-03-08T04:30:00.000000Z", "Due 2026-03-07 23:30 (Eastern Time)"),
    ],
)
def test_other_hours_keep_the_zones_everyday_name(at: str, words: str) -> None:
    assert _due(at, "America/New_York", "en") == words


@pytest.mark.parametrize(("language", "tag"), [("zh", "zh-Hans"), ("en", "en")])
def test_an_emails_html_part_says_its_language(language: str, tag: str) -> None:
    """A mail client picks the glyphs of Han characters by the part's language: without it a
    Chinese reminder may be drawn in Japanese forms (the pages say `zh-Hans` for the same reason)."""
    payload = {"type": "todo.reminder", "task": {"id": "t1", "title": "浇花", "due": None}}
    email = email_of(MAIL, message_of(payload, PUBLIC, language))
    assert email["Content-Language"] == tag
    assert _html(payload, language).startswith(f'<html lang="{tag}">')
