"""What template.yaml must contain, as functions returning the problems they find, so a test can
show each check fails on a mutated copy of the template (tests/infra/test_template_guards.py)."""

from __future__ import annotations

from typing import Any

from packaging.requirements import Requirement

from mesq.kernel.spec import load_spec
from tests.infra.template_tools import (
    REPO,
    allows,
    functions,
    http_routes,
    role_grants,
    schedules,
    transformed_permissions,
)

#: Routes outside the OpenAPI document: (METHOD, path) -> the function that serves them.
FIXED_ROUTES = {
    ("GET", "/healthz"): "ApiFunction",
    ("GET", "/api/openapi.json"): "ApiFunction",
    ("ANY", "/mcp"): "McpFunction",
    ("ANY", "/mcp/readonly"): "McpFunction",
    ("ANY", "/mcp/x/{toolsets}"): "McpFunction",
    ("ANY", "/mcp/x/{toolsets}/readonly"): "McpFunction",
    ("GET", "/.well-known/oauth-protected-resource/mcp"): "McpFunction",
    ("ANY", "/.well-known/oauth-authorization-server"): "OAuthFunction",
    ("GET", "/oauth/authorize"): "OAuthFunction",
    ("ANY", "/oauth/token"): "OAuthFunction",
    ("ANY", "/oauth/register"): "OAuthFunction",
    ("ANY", "/oauth/revoke"): "OAuthFunction",
    ("ANY", "/"): "OAuthFunction",
    ("ANY", "/login"): "OAuthFunction",
    ("ANY", "/static/{proxy+}"): "OAuthFunction",
}

#: The schedules each job needs (rate expressions): a missing one means a job never runs.
SCHEDULES = {
    "SchedulerFunction": ["rate(15 minutes)"],
    "ReadingSyncFunction": ["rate(6 hours)"],
}

_TABLE = "${Table.Arn}"
_BUCKET = "${AttachmentBucket.Arn}"
_KEY = "arn:${AWS::Partition}:kms:${AWS::Region}:${AWS::AccountId}:key/${ReadingCredentialKey}"
_ITEMS = [
    ("dynamodb:GetItem", _TABLE),
    ("dynamodb:Query", _TABLE),
    ("dynamodb:Query", f"{_TABLE}/index/gsi1"),
    ("dynamodb:Query", f"{_TABLE}/index/gsi2"),
    ("dynamodb:Query", f"{_TABLE}/index/gsi3"),
    ("dynamodb:BatchGetItem", _TABLE),
    ("dynamodb:PutItem", _TABLE),
    ("dynamodb:UpdateItem", _TABLE),
    ("dynamodb:DeleteItem", _TABLE),
    ("dynamodb:ConditionCheckItem", _TABLE),
]
_MODEL = "arn:${AWS::Partition}:bedrock:${AWS::Region}::foundation-model/"
_SEARCH = [
    ("s3:GetObject", "${AttachmentBucket.Arn}/search/*"),
    ("s3:PutObject", "${AttachmentBucket.Arn}/search/*"),
    ("bedrock:InvokeModel", _MODEL + "${EmbeddingModelId}"),
    ("bedrock:InvokeModel", _MODEL + "${RerankModelId}"),
    ("bedrock:Rerank", "*"),
]
_ATTACHMENTS = [
    ("s3:PutObject", f"{_BUCKET}/uploads/*"),
    ("s3:GetObject", f"{_BUCKET}/uploads/*"),
    ("s3:PutObject", f"{_BUCKET}/users/*"),
    ("s3:GetObject", f"{_BUCKET}/users/*"),
    ("s3:DeleteObject", f"{_BUCKET}/users/*"),
    ("s3:ListBucket", _BUCKET),
]
_SYNC_QUEUE = "arn:${AWS::Partition}:sqs:${AWS::Region}:${AWS::AccountId}:${ReadingSyncQueue.QueueName}"

