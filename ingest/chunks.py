"""SourceDoc -> Chunks with content-derived ids (SPEC 2.2, 2.3; STYLE habit 6)."""

from __future__ import annotations

import hashlib

from ingest.chunking import Span, doc_root, markdown_sections, pack, page_sections
from server.core.contracts import Chunk, IndexIdentity, Offsets, SourceDoc
from server.core.markdown import blocks, code_spans, heading_path, slugify
from server.core.ports import Embedder
from server.core.text import HEADING_SEPARATOR


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def snippet_id(doc_id: str, section_id: str, start: int, chash: str) -> str:
    """Legible and stable: the same content at the same place gets the same id."""
    digest = hashlib.sha256(f"{doc_id}\x00{section_id}\x00{start}\x00{chash}".encode()).hexdigest()
    return f"{slugify(doc_root(doc_id))[:40]}-{digest[:10]}"


def spans_of(
    doc: SourceDoc,
    embedder: Embedder,
    max_tokens: int,
    overlap: int,
    pages: list[int],
    heading_only_max: int = 120,
) -> list[Span]:
    """Every chunk span of a document, in document order; a lone heading line shorter than
    `heading_only_max` characters is not evidence on its own and is left out."""
    root = doc_root(doc.path)
    if doc.media_type == "pdf" and pages:
        sections = page_sections(doc.text, root, pages)
    else:
        sections = markdown_sections(doc.text, root)
    limit = min(max_tokens, embedder.max_tokens)
    count, pieces = embedder.count_tokens, embedder.token_spans
    spans = [s for sec in sections for s in pack(doc.text, sec, count, limit, overlap, pieces)]
    return [s for s in spans if not _heading_only(doc.text[s.start : s.end], heading_only_max)]


def _heading_only(text: str, max_chars: int) -> bool:
    return text.startswith("#") and "\n" not in text and len(text) < max_chars


def build_chunks(
    doc: SourceDoc, spans: list[Span], embedder: Embedder, identity: IndexIdentity, index_hash: str
) -> list[Chunk]:
    """The SPEC 1.1 payload of every span; `text == doc.text[start:end]` by construction."""
    chunks = []
    marked_up = doc.media_type != "pdf"  # as the sections read it
    code = code_spans(doc.text) if marked_up else []
    lists = [(b.start, b.end) for b in blocks(doc.text) if b.kind == "list"] if marked_up else []
    for span in spans:
        text = doc.text[span.start : span.end]
        chash = content_hash(text)
        chunks.append(
            Chunk(
                doc_id=doc.doc_id,
                section_id=span.section_id,
                snippet_id=snippet_id(doc.doc_id, span.section_id, span.start, chash),
                source_url=doc.source_url,
                offsets=Offsets(start=span.start, end=span.end),
                tokens=span.tokens,
                index_hash=index_hash,
                embed_model=identity.embed_model,
                analyzer=identity.analyzer,
                rev=doc.rev,
                text=text,
                title=doc.title,
                tags=doc.tags,
                source_domain=doc.source_domain,
                updated_at=doc.updated_at,
                content_hash=chash,
                page=span.page,
                heading=HEADING_SEPARATOR.join(heading_path(doc.text, span.start)),
                opens_in_code=any(lo < span.start < hi for lo, hi in code),
                opens_in_list=any(lo < span.start < hi for lo, hi in lists),
            )
        )
    return chunks
