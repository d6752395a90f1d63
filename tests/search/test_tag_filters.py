"""Every tag filter is one rule from one place: the `TagName` schema (kernel/tags.py's
`TAG_NAME_PATTERN`). A tag is written without its sign; `#周末` (or its fullwidth U+FF03) in a filter is refused with
the message that says so (list_memos, search_memos, query_todos and search_ai_memos alike), never
read as a tag no memo carries (an empty answer that looks like "nothing found")."""

from __future__ import annotations

from typing import Any

import pytest

from mesq.kernel.spec import load_spec
from mesq.kernel.tags import TAG_NAME_PATTERN


def _tag_fields(schema: Any, defs: dict[str, Any], path: str = "") -> list[tuple[str, Any]]:
    """(path, items schema) of every array property named `tags` in an input schema."""
    found: list[tuple[str, Any]] = []
    if isinstance(schema, dict):
        for name, value in schema.get("properties", {}).items():
            if name == "tags" and isinstance(value, dict) and value.get("type") == "array":
                found.append((f"{path}.{name}", value.get("items")))
            found += _tag_fields(value, defs, f"{path}.{name}")
        for key in ("items", "allOf", "anyOf", "oneOf"):
            for part in schema.get(key, []) if isinstance(schema.get(key), list) else [schema.get(key)]:
                found += _tag_fields(part, defs, path)
    return found


def _resolve(schema: Any, defs: dict[str, Any]) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def test_every_read_operations_tag_filter_is_the_tag_name_schema() -> None:
    spec = load_spec()
    filters = []
    for operation in spec.operations.values():
        if operation.is_write:
            continue
        defs = operation.input_schema.get("$defs", {})
        for path, items in _tag_fields(operation.input_schema, defs):
            filters.append(operation.operation_id)
            assert _resolve(items, defs).get("pattern") == TAG_NAME_PATTERN, (operation.operation_id, path)
    assert {"list_memos", "search_memos", "search_ai_memos", "query_todos"} <= set(filters)


@pytest.fixture
def alice(make_account):
    return make_account(scopes="memo:read,memo:write")


@pytest.mark.parametrize("tag", ["#周末", "＃周末", "周末/", "周 末"])
@pytest.mark.parametrize(
    ("method", "path", "arguments"),
    [
        ("POST", "/api/toolkit/memo/ai-search", lambda tag: {"json": {"query": "爬山", "tags": [tag]}}),
        ("GET", "/api/toolkit/memo", lambda tag: {"params": {"tags": tag}}),
        ("GET", "/api/toolkit/memo/search", lambda tag: {"params": {"query": "爬山", "tags": tag}}),
    ],
)
def test_a_tag_filter_with_its_sign_is_refused_the_same_everywhere(client, alice, method, path, arguments, tag):
    response = client.request(method, path, headers=alice.headers, **arguments(tag))
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and "project/x, not #project/x" in error["message"], error


def test_the_tag_filter_without_its_sign_finds_both_signs(client, alice):
    for content in ("＃周末 去爬山", "#周末 爬山看日出", "周三 爬山 #工作"):
        assert client.post("/api/toolkit/memo", headers=alice.headers, json={"content": content}).status_code == 201
    answer = client.post(
        "/api/toolkit/memo/ai-search", headers=alice.headers, json={"query": "爬山", "tags": ["周末"]}
    ).json()["data"]
    assert len(answer["items"]) + len(answer.get("closestMatches", [])) == 2, answer


def test_a_book_title_tag_filters_and_a_stray_title_mark_is_refused_in_its_words(client, alice):
    for content in ("#读书/《三体》 很好看", "读了《三体》#读书", "#读书/《球状闪电》"):
        assert client.post("/api/toolkit/memo", headers=alice.headers, json={"content": content}).status_code == 201
    listed = client.get("/api/toolkit/memo", headers=alice.headers, params={"tags": "读书/《三体》"})
    assert listed.status_code == 200, listed.text
    assert [memo["content"] for memo in listed.json()["data"]["timelineItems"]] == ["#读书/《三体》 很好看"]
    parent = client.get("/api/toolkit/memo", headers=alice.headers, params={"tags": "读书"}).json()["data"]
    assert len(parent["timelineItems"]) == 3, parent
    refused = client.get("/api/toolkit/memo", headers=alice.headers, params={"tags": "读书《三体》"})
    assert refused.status_code == 400 and "读书/《三体》" in refused.json()["error"]["message"], refused.text
