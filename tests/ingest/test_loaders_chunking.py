"""Loaders (SPEC 2.1) and section-aware chunking with exact offsets (SPEC 2.2)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path

import pytest

from ingest.chunking import markdown_sections, pack
from ingest.chunks import build_chunks, spans_of
from ingest.loaders import LoadError, build_doc, load_file
from server.core.contracts import IndexIdentity
from tests.fakes import HashEmbedder

T0 = datetime(2026, 1, 1, tzinfo=UTC)
MD = (
    b"---\ntitle: Keys\ntags: [security]\nupdated_at: 2025-03-04\n---\n# Keys { #keys }\r\n\r\n"
    b"Rotate keys.\n\n```python\n# not a heading\n```\n\n## Storage\n\nUse the vault.\n"
)


def test_markdown_keeps_its_text_and_reads_front_matter() -> None:
    doc, _ = build_doc(
        "sec/keys.md", MD, mtime=T0, tags=("public",), source_url_prefix="https://x/"
    )
    assert doc.text == MD.decode().replace("\r\n", "\n")  # markup kept, line endings normalised
    assert (doc.title, doc.tags, doc.updated_at.year) == ("Keys", ("security", "public"), 2025)
    assert doc.source_url == "https://x/sec/keys.md" and doc.source_domain == "x"
    assert doc.doc_id == "sec/keys.md" and len(doc.rev) == 12


def test_sections_ignore_hashes_inside_code_fences() -> None:
    doc, _ = build_doc("sec/keys.md", MD, mtime=T0)
    ids = [s.section_id for s in markdown_sections(doc.text, "sec/keys")]
    assert ids == ["sec/keys/keys", "sec/keys/keys/storage"]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (b"\x00\x01binary", "binary"),
        (b"caf\xe9 au lait", "not UTF-8"),
    ],
)
def test_bad_bytes_have_a_reason(data: bytes, reason: str) -> None:
    with pytest.raises(LoadError, match=reason):
        build_doc("a.md", data, mtime=T0)


def test_broken_pdf_oversize_and_unknown_type(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="not a readable PDF"):
        build_doc("a.pdf", b"%PDF-1.4 garbage", mtime=T0)
    with pytest.raises(LoadError, match="unsupported file type"):
        build_doc("a.docx", b"hello", mtime=T0)
    big = tmp_path / "big.md"
    big.write_text("word " * 100)
    with pytest.raises(LoadError, match="max_file_bytes"):
        load_file(big, tmp_path, max_bytes=50)


def test_html_headings_become_sections() -> None:
    html = (
        b"<html><body><h1>Guide</h1><p>Intro text here.</p><h2>Setup</h2>"
        b"<p>Install it now.</p><script>x()</script></body></html>"
    )
    doc, _ = build_doc("guide.html", html, mtime=T0)
    assert doc.text == "# Guide\n\nIntro text here.\n\n## Setup\n\nInstall it now.\n"
    assert [s.section_id for s in markdown_sections(doc.text, "guide")] == [
        "guide/guide",
        "guide/guide/setup",
    ]


def _words(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\S+", text)]


def test_pack_respects_the_token_limit_and_overlap() -> None:
    text = "# T\n\n" + " ".join(f"Sentence number {i} is here." for i in range(12)) + "\n"
    section = markdown_sections(text, "t")[0]
    spans = pack(text, section, lambda s: len(s.split()), max_tokens=12, overlap=1, pieces=_words)
    assert all(len(text[s.start : s.end].split()) <= 12 for s in spans)
    assert len(spans) > 3
    assert all(b.start < a.end for a, b in pairwise(spans))  # one sentence overlaps


def _chars(text: str) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(len(text))]


@pytest.mark.parametrize("pieces", [_chars, _words], ids=["one-piece-a-char", "one-piece-a-word"])
def test_pack_counts_each_span_exactly_when_unit_sizes_do_not_add_up(
    pieces: Callable[[str], list[tuple[int, int]]],
) -> None:
    # Counting characters, a run is longer than its units' sum by the spaces between them:
    # "Bbbb bbbb." + "Cccc cccc." sums to 20 (fits 20) but the run is 21 characters; sized
    # by words as pieces, every run looks tiny. Either way the section is packed again exactly.
    text = "# T\n\nAaaa aaaa. Bbbb bbbb. Cccc cccc.\n"
    section = markdown_sections(text, "t")[0]
    spans = pack(text, section, len, max_tokens=20, overlap=0, pieces=pieces)
    assert [(text[s.start : s.end], s.tokens) for s in spans] == [
        ("# T\n\nAaaa aaaa.", 15),
        ("Bbbb bbbb.", 10),
        ("Cccc cccc.", 10),
    ]


def test_every_chunk_of_the_fastapi_docs_is_an_exact_slice(shared_data: Path) -> None:
    embedder = HashEmbedder()
    root = shared_data / "fastapi-docs" / "docs"
    checked = 0
    for path in sorted(root.rglob("*.md"))[:60]:
        doc, pages = load_file(path, root, max_bytes=10_000_000)
        for span in spans_of(doc, embedder, 200, 1, pages):
            text = doc.text[span.start : span.end]
            assert text and text == text.strip()
            assert span.tokens == embedder.count_tokens(text) <= 200
            checked += 1
    assert checked > 300


def test_a_chunk_that_starts_inside_a_long_code_block_says_so() -> None:
    """A console block longer than a chunk is split by lines; the chunks after the first
    start inside it, and the chunk that starts at its opening fence does not."""
    console = "".join(f"$ app command{i} --flag\n" for i in range(40))
    text = f"# Help\n\nRun it:\n\n```console\n{console}```\n\nThat is all.\n"
    doc, _ = build_doc("help.md", text.encode(), mtime=datetime(2026, 1, 1, tzinfo=UTC))
    embedder = HashEmbedder()
    identity = IndexIdentity(embed_model="m", dense_dim=64, analyzer="a", chunker="c")
    chunks = build_chunks(doc, spans_of(doc, embedder, 40, 0, []), embedder, identity, "ih")
    assert len(chunks) >= 3
    fence = text.index("```console")
    for c in chunks:
        inside = fence < c.offsets.start < text.index("```\n\nThat")
        assert c.opens_in_code == inside, c.text[:40]
    assert chunks[0].opens_in_code is False and any(c.opens_in_code for c in chunks)


def test_a_chunk_that_starts_inside_a_list_says_so() -> None:
    """A list longer than a chunk is split by sentences (FastAPI's CORS arguments): the chunks
    that start inside it say so, the one that starts before it and the one after it do not."""
    items = "".join(
        f"* `arg{i}` - Sets option number {i} of the middleware. Defaults to `{i}`.\n"
        for i in range(12)
    )
    text = f"# Args\n\nThe following arguments are supported:\n\n{items}\nThat is all.\n"
    doc, _ = build_doc("args.md", text.encode(), mtime=datetime(2026, 1, 1, tzinfo=UTC))
    embedder = HashEmbedder()
    identity = IndexIdentity(embed_model="m", dense_dim=64, analyzer="a", chunker="c")
    chunks = build_chunks(doc, spans_of(doc, embedder, 60, 0, []), embedder, identity, "ih")
    lo, hi = text.index("* `arg0`"), text.index("\n\nThat is all.")
    assert len(chunks) >= 3
    for c in chunks:
        assert c.opens_in_list == (lo < c.offsets.start < hi), c.text[:40]
    assert chunks[0].opens_in_list is False and any(c.opens_in_list for c in chunks)
