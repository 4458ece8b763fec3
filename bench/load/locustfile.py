"""The load workload: 16 askers while one admin churns a document and another uploads in pairs.

Run by tests/load/test_load.py (`make load`) as its own process, since importing locust
monkey-patches the process with gevent:

    locust -f bench/load/locustfile.py --headless -u 18 -r 18 --run-time 600s --host URL

- `AskUser` (16): `POST /v1/ask` with the sample gold questions, their paraphrases and the
  churn document's questions; every answer goes through `bench.load.revisions.check_answer`
  and any finding fails the request (so locust's failure count includes them).
- `ChurnAdmin` (1): uploads revision A, then B, of `load-churn.md`, then deletes it; again.
- `PairAdmin` (1): two uploads of that document (A and B) released by one barrier, so they
  reach the server at the same moment.

Env: CITEGATE_LOAD_USER_KEY and CITEGATE_LOAD_ADMIN_KEY (bearer keys of those roles),
CITEGATE_LOAD_REPORT (JSON written at quit: answers checked, findings by kind, examples).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from locust import HttpUser, between, events, task
from locust.env import Environment
from pydantic import ValidationError

from bench.load.revisions import (
    CHURN_DOC,
    CHURN_QUESTIONS,
    CHURN_REVS,
    Finding,
    check_answer,
    churn_text,
    live_states,
)
from server.core.contracts import Answer, IngestReport

REPO = Path(__file__).resolve().parents[2]
GOLD = REPO / "evals" / "gold" / "samples.jsonl"
MAX_EXAMPLES = 20


def _questions() -> list[str]:
    items = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line]
    asked = [q for item in items for q in (item["question"], *item.get("paraphrases", []))]
    return asked + list(CHURN_QUESTIONS) * 4  # about one question in five may cite the churn doc


QUESTIONS = _questions()
STATES: dict[str, dict[str, str]] = {}
TALLY: Counter[str] = Counter()
EXAMPLES: list[dict[str, str]] = []


def _bearer(env_name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {os.environ[env_name]}"}


@events.test_start.add_listener  # type: ignore[untyped-decorator]  # locust's is untyped
def _read_baseline(environment: Environment, **_: Any) -> None:
    """The static documents' revisions and the identity half of the hash, before any churn."""
    with httpx.Client(base_url=str(environment.host), timeout=60) as client:
        ready = client.get("/readyz").raise_for_status().json()
        docs = client.get("/v1/documents", headers=_bearer("CITEGATE_LOAD_ADMIN_KEY"))
    static = {d["doc_id"]: d["rev"] for d in docs.raise_for_status().json()}
    STATES.update(live_states(ready["index_hash"].split(":", 1)[0], static))


@events.quitting.add_listener  # type: ignore[untyped-decorator]
def _write_report(environment: Environment, **_: Any) -> None:
    path = os.environ.get("CITEGATE_LOAD_REPORT")
    if path:
        report = {"tally": dict(TALLY), "examples": EXAMPLES, "states": len(STATES)}
        Path(path).write_text(json.dumps(report, indent=2), encoding="utf-8")


def _record(findings: list[Finding], question: str) -> None:
    TALLY["answers_with_findings"] += bool(findings)
    for finding in findings:
        TALLY[finding.kind] += 1
        TALLY[f"{finding.kind}_flagged_by_server"] += finding.flagged
        if len(EXAMPLES) < MAX_EXAMPLES:
            EXAMPLES.append({"kind": finding.kind, "detail": finding.detail, "q": question})


class AskUser(HttpUser):
    fixed_count = 16
    wait_time = between(0.5, 1.5)

    @task
    def ask(self) -> None:
        question = random.choice(QUESTIONS)
        with self.client.post(
            "/v1/ask",
            json={"question": question},
            headers=_bearer("CITEGATE_LOAD_USER_KEY"),
            name="ask",
            catch_response=True,
        ) as resp:
            if resp.status_code != 200:
                resp.failure(f"HTTP {resp.status_code}: {resp.text[:200]}")
                return
            try:
                answer = Answer.model_validate_json(resp.content)
            except ValidationError as exc:
                resp.failure(f"not an Answer: {exc.errors()[:1]}")
                return
            findings = check_answer(answer, STATES)
            TALLY["answers"] += 1
            TALLY["cited_churn"] += any(c.doc_id == CHURN_DOC for c in answer.citations)
            _record(findings, question)
            if findings:
                resp.failure("; ".join(f"{f.kind}: {f.detail}" for f in findings))


class _Admin(HttpUser):
    abstract = True

    def upload(self, rev: str, name: str) -> None:
        """One multipart upload of the churn document at `rev`; a per-file failure fails it."""
        with self.client.post(
            "/v1/ingest",
            files={"files": (CHURN_DOC, churn_text(rev), "text/markdown")},
            data={"rev": rev},
            headers=_bearer("CITEGATE_LOAD_ADMIN_KEY"),
            name=name,
            catch_response=True,
        ) as resp:
            if resp.status_code != 200:
                resp.failure(f"HTTP {resp.status_code}: {resp.text[:200]}")
                return
            reports = [IngestReport.model_validate(r) for r in resp.json()]
            failed = [f for r in reports for f in r.failures]
            if failed:
                resp.failure(f"ingest failures: {failed}")
            else:
                TALLY[f"uploaded_{rev}"] += 1


class ChurnAdmin(_Admin):
    fixed_count = 1
    wait_time = between(1.0, 2.0)

    def on_start(self) -> None:
        self.steps = itertools.cycle(("load-a", "load-b", "delete"))

    @task
    def churn(self) -> None:
        step = next(self.steps)
        if step != "delete":
            self.upload(step, f"ingest {step}")
            return
        with self.client.delete(
            f"/v1/documents/{CHURN_DOC}",
            headers=_bearer("CITEGATE_LOAD_ADMIN_KEY"),
            name="delete",
            catch_response=True,
        ) as resp:
            if resp.status_code != 200:
                resp.failure(f"HTTP {resp.status_code}: {resp.text[:200]}")
            else:
                TALLY["deleted"] += 1


class PairAdmin(_Admin):
    fixed_count = 1
    wait_time = between(2.0, 4.0)

    @task
    def pair(self) -> None:
        """Both revisions at once: gevent makes these threads greenlets, released together."""
        barrier = threading.Barrier(len(CHURN_REVS))

        def send(rev: str) -> None:
            barrier.wait()
            self.upload(rev, "ingest pair")

        workers = [threading.Thread(target=send, args=(rev,)) for rev in CHURN_REVS]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        TALLY["pairs"] += 1
