"""Argument validation's messages are catalog templates (sweep F8): every JSON Schema keyword a
call can fail on says its message in English for REST and MCP (unchanged words) and in the
reader's language on a page, the schema's own `x-error-message` texts included."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from mesq.application.validation import describe
from mesq.kernel.i18n import ForPrograms, Text, Translator, translations

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 5},
        "code": {"type": "string", "minLength": 3},
        "custom": {"type": "string", "maxLength": 2, "x-error-message": {"maxLength": "at most 500 characters"}},
        "zone": {"type": "string", "pattern": "^[A-Z]+$"},
        "kind": {"enum": ["a", "b"]},
        "count": {"type": "integer", "minimum": 1, "maximum": 9},
        "above": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
        "fixed": {"const": "x"},
        "tags": {"type": "array", "minItems": 1, "maxItems": 2, "uniqueItems": True},
        "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "never": {"not": {"type": "string"}},
        "a": {"type": "string"},
        "b": {"type": "string"},
    },
    "required": ["title"],
    "dependentRequired": {"a": ["b"]},
}
CASES = [
    ({"title": ""}, "title: must not be empty"),
    ({"title": "abcdef"}, "title: 'abcdef' is too long (6 characters, at most 5)"),
    ({"title": "t", "code": "ab"}, "code: 'ab' is too short (at least 3 characters)"),
    ({"title": "t", "custom": "abc"}, "custom: at most 500 characters"),
    ({"title": "t", "zone": "x"}, "zone: 'x' has characters or a form this field does not allow"),
    ({"title": "t", "kind": "c"}, "kind: 'c' is not one of the allowed values; use one of 'a', 'b'"),
    ({"title": "t", "count": "1"}, "count: '1' is not of type 'integer'"),
    ({"title": "t", "count": 0}, "count: 0 is less than the minimum of 1"),
    ({"title": "t", "count": 10}, "count: 10 is greater than the maximum of 9"),
    ({"title": "t", "above": 0}, "above: 0 must be greater than 0"),
    ({"title": "t", "above": 10}, "above: 10 must be less than 10"),
    ({"title": "t", "fixed": "y"}, "fixed: 'y' is not 'x'"),
    ({"title": "t", "tags": []}, "tags: has 0 items, at least 1 needed"),
    ({"title": "t", "tags": [1, 2, 3]}, "tags: has 3 items, at most 2 allowed"),
    ({"title": "t", "tags": [1, 1]}, "tags: has repeated items; each must be distinct"),
    ({"title": "t", "never": "s"}, "never: 's' is not allowed here"),
    ({"title": "t", "either": 5}, "either: 5 is none of the accepted forms; write it as ... or null"),
    ({}, "'title' is required"),
    ({"title": "t", "titel": "x"}, "unknown field 'titel'; did you mean 'title'?"),
    ({"title": "t", "a": "x"}, "'b' is a dependency of 'a'"),
]


def _error(instance: dict[str, Any]) -> Any:
    error = best_match(Draft202012Validator(SCHEMA).iter_errors(instance))
    assert error is not None
    return error


def _templates(text: Text) -> list[str]:
    found = [] if isinstance(text, ForPrograms) else [text.template]
    for value in text.params.values():
        if isinstance(value, Text):
            found += _templates(value)
    return found


@pytest.mark.parametrize(("instance", "english"), CASES, ids=[english for _, english in CASES])
def test_each_keyword_is_english_for_clients_and_a_catalog_template_for_pages(
    instance: dict[str, Any], english: str
) -> None:
    said = describe(_error(instance), SCHEMA)
    assert isinstance(said, Text) and str(said) == english
    zh = translations("zh")
    untranslated = [template for template in _templates(said) if zh.gettext(template) == template]
    assert untranslated == [], "translate these in the zh catalog (infra/messages.py)"
    assert Translator("zh").text(said) != english


def test_a_type_is_said_in_words() -> None:
    said = describe(_error({"title": 5}), SCHEMA)
    assert str(said) == "title: 5 is not of type 'string'"
    assert Translator("zh").text(said) == "title：5 的类型不对，应为文字"
