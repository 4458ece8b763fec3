"""Fit `integrity.coverage_trust` and `integrity.part_trust`: the support scores from which
the coverage rules stay quiet.

    python -m evals.calibration.coverage_trust [--write] [--data ../shared/data]

The coverage rules (`entity_mismatch`, `unsupported_part`) read words: a name the span never
writes, a clause whose content words it barely holds. They catch swapped entities and merged
or added sentences in the prose eval, but they also block correct paraphrases the support
model reads well ("H pylori infection" for "infection with Helicobacter pylori"). Above
`coverage_trust` (strictly) the support score decides alone. Above `part_trust` a claim of
one part is not held to the parts rule (the score read that part whole); a claim of several
parts still is, since the score of the whole does not see one part the span lacks.

Fit on pairs no model here was trained on, every claim judged as `evals.checker_accuracy`
judges it (`check_support` + `check_type_evidence`, and `check_coverage` kept apart):
- the support verifier's calibration fifths of WiCE dev, SciFact train rationales and BEGIN
  dev, and HaluEval-QA items 200-249 (`evals.training.verifier.split_sources`);
- the prose eval's dev half (`evals.prose`, ClapNQ and MTRAG drafts): every good claim
  against its quote (supported) and every perturbed claim against its quote (not).

The values are the grid point (`part_trust` <= `coverage_trust`) with the best mean balanced
accuracy over those five sets among the points that keep every rule-checkable perturbation
kind of the prose dev half (issue #20: number, negation, quantifier, neighbour citation,
merged) caught as often as with the rules always on, at the point and at a part_trust
`PART_BAND` below it. The issue asks 0.95 of each on the test half. Without the band, the dev
fit chose part_trust 0.75 (0.70 with a floor of 0.95), and one-part neighbour citations
scored above it on the test half that no dev claim did: caught 0.958 -> 0.928 (stop 65).
Test figures are `evals.checker_accuracy` and `evals.prose`, never read here. `--write`
puts the values in `config/defaults/integrity.yaml`.
"""

from __future__ import annotations

import argparse
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evals.calibration.support import balanced_accuracy
from evals.calibration.support_data import evidence_titles
from evals.checker_accuracy import as_claim
from evals.prose import RULE_KINDS, prose_claims
from evals.training.verifier import split_sources
from server.core.contracts import CheckCode
from server.core.paths import shared_data
from server.core.ports import SupportScorer
from server.core.settings import Settings, default_config_dir, load_settings
from server.index.embed import load_embedder
from server.query.integrity.checks import check_coverage, check_support, check_type_evidence
from server.query.integrity.coverage import judged_parts
from server.query.integrity.support import build_support_scorer

log = logging.getLogger("calibrate.coverage_trust")
GRID = tuple(round(t, 2) for t in np.arange(0.30, 1.001, 0.05))
# A part_trust must lose no rule-kind catch on dev even this much lower: support scores of
# perturbed one-part claims spread past dev's on the test half (stop 65, see above).
PART_BAND = 0.15


@dataclass(frozen=True)
class Row:
    """One judged pair: its label, its perturbation kind ('' for checker pairs and good
    claims), whether support and the other rules pass it, whether the names rule and the
    parts rule flag it, and whether the claim is of one part."""

    label: int
    kind: str
    score: float
    passes_rest: bool
    names: bool
    parts: bool
    lone: bool = False

    def passes(self, trust: float, part_trust: float = 1.0) -> bool:
        if not self.passes_rest:
            return False
        if self.score > trust:
            return True
        parts = self.parts and not (self.lone and self.score > part_trust)
        return not (self.names or parts)


def judge(
    text: str,
    evidence: str,
    label: int,
    kind: str,
    scorer: SupportScorer,
    s: Settings,
    title: str = "",
) -> Row:
    """The pair as the checker judges it (`title`: its evidence's document title), with the
    coverage rules kept apart."""
    claim = as_claim(text, evidence)
    score = scorer.support(text, evidence)
    cfg = s.integrity
    rest = check_support(claim, score, cfg.support_threshold) + check_type_evidence(
        claim, [evidence], allow_general=cfg.allow_general_knowledge
    )
    chunk = f"{title}\n{evidence}" if title else evidence
    codes = {f.code for f in check_coverage(claim, [evidence], [chunk])}
    names = CheckCode.ENTITY_MISMATCH in codes
    parts = CheckCode.UNSUPPORTED_PART in codes
    return Row(label, kind, score, not rest, names, parts, len(judged_parts(text)) == 1)


Point = tuple[float, float]  # (coverage_trust, part_trust)


