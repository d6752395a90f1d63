"""The VTODO <-> MeSQ mapping table, both ways, without a server: what each property becomes, what
comes back unchanged, what MeSQ writes when the value changed; and the layering rule that keeps
iCalendar out of the todo domain."""

from __future__ import annotations

import ast
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from icalendar import Calendar

from mesq.dav.ical_in import read_vtodo
from mesq.dav.ical_out import body, render
from mesq.dav.mapping import offset_text, priority_of, tag_of, tags_of
from tests.dav.conftest import vtodo

TODOS = Path(__file__).resolve().parents[2] / "layers" / "core" / "mesq" / "todos"


def _record(ical: str, zone: str | None = None, **changes: Any) -> dict[str, Any]:
    """What save_synced_todo would store for `ical` (the fields as read, the client's data)."""
    incoming = read_vtodo(ical.encode(), zone)
    fields = {k: v for k, v in incoming.fields.items() if k != "parentUid"}
    record = {
        "id": "R1", "revision": 1, "createdAt": "2026-12-01T00:00:00.000000Z",
        "updatedAt": "2026-12-01T00:00:00.000000Z", "timezone": None, **fields,
        "sync": {"name": "x.ics", "uid": incoming.uid, "props": incoming.props, "kept": [], "revision": 1},
    }  # fmt: skip
    record.update(changes)
    return record


def _todo(record: dict[str, Any], parent: str | None = None) -> Any:
    return next(iter(render("task", record, parent).walk("VTODO")))


@pytest.mark.parametrize(
    ("value", "priority"), [(0, "none"), (1, "urgent"), (2, "high"), (4, "high"), (5, "medium"), (6, "low"), (9, "low")]
)
def test_priority_table(value: int, priority: str) -> None:
    assert priority_of(value) == priority


def test_categories_become_valid_tags_and_offsets_iso_durations() -> None:
    assert tag_of("Business Travel") == "Business-Travel" and tag_of("工作") == "工作" and tag_of("#!!") is None
    assert tags_of(["a", "a", "b c", *[f"t{i}" for i in range(30)]])[:3] == ["a", "b-c", "t0"]
    assert len(tags_of([f"t{i}" for i in range(30)])) == 20
    assert offset_text(timedelta(minutes=-15)) == "-PT15M" and offset_text(timedelta(days=-1, hours=-2)) == "-P1DT2H"
    assert offset_text(timedelta(0)) == "PT0S"


def test_every_row_of_the_table_is_read() -> None:
    incoming = read_vtodo(
        vtodo(
            "u1", "DESCRIPTION:Bring the form", "DUE;TZID=Asia/Shanghai:20261207T090000", "PRIORITY:3",
            "STATUS:COMPLETED", "COMPLETED:20261206T100000Z", "CATEGORIES:work,Business Travel",
            "RRULE:FREQ=WEEKLY;BYDAY=MO", "RELATED-TO;RELTYPE=PARENT:p1",
            "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;RELATED=END:-PT15M\r\nEND:VALARM",
            "BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER;VALUE=DATE-TIME:20261207T000000Z\r\nEND:VALARM",
            summary="Visa",
        ).encode(),
        None,
    )  # fmt: skip
    assert incoming.uid == "u1"
    assert incoming.fields == {
        "title": "Visa", "notes": "Bring the form", "priority": "high", "done": True,
        "completedAt": "2026-12-06T10:00:00.000000Z", "tags": ["work", "Business-Travel"],
        "due": {"type": "datetime", "at": "2026-12-07T09:00:00+08:00"}, "timezone": "Asia/Shanghai",
        "recurrence": "FREQ=WEEKLY;BYDAY=MO", "parentUid": "p1",
        "reminders": [
            {"type": "relative", "offset": "-PT15M"}, {"type": "absolute", "at": "2026-12-07T00:00:00.000000Z"},
        ],
    }  # fmt: skip


