"""What domain code may know about this deployment: plain values, never `Settings`.

Built once per process from Settings by the composition root (`services.deployment_of`), so
domain packages read `call.services.deployment.*` and never import config."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Deployment:
    #: The instance's public base URL (no trailing slash), None when served relative.
    public_url: str | None
    attachment_quota_bytes: int
    mcp_read_cap_bytes: int
    upload_session_seconds: int
    #: How long change records are kept (MESQ_HISTORY_DAYS).
    history_days: int = 90
    #: The longest pause within one session of an actor's writes (MESQ_SESSION_GAP_MINUTES).
    session_gap_minutes: int = 15
