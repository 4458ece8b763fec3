"""Citations built from slots: what `also_in` lists."""

from __future__ import annotations

from pathlib import Path

from server.core.contracts import AlsoIn, Offsets
from server.core.settings import load_settings
from server.core.text import word_run
from server.query.answer import answer
from server.query.integrity.citations import merged_also_in, placed_copy
from tests.engine import offline_engine
from tests.files import minimal_pdf
from tests.server.query.integrity import helpers


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


def test_a_copy_collapsed_whole_is_given_the_place_of_the_quote_in_it(tmp_path: Path) -> None:
    """The same passage as a Markdown page and as its PDF: the chunks collapse before any
    unit is chosen, so the copy had no span (the eval then read the cited offsets in the
    other document). The answer places the quote in the copy by its words."""
    said = "Signing keys rotate every ninety days and the old key stays valid for one week."
    (tmp_path / "keys.md").write_text(
        "# Key rotation\n\nSigning keys **rotate** every ninety days and the old key stays\n"
        "valid for one week.\n"
    )
    (tmp_path / "keys.pdf").write_bytes(minimal_pdf(said))
    engine = offline_engine(load_settings(), tmp_path)
    got = answer("How often do signing keys rotate?", engine)
    assert got.citations, got.answer
    cited = got.citations[0]
    (copy,) = cited.also_in
    assert {cited.doc_id, copy.doc_id} == {"keys.md", "keys.pdf"} and copy.span is not None
    doc = engine.store.get_doc(copy.doc_id)
    assert doc is not None
    placed = doc.text[copy.span.start : copy.span.end]
    assert word_run(cited.quote, placed) == (0, len(placed))
    assert "ninety days" in placed.replace("**", "")


def test_a_copy_whose_chunk_does_not_say_the_quote_keeps_no_span() -> None:
    quote = "Signing keys rotate every ninety days."
    chunks = {"b-1": helpers.chunk(0, 30, "b/s", "b-1").model_copy(update={"text": "Keys rotate."})}
    copy = AlsoIn(doc_id="b", source_url="b", snippet_id="b-1", rev="r1")
    gone = AlsoIn(doc_id="c", source_url="c", snippet_id="c-1", rev="r1")
    assert placed_copy(copy, quote, chunks.get) == copy
    assert placed_copy(gone, quote, chunks.get) == gone
    said = chunks["b-1"].model_copy(
        update={"text": "Intro. Signing keys\nrotate every *ninety* days."}
    )
    assert placed_copy(copy, quote, {"b-1": said}.get).span == Offsets(start=7, end=46)
