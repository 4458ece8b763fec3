"""Seed 002 trace lines, the rag_traces table, and replay: same index and revs, same citations."""

from __future__ import annotations

from pathlib import Path

from server.core.settings import load_settings
from server.query.answer import answer
from server.query.audit import TraceStore, format_log_line, trace_rows
from tests.engine import offline_engine

Q = "What does the gate do with a fabricated citation?"


def test_trace_line_table_and_replay(tmp_path: Path) -> None:
    engine = offline_engine(load_settings(data_dir=tmp_path, retrieval={"min_rerank_score": 0.05}))
    first = answer(Q, engine)
    rows = trace_rows(first, store_kind="qdrant", embed_model="m", analyzer="a")
    line = format_log_line(rows[0])
    for key in (
        "ts=",
        "qid=",
        "seg=1",
        "deltaS=",
        "lambda=",
        "k=",
        "store=qdrant",
        "index_hash=",
        "embed=m",
        "citations=[",
        "scores=[",
        "kpos=[",
        "kfinal=[",
        "section_id=",
        "rev=",
    ):
        assert key in line, key
    store = TraceStore(tmp_path / "traces.sqlite3")
    store.record(first, rows)
    assert store.answer(first.trace_id) == first
    logged = (tmp_path / "traces.log").read_text().splitlines()
    assert logged == [format_log_line(r) for r in rows]
    assert [r.citations for r in store.rows(first.trace_id)] == [r.citations for r in rows]
    replay = answer(Q, engine)
    assert replay.index_hash == first.index_hash
    assert [(c.snippet_id, c.span, c.rev) for c in replay.citations] == [
        (c.snippet_id, c.span, c.rev) for c in first.citations
    ]
