"""The refusal fit (evals/calibration/refusal.py): a case worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from evals.calibration.refusal import answers, fit, fit_score_only, incorrect_refusals


def test_fit_finds_the_smallest_penalty_that_separates() -> None:
    # Three should answer; the third item should refuse: its best score 0.75 is high, but its
    # top hits hold only 20 % of the question's words. By score alone it cannot be told from
    # the answerable 0.7 (best balanced accuracy 0.75). With penalty w it needs
    # 0.75 >= floor + 0.8 w while 0.7 >= floor: w = 0.05 shifts it to 0.71 (still above 0.7),
    # w = 0.10 to 0.67, and the first grid floor above it, 0.68, separates all four.
    dev = (np.array([1, 1, 0, 0]), np.array([0.8, 0.7, 0.75, 0.4]), np.array([1, 1, 0.2, 1]))
    floor, penalty = fit([dev], max_extra_refusals=0.05)
    assert penalty == pytest.approx(0.10) and floor == pytest.approx(0.68)
    assert answers(dev, floor, penalty).tolist() == [1, 1, 0, 0]
    assert answers(dev, fit_score_only([dev]), 0.0).tolist() != [1, 1, 0, 0]


def test_fit_admits_no_penalty_that_refuses_more_answerable_questions() -> None:
    # Set 1 gains from a penalty: its two unanswerable 0.75s have no coverage. Set 2 loses:
    # its answerable 0.74 has none either. By score alone (floor 0.41) set 1 scores
    # (1 + 1/3) / 2 = 0.667 and set 2 1.0, no incorrect refusal. Penalty 0.1, floor 0.66
    # separates set 1 (0.65 < 0.66 <= 0.7) but refuses set 2's 0.64: 1 of 4 answerable,
    # mean (1 + 0.875) / 2 = 0.9375, so the unguarded fit takes it. Any penalty that keeps
    # 0.74 - w >= floor keeps 0.75 - w >= floor too, so the guarded fit stays at penalty 0.
    one = (
        np.array([1, 1, 0, 0, 0]),
        np.array([0.8, 0.7, 0.75, 0.75, 0.4]),
        np.array([1, 1, 0, 0, 1]),
    )
    two = (
        np.array([1, 1, 1, 1, 0]),
        np.array([0.9, 0.9, 0.9, 0.74, 0.3]),
        np.array([1, 1, 1, 0, 1]),
    )
    assert fit_score_only([one, two]) == pytest.approx(0.41)
    floor, penalty = fit([one, two], max_extra_refusals=1.0)
    assert floor == pytest.approx(0.66) and penalty == pytest.approx(0.1)
    assert incorrect_refusals(two, floor, penalty) == 0.25
    floor, penalty = fit([one, two], max_extra_refusals=0.05)
    assert floor == pytest.approx(0.41) and penalty == 0.0
