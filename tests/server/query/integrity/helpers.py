"""Hand-built evidence for the integrity tests: two chunks of a tiny document."""

from __future__ import annotations

from datetime import UTC, datetime

from server.core.contracts import Chunk, CitationSlot, Claim, ClaimType, Hit, Offsets
from server.query.integrity.checks import LiveIndex

DOC = (
    "# Keys\n\nThe signing key is rotated every 90 days since version 2.1. "
    "Admins must store keys in the vault.\n\n## Gate\n\nThe gate blocks fabricated citations.\n"
)
ANALYZER = "bm25-test"


def chunk(start: int, end: int, section: str, sid: str, rev: str = "r1") -> Chunk:
    return Chunk(
        doc_id="keys.md",
        section_id=section,
        snippet_id=sid,
        source_url="keys.md",
        offsets=Offsets(start=start, end=end),
        tokens=10,
        index_hash="ih",
        embed_model="m",
        analyzer=ANALYZER,
        rev=rev,
        text=DOC[start:end],
        title="Keys",
        tags=("public",),
        updated_at=datetime(2026, 1, 1, tzinfo=UTC),
        content_hash="c",
    )


A_START = DOC.index("The signing")
A_END = DOC.index("vault.") + len("vault.")
B_START = DOC.index("The gate")
B_END = DOC.index("citations.") + len("citations.")
HIT_A = Hit(
    chunk=chunk(A_START, A_END, "keys/keys", "keys-a"),
    score_raw=0.03,
    score_norm=0.8,
    k_pos=1,
    k_final=1,
)
HIT_B = Hit(
    chunk=chunk(B_START, B_END, "keys/keys/gate", "keys-b"),
    score_raw=0.02,
    score_norm=0.6,
    k_pos=2,
    k_final=2,
)
HITS = {"keys-a": HIT_A, "keys-b": HIT_B}
LIVE = LiveIndex(index_hash="ih", analyzer=ANALYZER, embed_model="m", revs={"keys.md": "r1"})


def slot(n: int, text: str, hit: Hit = HIT_A) -> CitationSlot:
    start = DOC.index(text)
    return CitationSlot(
        n=n,
        snippet_id=hit.chunk.snippet_id,
        offsets=Offsets(start=start, end=start + len(text)),
        quote=text,
    )


def claim(
    text: str,
    kind: ClaimType,
    *slots: CitationSlot,
    segment: int = 1,
    cid: str = "c1",
    label: str | None = None,
) -> Claim:
    return Claim(id=cid, text=text, type=kind, citations=slots, segment=segment, label=label)


class WordOverlapScorer:
    """A fake SupportScorer: share of the claim's words found in the evidence."""

    name = "word-overlap"

    def support(self, claim: str, evidence: str) -> float:
        words = {w.strip(".,").lower() for w in claim.split()}
        found = {w.strip(".,").lower() for w in evidence.split()}
        return len(words & found) / len(words) if words else 0.0
