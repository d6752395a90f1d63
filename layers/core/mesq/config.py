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

StorageKind = Literal["sqlite", "dynamodb"]


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
    raise ConfigError(f"{name} must be true or false, not {value!r}")


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
    rate_limit_enabled: bool = True
    rate_limit_profile: Literal["normal", "relaxed", "off"] = "normal"

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "mesq.db"

    @property
    def blob_dir(self) -> Path:
        return self.data_dir / "blobs"

    def with_overrides(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        storage = env.get("MESQ_STORAGE", "sqlite")
        if storage not in ("sqlite", "dynamodb"):
            raise ConfigError(f"MESQ_STORAGE must be sqlite or dynamodb, not {storage!r}")
        profile = env.get("MCP_RATE_LIMIT_PROFILE", "normal")
        if profile not in ("normal", "relaxed", "off"):
            raise ConfigError(f"MCP_RATE_LIMIT_PROFILE must be normal, relaxed or off, not {profile!r}")
        public_url = env.get("MESQ_PUBLIC_URL") or None
        return cls(
            storage=storage,  # type: ignore[arg-type]
            data_dir=Path(env.get("MESQ_DATA_DIR", ".mesq")),
            table_name=env.get("MESQ_TABLE", "mesq"),
            bucket=env.get("MESQ_BUCKET", "mesq-attachments"),
            region=env.get("AWS_REGION", env.get("AWS_DEFAULT_REGION", "us-east-1")),
            dynamodb_endpoint=env.get("MESQ_DYNAMODB_ENDPOINT") or None,
            s3_endpoint=env.get("MESQ_S3_ENDPOINT") or None,
            public_url=public_url.rstrip("/") if public_url else None,
            rate_limit_enabled=_flag(env.get("MCP_RATE_LIMIT_ENABLED"), True, "MCP_RATE_LIMIT_ENABLED"),
            rate_limit_profile=profile,  # type: ignore[arg-type]
        )
