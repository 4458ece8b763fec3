"""Generate -> label -> check -> gate -> repair -> re-check -> compose (SPEC 4.1, 5; seed 001).

Every claim of the draft gets a verdict with its evidence; none is dropped silently: what
the repair ladder (`server.query.integrity.repair`) changes or withholds is listed in `repairs`.
When nothing holds, or nothing was retrieved, the answer is the same honest "I don't know"
with `missing_evidence`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from time import perf_counter

from server.core.contracts import (
    CheckCode,
    Citation,
    CitationSlot,
    Claim,
    ClaimVerdict,
    CodeFinding,
    Draft,
    Frozen,
    GateResult,
    Hit,
    MissingEvidence,
    Repair,
    RepairAction,
    Verdict,
)
from server.core.ports import Generator, SupportScorer
from server.core.settings import Settings
from server.query.generate.extractive import render
from server.query.integrity import checks, injection, repair
from server.query.integrity.citations import build_citation, renumber
from server.query.integrity.gate import Mode, claim_verdict, gate_result
from server.query.integrity.labels import apply_labels
from server.query.integrity.live import LiveIndex
from server.query.integrity.missing import missing_evidence

__all__ = ["IDK", "Composed", "LiveIndex", "compose"]
IDK = "I don't know: the indexed documents do not contain evidence that answers this question."


class Composed(Frozen):
    """Everything `answer()` needs from the integrity stage."""

    answer: str
    claims: tuple[Claim, ...]
    citations: tuple[Citation, ...]
    fallback: bool
    gate: GateResult
    repairs: tuple[Repair, ...] = ()
    missing_evidence: MissingEvidence | None = None
    generator: str
    generate_ms: float = 0.0


@dataclass(frozen=True)
class _Ctx:
    hits: dict[str, Hit]
    live: LiveIndex
    scorer: SupportScorer
    settings: Settings
    quarantine: Mapping[str, str] = field(default_factory=dict)

    @property
    def mode(self) -> Mode:
        return self.settings.integrity.gate_mode

    @property
    def threshold(self) -> float:
        return self.settings.integrity.support_threshold

    def foundational(self, claim: Claim) -> bool:
        tag = self.settings.integrity.foundational_tag
        cited = [self.hits[s.snippet_id] for s in claim.citations if s.snippet_id in self.hits]
        return bool(cited) and all(tag in h.chunk.tags for h in cited)


def _evidence(slot: CitationSlot, ctx: _Ctx, findings: Sequence[CodeFinding]) -> str | None:
    """The cited quote; the whole chunk when the quote itself is broken; None if invented."""
    hit = ctx.hits.get(slot.snippet_id)
    if hit is None:
        return None
    broken = any(f.code in repair.BROKEN and f.citation_n == slot.n for f in findings)
    return hit.chunk.text if broken else slot.quote


def _support(claim: Claim, findings: list[CodeFinding], ctx: _Ctx) -> float | None:
    texts = [t for s in claim.citations if (t := _evidence(s, ctx, findings)) is not None]
    return max((ctx.scorer.support(claim.text, t) for t in texts), default=None)


def _elsewhere(claim: Claim, ctx: _Ctx) -> tuple[str, float] | None:
    """Best support by an uncited retrieved chunk, when no cited chunk supports the claim."""
    cited = {s.snippet_id for s in claim.citations}
    own = [ctx.hits[sid].chunk.text for sid in cited if sid in ctx.hits]
    if any(ctx.scorer.support(claim.text, t) >= ctx.threshold for t in own):
        return None
    scored = [
        (sid, ctx.scorer.support(claim.text, h.chunk.text))
        for sid, h in ctx.hits.items()
        if sid not in cited
    ]
    return max(scored, key=lambda p: p[1], default=None)


def _judge(claim: Claim, cited: Sequence[Claim], ctx: _Ctx) -> ClaimVerdict:
    """Every per-claim check of SPEC 5.1, then the gate's verdict for this claim."""
    cfg = ctx.settings.integrity
    mine = [
        f
        for s in claim.citations
        for f in checks.check_slot(claim, s, ctx.hits, ctx.live, ctx.quarantine)
    ]
    score = _support(claim, mine, ctx)
    supported = score is not None and score >= ctx.threshold
    if claim.citations and not supported:
        mine += checks.check_support(claim, score, ctx.threshold, _elsewhere(claim, ctx))
    quotes = [s.quote for s in claim.citations if s.snippet_id in ctx.hits]
    mine += checks.check_type_evidence(
        claim,
        quotes,
        allow_general=cfg.allow_general_knowledge,
        foundational=ctx.foundational(claim),
    )
    mine += checks.check_reasoning(claim, cited)
    mine += checks.check_over_generalised(claim, cfg.over_generalised, supported)
    return claim_verdict(claim, mine, score, supported, ctx.mode)


