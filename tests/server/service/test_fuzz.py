"""Fuzzing the HTTP layer: no request gets a 5xx, and every 4xx is the `{"error", "message"}`
envelope.

Opt-in tier (`pytest -m fuzz`, `make fuzz`, under a minute). Schemathesis drives every
operation of the app's own OpenAPI spec, bounded by `max_examples` per operation and mode:
valid requests (positive) and requests that break the schema (negative), each sent with an
admin key, a user key and an unknown key. Schemathesis reaches the multipart upload only
with schema-shaped parts, so the file paths of `POST /v1/ingest` are driven here directly:
byte-mutated PDFs, long, unicode, empty and path-traversing file names, YAML alias bombs in
front matter, and deeply nested JSON bodies; then a seeded stateful chain ingest -> ask ->
snippet -> trace -> delete. The engine is the offline one (hash embedder, in-memory store).
Every random input comes from a fixed seed, so a failure reproduces.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis.core.result import Err, Ok

from citegate.commands.serve_cmd import build_ingestor
from server.core.settings import load_settings
from server.service.app import create_app
from tests.engine import offline_engine
from tests.files import minimal_pdf

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


ADMIN = {"Authorization": "Bearer adm"}
USER = {"Authorization": "Bearer usr"}
SEED = 20240611
Reply = Any  # the test client's response (its httpx flavour differs from the installed one)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(
        load_settings(
            data_dir=tmp_path_factory.mktemp("fuzz") / "data",
            api_keys=KEYS,
            retrieval={"min_rerank_score": 0.05},
        ),
        build_engine=offline_engine,
        build_ingestor=build_ingestor,
    )
    with TestClient(app) as c:
        yield c


def _checked(response: Reply, what: str) -> Reply:
    """No 5xx; a 4xx is the envelope with a message that says something."""
    assert response.status_code < 500, f"{what}: {response.status_code} {response.text[:300]}"
    if response.status_code >= 400:
        body = response.json()
        assert isinstance(body, dict) and set(body) == {"error", "message"}, f"{what}: {body}"
        assert body["error"] and body["message"], what
    return response


def _upload(client: TestClient, files: list[tuple[str, bytes]], what: str) -> Reply:
    parts = [("files", (name, data, "application/octet-stream")) for name, data in files]
    return _checked(client.post("/v1/ingest", files=parts, headers=ADMIN), what)


def _mutate(data: bytes, rng: random.Random) -> bytes:
    """One of: flipped bytes, a cut, inserted junk, a repeated slice, a rewritten number."""
    buf = bytearray(data)
    kind = rng.randrange(5)
    if kind == 0:
        for _ in range(rng.randint(1, 12)):
            buf[rng.randrange(len(buf))] = rng.randrange(256)
    elif kind == 1:
        del buf[rng.randrange(1, len(buf)) :]
    elif kind == 2:
        at = rng.randrange(len(buf))
        buf[at:at] = rng.randbytes(rng.randint(1, 64))
    elif kind == 3:
        lo = rng.randrange(len(buf))
        hi = min(len(buf), lo + rng.randint(1, 200))
        at = rng.randrange(len(buf))
        buf[at:at] = buf[lo:hi] * rng.randint(1, 20)
    else:
        digits = [i for i, b in enumerate(buf) if 0x30 <= b <= 0x39]
        for i in rng.sample(digits, k=min(len(digits), rng.randint(1, 6))):
            buf[i] = rng.choice(b"0123456789")
    return bytes(buf)


def test_mutated_pdfs_are_ingested_or_listed_never_a_server_error(client: TestClient) -> None:
    rng = random.Random(SEED)
    seed_pdf = minimal_pdf("The archive keeps every invoice for seven years.")
    good = _upload(client, [("seed.pdf", seed_pdf)], "the unmutated PDF").json()
    assert good[0]["documents"]["new"] == 1, good  # the seed itself is a readable PDF
    mutants = [(f"mutant-{i}.pdf", _mutate(seed_pdf, rng)) for i in range(80)]
    mutants += [("empty.pdf", b""), ("header-only.pdf", b"%PDF-1.7\n"), ("junk.pdf", b"\0" * 4096)]
    for start in range(0, len(mutants), 16):
        batch = mutants[start : start + 16]
        reports = _upload(client, batch, f"PDF mutants {start}..").json()
        assert len(reports) == len(batch)
        for (name, _), report in zip(batch, reports, strict=True):
            counts = report["documents"]
            assert sum(counts[k] for k in ("new", "changed", "unchanged", "failed")) == 1, name
            for failure in report["failures"]:
                assert failure["reason"] and "/tmp" not in failure["reason"], failure


ODD_NAMES = [
    "a" * 300 + ".md",
    "\u00fcber-\u6f22\u5b57-\U0001f642.md",
    "../../x.md",
    "..\\..\\x.md",
    "/etc/passwd.md",
    "a/b/../../c.md",
    "",
    ".",
    "..",
    ".md",
    " .md",
    "con.md",
    "x.md.exe",
    'quote".md',
    "semi;colon.md",
    "new\nline.md",
    "tab\tname.md",
    "\u202eevil\u202dgpj.md",
    "x" * 4000,
]


def _names_stay_names(client: TestClient) -> None:
    for doc in _checked(client.get("/v1/documents", headers=ADMIN), "documents").json():
        assert ".." not in doc["doc_id"].split("/"), doc  # no upload becomes a path
        assert not doc["doc_id"].startswith("/"), doc


def test_odd_file_names_are_names_never_paths(client: TestClient, tmp_path: Path) -> None:
    body = b"# Note\n\nThe night shift rotates every nine days.\n"
    for name in ODD_NAMES:
        _upload(client, [(name, body)], f"file name {name[:40]!r}")
    _names_stay_names(client)
    assert not (tmp_path.parent / "x.md").exists()


@settings(
    max_examples=40,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(name=st.text(max_size=300), suffix=st.sampled_from([".md", ".txt", ".pdf", ".html", ""]))
def test_generated_file_names_never_get_a_server_error(
    client: TestClient, name: str, suffix: str
) -> None:
    _upload(client, [(name + suffix, b"Plain words about the harbour tides.\n")], repr(name))


def _alias_bomb(levels: int, width: int) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        refs = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"a{level}: &a{level} [{refs}]")
    last = f"*a{levels - 1}"
    lines += [f"title: {last}", f"tags: {last}", f"doc_id: {last}", f"source_url: {last}"]
    return "---\n" + "\n".join(lines) + "\n---\n# Bomb\n\nThe lighthouse opens at dawn.\n"


def test_yaml_alias_bombs_and_deep_front_matter_are_refused_quickly(client: TestClient) -> None:
    hostile = {
        "bomb.md": _alias_bomb(9, 9),
        "wide-bomb.md": _alias_bomb(4, 200),
        "deep.md": "---\ntitle: " + "[" * 5000 + "]" * 5000 + "\n---\n# Deep\n\nText.\n",
        "deep-map.md": "---\n"
        + "".join(f"{'  ' * i}k{i}:\n" for i in range(400))
        + "---\n# Map\n\nText.\n",
        "anchors.md": "---\ntags: &t [a, *t]\n---\n# Loop\n\nText.\n",
        "tagged.md": "---\ntitle: !!python/object/apply:os.system ['true']\n---\n# T\n\nText.\n",
    }
    for name, text in hostile.items():
        started = time.perf_counter()
        report = _upload(client, [(name, text.encode())], name).json()[0]
        assert time.perf_counter() - started < 10, f"{name} took too long"
        counts = report["documents"]
        assert counts["new"] + counts["changed"] + counts["failed"] == 1, (name, report)
    docs = _checked(client.get("/v1/documents", headers=ADMIN), "documents").json()
    for doc in docs:
        assert len(doc["title"]) < 1000 and len(doc["doc_id"]) < 1000, doc["doc_id"][:80]


def _nested(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "]" * depth
    return '{"a": ' * depth + "1" + "}" * depth


@pytest.mark.parametrize("depth", [64, 900, 5000, 100_000])
def test_nested_json_bodies_get_a_4xx_envelope_or_an_answer(client: TestClient, depth: int) -> None:
    json_user = {**USER, "Content-Type": "application/json"}
    bodies = {
        "/v1/ask": [
            '{"question": ' + _nested(depth, "map") + "}",
            '{"question": "q", "mode": ' + _nested(depth, "list") + "}",
        ],
        "/v1/chat/completions": [
            '{"messages": [{"role": "user", "content": ' + _nested(depth, "list") + "}]}",
            '{"messages": [{"role": "user", "content": [{"type": "text", "text": '
            + _nested(depth, "map")
            + "}]}]}",
            '{"messages": [{"role": "user", "content": "What is the gate?"}], "extra": '
            + _nested(depth, "map")
            + "}",
        ],
    }
    for path, variants in bodies.items():
        for body in variants:
            _checked(client.post(path, content=body.encode(), headers=json_user), path)
    form = {"tags": _nested(min(depth, 5000), "list"), "rev": _nested(min(depth, 5000), "map")}
    files = [("files", ("nested.md", _nested(depth, "map").encode(), "text/markdown"))]
    _checked(client.post("/v1/ingest", files=files, data=form, headers=ADMIN), "nested form")


WORDS = ["amber", "basalt", "cobalt", "dune", "ember", "fjord", "garnet", "harbor"]
UNITS = ["days", "metres", "requests", "volts", "pages"]


def test_a_seeded_chain_ingest_ask_snippet_trace_delete(client: TestClient) -> None:
    rng = random.Random(SEED + 1)
    cited = 0
    for round_ in range(6):
        subject = " ".join(rng.sample(WORDS, 2))
        number, unit = rng.randint(2, 999), rng.choice(UNITS)
        name = "".join(rng.choice("abcxyz\u00e9\u6f22-_") for _ in range(rng.randint(1, 20)))
        name = f"{name}-{round_}.md"
        tags = ",".join(rng.sample(["public", "ops", "x"], rng.randint(0, 2)))
        text = f"# {subject.title()}\n\nThe {subject} limit is {number} {unit} per cycle.\n"
        ingested = _checked(
            client.post(
                "/v1/ingest",
                files=[("files", (name, text.encode(), "text/markdown"))],
                data={"tags": tags, "rev": f"r{round_}"},
                headers=ADMIN,
            ),
            f"round {round_} ingest",
        ).json()
        assert ingested[0]["documents"]["new"] == 1, ingested
        asked = _checked(
            client.post(
                "/v1/ask",
                json={"question": f"What is the {subject} limit?", "seed": rng.randrange(2**31)},
                headers=ADMIN,
            ),
            f"round {round_} ask",
        ).json()
        for cite in asked["citations"]:
            snippet = _checked(
                client.get(f"/v1/snippets/{cite['snippet_id']}", headers=ADMIN), "snippet"
            ).json()
            assert snippet["text"] == cite["text"]
        trace = _checked(
            client.get(f"/v1/traces/{asked['trace_id']}", headers=ADMIN), "trace"
        ).json()
        assert trace["answer"]["trace_id"] == asked["trace_id"]
        mine = [c for c in asked["citations"] if c["doc_id"] == name]
        cited += bool(mine)
        deleted = _checked(client.delete(f"/v1/documents/{name}", headers=ADMIN), "delete")
        assert deleted.json()["chunks_removed"] >= 1
        for cite in mine:  # what was deleted is no longer served
            gone = client.get(f"/v1/snippets/{cite['snippet_id']}", headers=ADMIN)
            assert _checked(gone, "deleted snippet").status_code == 404
        again = client.delete(f"/v1/documents/{name}", headers=ADMIN)
        assert _checked(again, "second delete").status_code == 404
    assert cited >= 4, cited  # the chain reaches snippets of what it ingested, not only others
