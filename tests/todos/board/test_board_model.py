"""Unit tests of the todo model: fractional positions, field validation, slugs and shapes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mesq.kernel.errors import ValidationError
from mesq.todos import model


@given(st.lists(st.integers(min_value=0, max_value=60), min_size=1, max_size=60))
def test_inserting_at_indexes_yields_that_order(indexes):
    """Insert records one by one at random indexes; sorting by position gives the list order."""
    expected: list[int] = []
    positions: dict[int, str] = {}
    for number, index in enumerate(indexes):
        siblings = [positions[n] for n in expected]
        positions[number] = model.position_for_index(siblings, index)
        expected.insert(min(index, len(expected)), number)
    assert sorted(expected, key=lambda n: positions[n]) == expected
    assert len(set(positions.values())) == len(positions)


def test_position_ties_from_concurrent_inserts_still_give_room():
    assert model.position_for_index(["a0", "a0"], 1) > "a0"
    assert model.position_for_index(["a0", "a0", "a1"], 1) < "a1"


def test_a_key_after_a_tie_never_fails():
    """Duplicating a task whose next task shares its key (a tie from concurrent inserts) asked
    for a key between "a0" and "a0": fractional_indexing refused (a 500 for the duplicate)."""
    assert model.position_between("a0", "a0") > "a0"
    assert model.position_between("a1", "a0") > "a1"
    assert model.positions_between(None, None, 3) == sorted(model.positions_between(None, None, 3))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"type": "date", "date": "2026-10-07"}, {"type": "date", "date": "2026-10-07"}),
        (
            {"type": "datetime", "at": "2026-10-07T09:00:00+08:00"},
            {"type": "datetime", "at": "2026-10-07T09:00:00+08:00"},
        ),
        ({"type": "datetime", "at": "2026-10-07T01:00:00.5Z"}, {"type": "datetime", "at": "2026-10-07T01:00:00.5Z"}),
        (None, None),
    ],
)
def test_due_is_kept_exactly_as_given(value, expected):
    assert model.check_due(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        {"type": "date", "date": "2026-13-01"},
        {"type": "date", "date": "26-10-07"},
        {"type": "datetime", "at": "2026-10-07T09:00:00"},
        {"type": "datetime", "at": "2026-10-07T09:00:00+16:00"},
        {"type": "week", "date": "2026-10-07"},
    ],
)
def test_bad_due_is_a_validation_error(value):
    with pytest.raises(ValidationError, match="due"):
        model.check_due(value)


def test_field_checks():
    assert model.check_title("  hi  ") == "hi"
    assert model.check_tags(["a", "b", "a"]) == ["a", "b"]
    assert model.check_timezone("Asia/Shanghai") == "Asia/Shanghai"
    for bad in ("Asia/Nowhere", "../etc/passwd", ""):
        with pytest.raises(ValidationError, match="IANA"):
            model.check_timezone(bad)
    with pytest.raises(ValidationError, match="500"):
        model.check_title("x" * 501)
    with pytest.raises(ValidationError, match="50000"):
        model.check_notes("x" * 50_001)
    with pytest.raises(ValidationError, match="at most 20"):
        model.check_tags([f"t{i}" for i in range(21)])


@pytest.mark.parametrize(
    ("name", "slug"),
    [("Work 2026", "work-2026"), ("  Hello, World!  ", "hello-world"), ("工作", "space"), ("a" * 200, "a" * 60)],
)
def test_slugify(name, slug):
    assert model.slugify(name) == slug
    assert model.check_slug(slug) == slug


def test_inbox_subtask_shape_has_parent_revision_and_no_own_revision():
    parent = {"id": "p", "revision": 7, "subtasks": [{"id": "s", "title": "x", "isDone": False, "position": "a0"}]}
    shape = model.public_inbox_item({**parent, "title": "p"})["subtasks"][0]
    assert shape == {
        "id": "s", "title": "x", "notes": "", "isDone": False, "position": "a0", "attachments": [],
        "parentItemId": "p", "parentRevision": 7,
    }  # fmt: skip


def test_the_model_limits_are_the_spec_limits_and_a_missing_one_fails_fast():
    from mesq.kernel.spec import SpecError, load_spec

    schemas = load_spec().document["components"]["schemas"]
    assert schemas["TodoTitle"]["maxLength"] == model.TITLE_MAX
    assert schemas["TodoNotes"]["maxLength"] == model.NOTES_MAX
    assert schemas["TodoName"]["maxLength"] == model.NAME_MAX
    assert schemas["TodoSlug"]["maxLength"] == model.SLUG_MAX
    assert schemas["TodoTagList"]["maxItems"] == model.MAX_TAGS_PER_RECORD
    assert list(model.PRIORITIES) == schemas["TodoPriority"]["enum"]
    with pytest.raises(SpecError, match=r"TodoTitle\.minimum is missing"):
        model._schema_value("TodoTitle", "minimum")
