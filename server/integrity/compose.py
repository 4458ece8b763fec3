"""Generate -> check -> repair -> gate -> compose (SPEC 4.1, 5.1-5.3; seed 001 ladder).

Every claim of the draft gets a verdict with its evidence; none is dropped silently. The
repair ladder substitutes an unsupported claim with the closest supported evidence
sentence, else strips its citation and marks it unsupported; when more than half of the
claims are unsupported it retrieves again with an expanded query and regenerates (bounded).
Claims still BLOCKed after the ladder are withheld from the text (listed in `repairs` and
in the gate's verdicts); when nothing holds, the answer is an honest "I don't know".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter

from server.contracts import (
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
    Offsets,
    Repair,
    RepairAction,
    Verdict,
    Verification,
)
from server.generate.extractive import render
from server.integrity import checks
from server.integrity.gate import Mode, answer_verdict, claim_verdict
from server.integrity.missing import missing_evidence
from server.ports import Generator, SupportScorer
from server.settings import Settings
from server.text import Sentence, sentences

LiveIndex = checks.LiveIndex
IDK = "I don't know: the indexed documents do not contain evidence that answers this question."
_BROKEN = frozenset({CheckCode.FABRICATED_ID, CheckCode.QUOTE_NOT_VERBATIM, CheckCode.BAD_OFFSETS})


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
    live: checks.LiveIndex
    scorer: SupportScorer
    settings: Settings

    @property
    def mode(self) -> Mode:
        return self.settings.integrity.gate_mode

    @property
    def threshold(self) -> float:
        return self.settings.integrity.support_threshold


def _evidence_text(slot: CitationSlot, ctx: _Ctx, findings: Sequence[CodeFinding]) -> str | None:
    hit = ctx.hits.get(slot.snippet_id)
    if hit is None:
        return None
    broken = any(f.code in _BROKEN and f.citation_n == slot.n for f in findings)
    return hit.chunk.text if broken else slot.quote


def _support(claim: Claim, findings: list[CodeFinding], ctx: _Ctx) -> float | None:
    texts = [t for s in claim.citations if (t := _evidence_text(s, ctx, findings)) is not None]
    return max((ctx.scorer.support(claim.text, t) for t in texts), default=None)


def _evaluate(
    claims: Sequence[Claim], answer: str, ctx: _Ctx
) -> tuple[list[ClaimVerdict], list[CodeFinding]]:
    """One verdict per claim, plus the findings tied to no claim (stray markers)."""
    findings = checks.check_markers(answer, claims)
    if not ctx.settings.integrity.allow_cross_section:
        findings += checks.check_cross_section(claims, ctx.hits)
    cited = [c for c in claims if c.citations]
    verdicts = []
    for claim in claims:
        mine = [f for s in claim.citations for f in checks.check_slot(claim, s, ctx.hits, ctx.live)]
        score = _support(claim, mine, ctx)
        supported = score is not None and score >= ctx.threshold
        if claim.citations and not supported:
            mine.append(
                CodeFinding(
                    code=CheckCode.UNSUPPORTED,
                    claim_id=claim.id,
                    detail=f"support {score if score is not None else 0:.2f} < {ctx.threshold:.2f}",
                )
            )
        quotes = [s.quote for s in claim.citations if s.snippet_id in ctx.hits]
        context = [
            ctx.hits[s.snippet_id].chunk.text for s in claim.citations if s.snippet_id in ctx.hits
        ]
        mine += checks.check_type_evidence(
            claim, quotes, context, ctx.settings.integrity.allow_general_knowledge
        )
        mine += checks.check_reasoning(claim, cited)
        mine += checks.check_over_generalised(
            claim, ctx.settings.integrity.over_generalised, supported
        )
        mine += [f for f in findings if f.claim_id == claim.id]
        verdicts.append(claim_verdict(claim, mine, score, supported, ctx.mode))
    return verdicts, [f for f in findings if f.claim_id is None]


def _closest_supported(
    claim: Claim, ctx: _Ctx, taken: set[tuple[int, int]]
) -> tuple[Hit, Sentence, float] | None:
    best: tuple[Hit, Sentence, float] | None = None
    for hit in ctx.hits.values():
        for sent in sentences(hit.chunk):
            if (sent.start, sent.end) in taken:
                continue
            score = ctx.scorer.support(claim.text, sent.quote)
            if score >= ctx.threshold and (best is None or score > best[2]):
                best = (hit, sent, score)
    return best


def _repair(
    claims: Sequence[Claim], verdicts: Sequence[ClaimVerdict], ctx: _Ctx
) -> tuple[list[Claim], list[Repair]]:
    """Ladder steps 1 and 2 for every claim that is not supported by what it cites."""
    # Spans already cited by supported claims are not offered again as substitutes.
    taken = {
        (s.offsets.start, s.offsets.end)
        for c, v in zip(claims, verdicts, strict=True)
        if v.supported and not any(f.code in _BROKEN for f in v.findings)
        for s in c.citations
    }
    out, repairs = [], []
    for claim, verdict in zip(claims, verdicts, strict=True):
        broken = any(f.code in _BROKEN for f in verdict.findings)  # never show a wrong quote or id
        if not claim.citations or (
            not broken and (verdict.verdict is Verdict.PASS or verdict.supported)
        ):
            out.append(claim)
            continue
        codes = tuple(dict.fromkeys(f.code for f in verdict.findings))
        found = _closest_supported(claim, ctx, taken)
        if found is not None:
            hit, sent, score = found
            taken.add((sent.start, sent.end))
            slot = CitationSlot(
                n=claim.citations[0].n,
                snippet_id=hit.chunk.snippet_id,
                offsets=Offsets(start=sent.start, end=sent.end),
                quote=sent.quote,
            )
            fixed = claim.model_copy(
                update={"text": sent.display, "citations": (slot,), "label": "[corrected]"}
            )
            repairs.append(
                Repair(
                    action=RepairAction.SUBSTITUTE,
                    claim_id=claim.id,
                    before=claim.text,
                    after=sent.display,
                    reason=f"cited span did not support it; closest supported "
                    f"evidence sentence (support {score:.2f}) substituted",
                    codes=codes,
                )
            )
            out.append(fixed)
            continue
        stripped = claim.model_copy(update={"citations": (), "label": "[unsupported]"})
        repairs.append(
            Repair(
                action=RepairAction.STRIP_CITATION,
                claim_id=claim.id,
                before=claim.text,
                after=claim.text,
                reason="no retrieved evidence supports this claim; citation "
                "stripped and the claim marked unsupported",
                codes=codes,
            )
        )
        out.append(stripped)
    return out, repairs


def _renumber(claims: Sequence[Claim]) -> list[Claim]:
    n, out = 0, []
    for claim in claims:
        slots = []
        for slot in claim.citations:
            n += 1
            slots.append(slot.model_copy(update={"n": n}))
        out.append(claim.model_copy(update={"citations": tuple(slots)}))
    return out


def _citation(slot: CitationSlot, verdict: ClaimVerdict, ctx: _Ctx) -> Citation:
    hit = ctx.hits[slot.snippet_id]
    codes = tuple(f.code for f in verdict.findings if f.citation_n in (None, slot.n))
    chunk = hit.chunk.model_copy(update={"index_hash": ctx.live.index_hash})
    return Citation(
        **chunk.model_dump(),
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
    )


def _withhold(
    claims: Sequence[Claim], verdicts: Sequence[ClaimVerdict]
) -> tuple[list[Claim], list[Repair]]:
    visible, repairs = [], []
    for claim, verdict in zip(claims, verdicts, strict=True):
        if verdict.verdict is Verdict.BLOCK:
            codes = ", ".join(sorted({f.code.value for f in verdict.findings}))
            repairs.append(
                Repair(
                    action=RepairAction.FALLBACK,
                    claim_id=claim.id,
                    before=claim.text,
                    reason=f"withheld: still blocked after repair ({codes})",
                    codes=tuple(dict.fromkeys(f.code for f in verdict.findings)),
                )
            )
        else:
            visible.append(claim)
    return visible, repairs


def _finish(
    draft: Draft,
    hits: Sequence[Hit],
    ctx: _Ctx,
    question: str,
    repairs: list[Repair],
    gen_ms: float,
) -> Composed:
    claims = _renumber(draft.claims)
    verdicts, _ = _evaluate(claims, render(claims), ctx)
    visible, withheld = _withhold(claims, verdicts)
    repairs = repairs + withheld
    visible = _renumber(visible)
    v_verdicts, v_loose = _evaluate(visible, render(visible), ctx)
    by_id = {v.claim_id: v for v in (*verdicts, *v_verdicts)}
    shown = [by_id[c.id] for c in visible] + [v for v in verdicts if v.verdict is Verdict.BLOCK]
    gate = GateResult(
        verdict=answer_verdict(shown, v_loose, ctx.mode),
        mode=ctx.mode,
        codes=tuple(f for v in shown for f in v.findings) + tuple(v_loose),
        claims=tuple(shown),
    )
    if not any(c.citations for c in visible):
        return _fallback(question, hits, ctx, draft.generator, repairs, gen_ms, gate, claims)
    citations = tuple(_citation(s, by_id[c.id], ctx) for c in visible for s in c.citations)
    return Composed(
        answer=render(visible),
        claims=tuple(visible),
        citations=citations,
        fallback=False,
        gate=gate,
        repairs=tuple(repairs),
        generator=draft.generator,
        generate_ms=gen_ms,
    )


def _fallback(
    question: str,
    hits: Sequence[Hit],
    ctx: _Ctx,
    generator: str,
    repairs: Sequence[Repair],
    gen_ms: float,
    gate: GateResult | None,
    claims: Sequence[Claim] = (),
) -> Composed:
    gate = gate or GateResult(verdict=Verdict.PASS, mode=ctx.mode)
    return Composed(
        answer=IDK,
        claims=(),
        citations=(),
        fallback=True,
        gate=gate,
        repairs=tuple(repairs),
        missing_evidence=missing_evidence(question, hits),
        generator=generator,
        generate_ms=gen_ms,
    )


def compose(
    question: str,
    hits: Sequence[Hit],
    *,
    generator: Generator,
    scorer: SupportScorer,
    settings: Settings,
    live: checks.LiveIndex,
    retrieve_again: Callable[[str], list[Hit]],
    seed: int = 0,
) -> Composed:
    """Claims -> slots -> check -> repair -> gate; "I don't know" when no evidence holds."""
    ctx = _Ctx(
        hits={h.chunk.snippet_id: h for h in hits}, live=live, scorer=scorer, settings=settings
    )
    if not hits:
        return _fallback(question, hits, ctx, generator.name, (), 0.0, None)
    t0 = perf_counter()
    draft = generator.generate(question, hits, seed=seed)
    gen_ms = (perf_counter() - t0) * 1000
    verdicts, _ = _evaluate(draft.claims, draft.answer, ctx)
    claims, repairs = _repair(draft.claims, verdicts, ctx)
    unsupported = sum(not v.supported for v in verdicts if v.verdict is not Verdict.PASS)
    rounds = settings.integrity.max_regenerations
    if draft.claims and unsupported * 2 > len(draft.claims) and rounds > 0:
        expanded = f"{question} {' '.join(c.text for c in draft.claims[:2])}"
        fewer = settings.model_copy(
            update={
                "integrity": settings.integrity.model_copy(update={"max_regenerations": rounds - 1})
            }
        )
        again = compose(
            question,
            retrieve_again(expanded),
            generator=generator,
            scorer=scorer,
            settings=fewer,
            live=live,
            retrieve_again=retrieve_again,
            seed=seed,
        )
        note = Repair(
            action=RepairAction.REGENERATE,
            reason=f"{unsupported} of {len(draft.claims)} claims "
            "unsupported: retrieved again with an expanded query and regenerated once",
        )
        return again.model_copy(
            update={"repairs": (note, *again.repairs), "generate_ms": gen_ms + again.generate_ms}
        )
    notes = [Repair(action=RepairAction.LLM_FALLBACK, reason=n) for n in draft.notes]
    return _finish(
        draft.model_copy(update={"claims": tuple(claims)}),
        hits,
        ctx,
        question,
        notes + repairs,
        gen_ms,
    )
