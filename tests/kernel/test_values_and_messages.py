"""The boundary checks of `mesq.kernel.values`, the JSON body parser's hostile cases and the quoting
of bad values in messages (`mesq.kernel.messages`, `mesq.application.validation`)."""

from __future__ import annotations

import pytest

from mesq.application.validation import validate_arguments
from mesq.asgi.body import parse_json_object
from mesq.kernel.errors import ValidationError
from mesq.kernel.messages import field_path, quoted
from mesq.kernel.spec import load_spec
from mesq.kernel.values import MAX_DEPTH, checked_values


def _message(call: object) -> str:
    assert callable(call)
    with pytest.raises(ValidationError) as caught:
        call()
    return caught.value.message


def test_integral_floats_become_ints_and_others_stay() -> None:
    checked = checked_values({"limit": 1.0, "index": 0.0, "ratio": 0.5, "n": -2e1, "nested": [{"x": 3.0}]})
    assert checked == {"limit": 1, "index": 0, "ratio": 0.5, "n": -20, "nested": [{"x": 3}]}
    assert type(checked["limit"]) is int and type(checked["nested"][0]["x"]) is int


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"content": "a\ud800b"}, "content: contains a lone surrogate (U+D800) at character 1"),
        ({"tags": ["ok", "\udfff"]}, "tags[1]: contains a lone surrogate (U+DFFF)"),
        ({"due": {"\udc00": 1}}, "due: a field name contains a lone surrogate"),
        ({"expectedRevision": 2**53}, "expectedRevision: out of range"),
        ({"limit": 1e300}, "limit: out of range"),
        ({"limit": float("inf")}, "limit: must be a finite number"),
        ({"limit": float("nan")}, "limit: must be a finite number"),
    ],
)
def test_values_no_part_of_mesq_could_handle_name_their_field(arguments: dict[str, object], expected: str) -> None:
    assert _message(lambda: checked_values(arguments)).startswith(expected)


def test_nesting_is_bounded_without_recursion() -> None:
    value: list[object] = []
    for _ in range(100_000):  # far past Python's recursion limit
        value = [value]
    message = _message(lambda: checked_values({"content": value}))
    assert message.startswith("content[0]") and f"nested deeper than {MAX_DEPTH} levels" in message
    assert checked_values({"a": _nest(MAX_DEPTH - 1)}) == {"a": _nest(MAX_DEPTH - 1)}


def _nest(levels: int) -> list[object]:
    value: list[object] = []
    for _ in range(levels - 1):
        value = [value]
    return value


def test_body_nested_past_the_parsers_recursion_names_the_field() -> None:
    raw = b'{"title": "x", "due": {"a": [' + b"[" * 5000 + b"]" * 5000 + b"]}}"
    message = _message(lambda: parse_json_object(raw))
    assert message.startswith("due.a[0][0]") and "nested deeper than 32 levels" in message
    # The same path as the walk gives for a body the parser could read.
    shallow = b'{"title": "x", "due": {"a": [' + b"[" * 40 + b"]" * 40 + b"]}}"
    assert _message(lambda: checked_values(parse_json_object(shallow))) == message


def test_body_with_a_10000_digit_integer_is_out_of_range_by_field() -> None:
    arguments = parse_json_object(b'{"limit": -' + b"9" * 10_000 + b"}")
    assert _message(lambda: checked_values(arguments)).startswith("limit: out of range")
    assert parse_json_object(b'{"limit": 12345678901234567890}') == {"limit": 12345678901234567890}


def test_messages_quote_a_short_prefix_of_a_bad_value() -> None:
    operation = load_spec().operation("get_memo")
    message = _message(lambda: validate_arguments(operation, {"id": "x" * 1_000_000}))
    assert message == f"id: '{'x' * 40}…' is too long (1,000,000 characters, at most 64)"
    assert len(message) < 120
    batch = load_spec().operation("batch_get_memos")
    unknown = _message(
        lambda: validate_arguments(batch, {"ids": ["a"], **{f"k{i}" + "y" * 10_000: 1 for i in range(50)}})
    )
    assert "and 45 more" in unknown and len(unknown) < 400


def test_a_custom_message_names_its_field_once() -> None:
    operation = load_spec().operation("create_todo_task")
    assert _message(lambda: validate_arguments(operation, {"title": "x" * 501})) == "title: at most 500 characters"


def test_no_custom_message_repeats_a_field_name() -> None:
    texts: list[str] = []
    pending: list[object] = [load_spec().document]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            custom = node.get("x-error-message")
            if isinstance(custom, dict):
                texts += [str(text) for text in custom.values()]
            pending += list(node.values())
        elif isinstance(node, list):
            pending += node
    assert texts
    for text in texts:
        head = text.split(" ", 1)[0]
        assert not head.endswith(":"), f"{text!r}: the path is already put in front of every message"


def test_quoting_is_safe_text() -> None:
    assert quoted("a\ud800\x00") == "'a\\ud800\\x00'"
    assert quoted(10**5000).startswith("an integer of about 5001 digits")
    assert field_path(["updates", 2, "title"]) == "updates[2].title"
    assert field_path(["due", "x" * 1000]) == f"due[{quoted('x' * 1000)}]"


def _schemas_with_a_pattern() -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    pending: list[object] = [load_spec().document]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                found.append(node)
            pending += [value for key, value in node.items() if key != "x-error-message"]
        elif isinstance(node, list):
            pending += node
    return found


def test_every_pattern_says_in_words_what_it_allows() -> None:
    schemas = _schemas_with_a_pattern()
    assert len(schemas) >= 8  # ids, slug, color, time zone, tag, date, duration, RRULE, content source
    for schema in schemas:
        custom = schema.get("x-error-message")
        assert isinstance(custom, dict) and isinstance(custom.get("pattern"), str), schema["pattern"]


@pytest.mark.parametrize(
    ("tool", "arguments", "words"),
    [
        ("get_memo", {"id": "a b"}, "only letters, digits, '_' and '-'"),
        ("create_todo_task", {"title": "t", "timezone": "Asia Shanghai"}, "IANA time zone name"),
        ("create_todo_space", {"name": "S", "slug": "-Bad-"}, "lowercase letters, digits and '-'"),
        ("create_memo", {"content": "x", "contentSource": "My App"}, "a lowercase word"),
    ],
)
def test_a_pattern_failure_names_the_allowed_characters_never_the_regex(tool, arguments, words) -> None:
    spec = load_spec()
    message = _message(lambda: validate_arguments(spec.operation(tool), arguments))
    assert words in message, message
    assert not any(sign in message for sign in ("^", "$", "(?", "[A-", "\\")), message


def test_a_pattern_without_words_gets_a_generic_sentence_not_the_regex() -> None:
    from jsonschema import Draft202012Validator

    from mesq.application.validation import describe

    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"}}}
    error = next(Draft202012Validator(schema).iter_errors({"code": "abc"}))
    message = str(describe(error, schema))
    assert message == "code: 'abc' has characters or a form this field does not allow", message
