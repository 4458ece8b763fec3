"""Reports (md, self-contained html, PNGs) and the eval over HTTP against a real uvicorn."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from typer.testing import CliRunner

from citegate.cli import app
from citegate.commands.serve_cmd import build_ingestor
from evals.report import in_context, load_peer
from evals.runner import EvalRun, load_tolerances, regressions, run_eval, write_run
from server.core.paths import repo_root
from server.core.settings import load_settings
from server.service.app import create_app
from tests.engine import SAMPLES, offline_engine

REPO = repo_root()
GOLD = REPO / "evals" / "gold" / "samples.jsonl"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> EvalRun:
    settings = load_settings(
        data_dir=tmp_path_factory.mktemp("data"), retrieval={"min_rerank_score": 0.05}
    )
    return run_eval(GOLD, SAMPLES, settings, engine=offline_engine(settings))


def test_reports_are_self_contained_and_compare(run: EvalRun, tmp_path: Path) -> None:
    peer = tmp_path / "peer.json"
    peer.write_text(
        json.dumps({"rows": {"citegate (x)": {"coverage": 1.0}, "LlamaIndex y": {"coverage": 0.5}}})
    )
    row = load_peer(peer)
    assert row == {"coverage": 0.5} and load_peer(tmp_path / "absent.json") is None
    new = run.model_copy(update={"peer": row})
    worse = dict(new.metrics, coverage=(new.metrics["coverage"] or 0) - 0.5)
    baseline = new.model_copy(update={"metrics": {**new.metrics, "coverage": 1.0}})
    tols = load_tolerances(REPO / "evals" / "tolerances.yaml")
    regressed = regressions(baseline.metrics, worse, tols)
    out = tmp_path / "run.json"
    md = write_run(new.model_copy(update={"metrics": worse}), out, baseline, regressed, tols)
    page = out.with_suffix(".html").read_text()
    assert "release blocked" in md.read_text() and "REGRESSED" in page
    assert "http://" not in page and "https://" not in page and "<link" not in page
    assert page.count("data:image/png;base64,") == len(list(tmp_path.glob("run.*.png"))) >= 2
    assert (tmp_path / "run.metrics.png").read_bytes()[:4] == b"\x89PNG"
    assert "peer" in page and 'id="kind"' in page
    for item in run.items:
        assert (f"<b>{item.id}</b>" in page) == bool(item.failures)


def test_in_context_marks_the_span_and_the_match() -> None:
    text = "# H\n\nabc defgh ijk\n"
    got = in_context(text, (0, len(text)), (5, 12), [(9, 20)])
    # span [5,12) is "abc def", the match [9,12) of it "def"
    assert got == '# H\n\n<mark>abc <mark class="hit">def</mark></mark>gh ijk\n'
    assert in_context(None, None, (0, 1), []).startswith("<span")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    settings = load_settings(
        data_dir=tmp_path / "srv",
        api_keys={"evl": {"role": "evaluator"}},
        retrieval={"min_rerank_score": 0.05},
    )
    application = create_app(settings, build_engine=offline_engine, build_ingestor=build_ingestor)
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(application, host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def test_eval_over_http_matches_the_local_run(served: str, run: EvalRun, tmp_path: Path) -> None:
    out = tmp_path / "http.json"
    args = ["eval", str(GOLD), "--corpus", str(SAMPLES), "--url", served, "--out", str(out)]
    done = CliRunner().invoke(
        app, [*args, "--api-key", "evl", "--json"], env={"CITEGATE_DATA_DIR": str(tmp_path)}
    )
    assert done.exit_code == 0, done.output
    remote = EvalRun.model_validate_json(out.read_text())
    assert remote.target == served and remote.metrics["latency_ratio"] is None
    assert [i.id for i in remote.items] == [i.id for i in run.items]
    for key in ("citation_match_rate", "coverage", "refusal_rate_unanswerable"):
        assert remote.metrics[key] == run.metrics[key]
    assert all((SAMPLES / c.path).is_file() for i in remote.items for c in i.citations)
    bad = CliRunner().invoke(
        app, [*args, "--api-key", "wrong", "--json"], env={"CITEGATE_DATA_DIR": str(tmp_path)}
    )
    assert bad.exit_code == 2 and "401" in json.loads(bad.stdout)["message"]
