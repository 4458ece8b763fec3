"""Calibrate `retrieval.min_rerank_score` (the refusal threshold, SPEC 3.4) on dev splits.

    python -m evals.calibration.refusal [--queries 300] [--clapnq 150] [--data ../shared/data]
                                        [--dry-run]

The threshold decides, from the best rerank score alone, whether there is evidence to answer
from. Two dev sources of different kinds, each weighted equally (as the support threshold is):

- SciFact *train* queries over the SciFact index built by `bench/retrieval.py`
  (`data/bench/scifact-all`): each query once with its gold abstracts among the candidates
  (should answer) and once with them removed (the evidence is absent: should refuse).
- ClapNQ dev items 0..N-1 of each file (`evals.convert`), over an index of their passages:
  answerable questions (should answer) and unanswerable ones whose on-topic passage does
  not answer (should refuse).
- our dev gold sets (`--gold`, default the samples (CI), FastAPI and GitHub
  site-policy sets), over their
  corpora: the score scale differs from corpus to corpus, so each corpus gets a vote.

The held-out ClapNQ items N..2N-1 are reported as the test figure, never tuned on. The
threshold with the best mean dev balanced accuracy is written to
`config/defaults/retrieval.yaml` (unless `--dry-run`).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from pathlib import Path

import numpy as np

from citegate.wiring import build_embedder, build_sparse, open_index
from evals.calibration.support import balanced_accuracy, best_threshold
from evals.convert import clapnq, write
from evals.gold import load_gold
from evals.runner import scratch_settings
from ingest.pipeline import ingest_paths
from server.ports import ChunkStore, Embedder, SparseEncoder
from server.rerank import build_reranker, rerank
from server.retrieve import recall
from server.settings import Settings, default_config_dir, load_settings

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
DEV_GOLD = (
    ("evals/gold/samples.jsonl", "samples/corpus"),
    ("evals/gold/fastapi.jsonl", str(DATA / "fastapi-docs" / "docs")),
    ("evals/gold/github_site_policy.jsonl", str(DATA / "github-site-policy" / "docs")),
)
Scored = tuple[np.ndarray, np.ndarray]  # labels (1 = should answer), best rerank scores


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


class Scorer:
    """Best rerank score of a question over one index, optionally without some documents."""

    def __init__(self, settings: Settings, embedder: Embedder, sparse: SparseEncoder) -> None:
        self.settings, self.embedder, self.sparse = settings, embedder, sparse
        self.store: ChunkStore = open_index(settings, embedder, sparse)
        self.reranker = build_reranker(settings.models, embedder, self.store)

    def best(self, text: str, drop: AbstractSet[str] = frozenset()) -> float:
        """`drop`: SciFact corpus ids whose chunks are taken out of the candidates."""
        got = recall(
            text,
            embedder=self.embedder,
            sparse=self.sparse,
            store=self.store,
            settings=self.settings.retrieval,
        )
        pool = [h for h in got.hits if h.chunk.doc_id.removesuffix(".txt") not in drop]
        ranked = rerank(text, pool, self.reranker, self.settings.retrieval.final_k)
        return ranked[0].score_norm if ranked else 0.0


def scifact_set(base: Settings, emb: Embedder, sp: SparseEncoder, data: Path, n: int) -> Scored:
    scorer = Scorer(base.model_copy(update={"data_dir": Path("data/bench/scifact-all")}), emb, sp)
    if not scorer.store.docs():
        raise SystemExit("no SciFact index: run `.venv/bin/python bench/retrieval.py` first")
    labels, scores = [], []
    for text, gold in train_queries(data / "scifact", n):
        labels += [1, 0]
        scores.append(scorer.best(text))
        scores.append(scorer.best(text, gold))
    scorer.store.close()
    return np.array(labels), np.array(scores)


def clapnq_set(base: Settings, emb: Embedder, sp: SparseEncoder, data: Path, span: range) -> Scored:
    folder = Path("data/bench") / f"clapnq-{span.start}-{span.stop}"
    pages, items = clapnq(data, span.stop - span.start, span.start)
    write(folder, pages, items)
    settings = base.model_copy(update={"data_dir": folder / "index"})
    scorer = Scorer(settings, emb, sp)
    ingest_paths(
        [folder / "corpus"], settings=settings, embedder=emb, sparse=sp, store=scorer.store
    )
    labels = np.array([int(i.answerable) for i in items])
    scores = np.array([scorer.best(i.question) for i in items])
    scorer.store.close()
    return labels, scores


def gold_set(base: Settings, emb: Embedder, sp: SparseEncoder, gold: Path, corpus: Path) -> Scored:
    """A dev gold set of ours: answerable items should answer, unanswerable ones refuse."""
    settings = scratch_settings(base, corpus)
    scorer = Scorer(settings, emb, sp)
    ingest_paths([corpus], settings=settings, embedder=emb, sparse=sp, store=scorer.store)
    items = load_gold(gold)
    labels = np.array([int(i.answerable) for i in items])
    scores = np.array([scorer.best(i.question) for i in items])
    scorer.store.close()
    return labels, scores


def report(name: str, scored: Scored, threshold: float) -> str:
    y, p = scored
    acc = balanced_accuracy(y, (p >= threshold).astype(int))
    return f"{name} (n={len(y)}, answerable {int(y.sum())}): balanced accuracy {acc:.3f}"


def write_threshold(threshold: float, lines: Iterable[str], reranker: str) -> None:
    path = default_config_dir() / "defaults" / "retrieval.yaml"
    line = (
        f"min_rerank_score: {threshold:.2f}  # evals/calibration/refusal.py, {reranker}: best mean "
        f"dev balanced accuracy ({'; '.join(lines)})"
    )
    path.write_text(re.sub(r"^min_rerank_score:.*$", line, path.read_text(), flags=re.MULTILINE))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--queries", type=int, default=300, help="SciFact train queries")
    ap.add_argument("--clapnq", type=int, default=150, help="ClapNQ dev items per file to tune on")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument(
        "--gold",
        nargs="*",
        default=[f"{g}:{c}" for g, c in DEV_GOLD if Path(g).is_file()],
        help="dev gold sets of ours as GOLD.jsonl:CORPUS_DIR (each one more equal-weight set)",
    )
    ap.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    args = ap.parse_args()
    settings = load_settings()
    emb, sp = build_embedder(settings), build_sparse(settings)
    dev = {
        "scifact-train": scifact_set(settings, emb, sp, args.data, args.queries),
        "clapnq-dev": clapnq_set(settings, emb, sp, args.data, range(0, args.clapnq)),
    }
    for spec in args.gold:
        gold, corpus = spec.split(":", 1)
        dev[Path(gold).stem] = gold_set(settings, emb, sp, Path(gold), Path(corpus))
    threshold = best_threshold([y for y, _ in dev.values()], [p for _, p in dev.values()])
    dev_lines = [report(k, v, threshold) for k, v in dev.items()]
    test = clapnq_set(settings, emb, sp, args.data, range(args.clapnq, 2 * args.clapnq))
    print(f"threshold {threshold:.2f}")
    for line in [*dev_lines, "held out: " + report("clapnq-test", test, threshold)]:
        print(line)
    if not args.dry_run:
        write_threshold(threshold, dev_lines, settings.models.reranker_backend)


if __name__ == "__main__":
    main()