def _evaluate(
    claims: Sequence[Claim], answer: str, ctx: _Ctx
) -> tuple[list[ClaimVerdict], list[CodeFinding]]:
    """One verdict per claim, plus the findings tied to no claim (stray markers, no citations)."""
    shared = checks.check_markers(answer, claims)
    if not ctx.settings.integrity.allow_cross_section:
        shared += checks.check_cross_section(claims, ctx.hits)
    cited = [c for c in claims if c.citations]
    verdicts = []
    for claim in claims:
        own = _judge(claim, cited, ctx)
        extra = tuple(f for f in shared if f.claim_id == claim.id)
        merged = claim_verdict(
            claim, [*own.findings, *extra], own.support_score, own.supported, ctx.mode
        )
        verdicts.append(merged)
    loose = [f for f in shared if f.claim_id is None] + checks.check_empty(claims)
    return verdicts, loose


def _finish(draft: Draft, question: str, ctx: _Ctx, repairs: list[Repair], ms: float) -> Composed:
    """Re-check the repaired claims, withhold what still BLOCKs, compose or fall back."""
    claims = renumber(draft.claims)
    verdicts, _ = _evaluate(claims, render(claims), ctx)
    visible, withheld = repair.withhold(claims, verdicts)
    visible = renumber(visible)
    shown_v, loose = _evaluate(visible, render(visible), ctx)
    by_id = {v.claim_id: v for v in (*verdicts, *shown_v)}
    blocked = [v for v in verdicts if v.verdict is Verdict.BLOCK]
    gate = gate_result([by_id[c.id] for c in visible] + blocked, loose, ctx.mode)
    repairs = repairs + withheld
    if not any(c.citations for c in visible):
        dropped = [
            Repair(
                action=RepairAction.FALLBACK,
                claim_id=c.id,
                before=c.text,
                reason="dropped: no claim of the answer kept a supporting citation",
            )
            for c in visible
        ]
        hits = list(ctx.hits.values())
        return _fallback(question, hits, ctx, draft.generator, repairs + dropped, ms, gate)
    return Composed(
        answer=render(visible),
        claims=tuple(visible),
        citations=tuple(
            build_citation(s, ctx.hits[s.snippet_id], by_id[c.id])
            for c in visible
            for s in c.citations
        ),
        fallback=False,
        gate=gate,
        repairs=tuple(repairs),
        generator=draft.generator,
        generate_ms=ms,
    )


def _fallback(
    question: str,
    hits: Sequence[Hit],
    ctx: _Ctx,
    generator: str,
    repairs: Sequence[Repair],
    ms: float,
    gate: GateResult | None,
    absent_names: Sequence[str] = (),
) -> Composed:
    return Composed(
        answer=IDK,
        claims=(),
        citations=(),
        fallback=True,
        gate=gate or GateResult(verdict=Verdict.PASS, mode=ctx.mode),
        repairs=tuple(repairs),
        missing_evidence=missing_evidence(question, hits, absent_names),
        generator=generator,
        generate_ms=ms,
    )


def _regenerate(
    question: str,
    hits: Sequence[Hit],
    draft: Draft,
    verdicts: Sequence[ClaimVerdict],
    ctx: _Ctx,
    again: Callable[[str], Composed],
    ms: float,
) -> Composed:
    """Ladder step (c): retrieve with an expanded query, regenerate, check it all again."""
    expanded = repair.expand_query(question, hits)
    composed = again(expanded)
    note = Repair(
        action=RepairAction.REGENERATE,
        before=draft.answer,
        after=composed.answer,
        reason=f"{repair.unsupported_count(verdicts)} of {len(verdicts)} claims unsupported: "
        f"retrieved again with the expanded query {expanded!r} and regenerated",
    )
    notes = tuple(Repair(action=RepairAction.LLM_FALLBACK, reason=n) for n in draft.notes)
    return composed.model_copy(
        update={
            "repairs": (*notes, note, *composed.repairs),
            "generate_ms": ms + composed.generate_ms,
        }
    )


