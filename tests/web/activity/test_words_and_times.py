"""A session's words that depend on nothing but its changes: the span across a clock change (a
12-minute session at 01:50 EST reads with its zones, not as 01:50-03:02) and the summary that
names a space before the columns it came with."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mesq.web.activity.times import span_words
from mesq.web.activity.words import Names, line, summary
from mesq.web.kit.i18n import Translator


def test_a_span_across_the_spring_clock_change_names_its_zones():
    now = datetime(2027, 3, 14, 12, 0, tzinfo=UTC)
    english = span_words("2027-03-14T06:50:00Z", "2027-03-14T07:02:00Z", "America/New_York", now, Translator("en"))
    assert english == "Today 01:50 EST \u2013 03:02 EDT", english
    chinese = span_words("2027-03-14T06:50:00Z", "2027-03-14T07:02:00Z", "America/New_York", now, Translator("zh"))
    assert chinese == "今天 01:50 北美东部标准时间 \u2013 03:02 北美东部夏令时间", chinese  # never -0500 / -0400
    # the fall-back hour: the same two clocks twice; each side names which, in both languages
    autumn = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
    back = ("2026-11-01T05:50:00Z", "2026-11-01T06:10:00Z")  # 01:50 EDT, then 01:10 EST
    english_back = span_words(*back, "America/New_York", autumn, Translator("en"))
    chinese_back = span_words(*back, "America/New_York", autumn, Translator("zh"))
    assert english_back == "Today 01:50 EDT \u2013 01:10 EST", english_back
    assert chinese_back == "今天 01:50 北美东部夏令时间 \u2013 01:10 北美东部标准时间", chinese_back
    # a zone English has no abbreviation for reads by its name in both languages, never an offset
    berlin = span_words("2027-03-28T00:50:00Z", "2027-03-28T01:02:00Z", "Europe/Berlin", now, Translator("en"))
    assert berlin.endswith("01:50 Central European Standard Time \u2013 03:02 Central European Summer Time"), berlin
    berlin_zh = span_words("2027-03-28T00:50:00Z", "2027-03-28T01:02:00Z", "Europe/Berlin", now, Translator("zh"))
    assert berlin_zh.endswith("01:50 中欧标准时间 \u2013 03:02 中欧夏令时间") and "+0" not in berlin_zh, berlin_zh
    # a span on one side of it keeps CLDR's own interval, without zones
    plain = span_words("2027-03-14T08:00:00Z", "2027-03-14T08:09:00Z", "America/New_York", now, Translator("en"))
    assert plain.startswith("Today 04:00") and plain.endswith("04:09") and "E" not in plain.replace("Today", ""), plain
    shanghai = span_words("2026-12-06T15:54:00Z", "2026-12-06T16:05:00Z", "Asia/Shanghai", now, Translator("en"))
    assert "CST" not in shanghai and "+08" not in shanghai, shanghai


def _change(kind: str, operation: str, action: str = "create") -> dict[str, Any]:
    return {"record": {"kind": kind, "id": "x"}, "action": action, "operation": operation, "fields": [], "after": {}}


def test_a_new_space_comes_before_the_columns_it_came_with():
    changes = [_change("space", "create_todo_space") for _ in range(2)]
    changes += [_change("column", "create_todo_space") for _ in range(6)]
    changes += [_change("task", "create_todo_task") for _ in range(4)]
    said = summary(changes, Translator("en"))
    assert said == "created 4 tasks, created 2 spaces, created 6 columns", said
    assert summary(changes, Translator("zh")) == "新建了 4 个任务，新建了 2 个空间，新建了 6 列"


def test_a_due_moved_to_the_tasks_own_zone_reads_in_that_zone():
    """An agent sets a task's zone to New York and its due to 09:30 there: the details say 09:30
    Eastern Time beside the zone's line, not 22:30 (the reader's Shanghai clock), which read as
    22:30 New York time next to "Time zone → Eastern Time". A side without a zone of its own keeps
    the reader's clock."""
    change = {
        "record": {"kind": "task", "id": "x", "title": "联系搬家公司"},
        "action": "update",
        "operation": "update_todo_task",
        "at": "2026-12-06T02:31:00Z",
        "fields": ["due", "timezone"],
        "before": {"due": {"type": "datetime", "at": "2026-12-06T07:00:00Z"}, "timezone": None},
        "after": {"due": {"type": "datetime", "at": "2026-12-07T09:30:00-05:00"}, "timezone": "America/New_York"},
        "undoable": True,
    }
    now = datetime(2026, 12, 6, 3, 0, tzinfo=UTC)
    for language, was, became in (
        ("zh", "今天 15:00", "12月7日 09:30（北美东部时间）"),
        ("en", "Today 15:00", "Dec 7 09:30 (Eastern Time)"),
    ):
        shown = line(change, Names(), "Asia/Shanghai", now, Translator(language))
        due = next(detail for detail in shown.details if detail.label in ("截止", "Due"))
        assert (due.before, due.after) == (was, became), due


