"""nDCG@k and recall@k by their formulas, worked by hand."""

from __future__ import annotations

import math

import pytest

from evals.retrieval_metrics import docs_in_order, ndcg_at_k, recall_at_k


def test_ndcg_by_hand() -> None:
    # relevant b (rank 2) and d (rank 4): DCG = 1/log2(3) + 1/log2(5); ideal = 1 + 1/log2(3)
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(["a", "b", "c", "d"], {"b": 1, "d": 1}, k=10) == pytest.approx(expected)
    assert ndcg_at_k(["b", "d"], {"b": 1, "d": 1}) == 1.0
    assert ndcg_at_k(["a", "b"], {"b": 1}, k=1) == 0.0


def test_recall_and_doc_order() -> None:
    assert recall_at_k(["a", "b", "c"], {"c": 1, "z": 1}, k=2) == 0.0
    assert recall_at_k(["a", "b", "c"], {"c": 1, "z": 1}, k=3) == 0.5
    assert docs_in_order(["d1", "d2", "d1", "d3"]) == ["d1", "d2", "d3"]
