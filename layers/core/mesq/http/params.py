"""Path, query and header values -> typed arguments, guided by each parameter's schema.

Query strings carry text only, so integers and booleans are parsed here; arrays accept
`tags=a,b` and `tags=a&tags=b`. Unknown query parameters are rejected, like unknown body fields.
A header value still written as an example's placeholder (`Idempotency-Key: <unique-key>`) is
refused with words saying so.
An integer may be written `3.0`, as a JSON body or an MCP call may write it (docs/decisions.md).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request

from ..kernel.errors import ValidationError
from ..kernel.messages import quoted
from ..kernel.spec import Operation, Parameter

_INTEGER = re.compile(r"(-?[0-9]{1,18})(?:\.0+)?")


def _scalar(param: Parameter, schema: dict[str, Any], raw: str) -> Any:
    kind = schema.get("type")
    if kind == "integer":
        match = _INTEGER.fullmatch(raw)
        if match is None:
            raise ValidationError(f"{param.argument}: {quoted(raw)} is not an integer")
        return int(match.group(1))
    if kind == "boolean":
        if raw not in ("true", "false"):
            raise ValidationError(f"{param.argument}: {quoted(raw)} is not true or false")
        return raw == "true"
    return raw


#: A value copied from an example without filling it in: `<unique-key>`, `<your key>`.
_PLACEHOLDER = re.compile(r"\s*<[^<>]*>\s*")


def _utf8(value: str) -> str:
    """A header value as the characters its client wrote: the server hands header bytes over as
    Latin-1, but a client that sends non-ASCII (a Shortcut's date as text, 2026年12月6日) sends
    UTF-8; bytes that are not UTF-8 stay as they came."""
    if value.isascii():
        return value
    try:
        return value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return value


def _header(param: Parameter, value: str) -> str:
    """A header's value; one still in an example's angle brackets is refused rather than used (a
    literal `<unique-key>` would make every later create replay the first, or conflict)."""
    value = _utf8(value)
    if _PLACEHOLDER.fullmatch(value):
        raise ValidationError(
            f"{param.name}: {quoted(value)} is a placeholder from an example, not a value: send one of your own, "
            "fresh for each new record (a UUID: `uuidgen`, or python3 -c 'import uuid; print(uuid.uuid4())')"
        )
    return value


def _array_form(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The array a parameter takes: its schema, or the array member of a union (`priority`: one
    value or several), which a comma list or a repeated parameter selects."""
    if schema.get("type") == "array":
        return schema
    members = schema.get("anyOf") or schema.get("oneOf") or []
    return next((m for m in members if isinstance(m, dict) and m.get("type") == "array"), None)


def _check_query_utf8(request: Request) -> None:
    """A query string whose percent-escapes are not UTF-8 (`?query=%FF`) is refused: the server
    would read it as U+FFFD and answer a search for a character nobody typed."""
    raw = request.scope.get("query_string") or b""
    if b"%" not in raw:
        return
    try:
        parse_qsl(raw.decode("latin-1"), keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise ValidationError(
            "the query string is not UTF-8: percent-encode each parameter's UTF-8 bytes (%E4%B8%AD for 中)"
        ) from None


def collect_arguments(operation: Operation, request: Request) -> dict[str, Any]:
    _check_query_utf8(request)
    arguments: dict[str, Any] = {}
    known_query = {p.name for p in operation.parameters if p.location == "query"}
    unknown = sorted(set(request.query_params.keys()) - known_query)
    if unknown:
        raise ValidationError(
            f"unknown query parameter{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}"
        )
    for param in operation.parameters:
        if param.location == "path":
            arguments[param.argument] = request.path_params[param.name]
        elif param.location == "header":
            value = request.headers.get(param.name)
            if value is not None:
                arguments[param.argument] = _header(param, value)
        else:
            values = request.query_params.getlist(param.name)
            if not values:
                continue
            listed = _array_form(param.schema)
            if listed is not None and (len(values) > 1 or "," in values[0] or param.schema.get("type") == "array"):
                item_schema = listed.get("items", {})
                arguments[param.argument] = [
                    _scalar(param, item_schema, part) for value in values for part in value.split(",") if part
                ]
            elif len(values) > 1:
                raise ValidationError(f"{param.argument}: given more than once")
            else:
                arguments[param.argument] = _scalar(param, param.schema, values[0])
    return arguments
