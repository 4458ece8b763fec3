"""The coverage-trust fit (evals/calibration/coverage_trust.py): cases worked out by hand."""

from __future__ import annotations

from evals.calibration.coverage_trust import Row, caught, choose


def _sets(merged_score: float) -> dict[str, list[Row]]:
    # checker pairs: a supported claim the coverage rules flag, support 0.6; an unsupported
    # one the other rules already block. prose: a good claim, and a merged claim the
    # coverage rules catch while its support score is not above the trust
    return {
        "checker": [Row(1, "", 0.6, True, True), Row(0, "", 0.2, False, False)],
        "prose_dev": [Row(1, "", 0.9, True, False), Row(0, "merged", merged_score, True, True)],
    }


def test_a_row_passes_when_its_score_is_above_the_trust_or_nothing_flags_it() -> None:
    row = Row(1, "", 0.6, True, True)
    assert row.passes(0.55) and not row.passes(0.6) and not row.passes(1.0)
    assert not Row(1, "", 0.99, False, False).passes(0.3)  # the other rules still block


def test_choose_takes_the_best_trust_that_keeps_merged_claims_caught() -> None:
    sets = _sets(merged_score=0.5)
    # trust < 0.5 lets the merged claim through (caught 0 < 0.95): not allowed. From 0.5 the
    # merged claim is caught; below 0.6 the supported checker pair passes too (mean 1.0),
    # from 0.6 it is blocked (checker 0.5, mean 0.75). Ties go to the higher trust: 0.55.
    best, lines = choose(sets)
    assert best == 0.55
    assert caught(sets["prose_dev"], "merged", 0.45) == 0.0
    assert caught(sets["prose_dev"], "merged", 0.5) == 1.0
    assert len(lines) == 15 and sum("below floor" in line for line in lines) == 4


def test_choose_keeps_the_rules_when_trusting_the_score_costs_the_catches() -> None:
    # the merged claim scores 0.7: catching it needs trust >= 0.7, where the supported
    # checker pair is blocked whatever the trust; every allowed point ties at mean 0.75 and
    # the tie goes to 1.0 (the rules always on)
    best, _ = choose(_sets(merged_score=0.7))
    assert best == 1.0
