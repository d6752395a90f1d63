"""The one rule each for `?offset=`, a form's revision and htmx (web/kit/request_values.py); every page
that pages a list, carries a revision or answers htmx uses these, so they are tested here once."""

from __future__ import annotations

import pytest
from starlette.datastructures import Headers, QueryParams
from starlette.requests import Request

from mesq.kernel.errors import ValidationError
from mesq.web.kit.forms import Fields
from mesq.web.kit.request_values import MAX_OFFSET, form_revision, is_htmx, query_offset


@pytest.mark.parametrize(("query", "offset"), [("", 0), ("offset=", 0), ("offset=0", 0), ("offset=50", 50),
                                               (f"offset={MAX_OFFSET}", MAX_OFFSET)])  # fmt: skip
def test_an_offset_is_a_whole_number_up_to_the_limit(query: str, offset: int) -> None:
    assert query_offset(QueryParams(query)) == offset


# "٣" (Arabic-Indic 3): str.isdigit and int() accept it; the rule does not.
@pytest.mark.parametrize("raw", ["-1", "abc", "1e3", "1.5", " 1", str(MAX_OFFSET + 1), "9" * 40, "٣"])
def test_any_other_offset_is_a_clear_400(raw: str) -> None:
    with pytest.raises(ValidationError, match=r"offset: a whole number from 0 to 100000"):
        query_offset(QueryParams({"offset": raw}))


@pytest.mark.parametrize(("value", "revision"), [("1", 1), ("42", 42), (7, 7), ("9" * 15, int("9" * 15))])
def test_a_revision_is_a_positive_whole_number(value: object, revision: int) -> None:
    assert form_revision(Fields({"revision": [value]})) == revision


@pytest.mark.parametrize("value", [None, "", "0", "-3", "x", "1.0", "9" * 16, 0, True, 2.0, "١"])
def test_any_other_revision_is_a_clear_400(value: object) -> None:
    fields = Fields({} if value is None else {"revision": [value]})
    with pytest.raises(ValidationError, match="expectedRevision: the form's revision must be a positive integer"):
        form_revision(fields)


def _request(headers: dict[str, str]) -> Request:
    return Request({"type": "http", "method": "GET", "path": "/", "headers": Headers(headers).raw})


def test_htmx_is_hx_request_true_but_not_a_history_restore() -> None:
    assert is_htmx(_request({"HX-Request": "true"}))
    assert not is_htmx(_request({}))
    assert not is_htmx(_request({"HX-Request": "false"}))
    assert not is_htmx(_request({"HX-Request": "true", "HX-History-Restore-Request": "true"}))
