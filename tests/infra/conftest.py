from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from mesq.wiring.config import Settings
from mesq.wiring.services import build_services


@pytest.fixture
def aws(monkeypatch) -> Iterator[Settings]:
    """moto-backed DynamoDB + S3 with the table and bucket the template declares, and the
    environment a deployed function gets."""
    env = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "MESQ_STORAGE": "dynamodb",
        "MESQ_TABLE": "mesq-test",
        "MESQ_BUCKET": "mesq-test-attachments",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_NAMESPACE": "MeSQ",
        # As template.yaml: the index follows the table's stream; no Bedrock in moto, so BM25 only.
        "MESQ_SEARCH_INDEX_UPDATES": "stream",
        "MESQ_SEARCH_PROVIDER": "none",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MESQ_DYNAMODB_ENDPOINT", raising=False)
    monkeypatch.delenv("MESQ_S3_ENDPOINT", raising=False)
    with mock_aws():
        settings = Settings.from_env()
        services = build_services(settings)
        services.items.create_table_if_missing()  # type: ignore[attr-defined]
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket=settings.bucket)
        yield settings


@pytest.fixture
def aws_auth(aws: Settings) -> dict[str, str]:
    """Authorization header of a fresh user's memo:read+write PAT in the moto-backed store."""
    from mesq.auth.tokens import create_token
    from mesq.auth.users import create_user

    services = build_services(aws)
    user = create_user(services.items, "lambda-user", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="t", scopes="memo:read,memo:write")
    return {"authorization": f"Bearer {token}"}
