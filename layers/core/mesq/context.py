"""What every operation receives: who is calling, through which channel, with which services."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from .call_metrics import CallMetrics
from .deployment import Deployment
from .model_ports import SearchRuntime
from .reading.queue import ReadingSyncQueue
from .sealing.ports import Sealer
from .store.ports import BlobStore, ItemStore

Channel = Literal["api", "mcp", "web", "cli"]
CredentialKind = Literal["pat", "oauth", "session"]


@dataclass(frozen=True)
class Principal:
    user_id: str
    scopes: frozenset[str]
    credential_id: str
    kind: CredentialKind


class Services(Protocol):
    """The process-wide adapters an operation may use, built once per process by the composition
    root (mesq/services.py, whose `Services` is the one implementation). Domain code reads
    `deployment` (plain values), never Settings, which this view does not offer."""

    @property
    def items(self) -> ItemStore: ...

    @property
    def blobs(self) -> BlobStore: ...

    @property
    def sealer(self) -> Sealer: ...

    @property
    def search(self) -> SearchRuntime:
        """AI search's providers (behind mesq/model_ports.py) and loaded indexes, built lazily."""
        ...

    @property
    def reading_queue(self) -> ReadingSyncQueue | None:
        """Where a requested reading sync goes; None runs it in place (`mesq serve`)."""
        ...

    @property
    def call_metrics(self) -> CallMetrics:
        """One metric per operation call (operations.invoke); EMF on Lambda, nothing elsewhere."""
        ...

    @property
    def deployment(self) -> Deployment: ...


@dataclass(frozen=True)
class Call:
    principal: Principal
    services: Services
    trace_id: str
    channel: Channel
