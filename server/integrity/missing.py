"""What an honest "I don't know" says about the source that would answer (SPEC 5.3, seed 000)."""

from __future__ import annotations

from collections.abc import Sequence

from server.contracts import Hit, MissingEvidence
from server.text import content_words

_NEAREST = 3


def missing_evidence(question: str, hits: Sequence[Hit]) -> MissingEvidence:
    """Name the topic from the question's key terms and the nearest sections that fell short."""
    terms = tuple(dict.fromkeys(content_words(question)))[:8]
    topic = " ".join(terms) or "this question"
    nearest = tuple(
        f"{h.chunk.source_url}#{h.chunk.section_id} (nearest match, not sufficient)"
        for h in hits[:_NEAREST]
    )
    summary = (
        f"No indexed passage supports an answer about: {topic}. A document that states this "
        "directly (a reference page, policy or specification covering these terms) would answer "
        "it; ingest one with `citegate ingest PATH` and ask again."
    )
    return MissingEvidence(summary=summary, suggested_sources=nearest, query_terms=terms)
