"""Where each answerable gold item's evidence is lost on the way to its answer.

    python -m evals.gold_rank GOLD.jsonl --corpus DIR [--ids f05,f34] [--out FILE.json]

For every answerable item, the ranks of the best-placed chunk that holds a gold quote (same
document, overlapping characters), 1-based, None where it is not there:

- `dense` and `bm25`: in each list over the whole index (less the tags the policy denies);
- `candidate`: among the fused candidates, after rerank (None: recall never offered it);
- `place`: among the evidence places an answer is drawn from (`retrieval.final_k`, after
  change logs give way, duplicates collapse and a how-to answer takes its place).

`lost_at` names the first stage that lost it: `recall` (no candidate holds a gold quote),
`rerank` (candidates do, none reached the places), or None (a place holds it: whether the
answer cites it is `citegate eval`'s to say). The ranks are read with the engine `citegate
eval` builds (same scratch index, same models), so a rank and an eval item agree.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from evals.gold import GoldSpan, read_gold, resolve
from evals.runner import prepare, scratch_settings
from server.core.contracts import Hit
from server.core.errors import InputError
from server.core.ports import SearchMode, SearchRequest
from server.core.settings import load_settings
from server.query.answer import Engine, retrieve_evidence
from server.query.rerank import rerank

log = logging.getLogger("evals.gold_rank")
Stage = Literal["recall", "rerank"]


class GoldRank(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    question: str
    dense: int | None
    bm25: int | None
    candidate: int | None
    place: int | None
    lost_at: Stage | None


class GoldRanks(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    gold: str
    corpus: str
    embed_model: str
    reranker: str
    items: list[GoldRank]
    lost_at: dict[str, int]  # stage -> items ("placed": a place holds a gold quote)


def _holds_gold(hit: Hit, spans: Sequence[GoldSpan], paths: dict[str, str]) -> bool:
    path = paths.get(hit.chunk.doc_id, hit.chunk.doc_id)
    at = hit.chunk.offsets
    return any(s.path == path and at.start < s.end and s.start < at.end for s in spans)


def first_gold(hits: Sequence[Hit], spans: Sequence[GoldSpan], paths: dict[str, str]) -> int | None:
    """The 1-based rank of the first of `hits` that holds a gold quote, None when none does."""
    return next((i for i, h in enumerate(hits, 1) if _holds_gold(h, spans, paths)), None)


def lost_at(candidate: int | None, place: int | None) -> Stage | None:
    """The first stage that lost the gold: `recall` when no candidate holds it, `rerank` when
    one does but no evidence place; None when a place holds it."""
    if place is not None:
        return None
    return "rerank" if candidate is not None else "recall"


def _list_ranks(question: str, engine: Engine, mode: SearchMode) -> list[Hit]:
    """One list (dense or BM25) over the whole index, best first."""
    depth = max(engine.store.count(), 1)
    request = SearchRequest(
        dense=tuple(engine.embedder.embed_query(question)),
        sparse=engine.sparse.encode_query(question),
        mode=mode,
        dense_top_n=depth,
        sparse_top_n=depth,
        rrf_k=engine.settings.retrieval.rrf_k,
        limit=depth,
        overfetch=1,
        exclude_tags=tuple(engine.policy.denied_tags),
    )
    return engine.store.search(request)


def gold_rank(
    item_id: str, question: str, spans: Sequence[GoldSpan], engine: Engine, paths: dict[str, str]
) -> GoldRank:
    got = retrieve_evidence(question, engine, None)
    reranked = rerank(question, got.candidates, engine.reranker, len(got.candidates))
    candidate = first_gold(reranked, spans, paths)
    place = first_gold(got.hits, spans, paths)
    return GoldRank(
        id=item_id,
        question=question,
        dense=first_gold(_list_ranks(question, engine, "dense"), spans, paths),
        bm25=first_gold(_list_ranks(question, engine, "sparse"), spans, paths),
        candidate=candidate,
        place=place,
        lost_at=lost_at(candidate, place),
    )


def gold_ranks(gold_path: Path, corpus: Path, engine: Engine, ids: Sequence[str] = ()) -> GoldRanks:
    """Every answerable item of `gold_path` (or those of `ids`), read with `engine`."""
    items, _ = read_gold(gold_path)
    paths = {d.doc_id: d.path for d in engine.store.docs()}
    rows = [
        gold_rank(it.id, it.question, resolve(it, corpus), engine, paths)
        for it in items
        if it.answerable and (not ids or it.id in ids)
    ]
    stages = Counter(r.lost_at or "placed" for r in rows)
    return GoldRanks(
        gold=str(gold_path),
        corpus=str(corpus),
        embed_model=engine.embedder.model_id,
        reranker=engine.reranker.name,
        items=rows,
        lost_at=dict(sorted(stages.items())),
    )


def _cell(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


def table(ranks: GoldRanks) -> str:
    """One line per item, then the count per stage."""
    lines = [
        f"{ranks.gold} on {ranks.corpus} (embed {ranks.embed_model}, rerank {ranks.reranker})",
        f"{'id':8s} {'dense':>6s} {'bm25':>6s} {'cand':>5s} {'place':>5s}  lost at  question",
    ]
    for r in ranks.items:
        ranks_ = f"{_cell(r.dense):>6s} {_cell(r.bm25):>6s} {_cell(r.candidate):>5s}"
        lines.append(
            f"{r.id:8s} {ranks_} {_cell(r.place):>5s}  {r.lost_at or '-':7s}  {r.question[:70]}"
        )
    lines.append("items by stage: " + ", ".join(f"{k} {v}" for k, v in ranks.lost_at.items()))
    return "\n".join(lines)


def _unusable(gold: Path, corpus: Path) -> str | None:
    """What keeps the gold set from being ranked on the corpus, said so it can be fixed."""
    if not corpus.is_dir():
        return f"--corpus {corpus} is not a folder: pass the folder the gold paths are under"
    try:
        for item in read_gold(gold)[0]:
            resolve(item, corpus)
    except OSError as exc:
        return f"cannot read the gold set {gold}: {exc.strerror or exc}"
    except InputError as exc:
        return f"{exc}: fix the gold set or pass the corpus it was written for"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("gold", type=Path)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--ids", default="", help="comma-separated item ids (default: all)")
    ap.add_argument("--out", type=Path, default=None, help="also write the ranks as JSON")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    if problem := _unusable(args.gold, args.corpus):  # before minutes of ingest
        print(f"evals.gold_rank: {problem}", file=sys.stderr)
        return 2
    settings = scratch_settings(load_settings(), args.corpus)
    engine = prepare(settings, args.corpus)
    try:
        ids = [i for i in args.ids.split(",") if i]
        ranks = gold_ranks(args.gold, args.corpus, engine, ids)
    finally:
        engine.store.close()
    print(table(ranks))
    if args.out:
        args.out.write_text(ranks.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
