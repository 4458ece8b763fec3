"""Retrieval metrics for BEIR-format sets (SPEC 7.2), computed with ranx (Qrels/Run/evaluate).

Definitions (per query; a set's figure is the mean over its queries):

- nDCG@k = DCG@k / IDCG@k, DCG@k = sum over the top k of rel_i / log2(i + 1) (i 1-based,
  Jarvelin-Kekalainen gains, ranx's `ndcg`), IDCG@k the same of the ideal ordering.
- recall@k = relevant documents in the top k / relevant documents.

Conventions the wrapper fixes where ranx alone would differ or fail:

- a ranking is an ordered list of ids, no scores: rank i gets score n - i, so ranx never
  sees a tie (ranx breaks score ties by its own sort, not by the list order);
- a repeated id counts once, at its first (best) rank; the hand formula over a list with
  repeats would credit one document twice;
- a grade <= 0 is not relevant (ranx's default `rel_lvl`, BEIR's convention), so it adds
  nothing to DCG, IDCG or recall; a negative grade is never a penalty;
- a query with an empty ranking, or with no relevant document, scores 0.0 (ranx raises on
  an empty run and divides by zero without relevant documents).

ranx compiles its kernels with numba on first use (seconds, once per process).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

NDCG = "ndcg"
RECALL = "recall"


def docs_in_order(doc_ids: Sequence[str]) -> list[str]:
    """Chunk-level ranking -> document ranking (a document ranks at its best chunk)."""
    return list(dict.fromkeys(doc_ids))


def scores_per_query(
    rankings: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    metrics: Sequence[str] = ("ndcg@10", "recall@100"),
) -> dict[str, dict[str, float]]:
    """metric -> {query id -> score} for every query of `rankings`, by ranx.

    `metrics` are ranx names (`ndcg@k`, `recall@k`; both defined in the module docstring).
    A query missing from `qrels` has no relevant document and scores 0.0.
    """
    from ranx import Qrels, Run, evaluate  # type: ignore[import-untyped]

    scored = {
        q: docs_in_order(ranked)
        for q, ranked in rankings.items()
        if ranked and any(g > 0 for g in qrels.get(q, {}).values())
    }
    out = {name: dict.fromkeys(rankings, 0.0) for name in metrics}
    if not scored:
        return out
    ids = sorted(scored)
    run = Run.from_dict(
        {q: {d: float(len(scored[q]) - i) for i, d in enumerate(scored[q])} for q in ids}
    )
    truth = Qrels.from_dict({q: {d: int(g) for d, g in qrels[q].items() if g > 0} for q in ids})
    got = evaluate(truth, run, list(metrics), return_mean=False)
    by_metric = got if isinstance(got, dict) else {metrics[0]: got}
    for name in metrics:
        out[name].update({q: float(v) for q, v in zip(ids, by_metric[name], strict=True)})
    return out


def mean_scores(
    rankings: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    metrics: Sequence[str] = ("ndcg@10", "recall@100"),
) -> dict[str, float]:
    """metric -> mean over the queries of `rankings` (0.0 for no queries)."""
    per = scores_per_query(rankings, qrels, metrics)
    return {k: sum(v.values()) / len(v) if v else 0.0 for k, v in per.items()}


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k of one ranking: sum rel_i / log2(i + 1) over the top k, over the ideal's."""
    name = f"{NDCG}@{k}"
    return scores_per_query({"q": ranked}, {"q": relevant}, (name,))[name]["q"]


def recall_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 100) -> float:
    """Share of the relevant documents (grade > 0) found in the top k."""
    name = f"{RECALL}@{k}"
    return scores_per_query({"q": ranked}, {"q": relevant}, (name,))[name]["q"]
