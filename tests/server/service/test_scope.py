"""Roles and scope on every route, generated from the app's route table.

A route missing from `ROUTES` fails `test_every_route_is_in_the_matrix`, so a new route
cannot skip the role check (it must declare `require(action)`) or the scope check (it must
name a probe that proves a scoped key sees nothing outside its scope).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.testclient import TestClient

from citegate.commands.serve_cmd import build_ingestor
from server.core.settings import load_settings
from server.service.app import create_app
from server.service.auth import ROLES_FOR
from server.service.deps import gated
from tests.engine import offline_engine

ROLES = ("user", "evaluator", "admin")
KEYS = {
    f"{role}-{kind}": {"role": role, **extra}
    for role in ROLES
    for kind, extra in (("all", {}), ("pub", {"scope": ["public"]}))
}
VAULT = "# Vault\n\nThe vault master passphrase is rotated every 17 days by the vault keeper.\n"
SECRET_Q = "How often is the vault master passphrase rotated by the vault keeper?"


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


class World:
    """A client over the sample corpus plus one document tagged `secret`, and an admin's
    answer citing it."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        files = {"files": ("vault.md", VAULT.encode(), "text/markdown")}
        r = client.post(
            "/v1/ingest", files=files, data={"tags": "secret"}, headers=auth("admin-all")
        )
        assert r.status_code == 200, r.text
        body = client.post("/v1/ask", json={"question": SECRET_Q}, headers=auth("admin-all")).json()
        secret = [c for c in body["citations"] if "secret" in c["tags"]]
        assert secret, body  # the admin's answer cites the secret chunk
        self.secret_snippet = secret[0]["snippet_id"]
        self.secret_trace = body["trace_id"]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    settings = load_settings(
        data_dir=tmp_path / "data", api_keys=KEYS, retrieval={"min_rerank_score": 0.05}
    )
    app = create_app(settings, build_engine=offline_engine, build_ingestor=build_ingestor)
    with TestClient(app) as client:
        yield World(client)


def _secret_cited(r: Any) -> bool:
    assert r.status_code == 200, r.text
    return any("secret" in c["tags"] for c in r.json()["citations"])


Probe = Callable[[World, str], bool]  # True when the caller saw the secret document


def _ask(w: World, key: str) -> bool:
    return _secret_cited(w.client.post("/v1/ask", json={"question": SECRET_Q}, headers=auth(key)))


def _chat(w: World, key: str) -> bool:
    body = {"messages": [{"role": "user", "content": SECRET_Q}]}
    return _secret_cited(w.client.post("/v1/chat/completions", json=body, headers=auth(key)))


def _snippet(w: World, key: str) -> bool:
    r = w.client.get(f"/v1/snippets/{w.secret_snippet}", headers=auth(key))
    assert r.status_code in {200, 404} and (r.status_code == 404) == (
        r.json().get("error") == "not_found"
    )
    return r.status_code == 200


def _trace(w: World, key: str) -> bool:
    r = w.client.get(f"/v1/traces/{w.secret_trace}", headers=auth(key))
    assert r.status_code in {200, 404}, r.text
    return r.status_code == 200


def _documents(w: World, key: str) -> bool:
    r = w.client.get("/v1/documents", headers=auth(key))
    return "vault.md" in {d["doc_id"] for d in r.json()}


def _delete(w: World, key: str) -> bool:
    if key.endswith("-all"):  # an unscoped admin may delete it: check it is visible instead
        return _documents(w, key)
    r = w.client.delete("/v1/documents/vault.md", headers=auth(key))
    assert r.status_code == 404, r.text
    return not _documents(w, "admin-all")


def _ingest(w: World, key: str) -> bool:
    files = {"files": ("more.md", b"# More\n\nThe vault has a second door.\n", "text/markdown")}
    r = w.client.post("/v1/ingest", files=files, data={"tags": "secret"}, headers=auth(key))
    assert r.status_code in {200, 403}, r.text
    return r.status_code == 200


def _no_data(w: World, key: str) -> bool:
    return False  # the route returns nothing tagged: scope has nothing to hide


def _unscoped_sees(probe: Probe) -> bool:
    return probe is not _no_data


