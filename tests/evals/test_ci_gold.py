"""The small CI gold set, end to end with the real MiniLM embedder on the sample corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citegate.cli import app
from evals.runner import METRICS, RATES
from server.core.paths import repo_root

REPO = repo_root()


@pytest.mark.model  # the CLI's engine loads the real MiniLM weights
def test_eval_runs_and_blocks_a_regression(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CITEGATE_DATA_DIR", str(tmp_path / "data"))
    out = tmp_path / "run.json"
    args = [
        "eval",
        str(REPO / "evals/gold/samples.jsonl"),
        "--corpus",
        str(REPO / "samples/corpus"),
        "--out",
        str(out),
    ]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    run = json.loads(out.read_text())
    metrics = run["metrics"]
    assert next(iter(run)) == "schema_version" and run["schema_version"] == 2
    assert set(metrics) == set(METRICS)
    assert metrics["convergence"] is None  # paraphrases not run
    assert metrics["latency_ratio"] > 0 and set(run["intervals"]) <= set(RATES)
    assert all(0 <= lo <= hi <= 1 for lo, hi in run["intervals"].values())
    assert metrics["citation_match_rate"] >= 0.75 and metrics["match_at_1"] >= 0.5
    assert metrics["fabricated_id_rate"] == 0.0 and metrics["refusal_rate_unanswerable"] == 1.0
    assert metrics["coverage"] >= 0.75 and metrics["incorrect_refusal_rate"] == 0.0
    assert run["models"]["embed"].startswith("sentence-transformers/all-MiniLM-L6-v2")
    better = dict(run, metrics={**metrics, "coverage": 1.0, "citation_match_rate": 1.0})
    baseline = tmp_path / "old.json"
    baseline.write_text(
        json.dumps(
            better
            if metrics["coverage"] < 1.0
            else dict(
                run,
                metrics={**metrics, "citation_match_rate": metrics["citation_match_rate"] + 0.5},
            )
        )
    )
    again = CliRunner().invoke(
        app, [*args, "--baseline", str(baseline), "--out", str(tmp_path / "new.json")]
    )
    assert again.exit_code == 1 and "release blocked" in (tmp_path / "new.md").read_text()
