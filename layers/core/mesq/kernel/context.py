"""What every operation receives: who is calling, through which channel, with which services."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from . import timestamps
from .deployment import Deployment
from .ports.call_metrics import CallMetrics
from .ports.models import SearchRuntime
from .ports.reading_queue import ReadingSyncQueue
from .ports.sealer import Sealer
from .ports.storage import BlobStore, ItemStore
from .recorded import Recorded

Channel = Literal["api", "mcp", "web", "cli", "dav"]
CredentialKind = Literal["pat", "oauth", "session"]


@dataclass(frozen=True)
class Principal:
    user_id: str
    scopes: frozenset[str]
    credential_id: str
    kind: CredentialKind
    #: What the person calls the credential (a PAT's name, an OAuth client's client_name); the
    #: change history's actor name. Empty when the lookup did not carry it (history reads it).
    name: str = ""
    #: Set by run_code for the calls of one run, so all its writes share one change-history runId.
    run_id: str | None = None


class Services(Protocol):
    """The process-wide adapters an operation may use, built once per process by the composition
    root (mesq/wiring/services.py, whose `Services` is the one implementation). Domain code reads
    `deployment` (plain values), never Settings, which this view does not offer."""

    @property
    def items(self) -> ItemStore: ...

    @property
    def blobs(self) -> BlobStore: ...

    @property
    def sealer(self) -> Sealer: ...

    @property
    def search(self) -> SearchRuntime:
        """AI search's providers (behind mesq/kernel/ports/models.py) and loaded indexes, built lazily."""
        ...

    @property
    def reading_queue(self) -> ReadingSyncQueue | None:
        """Where a requested reading sync goes; None runs it in place (`mesq serve`)."""
        ...

    @property
    def call_metrics(self) -> CallMetrics:
        """One metric per operation call (invocation.invoke); EMF on Lambda, nothing elsewhere."""
        ...

    @property
    def deployment(self) -> Deployment: ...


def new_run_id() -> str:
    """A run's id: the microsecond it began (17 digits, as a change id starts) and 8 random
    characters. The history finds a run's changes from that moment on, with no index entry per
    change (history/reads.py)."""
    return f"{int(timestamps.utc_now().timestamp() * 1_000_000):017d}{secrets.token_urlsafe(6)}"


#: `Call.noted`'s key for the account's own zone (an IANA name, or None when it has set none), noted
#: by an operation that read the user's settings item anyway (list_todos' board structure), so an
#: adapter that answers the zone beside the result (MCP Apps' `_meta`) does not read it again.
ACCOUNT_ZONE = "accountZone"


@dataclass(frozen=True)
class Call:
    principal: Principal
    services: Services
    trace_id: str
    channel: Channel
    #: The operation being run (the change history's `operation`).
    operation_id: str = ""
    #: Shared by every write of this call (one batch call = one run), or of the run_code run
    #: the principal carries.
    run_id: str = field(default_factory=new_run_id)
    #: (change id, record id) of the change an undo is reverting: the revert's change record
    #: names it, and the same transaction marks that change undone.
    undoes: tuple[str, str] | None = None
    #: The language the request asked for ("en", "zh"; "" when it did not say): a page's own,
    #: `Accept-Language` on REST and MCP. What the operation names for a person (a new board) is
    #: in the user's chosen language, else this one (kernel/i18n.py).
    language: str = ""
    #: The call's validated arguments: what the person wrote in them is the last hint of the
    #: language to name a new board in (`kernel.i18n.written_language`).
    arguments: Mapping[str, Any] = field(default_factory=dict)
    #: The change records this call's writes committed (kernel/recorded.py): what a write
    #: recorded, without reading it back.
    recorded: Recorded = field(default_factory=Recorded)
    #: The base URL the request reached this instance by (scheme + the Host asgi/hosts.py
    #: checked, no trailing slash), for the URLs its answer hands a client when no public URL
    #: is configured (kernel/answer_urls.py); "" off a request (the command line, jobs) and on
    #: pages, whose links stay relative to themselves.
    base_url: str = ""
    #: What the operation read that its caller would otherwise read again, by name (`ACCOUNT_ZONE`);
    #: shared with the caller that passed it, as `recorded` is. A name is absent when not read.
    noted: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.principal.run_id is not None:
            object.__setattr__(self, "run_id", self.principal.run_id)
