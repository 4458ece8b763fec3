"""The integrity stage as pure steps over a draft (SPEC 4.1, 5; seed 001).

`fence` withholds what addresses the model, `label` applies the seed 004 labels, `evaluate`
gives every claim a verdict with its evidence, `repair` runs ladder steps (a) and (b), and
`finish` re-checks, withholds what still BLOCKs and composes the answer or the honest
"I don't know" (`dont_know`). `server.query.answer` calls them in order; the generator and
the re-retrieval (ladder step (c)) are its business, not this module's.
None is dropped silently: what the ladder changes or withholds is listed in `repairs`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import Field

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
from server.core.ports import SupportScorer, warm, warm_pairs
from server.core.settings import Settings
from server.query.claims import render
from server.query.integrity import checks, injection, repair
from server.query.integrity.citations import build_citation, renumber
from server.query.integrity.gate import Mode, claim_verdict, gate_result
from server.query.integrity.labels import apply_labels
from server.query.integrity.live import LiveIndex
from server.query.integrity.missing import missing_evidence

__all__ = [
    "IDK",
    "Composed",
    "Context",
    "Fenced",
    "LiveIndex",
    "dont_know",
    "evaluate",
    "fence",
    "finish",
    "label",
    "repair_claims",
]
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
class Context:
    """What the checks read: the evidence shown to the generator, the live index, the scorer."""

    hits: dict[str, Hit]
    live: LiveIndex
    scorer: SupportScorer
    settings: Settings
    quarantine: Mapping[str, str] = field(default_factory=dict)
    fenced: Mapping[str, Sequence[tuple[int, int]]] = field(default_factory=dict)

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


def _evidence(slot: CitationSlot, ctx: Context, findings: Sequence[CodeFinding]) -> str | None:
    """The cited quote; the whole chunk when the quote itself is broken; None if invented."""
    hit = ctx.hits.get(slot.snippet_id)
    if hit is None:
        return None
    broken = any(f.code in repair.BROKEN and f.citation_n == slot.n for f in findings)
    return hit.chunk.text if broken else slot.quote


def _support(claim: Claim, findings: list[CodeFinding], ctx: Context) -> float | None:
    texts = [t for s in claim.citations if (t := _evidence(s, ctx, findings)) is not None]
    return max((ctx.scorer.support(claim.text, t) for t in texts), default=None)


def _elsewhere(claim: Claim, ctx: Context) -> tuple[str, float] | None:
    """Best support by an uncited retrieved chunk, when no cited chunk supports the claim."""
    cited = {s.snippet_id for s in claim.citations}
    own = [ctx.hits[sid].chunk.text for sid in cited if sid in ctx.hits]
    warm(ctx.scorer, [claim.text, *(h.chunk.text for h in ctx.hits.values())])
    warm_pairs(ctx.scorer, [(claim.text, h.chunk.text) for h in ctx.hits.values()])
    if any(ctx.scorer.support(claim.text, t) >= ctx.threshold for t in own):
        return None
    scored = [
        (sid, ctx.scorer.support(claim.text, h.chunk.text))
        for sid, h in ctx.hits.items()
        if sid not in cited
    ]
    return max(scored, key=lambda p: p[1], default=None)


def _judge(claim: Claim, cited: Sequence[Claim], ctx: Context) -> ClaimVerdict:
    """Every per-claim check of SPEC 5.1, then the gate's verdict for this claim."""
    cfg = ctx.settings.integrity
    mine = [
        f
        for s in claim.citations
        for f in checks.check_slot(claim, s, ctx.hits, ctx.live, ctx.quarantine)
    ] + fenced_findings(claim, ctx)
    score = _support(claim, mine, ctx)
    supported = score is not None and score >= ctx.threshold
    if claim.citations and not supported:
        mine += checks.check_support(claim, score, ctx.threshold, _elsewhere(claim, ctx))
    quotes = [s.quote for s in claim.citations if s.snippet_id in ctx.hits]
    chunks = [  # the cited spans and what names their subject (title, section)
        f"{h.chunk.title}\n{h.chunk.section_id.replace('-', ' ')}\n{s.quote}"
        for s in claim.citations
        if (h := ctx.hits.get(s.snippet_id)) is not None
    ]
    mine += checks.check_evidence(
        claim,
        quotes,
        chunks,
        score,
        trust=cfg.coverage_trust,
        part_trust=cfg.part_trust,
        allow_general=cfg.allow_general_knowledge,
        foundational=ctx.foundational(claim),
    )
    mine += checks.check_reasoning(claim, cited)
    mine += checks.check_over_generalised(claim, cfg.over_generalised, supported)
    return claim_verdict(claim, mine, score, supported, ctx.mode)


