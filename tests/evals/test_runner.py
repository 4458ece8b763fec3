"""The runner end to end on the offline engine: typed run, schema v2, baselines refused;
the peer row bench/peer.py writes, read back as the report reads it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from typer.testing import CliRunner

from bench.peer import NOT_MEASURED, dump, peer_file, peer_row, row_name
from citegate.cli import app
from evals.gold import GoldItem, load_gold, resolve
from evals.report import load_peer
from evals.runner import (
    METRICS,
    RATES,
    SCHEMA_VERSION,
    Corpus,
    EvalRun,
    compute_metrics,
    load_run,
    load_tolerances,
    open_scratch,
    run_eval,
)
from ingest.loaders import build_doc
from server.core.errors import InputError
from server.core.paths import repo_root
from server.core.ports import Embedder
from server.core.settings import load_settings
from tests.engine import SAMPLES, offline_engine
from tests.files import minimal_pdf

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
    assert "embedding pass" in run.latency_reference
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


def test_typed_objects_have_no_dict_reads(run: EvalRun) -> None:
    with pytest.raises(TypeError):
        run["metrics"]  # type: ignore[index]
    tol = load_tolerances(REPO / "evals" / "tolerances.yaml")["incorrect_refusal_rate"]
    assert tol.tolerance >= 0
    with pytest.raises(TypeError):
        tol["tolerance"]  # type: ignore[index]


class _Embedder:
    def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 1.0] for _ in texts]


def _node(path: str, start: int, end: int, text: str) -> SimpleNamespace:
    node = SimpleNamespace(
        node_id=f"{path}:{start}",
        metadata={"path": path},
        start_char_idx=start,
        end_char_idx=end,
        get_content=lambda: text[start:end],
    )
    return SimpleNamespace(node=node)


def test_peer_row_round_trips_to_the_report(tmp_path: Path) -> None:
    """Each item dumps one chunk, the gold quote's whole section: every answerable item
    matches at rank 1 inside its section; nothing is refused; cited chars = section sizes."""
    items = load_gold(GOLD)
    corpus = Corpus(SAMPLES, {})
    embedder = cast(Embedder, _Embedder())
    results, sizes = [], []
    for item in items:
        spans = resolve(item, SAMPLES)
        path = spans[0].path if spans else "overview.md"
        text = corpus.text(path) or ""
        lo, hi = (spans[0].section_start, spans[0].section_end) if spans else (0, len(text))
        sizes.append(hi - lo)
        results.append(dump(item, spans, [_node(path, lo, hi, text)], 2.0, embedder, corpus))
    row = peer_row(results, [1.0] * 20)
    assert set(row) == set(METRICS)
    assert all(row[k] is None for k in NOT_MEASURED)
    assert row["citation_match_rate"] == row["match_at_1"] == row["citation_precision"] == 1.0
    assert row["refusal_rate_unanswerable"] == 0.0 and row["incorrect_refusal_rate"] == 0.0
    assert row["cited_chars_per_answer"] == pytest.approx(sum(sizes) / len(sizes))
    assert row["latency_ratio"] == 2.0
    assert row["delta_s_mean"] == pytest.approx(1 - 2**-0.5, abs=1e-4)
    top3 = dict(row, match_at_1=0.5)
    rows = {"citegate (x)": dict(row, match_at_1=0.9), row_name(3): top3, row_name(5): row}
    out = tmp_path / "peer.json"
    out.write_text(json.dumps(peer_file(GOLD, SAMPLES, {}, rows, row_name(5))))
    assert load_peer(out) == row  # the named row, not the first non-citegate one
    del rows[row_name(5)]
    out.write_text(json.dumps({"rows": rows}))
    assert load_peer(out) == top3  # older files: the first row not named citegate


def test_a_scratch_index_of_another_identity_is_rebuilt_not_refused(tmp_path: Path) -> None:
    from server.core.errors import IndexMismatchError
    from server.index.sparse import Bm25Encoder
    from server.query.engine import open_index
    from tests.fakes import HashEmbedder

    old = load_settings(data_dir=tmp_path)
    emb, sparse = HashEmbedder(), Bm25Encoder(old.models)
    open_index(old, emb, sparse).close()
    new = old.model_copy(update={"ingest": old.ingest.model_copy(update={"chunk_max_tokens": 100})})
    with pytest.raises(IndexMismatchError):  # a user's index is refused ...
        open_index(new, emb, sparse)
    store = open_scratch(new, emb, sparse)  # ... the evals' own cache is rebuilt
    try:
        meta = store.meta()
        assert meta is not None and "max_tokens=100" in meta.identity.chunker
    finally:
        store.close()


def test_the_corpus_reads_pdf_and_html_as_ingest_does_not_as_bytes(tmp_path: Path) -> None:
    """A citation into a PDF or an HTML page points into its extracted text; the eval read
    the raw bytes as UTF-8 and stopped with a UnicodeDecodeError on a PDF (a PDF corpus)."""
    (tmp_path / "keys.pdf").write_bytes(minimal_pdf())
    (tmp_path / "page.html").write_text(
        "<html><body><h1>Keys</h1><p>Keys rotate.</p></body></html>"
    )
    (tmp_path / "junk.pdf").write_bytes(b"\xda\xff not a pdf")
    corpus = Corpus(tmp_path, {})
    pdf = corpus.text("keys.pdf")
    assert (
        pdf is not None
        and pdf
        == build_doc("keys.pdf", minimal_pdf(), mtime=datetime(2026, 1, 1, tzinfo=UTC))[0].text
    )
    assert corpus.text("page.html") == "# Keys\n\nKeys rotate.\n"
    assert corpus.text("junk.pdf") is None and corpus.text("missing.md") is None
    assert corpus.section("junk.pdf", 0) is None
    item = GoldItem.model_validate(
        {
            "id": "k1",
            "question": "How often do the signing keys rotate?",
            "answerable": True,
            "gold": [{"path": "keys.pdf", "heading": "", "quote": "every ninety days"}],
        }
    )
    (span,) = resolve(item, tmp_path)
    assert pdf[span.start : span.end] == "every ninety days"
    bad = item.model_copy(update={"gold": [item.gold[0].model_copy(update={"path": "junk.pdf"})]})
    with pytest.raises(InputError, match=r"junk\.pdf cannot be read: not a readable PDF"):
        resolve(bad, tmp_path)
