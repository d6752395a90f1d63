"""infra/samconfig.toml and the `sam local` env file agree with the template and the settings."""

from __future__ import annotations

import json
import tomllib

from mesq.wiring.config import Settings
from tests.infra.template_tools import REPO, load_template


def test_sam_local_env_points_every_function_at_local_stores():
    env = json.loads((REPO / "infra/sam-local-env.json").read_text())
    assert set(env) == {"Parameters"}  # applies to every function
    template_globals = load_template()["Globals"]["Function"]["Environment"]["Variables"]
    settings = Settings.from_env(
        {
            **{k: "x" for k in template_globals},
            "MESQ_STORAGE": "dynamodb",
            "MCP_RATE_LIMIT_PROFILE": "normal",
            "MESQ_CALL_METRICS": "emf",
            "MESQ_SEARCH_PROVIDER": "bedrock",
            "MESQ_SEARCH_INDEX_UPDATES": "stream",
            **env["Parameters"],
        }
    )
    assert settings.storage == "dynamodb"
    assert settings.dynamodb_endpoint and settings.dynamodb_endpoint.endswith(":8000")  # infra/dynamodb_local.py
    assert settings.s3_endpoint and settings.s3_endpoint.endswith(":4566")  # moto_server
    assert settings.kms_key_id is None and settings.call_metrics == "off"


def test_samconfig_default_profile():
    config = tomllib.loads((REPO / "infra/samconfig.toml").read_text())["default"]
    assert config["validate"]["parameters"]["lint"] is True
    assert config["deploy"]["parameters"]["capabilities"] == "CAPABILITY_IAM"
    assert (REPO / config["local_start_api"]["parameters"]["env_vars"]).is_file()
    parameters = load_template()["Parameters"]
    for override in config["deploy"]["parameters"]["parameter_overrides"].split():
        name, value = override.split("=", 1)
        allowed = parameters[name].get("AllowedValues")
        assert allowed is None or value in allowed, override
