"""torch against onnxruntime (`models.runtime`), same weights, same process, turn about (#20).

    .venv/bin/python bench/runtime.py [--drafts N] [--passages N] [--rounds N] [--out FILE]

Both runtimes are loaded side by side (the torch one is the baseline). Three measures, each
run in turns (torch, onnx, then onnx, torch, ...) so a neighbour's load on the shared CPU falls
on both:

1. a single question embedded (recall's pass; `embed_query` uncached, the inner embedder);
2. a batch of real passages embedded (`--passages` FastAPI doc paragraphs, ingest's pass);
3. the check step per claim on the good drafts of `evals.prose` (as `bench/checker.py`:
   fence -> label -> relevance -> evaluate -> repair -> gate), p50 and p95.

Also the largest difference between the runtimes' vectors and support scores on those inputs.
Not a test: single runs move by up to 2x on a shared CPU; the ratios are what travel.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.checker import BUDGET_MS, good_drafts, quantile, write_report
from evals.prose import Case, live_for, run_case
from server.core.paths import shared_data
from server.core.ports import Embedder, RelevanceScorer, SupportScorer
from server.core.settings import Settings, load_settings
from server.index.embed import QueryVectorCache, load_embedder
from server.query.engine import relevance_for
from server.query.integrity.support import build_support_scorer
from server.query.integrity.verify import LiveIndex

RUNTIMES = ("torch", "onnx")


def _ms(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def _paragraphs(folder: Path, n: int) -> list[str]:
    """The first `n` prose paragraphs of 200 to 1,200 characters, files in name order."""
    out: list[str] = []
    for path in sorted(folder.rglob("*.md")):
        for block in path.read_text(encoding="utf-8").split("\n\n"):
            if 200 <= len(block) <= 1200 and not block.lstrip().startswith(("```", "|", "{")):
                out.append(block.strip())
                if len(out) == n:
                    return out
    return out


class Side(NamedTuple):
    """One runtime's parts, wired as the engine wires them."""

    settings: Settings
    inner: Embedder  # uncached: every query pass is real
    embedder: Embedder  # QueryVectorCache, as in an answer
    scorer: SupportScorer
    relevance: RelevanceScorer


def _load(base: Settings) -> dict[str, Side]:
    sides: dict[str, Side] = {}
    for name in RUNTIMES:
        s = base.model_copy(update={"models": base.models.model_copy(update={"runtime": name})})
        inner = load_embedder(s.models)
        if getattr(inner, "runtime", "torch") != name:
            raise SystemExit(f"the {name} runtime did not load (see the warning above)")
        embedder = QueryVectorCache(inner, s.models.query_cache_size)
        scorer = build_support_scorer(s, embedder)
        sides[name] = Side(s, inner, embedder, scorer, relevance_for(embedder, scorer))
    return sides


def _turns(i: int) -> tuple[str, ...]:
    """torch first on even turns, onnx first on odd ones."""
    return RUNTIMES if i % 2 == 0 else RUNTIMES[::-1]


def _summary(values: dict[str, list[float]]) -> dict[str, float]:
    p50 = {n: statistics.median(v) for n, v in values.items()}
    return {
        **{f"{n}_p50_ms": round(p50[n], 1) for n in RUNTIMES},
        **{f"{n}_p95_ms": round(quantile(values[n], 0.95), 1) for n in RUNTIMES},
        "onnx_over_torch_p50": round(p50["onnx"] / p50["torch"], 2),
    }


def _check_ms(side: Side, case: Case, live: LiveIndex) -> float:
    side.embedder.embed_query(case.item.question)  # recall's pass, not the check's
    return _ms(partial(run_case, case, side.scorer, side.settings, live, side.relevance))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--drafts", type=int, default=30, help="good drafts per source")
    ap.add_argument("--passages", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=20, help="turns of measures 1 and 2")
    ap.add_argument("--data", type=Path, default=shared_data())
    ap.add_argument("--out", type=Path, default=Path("runs/bench-runtime.json"))
    args = ap.parse_args(argv)

    base = load_settings()
    sides = _load(base)
    cases = good_drafts(args.data, args.drafts, base.integrity.max_claims)
    live = live_for(c.item for c in cases)
    passages = _paragraphs(args.data / "fastapi-docs/docs", args.passages)
    question = cases[0].item.question
    for side in sides.values():  # first passes pay for loading: not timed
        side.inner.embed_documents(passages[:2])
        _check_ms(side, cases[0], live)

    query: dict[str, list[float]] = {n: [] for n in RUNTIMES}
    batch: dict[str, list[float]] = {n: [] for n in RUNTIMES}
    for i in range(args.rounds):
        for name in _turns(i):
            query[name].append(_ms(partial(sides[name].inner.embed_query, question)))
            batch[name].append(_ms(partial(sides[name].inner.embed_documents, passages)))
    check: dict[str, list[float]] = {n: [] for n in RUNTIMES}
    for i, case in enumerate(cases):
        for name in _turns(i):
            check[name].append(_check_ms(sides[name], case, live) / len(case.claims))

    vec = {n: sides[n].inner.embed_documents(passages) for n in RUNTIMES}
    pairs = [(c.text, passages[0]) for case in cases[:10] for c in case.claims]
    sup = {n: [sides[n].scorer.support(c, e) for c, e in pairs] for n in RUNTIMES}
    report = {
        "model": sides["torch"].inner.model_id,
        "support_scorer": sides["torch"].scorer.name,
        "query_embedding": _summary(query),
        f"embed_{len(passages)}_passages": _summary(batch),
        "check_ms_per_claim": {
            **_summary(check),
            "drafts": len(cases),
            "claims": sum(len(c.claims) for c in cases),
            "budget_ms": BUDGET_MS,
        },
        "max_vector_difference": max(
            abs(a - b)
            for va, vb in zip(vec["torch"], vec["onnx"], strict=True)
            for a, b in zip(va, vb, strict=True)
        ),
        "max_support_difference": max(
            abs(a - b) for a, b in zip(sup["torch"], sup["onnx"], strict=True)
        ),
    }
    write_report(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
