"""JSON request bodies, by the rules of docs/contract.md §3: at most 1 MiB of UTF-8, media type
`application/json` or `*/*+json`, a top-level object, no duplicate keys, no NaN/Infinity.
Every violation is a VALIDATION_ERROR that names it; nothing is read past the limit.

Parsing never fails on what `values.checked_values` judges later with the field's name: an
integer literal too long for Python's `int()` (4,300 digits) stands in as a value out of range,
and nesting too deep for the parser's recursion is located without recursion."""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.requests import Request

from ..kernel.errors import ValidationError
from ..kernel.json_problems import json_problem
from ..kernel.messages import quoted
from ..kernel.values import MAX_DEPTH, MAX_SAFE_INTEGER, depth_error

MAX_JSON_BODY_BYTES = 1024 * 1024


#: Form bodies (OAuth token/revoke requests, the browser pages' forms) are small.
MAX_FORM_BYTES = 64 * 1024
FORM_MEDIA_TYPE = "application/x-www-form-urlencoded"


def media_type(content_type: str | None) -> str:
    """`type/subtype` of a Content-Type header, lower-cased, without parameters ("" when absent)."""
    return (content_type or "").partition(";")[0].strip().lower()


def part_header_too_long(error: BaseException) -> bool:
    """Whether the multipart parser refused a part header over its 4 KiB (in practice a file name
    of thousands of characters). Starlette says "Invalid multipart data." for every fault
    python-multipart finds; the reason is on the exception chain."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if "maximum header size exceeded" in str(cause).lower():
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def multipart_problem(error: BaseException) -> str:
    """What the multipart parser refused, for a REST VALIDATION_ERROR (English): an over-long part
    header is said as the file name it is, with the name's own limit, instead of a riddle."""
    if part_header_too_long(error):
        return (
            "a part's header is longer than 4 KiB: is the file name thousands of characters long? "
            "A file name may have at most 255 characters; shorten it"
        )
    return str(getattr(error, "detail", "") or error)


def accepts_html(accept: str | None) -> bool:
    """A browser navigating (its Accept names text/html), not an API client: it gets pages."""
    return any(media_type(part) == "text/html" for part in (accept or "").split(","))


def is_json_media_type(content_type: str | None) -> bool:
    if not content_type:
        return False
    media_type, _, params = content_type.partition(";")
    media_type = media_type.strip().lower()
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    type_, _, subtype = media_type.partition("/")
    return bool(type_) and (media_type == "application/json" or subtype.endswith("+json"))


async def read_limited(request: Request, limit: int) -> bytes | None:
    """The body, or None as soon as it is known to exceed `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValidationError("request body: duplicate field %(key)s", key=quoted(key))
        result[key] = value
    return result


def _no_constants(name: str) -> Any:
    raise ValidationError("request body: %(name)s is not valid JSON", name=name)


#: Longer literals are out of range whatever their value (MAX_SAFE_INTEGER has 16 digits).
_INTEGER_DIGITS = 20
_OUT_OF_RANGE = MAX_SAFE_INTEGER + 1


def _integer(literal: str) -> int:
    if len(literal.lstrip("-")) <= _INTEGER_DIGITS:
        return int(literal)
    return -_OUT_OF_RANGE if literal.startswith("-") else _OUT_OF_RANGE


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]')


def _too_deep(text: str) -> list[str | int]:
    """The path of the first container nested deeper than MAX_DEPTH, found by a flat scan of the
    strings and punctuation (only run when the parser ran out of recursion)."""
    frames: list[list[Any]] = []  # per open container: [is_object, current key or index]
    last_string = ""
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            if len(frames) >= MAX_DEPTH:
                break
            frames.append([token == "{", "" if token == "{" else 0])
        elif token in "}]":
            if frames:
                frames.pop()
        elif token == ",":
            if frames and not frames[-1][0]:
                frames[-1][1] += 1
        elif token == ":":
            if frames:
                frames[-1][1] = json.loads(last_string)
        else:
            last_string = token
    return [frame[1] for frame in frames]


def parse_json_object(raw: bytes) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError("request body is not valid UTF-8 (byte %(start)s)", start=exc.start) from None
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants, parse_int=_integer)
    except RecursionError:
        raise depth_error(_too_deep(text)) from None
    except json.JSONDecodeError as exc:
        raise ValidationError(
            "request body is not valid JSON: %(msg)s at line %(lineno)s column %(colno)s",
            msg=json_problem(exc),  # MeSQ's words, not json's
            lineno=exc.lineno,
            colno=exc.colno,
        ) from None
    if not isinstance(value, dict):
        raise ValidationError("request body must be a JSON object")
    return value


async def read_json_object(request: Request) -> dict[str, Any]:
    if not is_json_media_type(request.headers.get("content-type")):
        raise ValidationError(
            "Content-Type must be application/json (or a */*+json type) with UTF-8; got %(value)s",
            value=quoted(request.headers.get("content-type") or "none"),
        )
    raw = await read_limited(request, MAX_JSON_BODY_BYTES)
    if raw is None:
        raise ValidationError(
            "request body exceeds %(max_json_body_bytes)s bytes (1 MiB)", max_json_body_bytes=MAX_JSON_BODY_BYTES
        )
    return parse_json_object(raw)