def _once_more(
    question: str,
    generator: Generator,
    scorer: SupportScorer,
    settings: Settings,
    live: LiveIndex,
    retrieve_again: Callable[[str], list[Hit]],
    seed: int,
    query: str,
) -> Composed:
    """`compose` over `retrieve_again(query)` with one regeneration round fewer."""
    rounds = settings.integrity.max_regenerations - 1
    fewer = settings.model_copy(
        update={"integrity": settings.integrity.model_copy(update={"max_regenerations": rounds})}
    )
    return compose(
        question,
        retrieve_again(query),
        generator=generator,
        scorer=scorer,
        settings=fewer,
        live=live,
        retrieve_again=retrieve_again,
        seed=seed,
    )


def _quarantine(hits: Sequence[Hit], found: Mapping[str, str]) -> list[Repair]:
    """One visible note per withheld chunk: where it is and what it says to the model."""
    return [
        Repair(
            action=RepairAction.QUARANTINE,
            before=h.chunk.text,
            reason=f"withheld {h.chunk.source_url or h.chunk.doc_id} ({h.chunk.section_id}): "
            f"it addresses the model ({found[h.chunk.snippet_id]}), so it is not evidence",
            codes=(CheckCode.INJECTED_INSTRUCTION,),
        )
        for h in hits
        if h.chunk.snippet_id in found
    ]


def compose(
    question: str,
    hits: Sequence[Hit],
    *,
    generator: Generator,
    scorer: SupportScorer,
    settings: Settings,
    live: LiveIndex,
    retrieve_again: Callable[[str], list[Hit]],
    seed: int = 0,
    absent_names: Sequence[str] = (),
) -> Composed:
    """Claims -> slots -> check -> repair -> gate; "I don't know" when no evidence holds.

    `hits` empty (refused upstream) gives the same "I don't know" as a failed ladder;
    `absent_names`, when that refusal was for names no readable passage mentions, are
    named in its missing evidence.
    Hits that address the model (`injection.quarantined`) never reach the generator; each
    is listed in `repairs` (QUARANTINE), and a citation into one is blocked.
    `retrieve_again(expanded_query)` is called at most `integrity.max_regenerations` times.
    """
    found = injection.quarantined(hits) if settings.integrity.injection_guard else {}
    clean = [h for h in hits if h.chunk.snippet_id not in found]
    ctx = _Ctx({h.chunk.snippet_id: h for h in clean}, live, scorer, settings, found)
    held = _quarantine(hits, found)
    if not clean:
        return _fallback(question, hits, ctx, generator.name, held, 0.0, None, absent_names)
    composed = _compose(question, clean, ctx, generator, retrieve_again, seed)
    if not held:
        return composed
    return composed.model_copy(update={"repairs": (*held, *composed.repairs)})


def _compose(
    question: str,
    hits: Sequence[Hit],
    ctx: _Ctx,
    generator: Generator,
    retrieve_again: Callable[[str], list[Hit]],
    seed: int,
) -> Composed:
    """`compose` over the hits that are not quarantined (at least one)."""
    settings, scorer, live = ctx.settings, ctx.scorer, ctx.live
    t0 = perf_counter()
    draft = generator.generate(question, hits, seed=seed)
    ms = (perf_counter() - t0) * 1000
    draft = draft.model_copy(update={"claims": apply_labels(draft.claims, ctx.foundational)})
    verdicts, _ = _evaluate(draft.claims, draft.answer, ctx)
    if settings.integrity.max_regenerations > 0 and repair.needs_regeneration(verdicts):
        again = functools.partial(
            _once_more, question, generator, scorer, settings, live, retrieve_again, seed
        )
        return _regenerate(question, hits, draft, verdicts, ctx, again, ms)
    claims, repairs = repair.substitute_or_strip(
        draft.claims, verdicts, ctx.hits, scorer, ctx.threshold
    )
    notes = [Repair(action=RepairAction.LLM_FALLBACK, reason=n) for n in draft.notes]
    return _finish(
        draft.model_copy(update={"claims": tuple(claims)}), question, ctx, notes + repairs, ms
    )
