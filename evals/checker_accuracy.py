"""Checker accuracy: the integrity checker alone on labelled (claim, evidence) pairs (SPEC 7).

    python -m evals.checker_accuracy [--split test] [--per-set 400] [--data ../shared/data]
                                     [--out runs/checker_accuracy.json]

Each pair becomes one claim (typed by the generator's own classifier) citing one span, the
evidence. The checker's decision is the one the gate acts on: *supported* when
`check_support` (configured scorer, calibrated `integrity.support_threshold`) and
`check_evidence` (numbers, quotes, definitions, recommendations, negation, quantifiers; names
and claim parts the span does not hold, below `integrity.coverage_trust`; a claim of one part
scored above `integrity.part_trust` is spared the parts rule) raise nothing.
Balanced accuracy per set, against the data set's label.

Sets (readers in evals.calibration.support_data): WiCE, SciFact rationales, HaluEval-QA and
BEGIN. `--split dev` reads the splits the threshold was tuned on (a sanity check); `test`
(the default) reads the held-out ones, the figures to report.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from evals.calibration.support import balanced_accuracy, splits
from evals.calibration.support_data import Pair, evidence_titles
from server.core.contracts import CitationSlot, Claim, Offsets
from server.core.paths import shared_data
from server.core.ports import SupportScorer
from server.core.settings import Settings, load_settings
from server.index.embed import load_embedder
from server.query.claims import classify_claim
from server.query.integrity.checks import check_evidence, check_support, check_type_evidence
from server.query.integrity.support import build_support_scorer

DATA = shared_data()


def as_claim(text: str, evidence: str) -> Claim:
    """The pair as the checker sees it: a typed claim with one slot quoting the evidence."""
    slot = CitationSlot(
        n=1, snippet_id="pair", offsets=Offsets(start=0, end=len(evidence)), quote=evidence
    )
    return Claim(id="c1", text=text, type=classify_claim(text), citations=(slot,))


def decisions(
    pair: Pair, scorer: SupportScorer, settings: Settings, title: str = ""
) -> tuple[bool, bool]:
    """(the gate's decision, the decision without the names and claim-parts rules) on the
    pair's claim, its support scored once. The gate's: no finding from `check_support` and
    `check_evidence` (type, numbers, negation, quantifiers, and names and claim parts below
    `integrity.coverage_trust`); `title` is the evidence's document title, which the gate
    reads with the span for names. Without those rules: `check_type_evidence` in place of
    `check_evidence` (the figure before stop 64)."""
    text, evidence, _ = pair
    claim = as_claim(text, evidence)
    score = scorer.support(text, evidence)
    cfg = settings.integrity
    unsupported = check_support(claim, score, cfg.support_threshold)
    bare = check_type_evidence(claim, [evidence], allow_general=cfg.allow_general_knowledge)
    gate = check_evidence(
        claim,
        [evidence],
        [f"{title}\n{evidence}" if title else evidence],
        score,
        trust=cfg.coverage_trust,
        part_trust=cfg.part_trust,
        allow_general=cfg.allow_general_knowledge,
    )
    return not (unsupported or gate), not (unsupported or bare)


def supported(
    pair: Pair,
    scorer: SupportScorer,
    settings: Settings,
    coverage: bool = True,
    title: str = "",
) -> bool:
    """The gate's decision on the pair (`decisions`), or with `coverage` off the decision
    without the names and claim-parts rules."""
    gate, bare = decisions(pair, scorer, settings, title)
    return gate if coverage else bare


def accuracy(
    pairs: Sequence[Pair],
    scorer: SupportScorer,
    settings: Settings,
    titles: Mapping[tuple[str, str], str] | None = None,
) -> dict[str, float]:
    """Balanced accuracy and precision of the gate's decision (`titles`: the evidence's
    document title by (claim, evidence), `support_data.evidence_titles`); `without_coverage`:
    the balanced accuracy with the names and claim-parts rules off (what the support score
    and the type, number and meaning rules alone decide)."""
    named = titles or {}
    y = np.array([label for *_, label in pairs])
    both = np.array([decisions(p, scorer, settings, named.get(p[:2], "")) for p in pairs], int)
    pred, bare = both[:, 0], both[:, 1]
    return {
        "n": len(pairs),
        "supported": int(y.sum()),
        "balanced_accuracy": round(balanced_accuracy(y, pred), 3),
        "precision_supported": round(float((y[pred == 1]).mean()) if pred.any() else 0.0, 3),
        "without_coverage": round(balanced_accuracy(y, bare), 3),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--split", choices=["dev", "test"], default="test")
    ap.add_argument("--per-set", type=int, default=400)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    settings = load_settings()
    scorer = build_support_scorer(settings, load_embedder(settings.models))
    sets = {
        k.split(":", 1)[1]: v
        for k, v in splits(args.data, args.per_set).items()
        if k.startswith(f"{args.split}:")
    }
    titles = evidence_titles(args.data)
    report = {name: accuracy(pairs, scorer, settings, titles) for name, pairs in sets.items()}
    print(
        f"checker ({scorer.name}, threshold {settings.integrity.support_threshold}) on {args.split}"
    )
    print(
        f"{'set':10s} {'n':>5s} {'supported':>9s} {'balanced acc':>12s} {'precision':>9s} "
        f"{'w/o coverage':>12s}"
    )
    for name, r in report.items():
        print(
            f"{name:10s} {r['n']:5d} {r['supported']:9d} {r['balanced_accuracy']:12.3f} "
            f"{r['precision_supported']:9.3f} {r['without_coverage']:12.3f}"
        )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            json.dumps({"split": args.split, "scorer": scorer.name, "sets": report}, indent=2)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
