"""The template checks pass on template.yaml and fail on a copy with one thing removed."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.infra.template_checks import (
    architecture_problems,
    front_door_problems,
    function_problems,
    permission_problems,
    route_problems,
    schedule_problems,
)
from tests.infra.template_tools import load_template


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template()


def mutated(template: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(template)


def test_the_template_passes_every_check(template):
    assert route_problems(template) == []
    assert schedule_problems(template) == []
    assert permission_problems(template) == []
    assert function_problems(template) == []
    assert architecture_problems(template) == []
    assert front_door_problems(template) == []


@pytest.mark.parametrize(
    "mutation",
    ["no function url", "an IAM-signed url", "a streaming url", "an HttpApi route", "no output"],
)
def test_caldav_needs_its_function_url(template, mutation):
    """PROPFIND and REPORT reach CalDAV only through its public function URL (docs/deploy.md)."""
    copy_ = mutated(template)
    function = copy_["Resources"]["DavFunction"]["Properties"]
    if mutation == "no function url":
        del function["FunctionUrlConfig"]
    elif mutation == "an IAM-signed url":
        function["FunctionUrlConfig"]["AuthType"] = "AWS_IAM"
    elif mutation == "a streaming url":
        function["FunctionUrlConfig"]["InvokeMode"] = "RESPONSE_STREAM"
    elif mutation == "an HttpApi route":
        function["Events"] = {"Dav": {"Type": "HttpApi", "Properties": {"Path": "/dav/{proxy+}", "Method": "ANY"}}}
    else:
        del copy_["Outputs"]["CalDavUrl"]
    assert len(front_door_problems(copy_)) == 1


@pytest.mark.parametrize(
    ("function", "event"),
    [
        ("ApiFunction", "CreateMemoUploadSession"),
        ("ApiFunction", "Healthz"),
        ("McpFunction", "McpReadonly"),
        ("OAuthFunction", "Token"),
    ],
)
def test_a_missing_route_fails(template, function, event):
    copy_ = mutated(template)
    del copy_["Resources"][function]["Properties"]["Events"][event]
    assert route_problems(copy_) != []


def test_a_throttle_on_a_route_that_does_not_exist_fails(template):
    copy_ = mutated(template)
    copy_["Resources"]["HttpApi"]["Properties"]["RouteSettings"]["GET /api/toolkit/nope"] = {"ThrottlingRateLimit": 1}
    assert route_problems(copy_) == ["RouteSettings names no route: GET /api/toolkit/nope"]


@pytest.mark.parametrize(
    ("function", "event"), [("SchedulerFunction", "SweepUploadSessions"), ("ReadingSyncFunction", "SyncSchedule")]
)
def test_a_missing_schedule_fails(template, function, event):
    copy_ = mutated(template)
    del copy_["Resources"][function]["Properties"]["Events"][event]
    assert len(schedule_problems(copy_)) == 1


@pytest.mark.parametrize(
    ("function", "policy"),
    [
        ("ApiFunction", {"Ref": "AttachmentObjectPolicy"}),
        ("McpFunction", {"Ref": "ItemWritePolicy"}),
        ("SchedulerFunction", {"Ref": "StagingCleanupPolicy"}),
        ("ReadingSyncFunction", {"KMSDecryptPolicy": {"KeyId": {"Ref": "ReadingCredentialKey"}}}),
        ("IndexerFunction", {"Ref": "ItemReadPolicy"}),
    ],
)
def test_a_missing_permission_fails(template, function, policy):
    copy_ = mutated(template)
    policies = copy_["Resources"][function]["Properties"]["Policies"]
    policies.remove(policy)
    problems = permission_problems(copy_)
    assert problems and all(problem.startswith(function) for problem in problems)


def test_a_narrowed_index_grant_fails(template):
    copy_ = mutated(template)
    statement = copy_["Resources"]["ItemReadPolicy"]["Properties"]["PolicyDocument"]["Statement"][0]
    statement["Resource"] = statement["Resource"][:2]  # gsi2 dropped
    assert any("index/gsi2" in problem for problem in permission_problems(copy_))


def test_an_undeployed_function_or_a_missing_alarm_fails(template):
    copy_ = mutated(template)
    del copy_["Resources"]["IndexerFunction"]
    del copy_["Resources"]["SchedulerFunctionThrottlesAlarm"]
    problems = function_problems(copy_)
    assert "functions/indexer is not in template.yaml" in problems
    assert "SchedulerFunction: no SchedulerFunctionThrottlesAlarm" in problems


def test_the_mcp_function_on_arm64_fails_code_modes_sandbox(template):
    copy_ = mutated(template)
    copy_["Resources"]["McpFunction"]["Properties"]["Architectures"] = ["arm64"]
    problems = architecture_problems(copy_)
    assert "McpFunction (arm64): DependenciesLayerX86 is not compatible" in problems
    assert "McpFunction (arm64): SandboxLayer is built for x86_64" in problems
    assert "McpFunction (arm64): mini-racer is not installed there" in problems


def test_the_mcp_function_without_the_sandbox_layer_fails(template):
    copy_ = mutated(template)
    copy_["Resources"]["McpFunction"]["Properties"]["Layers"].remove({"Ref": "SandboxLayer"})
    assert architecture_problems(copy_) == ["McpFunction (x86_64): mini-racer is not installed there"]


def test_a_dependencies_layer_of_another_architecture_fails(template):
    copy_ = mutated(template)
    copy_["Resources"]["McpFunction"]["Properties"]["Layers"][0] = {"Ref": "DependenciesLayer"}
    assert architecture_problems(copy_) == [
        "McpFunction (x86_64): DependenciesLayer is not compatible",
        "McpFunction (x86_64): DependenciesLayer is built for arm64",
    ]
