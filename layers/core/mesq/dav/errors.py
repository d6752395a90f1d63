"""How the CalDAV edge says no: a status, a one-line reason, and, where RFC 4791/4918/6578 name
one, the precondition element (`<C:supported-calendar-component/>`...) in a `DAV:error` body.

A MeSQ error from an operation maps to the status a WebDAV client understands: a failed
revision precondition (If-Match, If-None-Match: *) is 412, a validation error 400 with the
CalDAV `valid-calendar-data` precondition (the object could not be stored as it is), a conflict
409 (with `no-uid-conflict` when the UID is taken), a rate limit 429 with Retry-After.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

from starlette.responses import Response

from ..kernel.errors import MesqError
from ..kernel.i18n import DEFAULT_LANGUAGE, LANGUAGE_TAGS, Text, Translator
from .xml import CALDAV, DAV, MESQ, serialize

#: Statuses the operations' error codes become.
_STATUS = {"REVISION_CONFLICT": 412, "VALIDATION_ERROR": 400, "PAYLOAD_TOO_LARGE": 413}


class DavError(Exception):
    """A refusal with its HTTP status, one line for the person, and the precondition a client
    may act on (`(namespace, name)`). A `Text` reason is said in the person's language
    (`language`: their Settings choice once the caller is known, else the request's
    `Accept-Language`), as a browser opening a CalDAV address shows it; `reason` is its English."""

    def __init__(
        self,
        status: int,
        reason: str | Text,
        precondition: tuple[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(str(reason))
        self.status = status
        self.text = reason if isinstance(reason, Text) else Text(reason)
        self.reason = " ".join(str(reason).split())  # one line, whatever the message held
        self.precondition = precondition
        self.headers = headers or {}
        #: The person's language when the caller is known (app._handle); "" before.
        self.language = ""

    def said(self, language: str) -> str:
        """The reason on one line in `language`."""
        return " ".join(Translator(language or DEFAULT_LANGUAGE).text(self.text).split())


def from_mesq(error: MesqError, *, writing: bool = False) -> DavError:
    status = _STATUS.get(error.code, error.http_status)
    precondition: tuple[str, str] | None = None
    headers: dict[str, str] = {}
    if error.code == "VALIDATION_ERROR" and writing:
        precondition = (CALDAV, "valid-calendar-data")
    if error.code == "CONFLICT" and error.message.startswith("uid:"):
        precondition = (CALDAV, "no-uid-conflict")
    if error.retry_after_seconds is not None:
        headers["Retry-After"] = str(error.retry_after_seconds)
    return DavError(status, error.text, precondition, headers)


def error_response(error: DavError, trace_id: str, language: str = DEFAULT_LANGUAGE) -> Response:
    """The refusal, its reason in `language` (the caller's once known: `error.language`)."""
    said_in = error.language or language or DEFAULT_LANGUAGE
    reason = error.said(said_in)
    if reason == error.said(DEFAULT_LANGUAGE):  # a refusal the catalog lacks (sync software's) stays English
        said_in = DEFAULT_LANGUAGE
    # the tag of the language the body is in: a browser picks the glyphs of Han characters in
    # plain text by it, a screen reader its voice
    headers = {"Cache-Control": "no-store", "Content-Language": LANGUAGE_TAGS.get(said_in, "en"), **error.headers}
    if error.status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="MeSQ", charset="UTF-8"'
    if error.precondition is None:
        return Response(reason + "\n", status_code=error.status, media_type="text/plain", headers=headers)
    root = ET.Element(f"{{{DAV}}}error")
    ET.SubElement(root, f"{{{error.precondition[0]}}}{error.precondition[1]}")
    ET.SubElement(root, f"{{{MESQ}}}reason").text = reason
    ET.SubElement(root, f"{{{MESQ}}}trace-id").text = trace_id
    return Response(serialize(root), status_code=error.status, media_type="application/xml", headers=headers)
