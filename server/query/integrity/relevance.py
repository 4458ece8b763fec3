"""Relevance as a check of its own: does a claim bear on the question at all?

Support asks whether the cited span holds the claim; relevance asks whether the claim answers
what was asked. A claim below `integrity.relevance_floor`, or below `relevance_relative` of the
answer's most relevant claim, is dropped with `off_topic` (visible in `repairs`); when every
claim is dropped the answer is "I don't know".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from server.core.contracts import CheckCode, Chunk, Claim, CodeFinding, Repair, RepairAction
from server.core.ports import Embedder, RelevanceScorer
from server.core.settings.integrity import IntegritySettings
from server.core.text import embed_input
from server.query.answer_types import leads
from server.query.retrieve import cosine

Vectors = Callable[[Sequence[str]], list[list[float]]]


class EmbeddingRelevance:
    """cos(question, text) with the engine's dense embedder (one batch per answer).

    `vectors`, when given, supplies the texts' vectors instead of `embed_documents`: the
    engine hands in the support scorer's cached ones (`FeatureSupportScorer.vectors`, the same
    embedder), so a claim is embedded once per answer for relevance, the checks and the
    refusal decision together, not three times.
    """

    def __init__(self, embedder: Embedder, vectors: Vectors | None = None) -> None:
        self._embedder = embedder
        self._vectors = vectors or embedder.embed_documents

    @property
    def name(self) -> str:
        return f"cosine:{self._embedder.model_id}"

    def relevance(self, question: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        q = self._embedder.embed_query(question)
        return [cosine(q, v) for v in self._vectors(list(texts))]


def claim_relevance(
    scorer: RelevanceScorer,
    question: str,
    claims: Sequence[Claim],
    chunk_of: Callable[[str], Chunk | None],
) -> list[float]:
    """Each claim's relevance: its text's; for a claim that gives the kind of value the
    question asks for (`answer_types.leads`: a version, a duration, ...) and sits under a
    heading, its text read under its title and headings (`text.embed_input`) when that is
    higher. A value's subject is often only in its heading: "Added in version 3.1." under
    `SECRET_KEY_FALLBACKS` answers "since which version can I rotate the secret key?" (cosine
    0.12 alone, 0.44 under its headings), and "Added in version 2.0." right under a page's
    one heading "Using `async` and `await`" answers "since which version can views be async
    def?" (a one-level heading counts here: the value is what was asked, whatever the page's
    other units say)."""
    scores = scorer.relevance(question, [c.text for c in claims])
    headed: list[tuple[int, str]] = []
    for i, claim in enumerate(claims):
        chunk = chunk_of(claim.citations[0].snippet_id) if claim.citations else None
        if chunk is None or not leads(question, claim.text):
            continue
        read = embed_input(chunk.title, chunk.heading, claim.text) if chunk.heading else ""
        if read and read != claim.text:
            headed.append((i, read))
    if headed:
        again = scorer.relevance(question, [read for _, read in headed])
        for (i, _), score in zip(headed, again, strict=True):
            scores[i] = max(scores[i], score)
    return scores


def floor_of(scores: Sequence[float], cfg: IntegritySettings) -> float:
    """The bar a claim must reach: the absolute floor, or a share of the best claim."""
    return max(cfg.relevance_floor, cfg.relevance_relative * max(scores, default=0.0))


def off_topic(
    claims: Sequence[Claim], scores: Sequence[float], cfg: IntegritySettings
) -> tuple[list[Claim], list[Repair], list[CodeFinding]]:
    """Claims that bear on the question, and a Repair and finding for each one dropped."""
    bar = floor_of(scores, cfg)
    kept: list[Claim] = []
    repairs: list[Repair] = []
    findings: list[CodeFinding] = []
    for claim, score in zip(claims, scores, strict=True):
        if score >= bar:
            kept.append(claim)
            continue
        detail = f"relevance {score:.2f} below {bar:.2f}"
        repairs.append(
            Repair(
                action=RepairAction.DROP,
                claim_id=claim.id,
                before=claim.text,
                reason=f"dropped: it does not bear on the question ({detail})",
                codes=(CheckCode.OFF_TOPIC,),
            )
        )
        findings.append(CodeFinding(code=CheckCode.OFF_TOPIC, claim_id=claim.id, detail=detail))
    return kept, repairs, findings
