"""How directories list MeSQ: the Server Card each instance serves and the repository's registry
`server.json`, both valid against their published schemas (vendored in tests/fixtures/schemas with
their source and version), checked twice: jsonschema-rs with formats here, and Ajv with
ajv-formats as the publishers validate (`validate_documents.cjs`, Node). The card says what
`server/discover` says, and is served as the extension asks (CORS, ETag, cache)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from starlette.testclient import TestClient

from mesq import __version__
from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.http.server_card import CARD_MEDIA_TYPE, CARD_PATHS, registry_server_json_text, server_card
from mesq.runtime.server import create_local_app
from mesq.wiring.services import build_services
from tests.mcp.conftest import Mcp
from tests.mcp.test_js_schemas import REPO_ROOT, _node_tools
from tests.settings import inprocess_settings

SCHEMAS = REPO_ROOT / "tests" / "fixtures" / "schemas"
SERVER_JSON = REPO_ROOT / "server.json"
PUBLIC_URL = "https://mesq.example.com"


def _schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    return loaded


def card_errors(document: Any) -> list[str]:
    schema = _schema("server-card.schema.json")
    validator = jsonschema_rs.validator_for({**schema, "$ref": "#/$defs/ServerCard"}, validate_formats=True)
    return [f"{error.instance_path}: {error.message}" for error in validator.iter_errors(document)]


def registry_errors(document: Any) -> list[str]:
    validator = jsonschema_rs.validator_for(_schema("server.schema.json"), validate_formats=True)
    return [f"{error.instance_path}: {error.message}" for error in validator.iter_errors(document)]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    settings = inprocess_settings(data_dir=tmp_path_factory.mktemp("card") / "data", public_url=PUBLIC_URL)
    services = build_services(settings)
    user = create_user(services.items, "carded", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="t", scopes="memo:read")
    with TestClient(create_local_app(services), base_url=PUBLIC_URL) as client:
        yield client, token
    services.items.close()


def test_the_repository_server_json_is_current_and_valid():
    document = json.loads(SERVER_JSON.read_text(encoding="utf-8"))
    assert SERVER_JSON.read_text(encoding="utf-8") == registry_server_json_text(), (
        "server.json is stale: run .venv/bin/python infra/server_json.py"
    )
    assert registry_errors(document) == []
    assert document["$schema"] == _schema("server.schema.json")["$id"]
    assert document["version"] == __version__


def test_the_served_card_is_valid_and_names_this_instance(app):
    client, _ = app
    for path in CARD_PATHS:
        response = client.get(path)
        assert response.status_code == 200, path
        card = response.json()
        assert card_errors(card) == [], path
        assert card["remotes"][0]["url"] == f"{PUBLIC_URL}/mcp"
        assert card["remotes"][1]["url"] == f"{PUBLIC_URL}/mcp/x/{{toolsets}}"
        assert card["websiteUrl"] == f"{PUBLIC_URL}/" and card["version"] == __version__


def test_the_card_says_what_server_discover_says(app):
    client, token = app
    card = client.get(CARD_PATHS[0]).json()
    discovered = Mcp(client=client, token=token).result("server/discover")
    info = discovered["_meta"]["io.modelcontextprotocol/serverInfo"]
    fields = ("title", "version", "description")
    assert [card[field] for field in fields] == [info[field] for field in fields]
    for remote in card["remotes"]:
        assert remote["supportedProtocolVersions"] == discovered["supportedVersions"]


def test_the_validators_refuse_what_the_schemas_refuse():
    """Each check can fail: documents the published schemas reject are rejected here too."""
    card = server_card(PUBLIC_URL)
    broken_cards = [
        {**card, "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server-card.schema.json"},
        {**card, "description": "x" * 101},
        {**card, "name": "mesq"},  # not reverse-DNS with one slash
        {**card, "remotes": [{"type": "websocket", "url": f"{PUBLIC_URL}/mcp"}]},
        {key: value for key, value in card.items() if key != "version"},
    ]
    for broken in broken_cards:
        assert card_errors(broken), broken
    registry = json.loads(registry_server_json_text())
    for broken in ({**registry, "name": "no slash"}, {**registry, "websiteUrl": "not a uri"}):
        assert registry_errors(broken), broken


def test_the_card_is_served_as_the_extension_asks(app):
    client, _ = app
    first = client.get(CARD_PATHS[0], headers={"Origin": "https://directory.example"})
    assert first.headers["access-control-allow-origin"] == "*"
    assert "ETag" in first.headers["access-control-expose-headers"]
    assert first.headers["cache-control"] == "public, max-age=3600"
    assert first.headers["content-type"].startswith("application/json")
    assert client.get(CARD_PATHS[1]).headers["etag"] == first.headers["etag"]  # one card, two places
    unchanged = client.get(CARD_PATHS[0], headers={"If-None-Match": first.headers["etag"]})
    assert unchanged.status_code == 304 and not unchanged.content
    asked = client.get(CARD_PATHS[0], headers={"Accept": CARD_MEDIA_TYPE})
    assert asked.headers["content-type"].startswith(CARD_MEDIA_TYPE) and asked.json() == first.json()
    preflight = client.options(
        CARD_PATHS[0],
        headers={"Origin": "https://directory.example", "Access-Control-Request-Method": "GET",
                 "Access-Control-Request-Headers": "if-none-match"},
    )  # fmt: skip
    assert preflight.status_code == 200 and "GET" in preflight.headers["access-control-allow-methods"]
    assert client.post(CARD_PATHS[0]).status_code == 405


def test_both_documents_validate_with_ajv_as_their_publishers_do(app):
    """Ajv 8 with ajv-formats (draft-07 for server.json, 2020-12 for the card), through Node."""
    client, _ = app
    tools = _node_tools()
    node_modules = tools.ensure_npm_packages()
    card = client.get(CARD_PATHS[0]).json()
    registry = json.loads(SERVER_JSON.read_text(encoding="utf-8"))
    checks = [
        {"name": "card", "draft": "2020-12", "schema": _schema("server-card.schema.json"),
         "ref": "/$defs/ServerCard", "document": card},
        {"name": "server.json", "draft": "07", "schema": _schema("server.schema.json"), "ref": "",
         "document": registry},
        {"name": "broken card", "draft": "2020-12", "schema": _schema("server-card.schema.json"),
         "ref": "/$defs/ServerCard", "document": {**card, "name": "mesq"}},
    ]  # fmt: skip
    result = subprocess.run(
        [tools.node_executable(), str(Path(__file__).with_name("validate_documents.cjs"))],
        input=json.dumps(checks), capture_output=True, text=True, timeout=120,
        env={**os.environ, "NODE_PATH": str(node_modules)}, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    verdicts = {entry["name"]: entry for entry in json.loads(result.stdout)}
    assert verdicts["card"]["valid"], verdicts["card"]["errors"]
    assert verdicts["server.json"]["valid"], verdicts["server.json"]["errors"]
    assert not verdicts["broken card"]["valid"]
