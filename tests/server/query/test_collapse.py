"""Near-duplicate passages across documents collapse into one citation (oracles by hand)."""

from __future__ import annotations

from datetime import UTC, datetime

from server.core.contracts import Chunk, Hit, Offsets
from server.query.rerank import collapse_duplicates

SAME = "Personal accounts may create unlimited public repositories for free."
OTHER = "Organizations can require two-factor authentication for every member."


def _hit(doc: str, text: str, k: int, updated: int) -> Hit:
    chunk = Chunk(
        doc_id=doc,
        section_id=f"{doc}/s",
        snippet_id=f"{doc}-1",
        source_url=f"https://example.org/{doc}",
        offsets=Offsets(start=0, end=len(text)),
        tokens=12,
        index_hash="ih",
        embed_model="m",
        analyzer="a",
        rev="r1",
        text=text,
        title=doc,
        tags=(),
        updated_at=datetime(updated, 1, 1, tzinfo=UTC),
        content_hash=doc,
    )
    return Hit(chunk=chunk, score_raw=0.1, score_norm=1 - k / 10, k_pos=k, k_final=k)


def _never(doc_id: str) -> datetime | None:
    return None


def test_the_later_copy_is_cited_in_the_first_copys_place_and_frees_a_slot() -> None:
    ranked = [
        _hit("old.md", SAME, 1, 2024),
        _hit("new.md", SAME, 2, 2026),
        _hit("b.md", OTHER, 3, 2025),
    ]
    out = collapse_duplicates(ranked, 2, 0.9, _never)
    assert [(h.chunk.doc_id, h.k_final) for h in out] == [("new.md", 1), ("b.md", 2)]
    assert [a.doc_id for a in out[0].also_in] == ["old.md"]
    assert out[1].also_in == ()


def test_with_equal_dates_the_document_ingested_later_is_cited() -> None:
    ranked = [_hit("a.md", SAME, 1, 2025), _hit("b.md", SAME, 2, 2025)]
    ingested = {"a.md": datetime(2026, 3, 1, tzinfo=UTC), "b.md": datetime(2026, 5, 1, tzinfo=UTC)}
    out = collapse_duplicates(ranked, 5, 0.9, ingested.get)
    assert [h.chunk.doc_id for h in out] == ["b.md"]
    assert [a.doc_id for a in out[0].also_in] == ["a.md"]


def test_two_chunks_of_one_document_and_different_passages_stay_apart() -> None:
    same_doc = [_hit("a.md", SAME, 1, 2025), _hit("a.md", SAME, 2, 2025).model_copy()]
    assert len(collapse_duplicates(same_doc, 5, 0.9, _never)) == 2
    apart = [_hit("a.md", SAME, 1, 2025), _hit("b.md", OTHER, 2, 2025)]
    assert [h.also_in for h in collapse_duplicates(apart, 5, 0.9, _never)] == [(), ()]
