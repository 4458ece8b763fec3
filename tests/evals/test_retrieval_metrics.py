"""nDCG@k and recall@k (ranx-backed) against their formulas worked by hand."""

from __future__ import annotations

import math

import pytest

from evals.retrieval_metrics import (
    docs_in_order,
    mean_scores,
    ndcg_at_k,
    recall_at_k,
    scores_per_query,
)


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


def test_graded_relevance_by_hand() -> None:
    # c (grade 1) at rank 1, b (grade 2) at rank 2: DCG = 1 + 2/log2(3); ideal = 2 + 1/log2(3)
    expected = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert ndcg_at_k(["c", "b"], {"b": 2, "c": 1}) == pytest.approx(expected)


def test_edge_cases_follow_the_documented_definition() -> None:
    # the list order decides, never an id sort (ranx would break a score tie its own way)
    assert ndcg_at_k(["z", "a"], {"a": 1}) == pytest.approx(1 / math.log2(3))
    # a repeated id counts once, at its first rank, and takes no second place (the raw
    # formula gave 1 + 1/log2(3) > 1 here, and recall@2 of [a, a, b] 0.5)
    assert ndcg_at_k(["a", "a"], {"a": 1}) == 1.0
    assert recall_at_k(["a", "a", "b"], {"a": 1, "b": 1}, k=2) == 1.0
    # grades <= 0 are not relevant: no penalty, no credit
    assert ndcg_at_k(["b", "c"], {"b": -1, "c": 1}) == pytest.approx(1 / math.log2(3))
    assert recall_at_k(["b"], {"b": 0}) == 0.0
    # empty ranking, no relevant document: 0.0 (ranx alone raises)
    assert ndcg_at_k([], {"a": 1}) == 0.0 and recall_at_k([], {"a": 1}) == 0.0
    assert ndcg_at_k(["a"], {}) == 0.0


def test_batch_matches_single_queries() -> None:
    rankings = {"q1": ["a", "b", "c", "d"], "q2": ["x"], "q3": [], "q4": ["y"]}
    qrels = {"q1": {"b": 1, "d": 1}, "q2": {"x": 1}, "q3": {"a": 1}}
    per = scores_per_query(rankings, qrels, ("ndcg@10", "recall@2"))
    for q, ranked in rankings.items():
        assert per["ndcg@10"][q] == pytest.approx(ndcg_at_k(ranked, qrels.get(q, {})))
        assert per["recall@2"][q] == pytest.approx(recall_at_k(ranked, qrels.get(q, {}), k=2))
    means = mean_scores(rankings, qrels, ("recall@2",))
    assert means == {"recall@2": pytest.approx((0.5 + 1.0 + 0 + 0) / 4)}
