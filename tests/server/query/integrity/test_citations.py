"""Citations built from slots: what `also_in` lists."""

from __future__ import annotations

from server.core.contracts import AlsoIn
from server.query.integrity.citations import merged_also_in


def test_a_citation_lists_chunk_and_unit_duplicates_once_never_itself() -> None:
    a, b, own = (AlsoIn(doc_id=d, source_url=d, snippet_id=f"{d}-1", rev="r") for d in "abc")
    assert merged_also_in((a,), (b, a, own), "c") == (a, b)
    assert merged_also_in((), (), "c") == ()
