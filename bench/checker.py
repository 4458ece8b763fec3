"""Cost of the check step per claim: the gate on human-written drafts, as an LLM's would run.

    .venv/bin/python bench/checker.py [--drafts N] [--out runs/bench-checker.json]

The good drafts of `evals.prose` (ClapNQ and MTRAG reference answers, each sentence a claim
citing the passage sentences it rests on; N per source) go through the production path after
the generator: fence -> label -> relevance -> evaluate -> [regenerate] -> repair -> gate
(`evals.prose.run_case`: `generate_verified` with a generator that returns the draft at once,
so what is timed is the check, plus building the draft's hits). Per draft: milliseconds per
claim (the draft's time / its claims). The question is embedded before the clock starts, as
recall embeds it before the check in an answer (`QueryVectorCache` keeps its vector).
Baseline, in the same loop: one embedding pass over the draft's first claim, the cost of a single
model pass under the same load. The issue's budget (#20) is p50 under 50 ms per claim on this
2-core machine; the ratio to the baseline is the figure that travels between machines. Not a
test: a shared CPU moves single runs by up to 2x.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evals.prose import Case, build_cases, clapnq_items, live_for, mtrag_items, run_case
from server.core.paths import shared_data
from server.core.settings import load_settings
from server.query.engine import build_embedder, relevance_for
from server.query.integrity.support import build_support_scorer

BUDGET_MS = 50.0  # issue #20: p50 check cost per claim on the 2-core machine


def quantile(values: list[float], q: float) -> float:
    """The q-quantile by nearest rank (q in 0..1) of a non-empty list."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def write_report(out: Path, report: dict[str, Any]) -> None:
    """The report as JSON at `out` (folders made) and on stdout."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


def good_drafts(data: Path, per_source: int, max_claims: int) -> list[Case]:
    """The good drafts of `evals.prose`, `per_source` each from ClapNQ dev and MTRAG."""
    cases: list[Case] = []
    for items in (
        clapnq_items(data / "clapnq/clapnq_dev_answerable.jsonl"),
        mtrag_items(data / "mtrag-un/reference.jsonl"),
    ):
        built, _ = build_cases(items, per_source, max_claims)
        cases += [c for c in built if c.kind == "good"]
    return cases


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--drafts", type=int, default=40, help="good drafts per source")
    ap.add_argument("--data", type=Path, default=shared_data())
    ap.add_argument("--out", type=Path, default=Path("runs/bench-checker.json"))
    args = ap.parse_args(argv)

    settings = load_settings()
    embedder = build_embedder(settings)
    scorer = build_support_scorer(settings, embedder)
    relevance = relevance_for(embedder, scorer)  # as the engine wires it
    cases = good_drafts(args.data, args.drafts, settings.integrity.max_claims)
    live = live_for(c.item for c in cases)

    def check(case: Case) -> float:
        embedder.embed_query(case.item.question)  # recall's pass, not the check's
        t0 = time.perf_counter()
        run_case(case, scorer, settings, live, relevance)
        return (time.perf_counter() - t0) * 1000

    check(cases[0])  # the first model pass pays for loading: not timed
    per_claim: list[float] = []
    baseline: list[float] = []
    for case in cases:
        per_claim.append(check(case) / len(case.claims))
        t0 = time.perf_counter()
        embedder.embed_documents([case.claims[0].text])
        baseline.append((time.perf_counter() - t0) * 1000)
    p50 = statistics.median(per_claim)
    report = {
        "model": embedder.model_id,
        "support_scorer": scorer.name,
        "drafts": len(cases),
        "claims": sum(len(c.claims) for c in cases),
        "ms_per_claim": {
            "p50": round(p50, 1),
            "p95": round(quantile(per_claim, 0.95), 1),
            "max": round(max(per_claim), 1),
        },
        "baseline_embed_pass_ms_p50": round(statistics.median(baseline), 1),
        "ratio_p50_to_baseline": round(p50 / statistics.median(baseline), 2),
        "budget_ms": BUDGET_MS,
        "within_budget": p50 <= BUDGET_MS,
    }
    write_report(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
