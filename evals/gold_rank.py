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

from evals.gold import GoldItem, GoldSpan, read_gold, resolve
from evals.runner import prepare, scratch_settings
from server.core.contracts import Hit
from server.core.errors import InputError
from server.core.ports import SearchMode, SearchRequest
from server.core.settings import load_settings
from server.query.answer import Engine, retrieve_evidence

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


def _whole_index(question: str, engine: Engine) -> SearchRequest:
    """A search of every chunk the policy allows, read in one list (`mode`) at a time."""
    depth = max(engine.store.count(), 1)
    return SearchRequest(
        dense=tuple(engine.embedder.embed_query(question)),
        sparse=engine.sparse.encode_query(question),
        dense_top_n=depth,
        sparse_top_n=depth,
        rrf_k=engine.settings.retrieval.rrf_k,
        limit=depth,
        overfetch=1,
        exclude_tags=tuple(engine.policy.denied_tags),
    )


def gold_rank(
    item_id: str, question: str, spans: Sequence[GoldSpan], engine: Engine, paths: dict[str, str]
) -> GoldRank:
    got = retrieve_evidence(question, engine, None)
    whole = _whole_index(question, engine)

    def in_list(mode: SearchMode) -> int | None:
        found = engine.store.search(whole.model_copy(update={"mode": mode}))
        return first_gold(found, spans, paths)

    candidate = first_gold(got.reranked, spans, paths)
    place = first_gold(got.hits, spans, paths)
    return GoldRank(
        id=item_id,
        question=question,
        dense=in_list("dense"),
        bm25=in_list("sparse"),
        candidate=candidate,
        place=place,
        lost_at=lost_at(candidate, place),
    )


def gold_spans(
    gold_path: Path, corpus: Path, ids: Sequence[str] = ()
) -> list[tuple[GoldItem, list[GoldSpan]]]:
    """The answerable items of `gold_path` (those of `ids`, or all) with their quotes' spans;
    OSError when the gold set cannot be read, InputError when it is not a gold set or a quote
    is not in `corpus`."""
    items, _ = read_gold(gold_path)
    return [
        (it, resolve(it, corpus)) for it in items if it.answerable and (not ids or it.id in ids)
    ]


def gold_ranks(
    gold_path: Path,
    corpus: Path,
    items: Sequence[tuple[GoldItem, Sequence[GoldSpan]]],
    engine: Engine,
) -> GoldRanks:
    """The ranks of `items` (`gold_spans`), read with `engine`."""
    paths = {d.doc_id: d.path for d in engine.store.docs()}
    rows = [gold_rank(it.id, it.question, spans, engine, paths) for it, spans in items]
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


def _readable_gold(
    gold: Path, corpus: Path, ids: Sequence[str]
) -> list[tuple[GoldItem, list[GoldSpan]]]:
    """`gold_spans`, or an InputError that says what keeps them from being read."""
    if not corpus.is_dir():
        raise InputError(f"--corpus {corpus} is not a folder: pass the folder the gold is under")
    try:
        return gold_spans(gold, corpus, ids)
    except OSError as exc:
        raise InputError(f"cannot read the gold set {gold}: {exc.strerror or exc}") from exc
    except InputError as exc:
        raise InputError(f"{exc}: fix the gold set or pass the corpus it was written for") from exc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("gold", type=Path)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--ids", default="", help="comma-separated item ids (default: all)")
    ap.add_argument("--out", type=Path, default=None, help="also write the ranks as JSON")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    try:  # before minutes of ingest
        items = _readable_gold(args.gold, args.corpus, [i for i in args.ids.split(",") if i])
    except InputError as exc:
        print(f"evals.gold_rank: {exc}", file=sys.stderr)
        return 2
    engine = prepare(scratch_settings(load_settings(), args.corpus), args.corpus)
    try:
        ranks = gold_ranks(args.gold, args.corpus, items, engine)
    finally:
        engine.store.close()
    print(table(ranks))
    if args.out:
        args.out.write_text(ranks.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
