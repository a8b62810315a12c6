"""schemathesis over the committed openapi/openapi.json, run against the app in process.

Checks: no server error, the status code and content type are ones the document lists, and the body fits
its schema. (Schema-valid requests may still be refused, e.g. an unknown game: a 422 problem is a documented,
correct answer, so "positive data acceptance" is not among the checks.) The number of examples per operation
is bounded to keep the run near a minute; raise ``PLYBITS_SCHEMA_EXAMPLES`` to search longer.
"""

from __future__ import annotations

import os
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from app.main import create_app
from app.settings import Settings

OPENAPI = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"
EXAMPLES = int(os.environ.get("PLYBITS_SCHEMA_EXAMPLES", "150"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@schemathesis.serializer("application/x-ndjson", "application/x-chess-pgn")
def _text_body(ctx: object, value: object) -> bytes:
    """Batch bodies are text: send generated strings as UTF-8, anything else as its JSON-ish text."""
    return value.encode() if isinstance(value, str) else str(value).encode()


APP = create_app(Settings(access_log=False))
schema = schemathesis.openapi.from_path(OPENAPI)
schema.app = APP


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_openapi(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=CHECKS)