#: What each function's code calls: (action, resource) its role must allow.
PERMISSIONS: dict[str, list[tuple[str, str]]] = {
    "ApiFunction": [*_ITEMS, *_ATTACHMENTS, *_SEARCH],
    "McpFunction": [*_ITEMS, *_ATTACHMENTS, *_SEARCH],
    "OAuthFunction": [
        *_ITEMS,
        ("kms:GenerateDataKey", "${ReadingCredentialKey.Arn}"),
        ("sqs:SendMessage", _SYNC_QUEUE),
    ],
    "SchedulerFunction": [*_ITEMS, ("s3:DeleteObject", f"{_BUCKET}/uploads/*")],
    "DavFunction": list(_ITEMS),
    "ReadingSyncFunction": [*_ITEMS, ("kms:Decrypt", _KEY), ("sqs:SendMessageBatch", _SYNC_QUEUE)],
    "IndexerFunction": [
        *_ITEMS,
        ("s3:GetObject", f"{_BUCKET}/search/*"),
        ("s3:PutObject", f"{_BUCKET}/search/*"),
        ("s3:DeleteObject", f"{_BUCKET}/search/*"),
        ("bedrock:InvokeModel", "arn:${AWS::Partition}:bedrock:${AWS::Region}::foundation-model/${EmbeddingModelId}"),
        ("sqs:SendMessage", "${IndexerDeadLetters.Arn}"),
    ],
}


def route_problems(template: dict[str, Any]) -> list[str]:
    routes = http_routes(template)
    spec = load_spec()
    wanted = {(op.method, op.path): "ApiFunction" for op in [*spec.operations.values(), *spec.raw_operations.values()]}
    wanted.update(FIXED_ROUTES)
    problems = [f"{m} {p} -> {f}: {routes.get((m, p))}" for (m, p), f in wanted.items() if routes.get((m, p)) != f]
    route_keys = {f"{m} {p}" for m, p in routes}
    settings = template["Resources"]["HttpApi"]["Properties"].get("RouteSettings", {})
    problems += [f"RouteSettings names no route: {key}" for key in settings if key not in route_keys]
    return problems


#: Functions whose clients send methods the HTTP API and CloudFront do not route (PROPFIND,
#: REPORT): served by a public Lambda function URL instead (docs/deploy.md), the app checking
#: the credential itself, and reached through no HttpApi route at all.
FUNCTION_URLS = {"DavFunction": "CalDavUrl"}


def front_door_problems(template: dict[str, Any]) -> list[str]:
    problems = []
    for logical_id, output in FUNCTION_URLS.items():
        properties = template["Resources"].get(logical_id, {}).get("Properties", {})
        config = properties.get("FunctionUrlConfig") or {}
        if config.get("AuthType") != "NONE":
            problems.append(f"{logical_id}: no public function URL (FunctionUrlConfig AuthType NONE)")
        if config.get("InvokeMode", "BUFFERED") != "BUFFERED":
            problems.append(f"{logical_id}: the function URL must buffer (Mangum answers whole responses)")
        if any(event["Type"] == "HttpApi" for event in properties.get("Events", {}).values()):
            problems.append(f"{logical_id}: routed through the HttpApi, which does not pass PROPFIND/REPORT")
        value = template.get("Outputs", {}).get(output, {}).get("Value")
        if value != {"Fn::GetAtt": [f"{logical_id}Url", "FunctionUrl"]}:
            problems.append(f"{logical_id}: output {output} does not give its function URL")
    return problems


def function_url_problems(cfn: dict[str, Any]) -> list[str]:
    """After the SAM transform: a function URL on each function's published alias, and the two
    resource policies a public URL needs (lambda:InvokeFunctionUrl, and lambda:InvokeFunction
    only via the URL)."""
    problems = []
    resources = cfn["Resources"]
    for logical_id in FUNCTION_URLS:
        alias = f"{logical_id}Aliaslive"  # the published alias SnapStart needs; the URL invokes it
        urls = [r for r in resources.values() if r["Type"] == "AWS::Lambda::Url"
                and r["Properties"].get("TargetFunctionArn", {}).get("Ref") == alias]  # fmt: skip
        if len(urls) != 1 or urls[0]["Properties"].get("AuthType") != "NONE":
            problems.append(f"{logical_id}: no public function URL on its alias `live`")
        grants = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::Lambda::Permission"
                  and r["Properties"].get("FunctionName", {}).get("Ref") == alias]  # fmt: skip
        actions = {(g["Action"], g.get("FunctionUrlAuthType"), g.get("InvokedViaFunctionUrl")) for g in grants}
        if ("lambda:InvokeFunctionUrl", "NONE", None) not in actions:
            problems.append(f"{logical_id}: the public URL may not be invoked (lambda:InvokeFunctionUrl)")
        if ("lambda:InvokeFunction", None, True) not in actions:
            problems.append(f"{logical_id}: lambda:InvokeFunction via the function URL is not granted")
    return problems


