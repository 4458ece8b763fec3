"""The coverage-trust fit (evals/calibration/coverage_trust.py): cases worked out by hand."""

from __future__ import annotations

from evals.calibration.coverage_trust import GRID, PART_BAND, Row, caught, choose


def _sets(merged_score: float) -> dict[str, list[Row]]:
    # checker pairs: a supported claim the names rule flags, support 0.6; an unsupported
    # one the other rules already block. prose: a good claim, and a merged claim the
    # parts rule catches while its support score is not above the trust
    return {
        "checker": [Row(1, "", 0.6, True, True, False), Row(0, "", 0.2, False, False, False)],
        "prose_dev": [
            Row(1, "", 0.9, True, False, False),
            Row(0, "merged", merged_score, True, False, True),
        ],
    }


def test_a_row_passes_when_its_score_is_above_the_trust_or_nothing_flags_it() -> None:
    row = Row(1, "", 0.6, True, True, False)
    assert row.passes(0.55) and not row.passes(0.6) and not row.passes(1.0)
    assert not Row(1, "", 0.99, False, False, False).passes(0.3)  # the other rules still block


def test_part_trust_frees_a_claim_of_one_part_only_from_the_parts_rule() -> None:
    lone = Row(1, "", 0.8, True, False, True, lone=True)
    assert lone.passes(1.0, 0.7) and not lone.passes(1.0, 0.8) and not lone.passes(1.0)
    # a claim of several parts stays held: the score of the whole does not see one part
    assert not Row(1, "", 0.8, True, False, True, lone=False).passes(1.0, 0.5)
    # nor does part_trust free a claim from the names rule
    assert not Row(1, "", 0.8, True, True, True, lone=True).passes(1.0, 0.5)


def test_choose_takes_the_best_trust_that_keeps_merged_claims_caught() -> None:
    sets = _sets(merged_score=0.5)
    # trust < 0.5 lets the merged claim through (caught 0 < 0.95): not allowed. From 0.5 the
    # merged claim is caught; below 0.6 the supported checker pair passes too (mean 1.0),
    # from 0.6 it is blocked (checker 0.5, mean 0.75). Ties go to the higher trust: 0.55,
    # and at 0.55 to the highest part_trust under it, 0.55 (the merged claim is of several
    # parts, so part_trust never frees it)
    (best, part), lines = choose(sets)
    assert (best, part) == (0.55, 0.55)
    assert caught(sets["prose_dev"], "merged", 0.45) == 0.0
    assert caught(sets["prose_dev"], "merged", 0.5) == 1.0
    points = len(GRID) * (len(GRID) + 1) // 2  # part_trust <= coverage_trust
    assert len(lines) == points == 120
    # below floor: every point with trust 0.30..0.45, whatever its part_trust (1+2+3+4)
    assert sum("below floor" in line for line in lines) == 10


def test_choose_keeps_the_rules_when_trusting_the_score_costs_the_catches() -> None:
    # the merged claim scores 0.7: catching it needs trust >= 0.7, where the supported
    # checker pair is blocked whatever the trust; every allowed point ties at mean 0.75 and
    # the tie goes to 1.0 (the rules always on)
    (best, part), _ = choose(_sets(merged_score=0.7))
    assert (best, part) == (1.0, 1.0)


def _lone_sets(neighbour_score: float) -> dict[str, list[Row]]:
    # a supported claim of one part the parts rule flags, support 0.75; a neighbour citation
    # of one part that only the parts rule catches; a merged claim of several parts, 0.9
    return {
        "checker": [
            Row(1, "", 0.75, True, False, True, lone=True),
            Row(0, "", 0.2, False, False, False),
        ],
        "prose_dev": [
            Row(1, "", 0.9, True, False, False),
            Row(0, "neighbour_citation", neighbour_score, True, False, True, lone=True),
            Row(0, "merged", 0.9, True, False, True),
        ],
    }


def test_choose_lowers_part_trust_where_a_lone_paraphrase_is_freed_and_catches_hold() -> None:
    # a supported claim of one part the parts rule flags, support 0.75; a neighbour citation
    # of one part, support 0.5, that only the parts rule catches; the merged claim of
    # several parts, support 0.9. part_trust 0.50..0.70 frees the paraphrase and keeps the
    # neighbour caught (0.5 is not above 0.5); 0.45 would free the neighbour too
    sets = _lone_sets(neighbour_score=0.5)
    (best, part), _ = choose(sets)
    assert (best, part) == (1.0, 0.7)
    assert caught(sets["prose_dev"], "neighbour_citation", 1.0, 0.45) == 0.0


def test_a_part_trust_must_keep_the_catches_a_band_below_it_too() -> None:
    # the one-part neighbour citation scores 0.6: part_trust 0.70 keeps it caught, but 0.70
    # less PART_BAND (0.55) frees it, so 0.70 is not allowed; from 0.75 on the paraphrase
    # (0.75) is held again, every allowed point ties and the tie goes to (1.0, 1.0)
    sets = _lone_sets(neighbour_score=0.6)
    assert PART_BAND == 0.15
    assert caught(sets["prose_dev"], "neighbour_citation", 1.0, 0.7) == 1.0
    (best, part), lines = choose(sets)
    assert (best, part) == (1.0, 1.0)
    assert "below floor" in next(line for line in lines if line.startswith("trust 1.00 part 0.70"))
