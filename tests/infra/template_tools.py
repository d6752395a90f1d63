"""Reading template.yaml the way CloudFormation does: short-form intrinsics become Fn:: maps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]


class _CfnLoader(yaml.SafeLoader):
    pass


def _intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _intrinsic)


def load_template() -> dict[str, Any]:
    with (REPO / "template.yaml").open(encoding="utf-8") as handle:
        return yaml.load(handle, Loader=_CfnLoader)


def http_routes(template: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(METHOD, path) -> the logical id of the function behind it."""
    routes = {}
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        for event in resource["Properties"].get("Events", {}).values():
            if event["Type"] == "HttpApi":
                routes[(event["Properties"]["Method"].upper(), event["Properties"]["Path"])] = logical_id
    return routes