def caught(rows: Sequence[Row], kind: str, trust: float, part_trust: float = 1.0) -> float:
    mine = [r for r in rows if r.kind == kind]
    return float(np.mean([not r.passes(trust, part_trust) for r in mine])) if mine else 1.0


def bacc(rows: Sequence[Row], trust: float, part_trust: float = 1.0) -> float:
    y = np.array([r.label for r in rows])
    return balanced_accuracy(y, np.array([int(r.passes(trust, part_trust)) for r in rows]))


def choose(sets: dict[str, list[Row]]) -> tuple[Point, list[str]]:
    """The (coverage_trust, part_trust) with the best mean balanced accuracy whose rule kinds
    stay caught (a tie goes to the higher trusts: the rules stay on more often), and the
    table of every grid point (one line each)."""
    prose = sets["prose_dev"]
    floors = {k: caught(prose, k, 1.0) for k in RULE_KINDS}
    lines, allowed = [], []
    for t in GRID:
        for p in (g for g in GRID if g <= t):
            baccs = {name: bacc(rows, t, p) for name, rows in sets.items()}
            kinds = {k: caught(prose, k, t, p) for k in RULE_KINDS}
            below = {k: caught(prose, k, t, max(0.0, p - PART_BAND)) for k in RULE_KINDS}
            ok = all(min(kinds[k], below[k]) >= floors[k] for k in RULE_KINDS)
            mean = float(np.mean(list(baccs.values())))
            if ok:
                allowed.append((mean, t, p))
            cells = " ".join(f"{n} {v:.3f}" for n, v in baccs.items())
            rules = " ".join(f"{k} {v:.3f}" for k, v in kinds.items())
            flag = "" if ok else " (below floor)"
            lines.append(f"trust {t:.2f} part {p:.2f}: mean {mean:.4f} | {cells} | {rules}{flag}")
    _, best_t, best_p = max(allowed) if allowed else (0.0, 1.0, 1.0)
    return (best_t, best_p), lines


def _set_line(text: str, key: str, line: str) -> str:
    if re.search(rf"^{key}:", text, flags=re.MULTILINE):
        return re.sub(rf"^{key}:.*$", lambda _: line, text, flags=re.MULTILINE)
    return re.sub(
        r"^(support_threshold:.*)$", lambda m: f"{m.group(1)}\n{line}", text, flags=re.MULTILINE
    )


def write(point: Point, sets: dict[str, list[Row]]) -> None:
    path = default_config_dir() / "defaults" / "integrity.yaml"
    trust, part = point
    figures = ", ".join(
        f"{n} {bacc(r, 1.0):.3f} -> {bacc(r, trust, part):.3f}" for n, r in sets.items()
    )
    caught_now = ", ".join(
        f"{k} {caught(sets['prose_dev'], k, trust, part):.3f}" for k in RULE_KINDS
    )
    source = "evals/calibration/coverage_trust.py"
    text = path.read_text(encoding="utf-8")
    text = _set_line(
        text,
        "coverage_trust",
        f"coverage_trust: {trust:.2f}   # support score 0..1 from which entity_mismatch and "
        "unsupported_part are not raised: with part_trust, the best mean balanced accuracy "
        "on pairs no model was trained on, rule kinds still caught; both at 1.0 -> fitted "
        f"({source}: {figures})",
    )
    text = _set_line(
        text,
        "part_trust",
        f"part_trust: {part:.2f}   # support score 0..1 from which a claim of one part is not "
        f"held to unsupported_part; fitted with coverage_trust ({source}; prose dev caught: "
        f"{caught_now})",
    )
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", type=Path, default=shared_data())
    ap.add_argument("--write", action="store_true", help="put the value in integrity.yaml")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    settings = load_settings()
    scorer = build_support_scorer(settings, load_embedder(settings.models))
    _, calib = split_sources(args.data)
    titles = evidence_titles(args.data)
    sets = {
        name: [judge(c, e, y, "", scorer, settings, titles.get((c, e), "")) for c, e, y in pairs]
        for name, pairs in calib.items()
    }
    sets["prose_dev"] = [
        judge(c, e, y, k, scorer, settings)
        for c, e, y, k in prose_claims(args.data, "dev", settings.integrity.max_claims)
    ]
    best, lines = choose(sets)
    for line in lines:
        log.info("%s", line)
    cfg = settings.integrity
    log.info(
        "chosen coverage_trust %.2f, part_trust %.2f (now %.2f, %.2f)",
        *best,
        cfg.coverage_trust,
        cfg.part_trust,
    )
    if args.write:
        write(best, sets)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
