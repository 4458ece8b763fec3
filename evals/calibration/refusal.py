"""Calibrate `retrieval.min_rerank_score` (the refusal threshold, SPEC 3.4) on a dev split.

    python -m evals.calibration.refusal [--index data/bench/scifact-all] [--queries 300]

Dev pairs from SciFact *train* queries over the SciFact index built by `bench/retrieval.py`:
each query once with its gold documents present (should answer) and once with them removed
from the candidates (the evidence is absent: should refuse). The threshold on the best rerank
score that maximises balanced accuracy is written to `config/defaults/retrieval.yaml`.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
from pathlib import Path

import numpy as np

from citegate.wiring import build_embedder, build_sparse, open_index
from evals.calibration.support import balanced_accuracy, best_threshold
from server.rerank import build_reranker, rerank
from server.retrieve import recall
from server.settings import default_config_dir, load_settings

SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "data" / "scifact"


def train_queries(data: Path, n: int) -> list[tuple[str, set[str]]]:
    gold: dict[str, set[str]] = {}
    with (data / "qrels" / "train.tsv").open() as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            gold.setdefault(row["query-id"], set()).add(row["corpus-id"])
    texts = {
        json.loads(x)["_id"]: json.loads(x)["text"]
        for x in (data / "queries.jsonl").read_text().splitlines()
    }
    items = [(texts[q], docs) for q, docs in gold.items() if q in texts]
    random.Random(0).shuffle(items)
    return items[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--index", type=Path, default=Path("data/bench/scifact-all"))
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--data", type=Path, default=SCIFACT)
    args = ap.parse_args()
    settings = load_settings(data_dir=args.index)
    embedder, sparse = build_embedder(settings), build_sparse(settings)
    store = open_index(settings, embedder, sparse)
    scorer = build_reranker(settings.models, embedder, store)
    scores, labels = [], []
    for text, gold in train_queries(args.data, args.queries):
        hits = list(
            recall(
                text, embedder=embedder, sparse=sparse, store=store, settings=settings.retrieval
            ).hits
        )
        without = [h for h in hits if h.chunk.doc_id.removesuffix(".txt") not in gold]
        for pool, label in ((hits, 1), (without, 0)):
            ranked = rerank(text, pool, scorer, settings.retrieval.final_k)
            scores.append(ranked[0].score_norm if ranked else 0.0)
            labels.append(label)
    store.close()
    y, p = np.array(labels), np.array(scores)
    threshold = best_threshold([y], [p])
    acc = balanced_accuracy(y, (p >= threshold).astype(int))
    print(
        f"{len(y) // 2} SciFact train queries; threshold {threshold:.2f}; "
        f"dev balanced accuracy {acc:.3f}"
    )
    path = default_config_dir() / "defaults" / "retrieval.yaml"
    line = (
        f"min_rerank_score: {threshold:.2f}  # calibrated by evals/calibration/refusal.py on "
        f"SciFact train (dev balanced accuracy {acc:.3f}, {scorer.name})"
    )
    path.write_text(re.sub(r"^min_rerank_score:.*$", line, path.read_text(), flags=re.MULTILINE))


if __name__ == "__main__":
    main()
