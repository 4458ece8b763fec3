"""evals.gold_rank on the offline engine: the ranks of a gold chunk at each stage, by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.gold_rank import gold_ranks, gold_spans, lost_at, main, table
from server.core.settings import load_settings
from tests.engine import offline_engine


def test_lost_at_names_the_first_stage_that_lost_the_gold() -> None:
    assert lost_at(None, None) == "recall"
    assert lost_at(3, None) == "rerank"
    assert lost_at(3, 2) is None


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tokens.md").write_text(
        "# Tokens\n\nA token expires after 30 minutes by default.\n", encoding="utf-8"
    )
    (docs / "sky.md").write_text("# Sky\n\nThe sky is blue on clear days.\n", encoding="utf-8")
    return docs


def test_each_stage_ranks_the_chunk_that_holds_the_gold_quote(corpus: Path, tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    rows = [
        ("t1", "When does a token expire?", True, "tokens.md", "A token expires after 30 minutes"),
        # asked about tokens, its gold in the other document: one candidate, one place only
        ("t2", "When does a token expire?", True, "sky.md", "The sky is blue"),
        ("t3", "What colour is the moon?", False, None, None),  # unanswerable: not ranked
    ]
    gold.write_text(
        "".join(
            json.dumps(
                {
                    "id": i,
                    "question": q,
                    "answerable": a,
                    "gold": [{"path": p, "quote": quote}] if p else [],
                }
            )
            + "\n"
            for i, q, a, p, quote in rows
        ),
        encoding="utf-8",
    )
    one = {"dense_top_n": 1, "sparse_top_n": 1, "recall_limit": 1, "final_k": 1}
    settings = load_settings(data_dir=tmp_path / "data", retrieval=one)
    engine = offline_engine(settings, corpus)
    ranks = gold_ranks(gold, corpus, gold_spans(gold, corpus), engine)
    got = {r.id: (r.dense, r.bm25, r.candidate, r.place, r.lost_at) for r in ranks.items}
    # t1: first everywhere; t2: second in the dense list of two chunks, no BM25 term shared,
    # and the one candidate and place go to the token chunk
    assert got == {"t1": (1, 1, 1, 1, None), "t2": (2, None, None, None, "recall")}
    assert ranks.lost_at == {"placed": 1, "recall": 1}
    assert "items by stage: placed 1, recall 1" in table(ranks)


def test_a_gold_set_that_cannot_be_ranked_is_refused_before_ingest_with_what_to_fix(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stray = tmp_path / "stray.jsonl"
    stray.write_text(
        json.dumps(
            {
                "id": "s1",
                "question": "q?",
                "answerable": True,
                "gold": [{"path": "gone.md", "quote": "x"}],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    assert main([str(stray), "--corpus", str(corpus)]) == 2
    assert "gold s1: gone.md is not in" in capsys.readouterr().err
    assert main([str(tmp_path / "none.jsonl"), "--corpus", str(corpus)]) == 2
    assert "cannot read the gold set" in capsys.readouterr().err
    assert main([str(stray), "--corpus", str(tmp_path / "nowhere")]) == 2
    assert "is not a folder" in capsys.readouterr().err