def warm_texts(claims: Sequence[Claim], ctx: Context) -> None:
    """The claims and their quotes embedded in one model pass (nothing when cached): the
    off-topic check, the support features and the refusal decision read these vectors."""
    warm(ctx.scorer, [t for c in claims for t in (c.text, *(s.quote for s in c.citations))])


def evaluate(
    claims: Sequence[Claim], answer: str, ctx: Context
) -> tuple[list[ClaimVerdict], list[CodeFinding]]:
    """One verdict per claim, plus the findings tied to no claim (stray markers, no citations)."""
    warm_texts(claims, ctx)
    warm_pairs(ctx.scorer, [(c.text, s.quote) for c in claims for s in c.citations])
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


def finish(
    draft: Draft, question: str, ctx: Context, repairs: Sequence[Repair], ms: float
) -> Composed:
    """Re-check the repaired claims, withhold what still BLOCKs, compose or fall back."""
    claims = renumber(draft.claims)
    verdicts, _ = evaluate(claims, render(claims), ctx)
    visible, withheld = repair.withhold(claims, verdicts)
    visible = renumber(visible)
    shown_v, loose = evaluate(visible, render(visible), ctx)
    by_id = {v.claim_id: v for v in (*verdicts, *shown_v)}
    blocked = [v for v in verdicts if v.verdict is Verdict.BLOCK]
    gate = gate_result([by_id[c.id] for c in visible] + blocked, loose, ctx.mode)
    kept = [*repairs, *withheld]
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
        return dont_know(question, hits, ctx, draft.generator, [*kept, *dropped], ms, gate)
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
        repairs=tuple(kept),
        generator=draft.generator,
        generate_ms=ms,
    )


def dont_know(
    question: str,
    hits: Sequence[Hit],
    ctx: Context,
    generator: str,
    repairs: Sequence[Repair],
    ms: float,
    gate: GateResult | None,
    absent_names: Sequence[str] = (),
) -> Composed:
    """The honest "I don't know", with what would answer (`missing_evidence`)."""
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


def withdrawn(
    composed: Composed,
    question: str,
    hits: Sequence[Hit],
    reason: str,
    unstated: Sequence[str] = (),
) -> Composed:
    """An answer taken back by the refusal decision: "I don't know", with the reason and,
    when it was refused for a value no evidence states, which value is missing."""
    note = Repair(action=RepairAction.FALLBACK, reason=reason)
    return Composed(
        answer=IDK,
        claims=(),
        citations=(),
        fallback=True,
        gate=GateResult(verdict=Verdict.PASS, mode=composed.gate.mode, codes=composed.gate.codes),
        repairs=(*composed.repairs, note),
        missing_evidence=missing_evidence(question, hits, (), unstated),
        generator=composed.generator,
        generate_ms=composed.generate_ms,
    )