def schedule_problems(template: dict[str, Any]) -> list[str]:
    found = schedules(template)
    return [
        f"{function}: no schedule {expression}"
        for function, expressions in SCHEDULES.items()
        for expression in expressions
        if expression not in found.get(function, [])
    ]


def permission_problems(template: dict[str, Any]) -> list[str]:
    cfn = transformed_permissions(template)
    problems = []
    for function, needed in PERMISSIONS.items():
        grants, _ = role_grants(cfn, function)
        problems += [
            f"{function}: {action} on {resource}" for action, resource in needed if not allows(grants, action, resource)
        ]
    return problems


def function_problems(template: dict[str, Any]) -> list[str]:
    """Every directory under functions/ is deployed, and every deployed function has a handler,
    a permission table above, a log group with a retention and alarms on errors and throttles."""
    declared = functions(template)
    uris = {resource["Properties"]["CodeUri"].strip("/"): logical_id for logical_id, resource in declared.items()}
    problems = [
        f"functions/{d.name} is not in template.yaml"
        for d in (REPO / "functions").iterdir()
        if d.is_dir() and (d / "app.py").is_file() and f"functions/{d.name}" not in uris
    ]
    resources = template["Resources"]
    for logical_id, resource in declared.items():
        if not (REPO / resource["Properties"]["CodeUri"] / "app.py").is_file():
            problems.append(f"{logical_id}: no app.py")
        if logical_id not in PERMISSIONS:
            problems.append(f"{logical_id}: not in PERMISSIONS")
        for suffix in ("LogGroup", "ErrorsAlarm", "ThrottlesAlarm"):
            if f"{logical_id}{suffix}" not in resources:
                problems.append(f"{logical_id}: no {logical_id}{suffix}")
    return problems


#: Lambda architecture -> the `platform_machine` its Python reports (for requirement markers).
_MACHINE = {"arm64": "aarch64", "x86_64": "x86_64"}
#: Functions that must get a distribution on their architecture, and which one.
NEEDS = {"McpFunction": "mini-racer"}  # Code Mode's sandbox (docs/MCP/code-mode.md)


def _layer_requirements(layer: dict[str, Any]) -> list[Requirement]:
    path = REPO / layer["Properties"]["ContentUri"] / "requirements.txt"
    lines = path.read_text().splitlines() if path.is_file() else []
    return [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]


def architecture_problems(template: dict[str, Any]) -> list[str]:
    """Each function's layers are built for its architecture (native wheels of another one would
    fail at import), and a function that needs a distribution gets it from one of its layers, on
    its architecture (the requirement's marker holds there)."""
    resources = template["Resources"]
    default_architectures = template["Globals"]["Function"].get("Architectures", ["x86_64"])
    global_layers = template["Globals"]["Function"].get("Layers", [])  # SAM prepends them to a function's own
    problems = []
    for logical_id, resource in functions(template).items():
        (architecture,) = resource["Properties"].get("Architectures", default_architectures)
        installed = []
        for layer in [*global_layers, *resource["Properties"].get("Layers", [])]:
            layer_id = layer["Ref"]
            properties, metadata = resources[layer_id]["Properties"], resources[layer_id].get("Metadata", {})
            if architecture not in properties.get("CompatibleArchitectures", []):
                problems.append(f"{logical_id} ({architecture}): {layer_id} is not compatible")
            built_for = metadata.get("BuildArchitecture")
            if _layer_requirements(resources[layer_id]) and built_for != architecture:
                problems.append(f"{logical_id} ({architecture}): {layer_id} is built for {built_for}")
            installed += _layer_requirements(resources[layer_id])
        needed = NEEDS.get(logical_id)
        if needed:
            environment = {
                "platform_machine": _MACHINE[architecture],
                "sys_platform": "linux",
                "python_version": "3.12",
            }
            wanted = [r for r in installed if r.name == needed]
            if not wanted or not all(r.marker is None or r.marker.evaluate(environment) for r in wanted):
                problems.append(f"{logical_id} ({architecture}): {needed} is not installed there")
    return problems
