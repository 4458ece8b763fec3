"""Real-weights reranker paths on a tiny BERT built here (CrossEncoder, FlagReranker)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.core.contracts import Hit
from server.core.errors import ModelUnavailableError
from server.query.rerank import CrossEncoderScorer, FlagRerankerScorer, rerank
from tests.server.query.test_query_path import hit
from tests.tiny_models import build_tiny_bert

QUESTION = "rotate the key"


def _hits() -> list[Hit]:
    texts = ["rotate the key", "the cors middleware", "citation evidence gate"]
    out = []
    for i, text in enumerate(texts):
        h = hit(f"s{i}", k=i + 1)
        out.append(h.model_copy(update={"chunk": h.chunk.model_copy(update={"text": text})}))
    return out


@pytest.mark.parametrize("scorer_cls", [CrossEncoderScorer, FlagRerankerScorer])
def test_single_score_head_scores_in_unit_interval_and_ranks(
    tmp_path: Path, scorer_cls: type
) -> None:
    folder = build_tiny_bert(tmp_path / "rr", num_labels=1)
    scorer = scorer_cls(str(folder))
    hits = _hits()
    scores = scorer.score(QUESTION, hits)
    assert len(scores) == 3
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scorer.score(QUESTION, hits) == pytest.approx(scores)  # deterministic
    ranked = rerank(QUESTION, hits, scorer, top_k=2)
    best = max(range(3), key=lambda i: (scores[i], -i))
    assert ranked[0].chunk.snippet_id == f"s{best}"
    assert [h.k_final for h in ranked] == [1, 2]
    assert scorer.score(QUESTION, []) == []


@pytest.mark.parametrize("scorer_cls", [CrossEncoderScorer, FlagRerankerScorer])
def test_multi_label_head_is_refused(tmp_path: Path, scorer_cls: type) -> None:
    folder = build_tiny_bert(tmp_path / "nli", num_labels=3)
    with pytest.raises(ModelUnavailableError, match="3"):
        scorer_cls(str(folder))


@pytest.mark.parametrize("scorer_cls", [CrossEncoderScorer, FlagRerankerScorer])
def test_missing_weights_say_what_to_set(tmp_path: Path, scorer_cls: type) -> None:
    with pytest.raises(ModelUnavailableError, match="RERANKER_PATH"):
        scorer_cls(str(tmp_path))
