"""Property-based: schemathesis drives every inbox REST route with a todo token (the shared
conformance test holds only memo scopes, so it sees 403s): never a 5xx, and every answer —
success or error envelope — as the served document declares."""

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

INBOX = sorted(
    (op.method, op.path) for op in load_spec().operations.values() if op.path.startswith("/api/toolkit/todo/inbox")
)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[openapi.OpenApiSchema, str]]:  # type: ignore[name-defined]
    with tempfile.TemporaryDirectory() as data_dir:
        # Limits off: schemathesis's unauthenticated probes would spend the per-IP budget (then 429, not 401).
        services = build_services(inprocess_settings(data_dir=Path(data_dir), rate_limit_profile="off"))
        user = create_user(services.items, "inboxfuzzer", "correct horse battery")
        token, _ = create_token(services.items, user["id"], name="fuzz", scopes="todo:read,todo:write")
        yield openapi.from_asgi("/api/openapi.json", create_local_app(services)), token
        services.items.close()


def test_every_inbox_route_is_covered():
    assert len(INBOX) == 13


@pytest.mark.parametrize(("method", "path"), INBOX, ids=[f"{m} {p}" for m, p in INBOX])
def test_inbox_route_conforms_to_its_document(served, method, path):
    schema, token = served
    operation = schema[path][method]

    @given(case=operation.as_strategy())
    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def check(case):
        # Schema-valid data may still be refused with a declared 400 (a blank title, an unknown
        # time zone, 2026-02-30), so "valid data must be accepted" is not checked.
        case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, excluded_checks=[positive_data_acceptance])

    check()
