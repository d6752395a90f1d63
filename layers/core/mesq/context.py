"""What every operation receives: who is calling, through which channel, with which services."""

from __future__ import annotations

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


@dataclass(frozen=True)
class Call:
    principal: Principal
    services: Services
    trace_id: str
    channel: Channel
