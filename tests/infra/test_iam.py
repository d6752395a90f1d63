"""No IAM policy in the deployed stack grants an action on `*` unless AWS offers nothing narrower.
Checked on the transformed template (what CloudFormation receives), so SAM's own additions count."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from tests.infra.template_tools import functions, load_template, role_grants, transformed_permissions

#: Actions allowed on "*", each because the action has no resource type to name.
STAR_ACTIONS = {
    # The Bedrock Rerank API (bedrock-agent-runtime) has no resource type; the rerank model it
    # may call is limited by the bedrock:InvokeModel grant on that model's ARN.
    "bedrock:Rerank",
}

#: AWS-managed policies SAM attaches, and why each is acceptable although it uses "*".
AWS_MANAGED = {
    # logs:CreateLogGroup/CreateLogStream/PutLogEvents: Lambda's own logging. Every function's
    # group is created by the stack with a retention; the policy is the standard execution role.
    "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
    # xray:PutTraceSegments, PutTelemetryRecords, GetSampling*: X-Ray has no resource types.
    "arn:${AWS::Partition}:iam::aws:policy/AWSXrayWriteOnlyAccess",
    # Attached by SAM for a DynamoDB event source: the event source mapping reads the stream with
    # it (dynamodb:ListStreams has no resource type). Only IndexerFunction has such an event.
    "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaDynamoDBExecutionRole",
    # Attached by SAM for an SQS event source (sqs:ReceiveMessage/DeleteMessage for the poller).
    # Only ReadingSyncFunction has such an event.
    "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaSQSQueueExecutionRole",
}
_MANAGED_FOR_EVENT = {
    "AWSLambdaDynamoDBExecutionRole": "DynamoDB",
    "AWSLambdaSQSQueueExecutionRole": "SQS",
}


def too_wide(resource: str) -> bool:
    """`*`, or a wildcard not anchored on one of the stack's resources or parameters
    (`${AttachmentBucket.Arn}/uploads/*` is anchored; `...:table/*` is not)."""
    if "*" not in resource:
        return False
    anchored = re.sub(r"\$\{AWS::[A-Za-z]+\}", "", resource.split("*", 1)[0])
    return "${" not in anchored


def star_problems(cfn: dict[str, Any], template: dict[str, Any]) -> list[str]:
    problems = []
    for function_id, resource in functions(template).items():
        grants, managed = role_grants(cfn, function_id)
        problems += [
            f"{function_id}: {action} on {res}"
            for action, res in grants
            if too_wide(res) and action not in STAR_ACTIONS
        ]
        event_types = {event["Type"] for event in resource["Properties"].get("Events", {}).values()}
        for arn in managed:
            name = arn.rsplit("/", 1)[-1]
            normalized = arn.replace("arn:aws:", "arn:${AWS::Partition}:")
            if normalized not in AWS_MANAGED:
                problems.append(f"{function_id}: unexpected AWS-managed policy {arn}")
            elif name in _MANAGED_FOR_EVENT and _MANAGED_FOR_EVENT[name] not in event_types:
                problems.append(f"{function_id}: {name} without a {_MANAGED_FOR_EVENT[name]} event")
    # Every other role and policy of the stack (schedules' invoke roles, customer-managed policies).
    for logical_id, resource in cfn["Resources"].items():
        props = resource.get("Properties", {})
        documents = (
            [p["PolicyDocument"] for p in props.get("Policies", [])] if resource["Type"] == "AWS::IAM::Role" else []
        )
        if resource["Type"] == "AWS::IAM::ManagedPolicy":
            documents = [props["PolicyDocument"]]
        for document in documents:
            for statement in document["Statement"]:
                resources = (
                    statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
                )
                actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
                if any(isinstance(r, str) and too_wide(r) for r in resources) and not set(actions) <= STAR_ACTIONS:
                    problems.append(f"{logical_id}: {actions} on *")
    return sorted(set(problems))


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template()


def test_no_policy_grants_star_resources_beyond_the_listed_exceptions(template):
    assert star_problems(transformed_permissions(template), template) == []


def test_a_star_resource_is_caught(template):
    copy_ = copy.deepcopy(template)
    copy_["Resources"]["ApiFunction"]["Properties"]["Policies"].append(
        {"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}
    )
    copy_["Resources"]["SchedulerFunction"]["Properties"]["Policies"].append({"DynamoDBCrudPolicy": {"TableName": "*"}})
    problems = star_problems(transformed_permissions(copy_), copy_)
    assert any(p.startswith("ApiFunction: s3:GetObject on *") for p in problems), problems
    assert any(p.startswith("SchedulerFunction") for p in problems), problems


def test_an_unlisted_managed_policy_is_caught(template):
    copy_ = copy.deepcopy(template)
    copy_["Resources"]["ApiFunction"]["Properties"]["Policies"].append("AmazonS3ReadOnlyAccess")
    problems = star_problems(transformed_permissions(copy_), copy_)
    assert any("unexpected AWS-managed policy" in p for p in problems), problems


def test_the_kms_key_policy_lets_only_the_account_administer_it(template):
    statements = template["Resources"]["ReadingCredentialKey"]["Properties"]["KeyPolicy"]["Statement"]
    # In a key policy "*" means this key; the principal is the account, whose IAM policies decide.
    assert [s["Principal"] for s in statements] == [
        {"AWS": {"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"}}
    ]