# (method, path) -> (action or None for public routes, scope probe)
ROUTES: dict[tuple[str, str], tuple[str | None, Probe]] = {
    ("GET", "/"): (None, _no_data),
    ("GET", "/healthz"): (None, _no_data),
    ("GET", "/readyz"): (None, _no_data),
    ("GET", "/metrics"): (None, _no_data),
    ("POST", "/v1/ask"): ("ask", _ask),
    ("POST", "/v1/chat/completions"): ("ask", _chat),
    ("GET", "/v1/models"): ("ask", _no_data),
    ("GET", "/v1/snippets/{snippet_id}"): ("ask", _snippet),
    ("GET", "/v1/traces/{trace_id}"): ("traces", _trace),
    ("GET", "/v1/documents"): ("admin", _documents),
    ("DELETE", "/v1/documents/{doc_id}"): ("admin", _delete),
    ("POST", "/v1/ingest"): ("admin", _ingest),
}
FRAMEWORK = {"/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"}


def _table(app: FastAPI) -> dict[tuple[str, str], APIRoute]:
    table = {}
    for ctx in iter_route_contexts(app.routes):
        route = ctx.original_route
        if ctx.path in FRAMEWORK or not isinstance(route, APIRoute):
            continue
        path = (ctx.path or "").replace("{doc_id:path}", "{doc_id}")
        for method in ctx.methods or ():
            table[(method, path)] = route
    return table


def _url(path: str) -> str:
    return path.replace("{snippet_id}", "x").replace("{trace_id}", "x").replace("{doc_id}", "x")


def test_every_route_is_in_the_matrix_and_gated_as_listed(world: World) -> None:
    app = world.client.app
    assert isinstance(app, FastAPI)
    table = _table(app)
    assert set(table) == set(ROUTES), (
        "add the new route to ROUTES with its action and a scope probe"
    )
    for key, route in table.items():
        assert gated(route) == (ROUTES[key][0] is not None), key


@pytest.mark.parametrize("key", [(m, p) for m, p in ROUTES])
def test_roles_are_checked_before_the_body(world: World, key: tuple[str, str]) -> None:
    """Every route x no key / unknown key / every role: 401 and 403 come before any body is
    parsed or validated (the body sent is not even JSON)."""
    method, path = key
    action = ROUTES[key][0]
    for who in (None, "wrong", *KEYS):
        headers = {"Content-Type": "application/json", **(auth(who) if who else {})}
        r = world.client.request(method, _url(path), content=b"{not json", headers=headers)
        assert r.status_code < 500, (key, who, r.text)
        if action is None:
            assert r.status_code not in {401, 403}, (key, who)
        elif who is None or who == "wrong":
            assert r.status_code == 401 and r.json()["error"] == "unauthorized", (key, who, r.text)
        elif KEYS[who]["role"] not in ROLES_FOR[action]:
            assert r.status_code == 403 and r.json()["error"] == "forbidden", (key, who, r.text)
        else:
            assert r.status_code not in {401, 403}, (key, who, r.text)


@pytest.mark.parametrize("key", [(m, p) for m, p in ROUTES])
def test_scope_applies_on_every_route(world: World, key: tuple[str, str]) -> None:
    """Every route x every role allowed on it x scoped/unscoped key."""
    action, probe = ROUTES[key]
    roles = ROLES if action is None else [r for r in ROLES if r in ROLES_FOR[action]]
    for role in roles:
        assert probe(world, f"{role}-pub") is False, (key, role, "scoped key saw a secret")
        assert probe(world, f"{role}-all") is _unscoped_sees(probe), (key, role)


def test_a_scoped_evaluator_cannot_read_an_admins_secret_trace(world: World) -> None:
    c = world.client
    hidden = c.get(f"/v1/traces/{world.secret_trace}", headers=auth("evaluator-pub"))
    unknown = c.get("/v1/traces/nope", headers=auth("evaluator-pub"))
    assert hidden.status_code == unknown.status_code == 404
    assert hidden.json()["error"] == unknown.json()["error"] == "not_found"
    assert (
        c.get(f"/v1/traces/{world.secret_trace}", headers=auth("evaluator-all")).status_code == 200
    )


def test_openapi_offers_the_bearer_scheme(world: World) -> None:
    spec = world.client.get("/openapi.json").json()
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    assert spec["paths"]["/v1/ingest"]["post"]["security"] == [{"HTTPBearer": []}]
