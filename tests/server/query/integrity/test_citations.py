"""Citations built from slots: what `also_in` lists."""

from __future__ import annotations

from server.core.contracts import AlsoIn, Offsets
from server.query.integrity.citations import merged_also_in


def test_a_citation_lists_chunk_and_unit_duplicates_once_never_itself() -> None:
    a, b, own = (AlsoIn(doc_id=d, source_url=d, snippet_id=f"{d}-1", rev="r") for d in "abc")
    assert merged_also_in((a,), (b, a, own), "c") == (a, b)
    assert merged_also_in((), (), "c") == ()


def test_the_copy_that_knows_its_span_is_the_one_listed() -> None:
    # a near-duplicate chunk in a.md (no span) and the cited unit's copy in a.md at 40-90:
    # the citation lists a.md once, at 40-90, where the metric and the reader find the quote
    whole = AlsoIn(doc_id="a", source_url="a", snippet_id="a-1", rev="r")
    copy = whole.model_copy(update={"span": Offsets(start=40, end=90)})
    other = AlsoIn(doc_id="b", source_url="b", snippet_id="b-1", rev="r")
    assert merged_also_in((whole, other), (copy,), "c") == (copy, other)
    assert merged_also_in((copy,), (whole,), "c") == (copy,)
