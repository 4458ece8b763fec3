"""Calibrate the refusal rule (SPEC 3.4) on dev splits: `retrieval.min_rerank_score` and
`retrieval.uncovered_penalty`.

    python -m evals.calibration.refusal [--queries 300] [--clapnq 150] [--data ../shared/data]
                                        [--dry-run]

The rule answers when the best rerank score reaches `min_rerank_score + uncovered_penalty *
(1 - coverage)`, coverage being the share of the question's BM25 terms found in the best hit
(`server.query.rerank.should_refuse`). Penalty 0 is the best score alone; the
grid tries 0..1 and, per penalty, every floor, and keeps the pair with the best mean dev
balanced accuracy (ties: the smaller penalty) among those that raise no dev set's
incorrect-refusal rate by more than the release gate's tolerance (`evals/tolerances.yaml`)
over the best score alone. Dev sources of different kinds, each weighted
equally (as the support threshold is):

- SciFact *train* queries over the SciFact index built by `bench/retrieval.py`
  (`data/bench/scifact-all`): each query once with its gold abstracts among the candidates
  (should answer) and once with them removed (the evidence is absent: should refuse).
- ClapNQ dev items 0..N-1 of each file (`evals.convert`), over an index of their passages:
  answerable questions (should answer) and unanswerable ones whose on-topic passage does
  not answer (should refuse).
- our dev gold sets (`--gold`, default the samples (CI), FastAPI and GitHub
  site-policy sets), over their
  corpora: the score scale differs from corpus to corpus, so each corpus gets a vote.

The name rule (`server.query.rerank.absent_names`: refuse a question whose names no candidate
mentions) runs before this one in the answer path and is judged on its own (its catches and
false refusals are in `config/defaults/retrieval.yaml`); this fit sees every question. Folding
it in moves the guard's score-only baseline floor from 0.63 to 0.62, and that baseline shift
alone decides whether penalty 0.05 passes the guard (SciFact train: 0.057 against 0.05).

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

from evals.calibration.support import balanced_accuracy, best_threshold
from evals.convert import clapnq, write
from evals.gold import load_gold
from evals.runner import load_tolerances, open_scratch, scratch_settings
from ingest.pipeline import ingest_paths
from server.core.paths import repo_root, shared_data
from server.core.ports import ChunkStore, Embedder, SparseEncoder
from server.core.settings import Settings, default_config_dir, load_settings
from server.query.engine import build_embedder, build_sparse
from server.query.rerank import build_reranker, question_coverage, rerank
from server.query.retrieve import recall

DATA = shared_data()
DEV_GOLD = (
    ("evals/gold/samples.jsonl", "samples/corpus"),
    ("evals/gold/fastapi.jsonl", str(DATA / "fastapi-docs" / "docs")),
    ("evals/gold/github_site_policy.jsonl", str(DATA / "github-site-policy" / "docs")),
)
# labels (1 = should answer), best rerank scores, question-term coverage of the best hit
Scored = tuple[np.ndarray, np.ndarray, np.ndarray]
TOLERANCES = repo_root() / "evals" / "tolerances.yaml"
PENALTIES = np.round(np.arange(0.0, 1.0001, 0.05), 2)


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
        self.store: ChunkStore = open_scratch(settings, embedder, sparse)
        self.reranker = build_reranker(settings.models, embedder, self.store)

    def best(self, text: str, drop: AbstractSet[str] = frozenset()) -> tuple[float, float]:
        """Best score and top-hit coverage; `drop`: SciFact ids taken out of the candidates."""
        got = recall(
            text,
            embedder=self.embedder,
            sparse=self.sparse,
            store=self.store,
            settings=self.settings.retrieval,
        )
        pool = [h for h in got.hits if h.chunk.doc_id.removesuffix(".txt") not in drop]
        ranked = rerank(text, pool, self.reranker, self.settings.retrieval.final_k)
        if not ranked:
            return 0.0, 0.0
        return ranked[0].score_norm, question_coverage(text, ranked[0].chunk.text, self.sparse)


def scifact_set(base: Settings, emb: Embedder, sp: SparseEncoder, data: Path, n: int) -> Scored:
    scorer = Scorer(base.model_copy(update={"data_dir": Path("data/bench/scifact-all")}), emb, sp)
    if not scorer.store.docs():
        raise SystemExit("no SciFact index: run `.venv/bin/python bench/retrieval.py` first")
    labels, got = [], []
    for text, gold in train_queries(data / "scifact", n):
        labels += [1, 0]
        got += [scorer.best(text), scorer.best(text, gold)]
    scorer.store.close()
    return scored(labels, got)


def scored(labels: list[int], got: list[tuple[float, float]]) -> Scored:
    pairs = np.array(got, dtype=float).reshape(-1, 2)
    return np.array(labels), pairs[:, 0], pairs[:, 1]


def clapnq_set(base: Settings, emb: Embedder, sp: SparseEncoder, data: Path, span: range) -> Scored:
    folder = Path("data/bench") / f"clapnq-{span.start}-{span.stop}"
    pages, items = clapnq(data, span.stop - span.start, span.start)
    write(folder, pages, items)
    settings = base.model_copy(update={"data_dir": folder / "index"})
    scorer = Scorer(settings, emb, sp)
    ingest_paths(
        [folder / "corpus"], settings=settings, embedder=emb, sparse=sp, store=scorer.store
    )
    got = [scorer.best(i.question) for i in items]
    scorer.store.close()
    return scored([int(i.answerable) for i in items], got)


def gold_set(base: Settings, emb: Embedder, sp: SparseEncoder, gold: Path, corpus: Path) -> Scored:
    """A dev gold set of ours: answerable items should answer, unanswerable ones refuse."""
    settings = scratch_settings(base, corpus)
    scorer = Scorer(settings, emb, sp)
    ingest_paths([corpus], settings=settings, embedder=emb, sparse=sp, store=scorer.store)
    items = load_gold(gold)
    got = [scorer.best(i.question) for i in items]
    scorer.store.close()
    return scored([int(i.answerable) for i in items], got)


def answers(s: Scored, floor: float, penalty: float) -> np.ndarray:
    """1 where the rule answers: best score >= floor + penalty * (1 - coverage)."""
    _, best, coverage = s
    return (best >= floor + penalty * (1.0 - coverage)).astype(int)


def incorrect_refusals(s: Scored, floor: float, penalty: float) -> float:
    """Share of the answerable items the rule refuses (the eval's incorrect-refusal rate)."""
    y = s[0]
    return float((answers(s, floor, penalty)[y == 1] == 0).mean()) if (y == 1).any() else 0.0


def fit(dev: Iterable[Scored], max_extra_refusals: float) -> tuple[float, float]:
    """(floor, penalty) with the best mean dev balanced accuracy, ties to less penalty.

    Guard: a penalty is admitted only if no dev set's incorrect-refusal rate exceeds its
    rate under the best score alone by more than `max_extra_refusals` (the release gate's
    tolerance). Refusing a question the corpus answers is the error users feel most, and
    the equal-vote mean could otherwise buy keyword-style sets' gains with it.
    For a penalty w the rule is `best + w * coverage >= floor + w`, so the floor search is
    `best_threshold` on the shifted score.
    """
    sets = list(dev)
    ys = [y for y, _, _ in sets]
    base_floor = fit_score_only(sets)
    base = [incorrect_refusals(s, base_floor, 0.0) for s in sets]
    best_pair, best_acc = (base_floor, 0.0), -1.0
    for w in PENALTIES:
        shifted = [p + w * (c - 1.0) for _, p, c in sets]
        floor = best_threshold(ys, shifted)
        extra = [incorrect_refusals(s, floor, w) - b for s, b in zip(sets, base, strict=True)]
        if max(extra) > max_extra_refusals + 1e-9:
            continue
        acc = float(np.mean([balanced_accuracy(s[0], answers(s, floor, w)) for s in sets]))
        if acc > best_acc + 1e-9:
            best_pair, best_acc = (floor, float(w)), acc
    return best_pair


def fit_score_only(dev: Iterable[Scored]) -> float:
    """The floor with penalty 0 (the best score alone), for comparison in the report."""
    sets = list(dev)
    return best_threshold([y for y, _, _ in sets], [p for _, p, _ in sets])


def report(name: str, s: Scored, floor: float, penalty: float) -> str:
    y = s[0]
    acc = balanced_accuracy(y, answers(s, floor, penalty))
    return f"{name} (n={len(y)}, answerable {int(y.sum())}): balanced accuracy {acc:.3f}"


def write_rule(floor: float, penalty: float, lines: Iterable[str], reranker: str) -> None:
    path = default_config_dir() / "defaults" / "retrieval.yaml"
    text = path.read_text()
    origin = f"evals/calibration/refusal.py, {reranker}: best mean dev balanced accuracy"
    for key, value, why in (
        ("min_rerank_score", floor, f"{origin} ({'; '.join(lines)})"),
        ("uncovered_penalty", penalty, f"{origin}, fitted with min_rerank_score, guarded"),
    ):
        line = f"{key}: {value:.2f}  # {why}"
        text = re.sub(rf"^{key}:.*$", line, text, flags=re.MULTILINE)
    path.write_text(text)


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
    tolerance = load_tolerances(TOLERANCES)["incorrect_refusal_rate"].tolerance
    floor, penalty = fit(dev.values(), tolerance)
    only = fit_score_only(dev.values())
    dev_lines = [report(k, v, floor, penalty) for k, v in dev.items()]
    test = clapnq_set(settings, emb, sp, args.data, range(args.clapnq, 2 * args.clapnq))
    print(f"min_rerank_score {floor:.2f}, uncovered_penalty {penalty:.2f}")
    for line in [*dev_lines, "held out: " + report("clapnq-test", test, floor, penalty)]:
        print(line)
    print(f"best score alone (penalty 0): floor {only:.2f}")
    for k, v in [*dev.items(), ("held out: clapnq-test", test)]:
        print("  " + report(k, v, only, 0.0))
    if not args.dry_run:
        write_rule(floor, penalty, dev_lines, settings.models.reranker_backend)


if __name__ == "__main__":
    main()
