"""Reading template.yaml the way CloudFormation does: short-form intrinsics become Fn:: maps."""

from __future__ import annotations

import copy
import fnmatch
import os
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


class _NoManagedPolicies:
    """SAM's managed-policy name lookup, offline: the template names policies by ARN or Ref."""

    def load(self) -> dict[str, str]:
        return {}


def transformed(template: dict[str, Any]) -> dict[str, Any]:
    """What `sam package` + the SAM transform make of `template` (plain CloudFormation)."""
    from samtranslator.translator.transform import transform

    packaged = copy.deepcopy(template)
    # What `sam package` does: local code locations become S3 URIs.
    for resource in packaged["Resources"].values():
        props = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):
            if isinstance(props.get(key), str) and not props[key].startswith("s3://"):
                props[key] = f"s3://mesq-artifacts/{props[key].strip('/').replace('/', '-')}.zip"
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    result: dict[str, Any] = transform(packaged, {}, _NoManagedPolicies())
    return result


#: The resource types that hold a stack's permissions: all the IAM checks read of a transform.
IAM_TYPES = frozenset({"AWS::IAM::Role", "AWS::IAM::ManagedPolicy", "AWS::IAM::Policy"})


def without_routes(template: dict[str, Any]) -> dict[str, Any]:
    """`template` without its functions' HttpApi events (the routes)."""
    copy_ = copy.deepcopy(template)
    for resource in copy_["Resources"].values():
        events = resource.get("Properties", {}).get("Events")
        if resource["Type"] == "AWS::Serverless::Function" and events:
            resource["Properties"]["Events"] = {name: e for name, e in events.items() if e["Type"] != "HttpApi"}
    return copy_


def transformed_permissions(template: dict[str, Any]) -> dict[str, Any]:
    """`transformed(template)` for the IAM checks, at a hundredth of the cost: SAM copies the
    API's whole OpenAPI body once per HttpApi event (~7 s for the template's ~230 routes on this
    machine, 0.05 s without them), and a route adds no role or policy. Its IAM resources equal the
    whole transform's: test_template.py checks that on the real template."""
    return transformed(without_routes(template))


def render(value: Any) -> str:
    """An IAM resource as one comparable string: `${Table.Arn}/index/gsi1`, `${AttachmentBucket.Arn}`."""
    if isinstance(value, str):
        return value
    if "Ref" in value:
        return "${" + value["Ref"] + "}"
    if "Fn::GetAtt" in value:
        return "${" + ".".join(value["Fn::GetAtt"]) + "}"
    if "Fn::Sub" in value:
        sub = value["Fn::Sub"]
        if isinstance(sub, str):
            return sub
        text, variables = sub
        for name, replacement in variables.items():
            text = text.replace("${" + name + "}", render(replacement))
        return str(text)
    raise ValueError(f"unexpected resource {value!r}")


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def role_grants(cfn: dict[str, Any], function_id: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The (action, resource) pairs a function's role allows from its inline and customer-managed
    policies, and the AWS-managed policy ARNs attached to it."""
    resources = cfn["Resources"]
    role = resources[f"{function_id}Role"]["Properties"]
    documents = [policy["PolicyDocument"] for policy in role.get("Policies", [])]
    aws_managed = []
    for arn in role.get("ManagedPolicyArns", []):
        if isinstance(arn, dict) and "Ref" in arn:
            documents.append(resources[arn["Ref"]]["Properties"]["PolicyDocument"])
        else:
            aws_managed.append(render(arn))
    grants = []
    for document in documents:
        for statement in document["Statement"]:
            assert statement["Effect"] == "Allow", statement
            for action in _as_list(statement["Action"]):
                for resource in _as_list(statement["Resource"]):
                    grants.append((action, render(resource)))
    return grants, aws_managed


def allows(grants: list[tuple[str, str]], action: str, resource: str) -> bool:
    return any(fnmatch.fnmatchcase(action, a) and fnmatch.fnmatchcase(resource, r) for a, r in grants)


def functions(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}


def schedules(template: dict[str, Any]) -> dict[str, list[str]]:
    """Function logical id -> its EventBridge schedule expressions."""
    found: dict[str, list[str]] = {}
    for logical_id, resource in functions(template).items():
        for event in resource["Properties"].get("Events", {}).values():
            if event["Type"] in ("Schedule", "ScheduleV2"):
                found.setdefault(logical_id, []).append(event["Properties"]["ScheduleExpression"])
    return found
