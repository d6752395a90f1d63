"""AI search on its channels: REST answers 503 when no branch can answer (MCP: SERVICE_UNAVAILABLE
in the tool result), a memo-only PAT gets only memos from search_everything, and the Bedrock
providers send exactly the calls botocore's models accept (Stubber)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import boto3
import numpy as np
import pytest
from botocore.stub import Stubber
from starlette.testclient import TestClient

from mesq.adapters.models.bedrock import BedrockEmbedder, BedrockReranker
from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.kernel.ports.models import ProviderError
from mesq.runtime.app_factories import create_api_app
from mesq.search import pipeline
from mesq.wiring.services import Services


def _client(services: Services, scopes: list[str]) -> tuple[TestClient, str]:
    user = create_user(services.items, "ada", "correct horse battery")
    secret, _record = create_token(services.items, user["id"], name="t", scopes=scopes)
    return TestClient(create_api_app(services)), secret


def test_rest_answers_503_when_no_branch_can(
    make_services: Callable[..., Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    services = make_services()
    client, secret = _client(services, ["memo:read", "memo:write"])
    headers = {"Authorization": f"Bearer {secret}"}
    assert client.post("/api/toolkit/memo", json={"content": "faucet"}, headers=headers).status_code == 201
    ok = client.post("/api/toolkit/memo/ai-search", json={"query": "faucet"}, headers=headers)
    assert ok.status_code == 200 and ok.json()["data"]["degraded"] is True  # no embedding model configured

    def broken(*_args: object) -> Any:
        raise RuntimeError("bm25 broke")

    monkeypatch.setattr(pipeline.SearchIndex, "postings", broken)
    down = client.post("/api/toolkit/memo/ai-search", json={"query": "faucet"}, headers=headers)
    assert down.status_code == 503 and down.json()["error"]["code"] == "SERVICE_UNAVAILABLE"
    assert "broke" not in down.text


def test_a_memo_only_token_finds_only_memos(make_services: Callable[..., Services]) -> None:
    services = make_services()
    client, secret = _client(services, ["memo:read", "memo:write", "todo:write"])
    headers = {"Authorization": f"Bearer {secret}"}
    client.post("/api/toolkit/memo", json={"content": "plumber invoice"}, headers=headers)
    answer = client.post("/api/toolkit/search", json={"query": "plumber"}, headers=headers)
    assert answer.status_code == 200
    assert {item["kind"] for item in answer.json()["data"]["items"]} == {"memo"}
    bad = client.post("/api/toolkit/memo/ai-search", json={"query": ""}, headers=headers)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "VALIDATION_ERROR"


def test_bedrock_titan_embed_and_rerank_calls() -> None:
    runtime = boto3.client("bedrock-runtime", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(runtime) as stub:
        for vector in ([3.0, 4.0], [1.0, 0.0]):
            stub.add_response(
                "invoke_model",
                {"body": io.BytesIO(json.dumps({"embedding": vector}).encode()), "contentType": "application/json"},
                {"modelId": "amazon.titan-embed-text-v2:0", "body": stub_any(), "contentType": "application/json",
                 "accept": "application/json"},
            )  # fmt: skip
        vectors = BedrockEmbedder("amazon.titan-embed-text-v2:0", "us-east-1", client=runtime).embed(["a", "b"])
    assert np.allclose(vectors, [[0.6, 0.8], [1.0, 0.0]])
    agent = boto3.client(
        "bedrock-agent-runtime", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    arn = "arn:aws:bedrock:us-east-1::foundation-model/amazon.rerank-v1:0"
    with Stubber(agent) as stub:
        stub.add_response(
            "rerank", {"results": [{"index": 1, "relevanceScore": 0.9}, {"index": 0, "relevanceScore": 0.1}]}
        )
        assert BedrockReranker(arn, "us-east-1", client=agent).rerank("q", ["x", "y"]) == [0.1, 0.9]
    with Stubber(agent) as stub:
        stub.add_client_error("rerank", "ThrottlingException", "slow down")
        with pytest.raises(ProviderError):
            BedrockReranker(arn, "us-east-1", client=agent).rerank("q", ["x"])


def stub_any() -> Any:
    from botocore.stub import ANY

    return ANY
