"""`citegate eval`: ingest a corpus into a scratch index, answer a gold set, score, compare.

The scratch index lives under `<data_dir>/eval/<corpus hash>` and is reused: re-ingesting
an unchanged corpus writes nothing, so its index_hash is the same.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import yaml

from evals import metrics as m
from evals.gold import GoldItem, GoldSpan, load_gold, resolve
from evals.report import comparison, markdown
from ingest.pipeline import ingest_paths
from server.core.contracts import Answer, CheckCode, ClaimType
from server.core.settings import Settings
from server.query.answer import Engine, answer
from server.query.engine import build_embedder, build_engine, build_sparse, open_index

METRICS = (
    "citation_match_rate",
    "citation_missing_rate",
    "unsupported_citation_rate",
    "fabricated_id_rate",
    "refusal_rate_unanswerable",
    "incorrect_refusal_rate",
    "coverage",
    "delta_s_mean",
    "convergence",
    "avg_answer_tokens",
    "latency_p50_ms",
    "latency_p95_ms",
)
_NEEDS = {ClaimType.DEFINITION, ClaimType.NUMBER, ClaimType.QUOTE, ClaimType.FACT}


def scratch_settings(settings: Settings, corpus: Path) -> Settings:
    key = hashlib.sha256(str(corpus.resolve()).encode()).hexdigest()[:12]
    return settings.model_copy(update={"data_dir": settings.data_dir / "eval" / key})


def prepare(settings: Settings, corpus: Path) -> Engine:
    """Ingest (idempotently) and build the engine over the scratch index."""
    embedder, sparse = build_embedder(settings), build_sparse(settings)
    store = open_index(settings, embedder, sparse)
    try:
        ingest_paths([corpus], settings=settings, embedder=embedder, sparse=sparse, store=store)
    finally:
        store.close()
    return build_engine(settings)


def cited(a: Answer) -> list[m.CitedSpan]:
    return [
        m.CitedSpan(
            c.source_url,
            c.span.start,
            c.span.end,
            c.offsets.start,
            c.offsets.end,
            c.verification.supported,
        )
        for c in a.citations
    ]


def _record(item: GoldItem, a: Answer, ms: float, runs: list[frozenset[str]]) -> dict[str, Any]:
    fabricated = sum(CheckCode.FABRICATED_ID in r.codes for r in a.repairs)
    fabricated += sum(f.code is CheckCode.FABRICATED_ID for f in a.gate.codes)
    return {
        "id": item.id,
        "question": item.question,
        "answerable": item.answerable,
        "fallback": a.fallback,
        "verdict": a.gate.verdict.value,
        "answer": a.answer,
        "trace_id": a.trace_id,
        "latency_ms": ms,
        "delta_s": a.delta_s,
        "citations": [c.snippet_id for c in a.citations],
        "fabricated": fabricated,
        "claims": len(a.claims),
        "uncited": sum(c.type in _NEEDS and not c.citations for c in a.claims),
        "convergence": m.convergence(runs) if len(runs) > 1 else None,
    }


def _metrics(
    items: list[GoldItem],
    answers: list[Answer],
    records: list[dict[str, Any]],
    gold: list[list[GoldSpan]],
) -> dict[str, float]:
    ans = [(a, g) for it, a, g in zip(items, answers, gold, strict=True) if it.answerable]
    spans = [cited(a) for a, _ in ans]
    golds = [g for _, g in ans]
    conv = [r["convergence"] for r in records if r["convergence"] is not None]
    lat = [r["latency_ms"] for r in records]
    return {
        "citation_match_rate": m.citation_match_rate(spans, golds),
        "citation_missing_rate": m.citation_missing_rate(
            sum(r["uncited"] for r in records), sum(r["claims"] for r in records)
        ),
        "unsupported_citation_rate": m.unsupported_citation_rate([cited(a) for a in answers]),
        "fabricated_id_rate": m.fabricated_id_rate(
            sum(r["fabricated"] for r in records), sum(len(a.citations) for a in answers)
        ),
        "refusal_rate_unanswerable": m.refusal_rate(
            [a.fallback for it, a in zip(items, answers, strict=True) if not it.answerable]
        ),
        "incorrect_refusal_rate": m.refusal_rate([a.fallback for a, _ in ans]),
        "coverage": m.coverage(spans, golds),
        "delta_s_mean": m.mean([a.delta_s for a in answers if a.delta_s is not None]),
        "convergence": m.mean(conv) if conv else 1.0,
        "avg_answer_tokens": m.mean([float(len(a.answer.split())) for a in answers]),
        "latency_p50_ms": m.percentile(lat, 50),
        "latency_p95_ms": m.percentile(lat, 95),
    }


def run_eval(
    gold_path: Path, corpus: Path, settings: Settings, *, paraphrases: bool = False, seeds: int = 1
) -> dict[str, Any]:
    """Answer every gold item and return the run object (`metrics`, `models`, `items`)."""
    items = load_gold(gold_path)
    gold = [resolve(it, corpus) for it in items]
    engine = prepare(scratch_settings(settings, corpus), corpus)
    answers, records = [], []
    try:
        for item in items:
            t0 = time.perf_counter()
            a = answer(item.question, engine)
            ms = (time.perf_counter() - t0) * 1000
            runs = [frozenset(a.citations[i].snippet_id for i in range(len(a.citations)))]
            if paraphrases:
                for q in item.paraphrases[:3]:
                    for seed in range(seeds):
                        runs.append(
                            frozenset(c.snippet_id for c in answer(q, engine, seed=seed).citations)
                        )
            answers.append(a)
            records.append(_record(item, a, ms, runs))
        models = {
            "embed": engine.embedder.model_id,
            "reranker": engine.reranker.name,
            "support": engine.support.name,
            "generator": engine.generator.name,
            "sparse": engine.sparse.analyzer,
        }
        index_hash = answers[0].index_hash if answers else ""
    finally:
        engine.store.close()
    return {
        "gold": str(gold_path),
        "corpus": str(corpus),
        "index_hash": index_hash,
        "metrics": _metrics(items, answers, records, gold),
        "models": models,
        "items": records,
    }


def load_tolerances(path: Path) -> dict[str, dict[str, Any]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {k: v for k, v in data.items() if k in METRICS}


def regressions(
    old: dict[str, float], new: dict[str, float], tolerances: dict[str, dict[str, Any]]
) -> list[str]:
    """Metrics that got worse beyond their tolerance, in the metric's own direction."""
    out = []
    for key, tol in tolerances.items():
        if key not in old or key not in new:
            continue
        delta = new[key] - old[key]
        worse = -delta if tol["better"] == "higher" else delta
        if worse > float(tol["tolerance"]):
            out.append(f"{key}: {old[key]:.4g} -> {new[key]:.4g} (tolerance {tol['tolerance']})")
    return out


def write_run(
    run: dict[str, Any], out: Path, baseline: dict[str, Any] | None, regressed: list[str]
) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(run, indent=2), encoding="utf-8")
    report = out.with_suffix(".md")
    text = markdown(run)
    if baseline is not None:
        text += "\n" + comparison(baseline["metrics"], run["metrics"], regressed)
    report.write_text(text, encoding="utf-8")
    return report
