"""Bm25Encoder: identifier splitting reaches BM25 on both sides; the analyzer names its settings."""

from __future__ import annotations

from server.core.settings import load_settings
from server.index.sparse import Bm25Encoder, split_identifiers


def _encoder(**models: object) -> Bm25Encoder:
    base = load_settings().models
    return Bm25Encoder.from_settings(base.model_copy(update=models))


def test_split_identifiers_adds_the_parts() -> None:
    assert split_identifiers("Use CORSMiddleware") == "Use CORSMiddleware CORS Middleware"
    assert split_identifiers("set allow_origins") == "set allow_origins allow origins"
    assert split_identifiers("plain words") == "plain words"


def test_identifier_in_document_is_hit_by_its_words() -> None:
    enc = _encoder(bm25_split_identifiers=True)
    doc = set(enc.encode_document("Add CORSMiddleware to the app.").indices)
    query = set(enc.encode_query("cors middleware").indices)
    assert query and query <= doc
    off = _encoder(bm25_split_identifiers=False)
    assert not set(off.encode_query("cors middleware").indices) & set(
        off.encode_document("Add CORSMiddleware to the app.").indices
    )


def test_analyzer_changes_with_every_setting() -> None:
    base = _encoder().analyzer
    assert "split_ident" in base
    for change in ({"bm25_k": 2.0}, {"bm25_b": 0.5}, {"bm25_avg_len": 50.0}):
        assert _encoder(**change).analyzer != base
    assert "split_ident" not in _encoder(bm25_split_identifiers=False).analyzer
