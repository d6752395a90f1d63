"""Property-based: schemathesis drives every REST operation from the served OpenAPI document
(/api/openapi.json) and checks each answer: never a 5xx, status codes, content types, headers
and bodies as the document declares (success envelopes and the error envelope alike)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from schemathesis import openapi
from schemathesis.specs.openapi.checks import positive_data_acceptance

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.server import create_local_app
from mesq.services import build_services
from mesq.spec import load_spec
from tests.settings import inprocess_settings

OPERATIONS = sorted(
    [(op.method, op.path) for op in load_spec().operations.values()]
    # The byte-carrying attachment routes are documented (and fuzzed) too.
    + [(op.method, op.path) for op in load_spec().raw_operations.values()]
)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[openapi.OpenApiSchema, str]]:  # type: ignore[name-defined]
    with tempfile.TemporaryDirectory() as data_dir:
        # Limits off: the fuzzer's unauthenticated probes would spend the per-IP budget within a
        # minute and then see 429 instead of the 401 it checks for (limits: test_anonymous_limits).
        services = build_services(inprocess_settings(data_dir=Path(data_dir), rate_limit_profile="off"))
        user = create_user(services.items, "fuzzer", "correct horse battery")
        token, _ = create_token(services.items, user["id"], name="fuzz", scopes="memo:read,memo:write")
        yield openapi.from_asgi("/api/openapi.json", create_local_app(services)), token
        services.items.close()


def test_every_operation_is_fuzzed(served):
    schema, _ = served
    found = sorted((op.ok().method.upper(), op.ok().path) for op in schema.get_all_operations())
    assert found == OPERATIONS


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_rest_operation_conforms_to_its_document(served, method, path):
    schema, token = served
    operation = schema[path][method]

    @given(case=operation.as_strategy())
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def check(case):
        # Every check but "schema-valid data must be accepted": a schema cannot say that
        # 2026-02-30 is not a date or that createdFrom must not be after createdTo; those are
        # answered with 400 VALIDATION_ERROR, which the document declares.
        case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, excluded_checks=[positive_data_acceptance])

    check()
