"""The calibration's data readers and figures (evals/calibration/support*.py), by hand."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from evals.calibration.support import balanced_accuracy, best_threshold, set_weights
from evals.calibration.support_data import (
    begin,
    best_sentences,
    evidence_titles,
    halueval,
    sample,
    scifact,
    wice,
)


def test_balanced_accuracy_and_threshold_by_hand() -> None:
    y = np.array([1, 1, 1, 0])
    assert balanced_accuracy(y, np.array([1, 1, 0, 1])) == (2 / 3 + 0) / 2
    p = np.array([0.9, 0.8, 0.7, 0.2])
    assert 0.2 < best_threshold([y], [p]) <= 0.7  # any cut between the classes is perfect
    w = set_weights([np.array([1, 0, 0, 0]), np.array([1, 0])])
    # 6 samples, 2 sets: each set totals 3, each class within the first set 1.5
    assert w.tolist() == [1.5, 0.5, 0.5, 0.5, 1.5, 1.5]


def test_best_sentences_keep_document_order() -> None:
    sents = ["Llamas hum.", "Keys rotate yearly.", "The vault stores keys.", "Rotate keys now."]
    assert best_sentences("rotate keys", sents) == "Keys rotate yearly. Rotate keys now."


def test_readers_on_the_shared_data(shared_data: Path) -> None:
    w = list(wice(shared_data / "wice/claim/test.jsonl"))
    assert Counter(lab for *_, lab in w) == {1: 111, 0: 32}  # SOURCE.md counts, partial left out
    h = list(halueval(shared_data / "halueval-qa/qa_one-turn_data.json", 0, 2))
    assert [lab for *_, lab in h] == [1, 0, 1, 0] and h[0][1] == h[1][1]
    b = list(begin(shared_data / "begin-wow/begin_dev_wow.tsv"))
    assert Counter(lab for *_, lab in b) == {0: 250, 1: 180}
    assert sample(iter(b), 5) == sample(iter(b), 5) and len(sample(iter(b), 5)) == 5


def _jsonl(path: Path, rows: Sequence[Mapping[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_evidence_titles_name_each_pairs_document(tmp_path: Path) -> None:
    page = ["(meta data) TITLE: Irene Hervey - IMDb", "She was born in 1909.", "She acted."]
    wice_row = {"label": "supported", "supporting_sentences": [[1]], "claim": "Born 1909."}
    _jsonl(tmp_path / "wice/claim/dev.jsonl", [{**wice_row, "evidence": page}])
    _jsonl(tmp_path / "wice/claim/test.jsonl", [])
    abstract = {"doc_id": 7, "title": "H pylori and gastric cancer", "abstract": ["A.", "B."]}
    _jsonl(tmp_path / "scifact/corpus_sentences.jsonl", [abstract])
    claim = {
        "claim": "It causes cancer.",
        "evidence": {"7": [{"sentences": [1], "label": "SUPPORT"}]},
    }
    _jsonl(tmp_path / "scifact/claims_train.jsonl", [claim])
    _jsonl(tmp_path / "scifact/claims_dev.jsonl", [])
    titles = evidence_titles(tmp_path)
    assert titles == {
        ("Born 1909.", "She was born in 1909."): "Irene Hervey - IMDb",
        ("It causes cancer.", "B."): "H pylori and gastric cancer",
    }
    # the readers still yield the plain pairs
    assert list(wice(tmp_path / "wice/claim/dev.jsonl")) == [
        ("Born 1909.", "She was born in 1909.", 1)
    ]
    pairs = scifact(
        tmp_path / "scifact/claims_train.jsonl", tmp_path / "scifact/corpus_sentences.jsonl"
    )
    assert list(pairs) == [("It causes cancer.", "B.", 1)]
