"""The runner end to end on the offline engine: typed run, schema v2, baselines refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citegate.cli import app
from evals.runner import (
    RATES,
    SCHEMA_VERSION,
    EvalRun,
    compute_metrics,
    load_run,
    run_eval,
)
from server.core.errors import InputError
from server.core.paths import repo_root
from server.core.settings import load_settings
from tests.engine import SAMPLES, offline_engine

REPO = repo_root()
GOLD = REPO / "evals" / "gold" / "samples.jsonl"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> EvalRun:
    settings = load_settings(
        data_dir=tmp_path_factory.mktemp("data"), retrieval={"min_rerank_score": 0.05}
    )
    return run_eval(GOLD, SAMPLES, settings, engine=offline_engine(settings))


def test_run_is_typed_and_versioned(run: EvalRun) -> None:
    text = run.model_dump_json()
    assert text.startswith('{"schema_version":2,')
    again = EvalRun.model_validate_json(text)
    assert again == run and run.schema_version == SCHEMA_VERSION
    assert len(run.items) == 5 and run.index_hash
    assert run.metrics["convergence"] is None  # paraphrases not run: not measured
    assert run.metrics["latency_ratio"] is not None and run.metrics["latency_ratio"] > 0
    assert "embed_query" in run.latency_reference
    for key in RATES:
        value = run.metrics[key]
        if value is not None:
            lo, hi = run.intervals[key]
            assert 0.0 <= lo <= hi <= 1.0
    answered = [i for i in run.items if i.citations]
    assert answered
    for item in answered:
        for c in item.citations:
            # corpus-relative paths, and the section holds the cited span
            assert (SAMPLES / c.path).is_file() and c.also_in == []
            assert c.section is not None
            assert c.section.start <= c.span.start < c.span.end <= c.section.end
    unanswerable = [i for i in run.items if not i.answerable]
    assert unanswerable and all(g.section.start <= g.span.start for i in run.items for g in i.gold)


def test_metrics_recompute_from_items(run: EvalRun) -> None:
    again = compute_metrics(run.items)
    for key in RATES:
        assert again[key] == run.metrics[key]
    assert again["latency_ratio"] is None  # no reference given: not measured


def test_failure_kinds_follow_the_items(run: EvalRun) -> None:
    for item in run.items:
        assert ("wrong_refusal" in item.failures) == (item.answerable and item.fallback)
        assert ("missed_refusal" in item.failures) == (not item.answerable and not item.fallback)


def test_other_schema_baseline_is_refused(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"gold": "g.jsonl", "corpus": "c", "metrics": {}}))
    with pytest.raises(InputError, match=r"schema version 1 .*citegate eval g.jsonl --corpus c"):
        load_run(old)
    args = ["eval", str(GOLD), "--corpus", str(SAMPLES), "--baseline", str(old), "--json"]
    done = CliRunner().invoke(app, args, env={"CITEGATE_DATA_DIR": str(tmp_path / "d")})
    assert done.exit_code == 2, done.output
    body = json.loads(done.stdout)
    assert set(body) == {"error", "message"} and "Re-run the baseline" in body["message"]
