"""The Citation Gate of seed 000: PASS / WARN / BLOCK per claim and for the answer (SPEC 5.2).

BLOCK (any mode): a fabricated citation, a citation into a quarantined chunk (text written
to the model, SPEC 7.3), a quote claim whose quote is not verbatim, an analyzer or
index-identity mismatch (the citation cannot be reproduced against this index).
BLOCK (strict mode): a missing or failed required citation for a definition, number, quote,
fact or general-knowledge claim (unsupported, misattributed, wrong number, negated or
strengthened meaning, term not in the span, bad span, over-generalised wording, missing label).
WARN: citations exist but lack a version or point at a chunk whose revision is no longer
live (rev mismatch); the same evidence problems in lenient mode or for recommendations,
reasoning and self-knowledge; form problems (markers, cross-section reuse, score or rank
missing from the trace).
PASS: everything complete and reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from server.core.contracts import (
    CheckCode,
    Claim,
    ClaimType,
    ClaimVerdict,
    CodeFinding,
    GateResult,
    Verdict,
)

Mode = Literal["strict", "lenient"]
_ALWAYS_BLOCK = frozenset(
    {
        CheckCode.FABRICATED_ID,
        CheckCode.ANALYZER_MISMATCH,
        CheckCode.MISMATCH_INDEX_HASH,
        CheckCode.INJECTED_INSTRUCTION,
    }
)
_EVIDENCE = frozenset(
    {
        CheckCode.UNSUPPORTED,
        CheckCode.MISATTRIBUTED,
        CheckCode.QUOTE_NOT_VERBATIM,
        CheckCode.BAD_OFFSETS,
        CheckCode.MISSING_CITATION,
        CheckCode.NUMBER_MISMATCH,
        CheckCode.NEGATION_MISMATCH,
        CheckCode.QUANTIFIER_MISMATCH,
        CheckCode.ENTITY_MISMATCH,
        CheckCode.UNSUPPORTED_PART,
        CheckCode.TERM_NOT_IN_SPAN,
        CheckCode.OVER_GENERALISED,
        CheckCode.LABEL_MISSING,
    }
)
_STRICT_TYPES = frozenset(
    {
        ClaimType.DEFINITION,
        ClaimType.NUMBER,
        ClaimType.QUOTE,
        ClaimType.FACT,
        ClaimType.GENERAL_KNOWLEDGE,
    }
)
_RANK = {Verdict.PASS: 0, Verdict.WARN: 1, Verdict.BLOCK: 2}


def worst(verdicts: Sequence[Verdict]) -> Verdict:
    return max(verdicts, key=_RANK.__getitem__, default=Verdict.PASS)


def code_verdict(code: CheckCode, claim_type: ClaimType, mode: Mode) -> Verdict:
    """What one return code means for a claim of this type in this mode."""
    if code in _ALWAYS_BLOCK:
        return Verdict.BLOCK
    if code is CheckCode.QUOTE_NOT_VERBATIM and claim_type is ClaimType.QUOTE:
        return Verdict.BLOCK
    if code in _EVIDENCE:
        return Verdict.BLOCK if mode == "strict" and claim_type in _STRICT_TYPES else Verdict.WARN
    return Verdict.WARN


def claim_verdict(
    claim: Claim,
    findings: Sequence[CodeFinding],
    support: float | None,
    supported: bool,
    mode: Mode,
) -> ClaimVerdict:
    mine = tuple(f for f in findings if f.claim_id == claim.id)
    verdict = worst([code_verdict(f.code, claim.type, mode) for f in mine])
    return ClaimVerdict(
        claim_id=claim.id,
        verdict=verdict,
        supported=supported,
        support_score=support,
        findings=mine,
    )


def answer_verdict(
    claims: Sequence[ClaimVerdict], loose: Sequence[CodeFinding], mode: Mode
) -> Verdict:
    """The worst claim verdict; findings tied to no claim (markers) count as WARN."""
    return worst([*(c.verdict for c in claims), *(Verdict.WARN for _ in loose)])


def gate_result(
    shown: Sequence[ClaimVerdict], loose: Sequence[CodeFinding], mode: Mode
) -> GateResult:
    """The answer's gate: its verdict, every finding, and the verdict of every claim."""
    return GateResult(
        verdict=answer_verdict(shown, loose, mode),
        mode=mode,
        codes=tuple(f for v in shown for f in v.findings) + tuple(loose),
        claims=tuple(shown),
    )
