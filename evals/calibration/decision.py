"""Fit the refusal decision (`config/refusal_model.json`) on the tune halves of three corpora.

    python -m evals.calibration.decision [--clapnq 150] [--dry-run]

Every item is answered as in production but without a refusal model (the name and score
rules stay on); the answer's `decision.signals` and whether the item is answerable are kept.
A logistic regression (balanced classes, each corpus the same total weight) is fitted on the
items the rules let through, over standardised signals; its threshold on p(answerable) is the
one with the best mean balanced accuracy over the corpora among those that raise no corpus's
incorrect-refusal rate by more than the release tolerance (`evals/tolerances.yaml`) over the
rules alone. Tune: FastAPI and site-policy even ids, ClapNQ dev rows 0..N-1; report (held
out, never fitted on): odd ids and ClapNQ rows N..2N-1. Writes the model unless --dry-run.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from evals.calibration.relevance import TOLERANCES, _clapnq, half
from evals.gold import GoldItem, load_gold
from evals.runner import load_tolerances, prepare, scratch_settings
from server.core.contracts import Signals
from server.core.paths import repo_root, shared_data
from server.core.settings import Settings, default_config_dir, load_settings
from server.query.answer import answer
from server.query.decide import RefusalModel

FEATURES = tuple(Signals.model_fields)


@dataclass(frozen=True)
class Row:
    answerable: bool
    ruled_out: bool  # refused by a rule before the model
    x: tuple[float, ...]


def collect(base: Settings, corpus: Path, items: Sequence[GoldItem]) -> list[Row]:
    retrieval = base.retrieval.model_copy(update={"refusal_model_file": "/nonexistent.json"})
    settings = base.model_copy(update={"retrieval": retrieval})
    engine = prepare(scratch_settings(settings, corpus), corpus)
    rows = []
    try:
        for it in items:
            a = answer(it.question, engine)
            assert a.decision is not None
            values = a.decision.signals.model_dump()
            rows.append(Row(it.answerable, a.fallback, tuple(float(values[f]) for f in FEATURES)))
    finally:
        engine.store.close()
    return rows


def rates(rows: Sequence[Row], p: np.ndarray, threshold: float) -> tuple[float, float]:
    """(refusal on unanswerable, incorrect refusal) with the model at `threshold`."""
    refused = [r.ruled_out or pi < threshold for r, pi in zip(rows, p, strict=True)]
    unans = [f for f, r in zip(refused, rows, strict=True) if not r.answerable]
    ans = [f for f, r in zip(refused, rows, strict=True) if r.answerable]
    return (sum(unans) / len(unans) if unans else 0.0, sum(ans) / len(ans) if ans else 0.0)


def balanced(rows: Sequence[Row], p: np.ndarray, threshold: float) -> float:
    caught, wrong = rates(rows, p, threshold)
    return (caught + 1 - wrong) / 2


def fit(sets: dict[str, list[Row]], max_extra: float) -> RefusalModel:
    live = [(n, r) for n, rows in sets.items() for r in rows if not r.ruled_out]
    x = np.array([r.x for _, r in live])
    y = np.array([int(r.answerable) for _, r in live])
    means, scales = x.mean(axis=0), x.std(axis=0)
    scales[scales == 0] = 1.0
    weight = {n: 1.0 / max(1, sum(1 for m, _ in live if m == n)) for n in sets}
    w = np.array([weight[n] for n, _ in live])
    # Balanced classes on top of equal corpus weights.
    for label in (0, 1):
        mask = y == label
        if mask.any():
            w[mask] *= 0.5 / w[mask].sum()
    reg = LogisticRegression(C=1.0, max_iter=1000).fit((x - means) / scales, y, sample_weight=w)
    model = RefusalModel(
        features=FEATURES,
        weights=tuple(round(float(v), 6) for v in reg.coef_[0]),
        means=tuple(round(float(v), 6) for v in means),
        scales=tuple(round(float(v), 6) for v in scales),
        bias=round(float(reg.intercept_[0]), 6),
        threshold=0.0,
    )
    probs = {n: _p(model, rows) for n, rows in sets.items()}
    base = {n: rates(rows, probs[n], 0.0)[1] for n, rows in sets.items()}
    best, best_score = 0.0, -1.0
    for step in range(0, 96):
        t = step / 100
        if any(
            rates(rows, probs[n], t)[1] - base[n] > max_extra + 1e-9 for n, rows in sets.items()
        ):
            continue
        score = float(np.mean([balanced(rows, probs[n], t) for n, rows in sets.items()]))
        if score > best_score + 1e-9:
            best, best_score = t, score
    return model.model_copy(update={"threshold": best})


def _p(model: RefusalModel, rows: Sequence[Row]) -> np.ndarray:
    return np.array(
        [model.p_answer(Signals(**dict(zip(FEATURES, r.x, strict=True)))) for r in rows]
    )


def line(name: str, rows: Sequence[Row], model: RefusalModel, threshold: float) -> str:
    p = _p(model, rows)
    caught, wrong = rates(rows, p, threshold)
    return (
        f"{name} (n={len(rows)}): refusal on unanswerable {caught:.3f}, incorrect refusal "
        f"{wrong:.3f}, balanced accuracy {balanced(rows, p, threshold):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clapnq", type=int, default=150)
    parser.add_argument("--work", type=Path, default=Path("runs/calibration"))
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    base = load_settings()
    max_extra = load_tolerances(TOLERANCES)["incorrect_refusal_rate"].tolerance
    tune: dict[str, list[Row]] = {}
    report: dict[str, list[Row]] = {}
    for name, sub, file in (
        ("fastapi", "fastapi-docs", "fastapi.jsonl"),
        ("github_site_policy", "github-site-policy", "github_site_policy.jsonl"),
    ):
        corpus = shared_data() / sub / "docs"
        items = load_gold(repo_root() / "evals" / "gold" / file)
        tune[name] = collect(base, corpus, half(items, "tune"))
        report[name] = collect(base, corpus, half(items, "report"))
    corpus, items = _clapnq(args.work, 0, args.clapnq)
    tune["clapnq"] = collect(base, corpus, items)
    corpus, items = _clapnq(args.work, args.clapnq, args.clapnq)
    report["clapnq"] = collect(base, corpus, items)
    model = fit(tune, max_extra)
    off = model.model_copy(update={"threshold": 0.0})
    lines = []
    for name, rows in tune.items():
        lines.append(line(f"{name} tune", rows, model, model.threshold))
        print(line(f"{name} tune, rules alone", rows, off, 0.0))
    for name, rows in report.items():
        print(line(f"{name} report, rules alone", rows, off, 0.0))
        lines.append(line(f"{name} report (held out)", rows, model, model.threshold))
    for text in lines:
        print(text)
    print("weights:", dict(zip(model.features, model.weights, strict=True)), "bias", model.bias)
    print("threshold:", model.threshold)
    if not args.dry_run:
        origin = "evals/calibration/decision.py: " + "; ".join(lines)
        path = default_config_dir() / "refusal_model.json"
        path.write_text(
            json.dumps(model.model_copy(update={"origin": origin}).model_dump(), indent=2) + "\n",
            encoding="utf-8",
        )
        print("wrote", path)


if __name__ == "__main__":
    main()