def test_dates_floating_times_utc_and_a_start_with_a_duration() -> None:
    assert read_vtodo(vtodo("d", "DUE;VALUE=DATE:20261224").encode(), None).fields["due"] == {
        "type": "date", "date": "2026-12-24"
    }  # fmt: skip
    floating = read_vtodo(vtodo("f", "DUE:20261224T090000").encode(), "Europe/Berlin").fields
    assert floating["due"] == {"type": "datetime", "at": "2026-12-24T09:00:00+01:00"} and "timezone" not in floating
    utc = read_vtodo(vtodo("z", "DUE:20261224T090000Z").encode(), None).fields
    assert utc["due"] == {"type": "datetime", "at": "2026-12-24T09:00:00.000000Z"} and "timezone" not in utc
    span = read_vtodo(vtodo("s", "DTSTART:20261224T090000Z", "DURATION:PT2H").encode(), None).fields
    assert span["due"] == {"type": "datetime", "at": "2026-12-24T11:00:00.000000Z"}


def test_a_start_related_alarm_counts_from_the_due() -> None:
    fields = read_vtodo(
        vtodo("a", "DTSTART:20261224T080000Z", "DUE:20261224T090000Z",
              "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nEND:VALARM").encode(),
        None,
    ).fields  # fmt: skip
    assert fields["reminders"] == [{"type": "relative", "offset": "-PT1H15M"}]
    no_due = read_vtodo(vtodo("n", "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nEND:VALARM").encode(), None)
    assert no_due.fields["reminders"] == []  # left to the client: its alarm comes back from its own lines


def test_what_the_client_wrote_comes_back_and_what_mesq_changed_is_written_by_mesq() -> None:
    ical = vtodo(
        "u2", "PRIORITY:3", "CATEGORIES:Business Travel", "X-APPLE-SORT-ORDER:42", "LOCATION:Office",
        "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;RELATED=END:-PT10M\r\nX-WR-ALARMUID:abc\r\nEND:VALARM",
        "DUE:20261224T090000Z", summary="Trip",
    )  # fmt: skip
    record = _record(ical)
    assert body("task", record) == ical.encode()  # untouched since the client wrote it: its own bytes
    moved = _record(ical, revision=2)  # changed elsewhere since (a MeSQ write): rendered, shadows kept
    todo = _todo(moved)
    assert todo["PRIORITY"] == 3 and [str(c) for c in todo["CATEGORIES"].cats] == ["Business Travel"]
    assert str(todo["X-APPLE-SORT-ORDER"]) == "42" and str(todo["LOCATION"]) == "Office"
    assert "X-WR-ALARMUID" in todo.subcomponents[0]
    changed = _record(ical, revision=2, priority="low", tags=["home"], reminders=[])
    todo = _todo(changed)
    assert todo["PRIORITY"] == 9 and [str(c) for c in todo["CATEGORIES"].cats] == ["home"]
    assert todo.subcomponents == [] and str(todo["X-APPLE-SORT-ORDER"]) == "42"


def test_a_recurring_task_moved_on_gets_its_start_moved_as_far() -> None:
    ical = vtodo("r", "DTSTART:20261207T080000Z", "DUE:20261207T090000Z", "RRULE:FREQ=WEEKLY")
    advanced = _record(ical, revision=2, due={"type": "datetime", "at": "2026-12-14T09:00:00.000000Z"})
    todo = _todo(advanced)
    assert todo.decoded("DUE").isoformat() == "2026-12-14T09:00:00+00:00"
    assert todo.decoded("DTSTART").isoformat() == "2026-12-14T08:00:00+00:00"


def test_overrides_and_timezones_survive_a_render() -> None:
    ical = vtodo("o", "DUE;TZID=Europe/Berlin:20261207T090000", "RRULE:FREQ=DAILY").replace(
        "END:VCALENDAR",
        "BEGIN:VTODO\r\nUID:o\r\nRECURRENCE-ID;TZID=Europe/Berlin:20261208T090000\r\nSUMMARY:moved once\r\n"
        "DTSTAMP:20261201T000000Z\r\nEND:VTODO\r\nEND:VCALENDAR",
    )
    calendar = Calendar.from_ical(render("task", _record(ical, revision=2)).to_ical())
    assert [c.name for c in calendar.subcomponents].count("VTIMEZONE") == 1
    assert [str(t.get("SUMMARY")) for t in calendar.walk("VTODO")] == ["A task", "moved once"]


