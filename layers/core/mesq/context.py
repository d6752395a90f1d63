"""What every operation receives: who is calling, through which channel, with which services."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Literal

from .call_metrics import CallMetrics, NoCallMetrics
from .config import Settings
from .deployment import Deployment
from .search.providers import SearchRuntime
from .store.ports import BlobStore, ItemStore

Channel = Literal["api", "mcp", "web", "cli"]
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


@dataclass(frozen=True)
class Services:
    """The process-wide adapters, built once per process from Settings. Domain code reads
    `deployment` (plain values), never `settings`."""

    settings: Settings
    items: ItemStore
    blobs: BlobStore
    deployment: Deployment = field(init=False)
    #: One metric per operation call (operations.invoke); EMF on Lambda, nothing elsewhere.
    call_metrics: CallMetrics = field(default_factory=NoCallMetrics)
    #: AI search's providers and loaded indexes (mesq/search/providers.py), built lazily.
    search: SearchRuntime = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "deployment", Deployment.from_settings(self.settings))
        object.__setattr__(self, "search", SearchRuntime(self.settings))


def new_run_id() -> str:
    return secrets.token_urlsafe(9)


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

    def __post_init__(self) -> None:
        if self.principal.run_id is not None:
            object.__setattr__(self, "run_id", self.principal.run_id)
