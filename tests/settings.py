"""Settings for apps driven in-process: Starlette's TestClient sends `Host: testserver`, which
the Host check (mesq/asgi/hosts.py) serves only when the settings name it, as a deployment would
name its own host in MESQ_ALLOWED_HOSTS."""

from __future__ import annotations

from typing import Any

from mesq.wiring.config import Settings

TESTCLIENT_HOST = "testserver"


def inprocess_settings(**fields: Any) -> Settings:
    return Settings(**{"allowed_hosts": (TESTCLIENT_HOST,), **fields})
