"""The extractive generator: claims are sentences of the evidence, so it always works offline.

Claims first: candidate sentences of the top hits are scored against the question
(embedding cosine, content-word overlap, the hit's rerank score), picked greedily without
redundancy, typed, and each gets one citation slot whose quote is the exact sentence.
Then the answer is composed from the claims, one paragraph (segment) per section.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.contracts import CitationSlot, Claim, Draft, Hit, Offsets
from server.generate.claims import classify_claim
from server.ports import Embedder
from server.retrieve import cosine
from server.text import Sentence, content_words, sentences

# Weights of the sentence score; chosen by reading answers on the fastapi-docs dev gold set.
W_COSINE, W_OVERLAP, W_HIT = 0.55, 0.30, 0.15
REDUNDANT_OVERLAP = 0.6  # Jaccard of content words above which a sentence repeats another
RELATIVE_CUTOFF = 0.7  # keep sentences scoring at least this share of the best one
OTHER_SECTION_CUTOFF = 0.9  # a sentence from another section than the best must be this close


@dataclass(frozen=True)
class _Candidate:
    hit: Hit
    sentence: Sentence
    score: float


def _overlap(question: set[str], words: list[str]) -> float:
    return len(question & set(words)) / len(question) if question else 0.0


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


class ExtractiveGenerator:
    """`Generator` that selects evidence sentences; deterministic (the seed changes nothing)."""

    def __init__(
        self,
        embedder: Embedder,
        *,
        max_claims: int,
        evidence_hits: int = 5,
        min_score: float = 0.25,
    ) -> None:
        self._embedder = embedder
        self._max_claims = max_claims
        self._evidence_hits = evidence_hits
        self._min_score = min_score

    @property
    def name(self) -> str:
        return "extractive"

    def _candidates(self, question: str, hits: Sequence[Hit]) -> list[_Candidate]:
        pairs = [
            (h, s)
            for h in hits[: self._evidence_hits]
            for s in sentences(h.chunk)
            if not s.display.rstrip().endswith("?")  # a question asserts nothing
        ]
        if not pairs:
            return []
        qwords = set(content_words(question))
        vectors = self._embedder.embed_documents([s.display for _, s in pairs])
        qv = self._embedder.embed_query(question)
        scored = [
            _Candidate(
                h,
                s,
                W_COSINE * cosine(qv, v)
                + W_OVERLAP * _overlap(qwords, content_words(s.quote))
                + W_HIT * h.score_norm,
            )
            for (h, s), v in zip(pairs, vectors, strict=True)
        ]
        return sorted(scored, key=lambda c: (-c.score, c.hit.k_final or 0, c.sentence.start))

    def _select(self, candidates: list[_Candidate]) -> list[_Candidate]:
        chosen: list[_Candidate] = []
        floor = max(self._min_score, RELATIVE_CUTOFF * candidates[0].score) if candidates else 0.0
        best_section = candidates[0].hit.chunk.section_id if candidates else ""
        for cand in candidates:
            if cand.score < floor or len(chosen) == self._max_claims:
                break
            if (
                cand.hit.chunk.section_id != best_section
                and cand.score < OTHER_SECTION_CUTOFF * candidates[0].score
            ):
                continue
            words = set(content_words(cand.sentence.quote))
            if any(
                _jaccard(words, set(content_words(c.sentence.quote))) > REDUNDANT_OVERLAP
                for c in chosen
            ):
                continue
            chosen.append(cand)
        return chosen

    def generate(self, question: str, hits: Sequence[Hit], *, seed: int = 0) -> Draft:
        chosen = self._select(self._candidates(question, hits))
        # Present in evidence order: by section of first appearance, then document position.
        sections = list(dict.fromkeys(c.hit.chunk.section_id for c in chosen))
        chosen.sort(key=lambda c: (sections.index(c.hit.chunk.section_id), c.sentence.start))
        claims = []
        for n, cand in enumerate(chosen, start=1):
            s = cand.sentence
            slot = CitationSlot(
                n=n,
                snippet_id=cand.hit.chunk.snippet_id,
                offsets=Offsets(start=s.start, end=s.end),
                quote=s.quote,
            )
            claims.append(
                Claim(
                    id=f"c{n}",
                    text=s.display,
                    type=classify_claim(s.display),
                    citations=(slot,),
                    segment=sections.index(cand.hit.chunk.section_id) + 1,
                )
            )
        return Draft(claims=tuple(claims), answer=render(claims), generator=self.name)


def render(claims: Sequence[Claim]) -> str:
    """Claims joined into paragraphs, one per segment, each sentence with its [n] markers."""
    paragraphs: dict[int, list[str]] = {}
    for claim in claims:
        markers = "".join(f"[{s.n}]" for s in claim.citations)
        text = claim.text.rstrip()
        label = f"{claim.label} " if claim.label else ""
        sentence = f"{label}{text} {markers}".rstrip() if markers else f"{label}{text}"
        paragraphs.setdefault(claim.segment, []).append(sentence)
    return "\n\n".join(" ".join(p) for _, p in sorted(paragraphs.items()))
