"""Wiring: Settings -> the adapters of every port. The only module that picks adapters."""

from __future__ import annotations

from .call_metrics import CallMetrics, NoCallMetrics
from .config import Settings
from .context import Services
from .deferred_blobs import DeferredBlobStore
from .sealing.ports import Sealer
from .store.ports import BlobStore, ItemStore


def build_item_store(settings: Settings) -> ItemStore:
    if settings.storage == "dynamodb":
        from .store.dynamodb import DynamoDBItemStore

        return DynamoDBItemStore(settings.table_name, endpoint_url=settings.dynamodb_endpoint, region=settings.region)
    from .store.sqlite import SQLiteItemStore

    return SQLiteItemStore(settings.sqlite_path)


def build_blob_store(settings: Settings) -> BlobStore:
    """S3's client is made on first use (deferred_blobs.py), or at once with `prepare_at_init`."""
    if settings.storage == "dynamodb":
        from .store.blobs_s3 import S3BlobStore

        def make() -> BlobStore:
            return S3BlobStore(settings.bucket, endpoint_url=settings.s3_endpoint, region=settings.region)

        if settings.prepare_at_init:
            return make()
        if not settings.bucket:
            raise ValueError("bucket is required")  # fails at start-up, as S3BlobStore would
        return DeferredBlobStore(make, S3BlobStore.transport)
    from .store.blobs_local import LocalBlobStore

    return LocalBlobStore(settings.blob_dir)


def build_call_metrics(settings: Settings) -> CallMetrics:
    if settings.call_metrics == "emf":
        from .call_metrics_emf import EmfCallMetrics
        from .spec import load_spec

        return EmfCallMetrics(load_spec().operations)
    return NoCallMetrics()


def build_services(settings: Settings) -> Services:
    """With in-process index updates the item store reports each write to the search indexer
    (what DynamoDB Streams does on AWS)."""
    if settings.storage == "sqlite":
        from .private_files import tighten

        tighten(settings.data_dir)  # what an older version left 0755 / 0644
    items = build_item_store(settings)
    blobs = build_blob_store(settings)
    metrics = build_call_metrics(settings)
    if settings.search_index_updates != "inprocess":
        return Services(settings=settings, items=items, blobs=blobs, call_metrics=metrics)
    from .search.follow import FollowingStore

    following = FollowingStore(items)
    services = Services(settings=settings, items=following, blobs=blobs, call_metrics=metrics)
    following.follow(services)
    return services


def build_sealer(settings: Settings) -> Sealer:
    """KMS envelope encryption when a key is configured (AWS), else the local key file."""
    if settings.kms_key_id:
        from .sealing.kms import KmsEnvelopeSealer

        return KmsEnvelopeSealer(settings.kms_key_id, settings.region)
    from .sealing.local import LocalKeySealer

    return LocalKeySealer(settings.secret_key_file)