class Fenced(Frozen):
    """Hits with the text that addresses the model fenced off (SPEC 7.3).

    `clean`: the hits the generator and the checks see; in each chunk the fenced spans are
    blanked (`injection.FILLER`, one per character, newlines kept), so every offset stays
    exact, no generator can read or quote the attack, and a citation's chunk text never
    carries it to a client. A chunk with nothing left outside its fenced spans is dropped.
    `spans`: snippet_id -> the fenced spans in document offsets; a citation overlapping one
    is blocked (`injected_instruction`). `quarantine`: the dropped chunks (any citation into
    them is blocked). `held`: one visible note per fenced span: snippet id, offsets, rule,
    never the fenced text.
    """

    clean: tuple[Hit, ...]
    quarantine: dict[str, str]  # snippet_id -> rule, chunks with nothing clean left
    held: tuple[Repair, ...]
    spans: dict[str, tuple[tuple[int, int], ...]] = Field(default_factory=dict)


def fence(
    hits: Sequence[Hit],
    settings: Settings,
    doc_flags: injection.DocFlags | None = None,
    judge: injection.SegmentJudge | None = None,
) -> Fenced:
    """Sentences that address the model (`injection.fenced_hits`, read in the chunk and, with
    `doc_flags`, in its whole document; with `judge`, a learned reader joins the rules) never
    reach the generator; the rest of their chunk stays evidence."""
    guard = settings.integrity.injection_guard
    found = injection.fenced_hits(hits, doc_flags, judge) if guard else {}
    clean: list[Hit] = []
    quarantine: dict[str, str] = {}
    held: list[Repair] = []
    for h in hits:
        c, flags = h.chunk, found.get(h.chunk.snippet_id, [])
        if not flags:
            clean.append(h)
            continue
        base = c.offsets.start
        text = injection.blank(c.text, [(f.start - base, f.end - base) for f in flags])
        held += [
            Repair(
                action=RepairAction.QUARANTINE,
                before="",
                after="",
                reason=f"withheld {c.snippet_id} [{f.start}, {f.end}) of "
                f"{c.source_url or c.doc_id} ({c.section_id}): it addresses the model "
                f"({f.rule}), so it is not evidence; the rest of the chunk is",
                codes=(CheckCode.INJECTED_INSTRUCTION,),
            )
            for f in flags
        ]
        if any(ch.isalnum() for ch in text):
            clean.append(h.model_copy(update={"chunk": c.model_copy(update={"text": text})}))
        else:
            quarantine[c.snippet_id] = flags[0].rule
    spans = {sid: tuple((f.start, f.end) for f in flags) for sid, flags in found.items()}
    return Fenced(clean=tuple(clean), quarantine=quarantine, held=tuple(held), spans=spans)


def fenced_findings(claim: Claim, ctx: Context) -> list[CodeFinding]:
    """`injected_instruction` for every slot of `claim` overlapping a fenced span."""
    return [
        CodeFinding(
            code=CheckCode.INJECTED_INSTRUCTION,
            claim_id=claim.id,
            citation_n=s.n,
            detail=f"{s.snippet_id} [{lo}, {hi}) addresses the model",
        )
        for s in claim.citations
        for lo, hi in ctx.fenced.get(s.snippet_id, ())
        if s.offsets.start < hi and lo < s.offsets.end
    ]


def context(fenced: Fenced, live: LiveIndex, scorer: SupportScorer, settings: Settings) -> Context:
    """The checks' view of one round's evidence."""
    hits = {h.chunk.snippet_id: h for h in fenced.clean}
    return Context(hits, live, scorer, settings, fenced.quarantine, fenced.spans)


def label(draft: Draft, ctx: Context) -> Draft:
    """The draft with the seed 004 labels, applied before the checks run."""
    return draft.model_copy(update={"claims": apply_labels(draft.claims, ctx.foundational)})


def repair_claims(
    draft: Draft, verdicts: Sequence[ClaimVerdict], ctx: Context
) -> tuple[Draft, list[Repair]]:
    """Ladder steps (a) substitute and (b) strip, for every claim its citation fails."""
    claims, repairs = repair.substitute_or_strip(
        draft.claims, verdicts, ctx.hits, ctx.scorer, ctx.threshold
    )
    return draft.model_copy(update={"claims": tuple(claims)}), repairs
