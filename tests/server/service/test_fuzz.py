"""Schemathesis against the app's own OpenAPI spec: no request it can generate gets a 5xx.

Opt-in tier (`pytest -m fuzz`, `make fuzz`), bounded by `max_examples` per operation and
mode: valid requests (positive) and requests that break the schema (negative), each sent
with an admin key, a user key and an unknown key. The
engine is the offline one (hash embedder, embedded store) so the fuzzing measures the HTTP
layer: validation, auth, error mapping, streaming, uploads.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.core.result import Err, Ok

from citegate.commands.serve_cmd import build_ingestor
from server.core.settings import load_settings
from server.service.app import create_app
from tests.engine import offline_engine

pytestmark = pytest.mark.fuzz
KEYS = {"adm": {"role": "admin"}, "usr": {"role": "user", "scope": ["public"]}}


@pytest.fixture
def api_schema(tmp_path: Path) -> Iterator[schemathesis.BaseSchema]:
    app = create_app(
        load_settings(
            data_dir=tmp_path / "data", api_keys=KEYS, retrieval={"min_rerank_score": 0.05}
        ),
        build_engine=offline_engine,
        build_ingestor=build_ingestor,
    )
    with TestClient(app):  # runs the lifespan: engine and store loaded once
        yield schemathesis.openapi.from_asgi("/openapi.json", app)


def _no_server_error(case: schemathesis.Case[Any]) -> None:
    for key in ("adm", "usr", "wrong"):
        response = case.call(headers={"Authorization": f"Bearer {key}"})
        assert response.status_code < 500, (
            f"{case.method} {case.formatted_path} as {key}: {response.status_code} "
            f"{response.text[:300]}"
        )


def test_no_generated_request_gets_a_server_error(api_schema: schemathesis.BaseSchema) -> None:
    # Driven through Hypothesis directly: schemathesis' pytest plugin does not load under
    # pytest 9 (it reads `Function._nodeid`).
    results = list(api_schema.get_all_operations())
    broken = [r for r in results if isinstance(r, Err)]
    assert not broken, f"the app's OpenAPI spec has operations schemathesis cannot read: {broken}"
    operations = [r.ok() for r in results if isinstance(r, Ok)]
    assert len(operations) >= 9, [op.label for op in operations]
    for operation in operations:
        for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
            check = settings(
                max_examples=30,
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )(given(case=operation.as_strategy(mode))(_no_server_error))
            try:
                check()
            except Unsatisfiable:  # no parameter or body to break (GET /healthz, negative)
                assert mode is schemathesis.GenerationMode.NEGATIVE, operation.label