def test_a_recurring_completion_names_no_bookkeeping_as_other_details():
    """Completing a repeating task moves its due on and keeps the occurrence (`occurrences`,
    `occurrenceCount`, and `excludedCount` when an app's EXDATE was stepped past): the line said
    "completed" and then "3 other details changed", details a person never set nor sees."""
    change = {
        "record": {"kind": "task", "id": "x", "title": "浇花"},
        "action": "update",
        "operation": "complete_todo_task",
        "at": "2026-12-06T02:31:00Z",
        "fields": ["due", "occurrenceCount", "occurrences", "excludedCount"],
        "before": {"due": {"type": "date", "date": "2026-12-06"}, "occurrenceCount": 0, "occurrences": []},
        "after": {"due": {"type": "date", "date": "2026-12-08"}, "occurrenceCount": 1, "excludedCount": 1},
        "undoable": True,
    }
    now = datetime(2026, 12, 6, 3, 0, tzinfo=UTC)
    for language in ("zh", "en"):
        shown = line(change, Names(), "Asia/Shanghai", now, Translator(language))
        assert [detail.label for detail in shown.details] == [], shown.details


def test_the_preview_of_a_long_run_says_the_rest_of_the_run_not_of_the_session():
    """An import's page (`?runId=`) undoes the run: its preview must not promise the session."""
    from mesq.web.activity.undo_words import preview_report

    answer = {"undone": [{"changeId": str(n)} for n in range(100)], "notUndone": [], "more": True, "dryRun": True}
    english = preview_report(answer, Translator("en"), run=True)
    assert english == "This undoes 100 changes, then the rest of the run in the same way.", english
    chinese = preview_report(answer, Translator("zh"), run=True)
    assert "运行" in chinese and "会话" not in chinese and chinese.startswith("将先撤销 100 处改动"), chinese
    assert "session" in preview_report(answer, Translator("en"))  # a session's Undo still says so


def test_the_undo_and_redo_of_a_recurring_completion_read_as_reopen_and_complete():
    """Undoing a repeating task's completion takes its occurrence back (the count down, the due
    back); redoing it closes the occurrence again. Neither change carries `done`, and both are
    `undo_changes`: /activity and the History panel said "edited the task" with "2 other details
    changed" (the series' bookkeeping), where the person reopened it and completed it again."""
    occurrence = [{"due": {"type": "date", "date": "2026-12-07"}, "completedAt": "2026-12-06T20:14:55Z"}]
    closed = {"due": {"type": "date", "date": "2026-12-14"}, "occurrenceCount": 1, "occurrences": occurrence}
    undo = {
        "record": {"kind": "task", "id": "x", "title": "每周例会"},
        "action": "update",
        "operation": "undo_changes",
        "undoes": "01796588095258842-ac121a4a",
        "at": "2026-12-06T20:15:31Z",
        "fields": ["due", "occurrenceCount", "occurrences"],
        "before": closed,
        "after": {"due": {"type": "date", "date": "2026-12-07"}},
        "undoable": True,
    }
    redo = {**undo, "undoes": "01796588131815208-71a8e570", "before": undo["after"], "after": closed}
    now = datetime(2026, 12, 6, 21, 0, tzinfo=UTC)
    expected = {
        "zh": ("重新打开了任务“每周例会”", ("截止", "12月14日", "今天"), "完成了任务“每周例会”"),
        "en": ("reopened the task “每周例会”", ("Due", "Dec 14", "Today"), "completed the task “每周例会”"),
    }
    for language, (reopened, due, completed) in expected.items():
        say = Translator(language)
        shown = line(undo, Names(), "Asia/Shanghai", now, say)
        assert shown.act == "reopen" and shown.sentence.striptags() == reopened, shown.sentence
        assert [(detail.label, detail.before, detail.after) for detail in shown.details] == [due], shown.details
        again = line(redo, Names(), "Asia/Shanghai", now, say)
        assert again.act == "complete" and again.sentence.striptags() == completed, again.sentence
        assert again.details == (), again.details
    assert summary([undo], Translator("zh")) == "重新打开了 1 个任务"


