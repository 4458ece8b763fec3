"""The store's own fusion and ranking (`server.index.store.common`): oracles by hand."""

from __future__ import annotations

from collections.abc import Sequence

from server.index.store.common import Scored, fuse, ranked


def _p(sid: str, rev: str = "r1") -> dict[str, str]:
    return {"snippet_id": sid, "rev": rev}


def _ids(scored: Sequence[Scored]) -> list[str]:
    return [str(p["snippet_id"]) for p, _ in scored]


def test_equal_scores_rank_by_snippet_id_whatever_order_they_come_in() -> None:
    found = [(_p("c"), 0.8), (_p("a"), 0.9), (_p("b"), 0.8)]
    assert _ids(ranked(found)) == ["a", "b", "c"]
    assert _ids(ranked(list(reversed(found)))) == ["a", "b", "c"]
    assert _ids(ranked(found, 2)) == ["a", "b"]  # the cut falls after the tie is ordered


def test_fusion_sums_reciprocal_ranks_of_the_ranked_lists() -> None:
    dense = [(_p("C"), 0.8), (_p("A"), 0.9), (_p("B"), 0.8)]  # ranks A 0, B 1, C 2
    sparse = [(_p("C"), 5.0), (_p("B"), 5.0)]  # a tie: B 0, C 1
    fused = fuse(dense, sparse, rrf_k=1)
    # A: 1/(1+0) = 1.0; B: 1/(1+1) + 1/(1+0) = 1.5; C: 1/(1+2) + 1/(1+1) = 0.8333
    assert _ids(fused) == ["B", "A", "C"]
    assert [round(s, 4) for _, s in fused] == [1.5, 1.0, 0.8333]
    # equal sums: snippet id order, whichever list holds which
    assert _ids(fuse([(_p("Y"), 1.0)], [(_p("X"), 1.0)], rrf_k=1)) == ["X", "Y"]
    assert _ids(fuse([(_p("X"), 1.0)], [(_p("Y"), 1.0)], rrf_k=1)) == ["X", "Y"]
    # two revisions of one snippet are two points
    both = fuse([(_p("s", "r1"), 1.0)], [(_p("s", "r2"), 1.0)], rrf_k=1)
    assert [p["rev"] for p, _ in both] == ["r1", "r2"]
