"""The provider port of the reading sync: what a source of books and notes must answer, and the
failures it may report (each becomes the `lastError` of the sync status, never a crash)."""

from __future__ import annotations

from typing import Protocol

from ..kernel.i18n import Text
from .model import Skipped, UpstreamBook, UpstreamNote


class ProviderError(Exception):
    """A failure of the source, with a message written for the account owner: a template for the
    catalog and its parameters (`text`, shown in the owner's language), its English `message`."""

    code = "UPSTREAM_ERROR"

    def __init__(self, message: str | Text, /, **params: object) -> None:
        self.text = message if isinstance(message, Text) else Text(message, **params)
        self.message = str(self.text)
        super().__init__(self.message)


class CredentialExpired(ProviderError):
    """The API key or cookie is no longer accepted (WeChat Reading errcode -2012 / -2010, HTTP 401/403)."""

    code = "CREDENTIAL_EXPIRED"


class UpstreamRateLimited(ProviderError):
    code = "UPSTREAM_RATE_LIMITED"


class UpstreamMalformed(ProviderError):
    """An answer that is not the JSON shape the source documents (not JSON, or without the lists
    it must hold): nothing of it is written. One item of an answer that cannot be read is skipped
    instead (`ReadingProvider.skipped`)."""

    code = "UPSTREAM_MALFORMED"


class UpstreamUnavailable(ProviderError):
    code = "UPSTREAM_UNAVAILABLE"


class SyncOutOfTime(ProviderError):
    """The sync's total deadline passed (between books, or cutting a request short): the books
    merged so far stay, and the next sync goes on from there (they are unchanged by then)."""

    code = "SYNC_TIMED_OUT"

    def __init__(self) -> None:
        super().__init__(
            Text("the sync ran out of time with part of the shelf synced; the next sync goes on from there")
        )


class ReadingProvider(Protocol):
    """One sync's source, made for a deadline (a `time.monotonic()` value): no call of it runs
    past the deadline (SyncOutOfTime instead)."""

    #: Notices the source sent along (WeChat Reading's `upgrade_info`), shown on the settings page.
    notices: list[str]
    #: The items `books` and `notes` left out because they could not be read (a book without a
    #: title, a note without a time): the rest of the sync goes on, and the sync says what it skipped.
    skipped: list[Skipped]

    def books(self) -> list[UpstreamBook]:
        """Every book that has notes at the source (the complete list: a book missing here has none)."""
        ...

    def notes(self, book: UpstreamBook) -> list[UpstreamNote]:
        """Every highlight and thought of `book` at the source."""
        ...

    def close(self) -> None: ...