def test_a_toast_undoing_a_recurring_completion_says_the_due_is_back_not_open_again():
    """Completing a repeating task closes an occurrence by moving its due on; the task was never
    done. Its toast's Undo said "Undone: open again." (the words for a task that was closed);
    it brings the earlier due back, and undoing a completion that did close a task still says
    "open again"."""
    from mesq.web.activity.undo_words import undone_state

    occurrence = {
        "record": {"kind": "task", "id": "x", "title": "记账"},
        "action": "update",
        "operation": "complete_todo_task",
        "fields": ["due", "occurrenceCount", "occurrences"],
        "before": {"due": {"type": "date", "date": "2026-12-07"}},
        "after": {"due": {"type": "date", "date": "2026-12-08"}, "occurrenceCount": 1},
    }
    closed = {**occurrence, "fields": ["done", "completedAt", "columnId"], "before": {"done": False},
              "after": {"done": True}}  # fmt: skip
    reopened_occurrence = {**occurrence, "operation": "undo_changes", "undoes": "c1",
                           "before": occurrence["after"], "after": occurrence["before"]}  # fmt: skip
    expected = {
        "en": ("Undone: its earlier due is back.", "Undone: open again.", "Undone: on to its next due again."),
        "zh": ("已撤销：之前的截止时间已恢复。", "已撤销：重新打开。", "已撤销：已再次移到下一次截止时间。"),
    }
    for language, said in expected.items():
        say = Translator(language)
        assert (undone_state([occurrence], say), undone_state([closed], say),
                undone_state([reopened_occurrence], say)) == said  # fmt: skip


def test_a_move_to_another_space_names_the_space_not_two_columns():
    """move_todo_task to another space rewrites `spaceId` and `columnId`: the line read "moved the
    task “Book hotel” from “To do” to “To do”" (each space's first column), never naming the space
    it went to. It says the space; a column whose name changed too is in the details."""
    change = {
        "record": {"kind": "task", "id": "x", "title": "Book hotel"},
        "action": "move",
        "operation": "move_todo_task",
        "at": "2026-12-06T20:18:55Z",
        "fields": ["columnId", "position", "spaceId"],
        "before": {"columnId": "c-home", "position": "a0", "spaceId": "s-home"},
        "after": {"columnId": "c-trip", "position": "a0", "spaceId": "s-trip"},
        "undoable": True,
    }
    names = Names(columns={"c-home": "To do", "c-trip": "To do"}, spaces={"s-home": "Home", "s-trip": "Trip ✈️"})
    now = datetime(2026, 12, 6, 21, 0, tzinfo=UTC)
    for language, said in (("en", "moved the task “Book hotel” to the space “Trip ✈️”"),
                           ("zh", "把任务“Book hotel”移到了空间“Trip ✈️”")):  # fmt: skip
        shown = line(change, names, "Asia/Shanghai", now, Translator(language))
        assert shown.sentence.striptags() == said and shown.details == (), (shown.sentence, shown.details)
    renamed = Names(columns={"c-home": "To do", "c-trip": "Ideas"}, spaces=names.spaces)
    shown = line(change, renamed, "Asia/Shanghai", now, Translator("zh"))
    assert [(detail.label, detail.before, detail.after) for detail in shown.details] == [("列", "To do", "Ideas")]


def test_an_undo_that_leaves_records_names_them():
    """Undoing an agent's session after the person edited one of its memos: the notice said "Undid
    2 changes; 2 were left as they are (2 changed since)" (the memo's create and its edit), and
    the person could not tell which of their records the undo had not touched. The preview and
    the notice name the records left (each once), the first three by title, the rest counted: one
    changed since before one that can never be undone (a tag's creation, which nobody looks for)."""
    from mesq.web.activity.undo_words import preview_report, undo_report

    def left(kind: str, record_id: str, title: str, code: str = "REVISION_CONFLICT") -> dict[str, Any]:
        return {"changeId": f"c-{record_id}-{code}", "record": {"kind": kind, "id": record_id, "title": title},
                "code": code, "message": "..."}  # fmt: skip

    undone = [{"changeId": "c1", "record": {"kind": "task", "id": "t", "title": "打电话给妈妈"}}] * 2
    newest, older = left("memo", "m", "会议记录：讨论预算和人员"), left("memo", "m", "会议记录：讨论预算")
    refused = [newest, {**older, "changeId": "c0"}]
    answer = {"undone": undone, "notUndone": refused}
    assert undo_report(answer, Translator("zh")) == (
        "已撤销 2 处改动；2 处保持原样（2 处之后又被修改过）。保持原样的是：笔记“会议记录：讨论预算和人员”。"
    ), undo_report(answer, Translator("zh"))
    assert undo_report(answer, Translator("en")) == (
        "Undid 2 changes; 2 were left as they are (2 changed since). "
        "Left as it is: the memo “会议记录：讨论预算和人员”."
    ), undo_report(answer, Translator("en"))
    assert preview_report(answer, Translator("zh")).endswith("将保持原样的是：笔记“会议记录：讨论预算和人员”。")
    assert preview_report(answer, Translator("en")).endswith("Will stay as it is: the memo “会议记录：讨论预算和人员”.")
    many = [left("tag", "家务", "家务", "NOT_UNDOABLE")] + [left("task", f"t{n}", f"任务 {n}") for n in range(5)]
    said = undo_report({"undone": [], "notUndone": many}, Translator("zh"))
    assert said.endswith("保持原样的是：任务“任务 0”、任务“任务 1”、任务“任务 2”，以及另外 3 条记录。"), said
    english = undo_report({"undone": [], "notUndone": many}, Translator("en"))
    tasks = "the task “任务 0”, the task “任务 1”, the task “任务 2”"
    assert english.endswith(f"Left as they are: {tasks} and 3 more."), english


