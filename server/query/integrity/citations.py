"""The user-facing `Citation`s: every chunk field (SPEC 1.1) plus the exact span and its checks."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from server.core.contracts import (
    AlsoIn,
    CheckCode,
    Chunk,
    Citation,
    CitationSlot,
    Claim,
    ClaimVerdict,
    Hit,
    Offsets,
    Verification,
)
from server.core.text import word_run


def renumber(claims: Sequence[Claim]) -> list[Claim]:
    """Slots numbered 1..n in claim order, so the [n] markers are dense after repairs."""
    n, out = 0, []
    for claim in claims:
        slots = []
        for slot in claim.citations:
            n += 1
            slots.append(slot.model_copy(update={"n": n}))
        out.append(claim.model_copy(update={"citations": tuple(slots)}))
    return out


def build_citation(slot: CitationSlot, hit: Hit, verdict: ClaimVerdict) -> Citation:
    """The cited chunk, `span`/`quote` exactly as the slot has them, scores, ranks, checks."""
    codes = tuple(f.code for f in verdict.findings if f.citation_n in (None, slot.n))
    return Citation(
        **hit.chunk.model_dump(),
        n=slot.n,
        span=slot.offsets,
        quote=slot.quote,
        verification=Verification(
            verbatim=CheckCode.QUOTE_NOT_VERBATIM not in codes,
            offsets_valid=CheckCode.BAD_OFFSETS not in codes,
            support_score=verdict.support_score,
            supported=verdict.supported,
            codes=codes,
        ),
        score_raw=hit.score_raw,
        score_norm=hit.score_norm,
        rerank_score=hit.rerank_score,
        k_pos=hit.k_pos,
        k_final=hit.k_final,
        old_document=hit.old_document,
        also_in=merged_also_in(hit.also_in, slot.also_in, hit.chunk.doc_id),
    )


def merged_also_in(
    chunk: Sequence[AlsoIn], unit: Sequence[AlsoIn], own_doc: str
) -> tuple[AlsoIn, ...]:
    """The chunk's near-duplicates, then the documents that hold the same quote, each
    document once and never the cited one; where both name a document, the unit's copy,
    which knows where the quote sits there (a chunk's near-duplicate has no span)."""
    out: dict[str, AlsoIn] = {}
    for a in (*chunk, *unit):
        if a.doc_id != own_doc and (a.doc_id not in out or out[a.doc_id].span is None):
            out[a.doc_id] = a
    return tuple(out.values())


def placed_copies(citation: Citation, chunk_of: Callable[[str], Chunk | None]) -> Citation:
    """The citation with each `also_in` copy that has no span (a near-duplicate chunk,
    collapsed whole before any unit was chosen) given the place its quote has in that copy,
    found by its words (`word_run`: a PDF's line breaks, Markdown's emphasis); a copy whose
    chunk is gone or does not say the quote's words in order stays without a span."""
    if all(a.span is not None for a in citation.also_in):
        return citation
    return citation.model_copy(
        update={
            "also_in": tuple(placed_copy(c, citation.quote, chunk_of) for c in citation.also_in)
        }
    )


def placed_copy(copy: AlsoIn, quote: str, chunk_of: Callable[[str], Chunk | None]) -> AlsoIn:
    """`copy` with the place of `quote` in its chunk, when it has none and the chunk says the
    quote's words in order (`word_run`)."""
    chunk = chunk_of(copy.snippet_id) if copy.span is None else None
    run = word_run(quote, chunk.text) if chunk is not None else None
    if chunk is None or run is None:
        return copy
    at = Offsets(start=chunk.offsets.start + run[0], end=chunk.offsets.start + run[1])
    return copy.model_copy(update={"span": at})