def test_the_todo_domain_never_imports_icalendar_or_an_xml_parser() -> None:
    """The mapping is the CalDAV edge's; the domain stores what the edge hands it."""
    for path in TODOS.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            assert not [n for n in names if n.split(".")[0] in ("icalendar", "defusedxml", "lxml", "xml")], path


def test_a_long_summary_is_cut_between_characters_a_reader_sees() -> None:
    """A SUMMARY past the title cap was cut by code points, inside a joined emoji (👩‍👩‍👧 split
    after its ZWJ leaves a dangling joiner and half a family): the cut falls at a grapheme
    boundary, at most the cap, never splitting a ZWJ sequence or a flag."""
    from mesq.todos.model import TITLE_MAX

    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # 5 code points, one grapheme
    flag = "\U0001f1e8\U0001f1f3"  # 2 code points
    for filler in range(TITLE_MAX - 6, TITLE_MAX):  # the cap falls at every point inside the emoji
        for joined in (family, flag):
            summary = "a" * filler + joined + "b" * 10
            title = read_vtodo(vtodo("cut", summary=summary).encode(), "UTC").fields["title"]
            whole = "a" * filler + joined
            expected = (whole + "b" * 10)[:TITLE_MAX] if len(whole) <= TITLE_MAX else "a" * filler
            assert title == expected, (filler, title[-8:])


def test_a_put_and_a_query_read_exdates_by_one_walk() -> None:
    """Every EXDATE value of every line, as `recurrence.Exclusions` reads them: a date, a time on
    its own clock, a floating one in the zone given (the due's for a PUT, the calendar's for a
    query); a PUT refuses a TZID no zone and no VTIMEZONE names, a query reads it as floating."""
    from zoneinfo import ZoneInfo

    from mesq.dav.errors import DavError
    from mesq.dav.mapping import exdate_values
    from mesq.todos.sync.links import EXCLUDED_DATES

    lines = (
        "DUE;TZID=Europe/Berlin:20261210T090000", "RRULE:FREQ=DAILY", "EXDATE;VALUE=DATE:20261211",
        "EXDATE;TZID=Europe/Berlin:20261212T090000,20261213T090000", "EXDATE:20261214T080000Z",
        "EXDATE:20261215T090000",
    )  # fmt: skip
    todo = Calendar.from_ical(vtodo("x", *lines)).walk("VTODO")[0]
    assert exdate_values(todo, ZoneInfo("Asia/Shanghai")) == [
        "2026-12-11", "2026-12-12T09:00:00+01:00", "2026-12-13T09:00:00+01:00", "2026-12-14T08:00:00+00:00",
        "2026-12-15T09:00:00+08:00",
    ]  # fmt: skip
    put = read_vtodo(vtodo("x", *lines).encode(), "Asia/Shanghai").props[EXCLUDED_DATES]
    assert put[-1] == "2026-12-15T09:00:00+01:00" and put[:-1] == exdate_values(todo, ZoneInfo("UTC"))[:-1]
    unknown = vtodo("y", "DUE;VALUE=DATE:20261210", "RRULE:FREQ=DAILY", "EXDATE;TZID=Mars/Olympus:20261211T090000")
    with pytest.raises(DavError) as refused:
        read_vtodo(unknown.encode(), None)
    assert refused.value.status == 400 and "EXDATE: TZID 'Mars/Olympus' is not a known time zone" in str(refused.value)
    assert exdate_values(Calendar.from_ical(unknown).walk("VTODO")[0], ZoneInfo("UTC")) == ["2026-12-11T09:00:00+00:00"]
