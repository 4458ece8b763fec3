"""Audit traces (SPEC 6, seed 002): one grep-friendly line and one `rag_traces` row per segment.

`lambda_state` is derived honestly from what is known for one answer: `convergent` when
the gate passed, `divergent` when it blocked or fell back, `recursive` when it warned or
repaired; convergence across paraphrases is measured by the evals, not claimed here.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from server.core.contracts import Answer, TraceRow, Verdict
from server.core.errors import NotFoundError

log = logging.getLogger("citegate.trace")

DDL = """
CREATE TABLE IF NOT EXISTS rag_traces (
  ts TIMESTAMP NOT NULL, qid TEXT NOT NULL, seg INTEGER NOT NULL, deltaS REAL NOT NULL,
  lambda_state TEXT NOT NULL, store TEXT, index_hash TEXT, embed_model TEXT, analyzer TEXT,
  section_id TEXT, rev TEXT, citations JSON, scores JSON, kpos JSON, kfinal JSON
);
CREATE INDEX IF NOT EXISTS rag_traces_qid ON rag_traces (qid);
CREATE TABLE IF NOT EXISTS rag_answers (
  qid TEXT PRIMARY KEY, ts TIMESTAMP NOT NULL, answer JSON NOT NULL
);
"""


def lambda_state(answer: Answer) -> str:
    if answer.fallback or answer.gate.verdict is Verdict.BLOCK:
        return "divergent"
    if answer.gate.verdict is Verdict.WARN or answer.repairs:
        return "recursive"
    return "convergent"


def trace_rows(
    answer: Answer, *, store_kind: str, embed_model: str, analyzer: str
) -> list[TraceRow]:
    """One row per answer segment (one row with no citations for an "I don't know")."""
    segments: dict[int, list[int]] = {}
    for claim in answer.claims:
        segments.setdefault(claim.segment, []).extend(s.n for s in claim.citations)
    by_n = {c.n: c for c in answer.citations}
    now = datetime.now(UTC)
    rows = []
    for seg, ns in sorted(segments.items()) or [(1, [])]:
        cites = [by_n[n] for n in ns if n in by_n]
        rows.append(
            TraceRow(
                ts=now,
                qid=answer.trace_id,
                seg=seg,
                delta_s=answer.delta_s if answer.delta_s is not None else 1.0,
                lambda_state=lambda_state(answer),
                k=len(cites),
                store=store_kind,
                index_hash=answer.index_hash,
                embed_model=embed_model,
                analyzer=analyzer,
                section_id=cites[0].section_id if cites else "",
                rev=cites[0].rev if cites else "",
                citations=tuple(c.snippet_id for c in cites),
                scores=tuple(round(c.score_norm or 0.0, 4) for c in cites),
                kpos=tuple(c.k_pos or 0 for c in cites),
                kfinal=tuple(c.k_final or 0 for c in cites),
            )
        )
    return rows


def _list(values: tuple[object, ...]) -> str:
    return "[" + ",".join(str(v) for v in values) + "]"


def format_log_line(row: TraceRow) -> str:
    """The seed 002 line: `ts=… qid=… seg=… deltaS=… lambda=… k=… store=… index_hash=… …`."""
    return (
        f"ts={row.ts.isoformat(timespec='seconds')} qid={row.qid} seg={row.seg} "
        f"deltaS={row.delta_s:.2f} "
        f"lambda={row.lambda_state} k={row.k} store={row.store} index_hash={row.index_hash} "
        f"embed={row.embed_model} citations={_list(row.citations)} scores={_list(row.scores)} "
        f"kpos={_list(row.kpos)} kfinal={_list(row.kfinal)} section_id={row.section_id or '-'} "
        f"rev={row.rev or '-'}"
    )


class TraceStore:
    """`rag_traces` (seed 002 DDL, SQLite), the full Answer JSON by trace id, and the same
    rows as seed 002 log lines appended to a `.log` file beside the database."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._path = path
        with self._connect() as db:
            db.executescript(DDL)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self._path, timeout=10)

    def record(self, answer: Answer, rows: list[TraceRow]) -> None:
        with self._connect() as db:
            db.executemany(
                "INSERT INTO rag_traces VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        r.ts.isoformat(),
                        r.qid,
                        r.seg,
                        r.delta_s,
                        r.lambda_state,
                        r.store,
                        r.index_hash,
                        r.embed_model,
                        r.analyzer,
                        r.section_id,
                        r.rev,
                        json.dumps(r.citations),
                        json.dumps(r.scores),
                        json.dumps(r.kpos),
                        json.dumps(r.kfinal),
                    )
                    for r in rows
                ],
            )
            db.execute(
                "INSERT OR REPLACE INTO rag_answers VALUES (?,?,?)",
                (answer.trace_id, rows[0].ts.isoformat(), answer.model_dump_json()),
            )
        lines = [format_log_line(row) for row in rows]
        with self._path.with_suffix(".log").open("a", encoding="utf-8") as fh:
            fh.write("".join(f"{line}\n" for line in lines))  # grep-friendly copy (SPEC 6.1)
        for line in lines:
            log.info(line)

    def answer(self, trace_id: str) -> Answer:
        with self._connect() as db:
            found = db.execute(
                "SELECT answer FROM rag_answers WHERE qid = ?", (trace_id,)
            ).fetchone()
        if found is None:
            raise NotFoundError(f"no trace {trace_id!r}: trace ids are printed with every answer")
        return Answer.model_validate_json(found[0])

    def rows(self, trace_id: str) -> list[TraceRow]:
        with self._connect() as db:
            found = db.execute(
                "SELECT * FROM rag_traces WHERE qid = ? ORDER BY seg", (trace_id,)
            ).fetchall()
        keys = (
            "ts",
            "qid",
            "seg",
            "delta_s",
            "lambda_state",
            "store",
            "index_hash",
            "embed_model",
            "analyzer",
            "section_id",
            "rev",
            "citations",
            "scores",
            "kpos",
            "kfinal",
        )
        out = []
        for row in found:
            data = dict(zip(keys, row, strict=True))
            for k in ("citations", "scores", "kpos", "kfinal"):
                data[k] = json.loads(data[k])
            out.append(TraceRow.model_validate({**data, "k": len(data["citations"])}))
        return out
