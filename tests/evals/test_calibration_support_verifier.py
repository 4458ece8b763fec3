"""The sixth-feature fit's pieces that need no data: the clipped logit by hand."""

from __future__ import annotations

import math

import pytest

from evals.calibration.support_verifier import logit


def test_logit_by_hand_and_clipped_at_the_ends() -> None:
    assert logit(0.5) == 0.0
    assert logit(0.9) == pytest.approx(math.log(9.0))
    assert logit(0.1) == pytest.approx(-math.log(9.0))
    edge = math.log(1e-4 / (1 - 1e-4))  # -9.21: a verifier's 0 or 1 cannot outweigh the rest
    assert logit(0.0) == pytest.approx(edge) and logit(1.0) == pytest.approx(-edge)