def test_a_memo_tag_rename_reads_as_one_not_as_an_edit():
    """rename_memo_tag rewrites `#工作` to `#项目/工作` in every memo carrying it: each line read
    "edited the memo …" and the session "edited 30 memos", so nothing said a tag was renamed (the
    change keeps only the content, before and after). The line names the tag and its new name, the
    summary counts the memos it was renamed in; the text's own change stays in the details."""
    change = {
        "record": {"kind": "memo", "id": "m", "title": "周会 #项目/工作 讨论预算"},
        "action": "update",
        "operation": "rename_memo_tag",
        "at": "2026-12-06T20:14:51Z",
        "fields": ["content"],
        "before": {"content": "周会 #工作 讨论预算 #生活"},
        "after": {"content": "周会 #项目/工作 讨论预算 #生活"},
        "undoable": True,
    }
    now = datetime(2026, 12, 6, 21, 0, tzinfo=UTC)
    memo = "“周会 #项目/工作 讨论预算”"
    for language, said, summed in (
        ("zh", f"把笔记{memo}中的标签“工作”重命名为“项目/工作”", "在 2 条笔记中重命名了标签"),
        ("en", f"renamed the tag “工作” to “项目/工作” in the memo {memo}", "renamed a tag in 2 memos"),
    ):
        shown = line(change, Names(), "Asia/Shanghai", now, Translator(language))
        assert shown.act == "retag" and shown.sentence.striptags() == said, shown.sentence
        assert [detail.label for detail in shown.details] == [Translator(language).gettext("Text")], shown.details
        assert summary([change, change], Translator(language)) == summed
    # a rename the content does not show (the tag stood in a code span) stays an edit
    unseen = {**change, "before": {"content": "`#工作`"}, "after": {"content": "`#工作`"}}
    assert line(unseen, Names(), "Asia/Shanghai", now, Translator("en")).act == "edit"


def test_a_todo_tag_rename_reads_as_one_not_as_an_edit():
    """update_todo_tag renaming a tag rewrites every task, subtask and inbox item carrying it (one
    change each, its tags before and after): each line read "edited the task …" and the session
    "edited 3 tasks", on /activity and in the task's History panel, as memos did before their
    rename read as one. It reads as the memo rename does: the tag, its new name, the record."""
    change = {
        "record": {"kind": "task", "id": "t", "title": "洗碗"},
        "action": "update",
        "operation": "update_todo_tag",
        "at": "2026-12-06T20:14:51Z",
        "fields": ["tags"],
        "before": {"tags": ["家务", "晚上"]},
        "after": {"tags": ["家庭/家务", "晚上"]},
        "undoable": True,
    }
    now = datetime(2026, 12, 6, 21, 0, tzinfo=UTC)
    for language, said, summed in (
        ("zh", "把任务“洗碗”中的标签“家务”重命名为“家庭/家务”", "在 2 个任务中重命名了标签"),
        ("en", "renamed the tag “家务” to “家庭/家务” in the task “洗碗”", "renamed a tag in 2 tasks"),
    ):
        shown = line(change, Names(), "Asia/Shanghai", now, Translator(language))
        assert shown.act == "retag" and shown.sentence.striptags() == said, shown.sentence
        assert summary([change, change], Translator(language)) == summed
    # a merge into a name the task already carried shows no new name on the task: an edit still
    merged = {**change, "before": {"tags": ["家务", "家庭/家务"]}, "after": {"tags": ["家庭/家务"]}}
    assert line(merged, Names(), "Asia/Shanghai", now, Translator("en")).act == "edit"
