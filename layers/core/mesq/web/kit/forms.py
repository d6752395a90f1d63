"""Request bodies of the browser pages: urlencoded forms (and JSON for the consent API).

Parsed here with the standard library and a size cap rather than Starlette's multipart parser:
a page form is `application/x-www-form-urlencoded`. The one exception is a page that takes a file
(Settings → Import, `endpoint(..., upload_bytes=N)`): `read_upload` reads `multipart/form-data`
with Starlette's parser over a stream cut at N bytes, the file spooled to a temporary file (on
disk past 1 MiB), one file and a few small fields at most.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from aws_lambda_powertools import Logger
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from ...asgi.body import (
    FORM_MEDIA_TYPE,
    MAX_FORM_BYTES,
    is_json_media_type,
    media_type,
    part_header_too_long,
    read_json_object,
    read_limited,
)
from ...kernel.errors import PayloadTooLarge, ValidationError

logger = Logger(child=True)

MAX_FORM_FIELDS = 100
UPLOAD_MEDIA_TYPE = "multipart/form-data"
#: An upload form's fields besides its file (csrf, a choice or two), and each one's size.
MAX_UPLOAD_FIELDS, MAX_UPLOAD_FIELD_BYTES = 10, 4096


@dataclass(frozen=True)
class Fields:
    """Submitted fields; a name may repeat (checkboxes), JSON values keep their type."""

    values: Mapping[str, list[Any]] = field(default_factory=dict)

    def get(self, name: str) -> Any:
        found = self.values.get(name)
        return found[0] if found else None

    def text(self, name: str) -> str:
        value = self.get(name)
        return value if isinstance(value, str) else ""

    def all(self, name: str) -> list[Any]:
        return list(self.values.get(name, []))


#: A form carrying one long text (a memo's content, a task's notes: 50,000 characters in the API),
#: percent-encoded (a CJK character is 9 bytes), plus its other fields.
LONG_TEXT_FORM_BYTES = 1024 * 1024


async def read_form(request: Request, limit: int = MAX_FORM_BYTES) -> Fields:
    raw = await read_limited(request, limit)
    if raw is None:
        raise ValidationError("the form exceeds %(limit)s bytes", limit=limit)
    if not raw:
        return Fields()  # a bare POST (a button with no fields): the CSRF check then refuses it
    if media_type(request.headers.get("content-type")) != FORM_MEDIA_TYPE:
        raise ValidationError("send the form as application/x-www-form-urlencoded")
    try:
        pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS)
    except UnicodeDecodeError:
        raise ValidationError("the form is not valid UTF-8") from None
    except ValueError:
        raise ValidationError(
            "the form has more than %(max_form_fields)s fields", max_form_fields=MAX_FORM_FIELDS
        ) from None
    values: dict[str, list[Any]] = {}
    for name, value in pairs:
        values.setdefault(name, []).append(value)
    return Fields(values)


async def read_form_or_json(request: Request) -> Fields:
    if is_json_media_type(request.headers.get("content-type")):
        body = await read_json_object(request)
        return Fields({name: [value] for name, value in body.items()})
    return await read_form(request)


def _too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge("the upload is over %(limit)s MiB; nothing was read in", limit=limit // (1024 * 1024))


async def _capped(stream: AsyncIterator[bytes], limit: int) -> AsyncGenerator[bytes, None]:
    size = 0
    async for chunk in stream:
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        yield chunk


async def read_upload(request: Request, limit: int) -> Fields:
    """A `multipart/form-data` form with at most one file (a `starlette.datastructures.UploadFile`
    among the values: close it when done, `close_uploads`), the whole body cut at `limit` bytes."""
    if media_type(request.headers.get("content-type")) != UPLOAD_MEDIA_TYPE:
        raise ValidationError("send the form as multipart/form-data (a file upload)")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    parser = MultiPartParser(
        request.headers,
        _capped(request.stream(), limit),
        max_files=1,
        max_fields=MAX_UPLOAD_FIELDS,
        max_part_size=MAX_UPLOAD_FIELD_BYTES,
    )
    try:
        form = await parser.parse()
    except MultiPartException as error:
        if part_header_too_long(error):
            raise ValidationError(
                "the file name is too long for the upload form; a file name may have at most 255 characters: "
                "rename the file and choose it again"
            ) from None
        # The parser's own words are English and name its internals: the page says MeSQ's.
        logger.info("upload form refused by the multipart parser", extra={"problem": error.message})
        raise ValidationError(
            "the upload form could not be read; choose the file again and send the form from this page"
        ) from None
    values: dict[str, list[Any]] = {}
    for name, value in form.multi_items():
        values.setdefault(name, []).append(value)
    return Fields(values)


async def close_uploads(fields: Fields) -> None:
    """Remove the temporary files of an upload form's files."""
    for values in fields.values.values():
        for value in values:
            if isinstance(value, UploadFile):
                await value.close()
