"""The repair ladder of SPEC 5.3 / seed 001; every change it makes is a visible `Repair`.

(a) substitute a claim its citation does not support with the closest supported evidence
sentence of the retrieved hits (a new slot with exact offsets, labelled `[corrected]`);
(b) else strip the citation and label the claim `[unsupported]` (it stays, visibly);
(c) when more than half of the claims are unsupported, `compose` retrieves again with
`expand_query(...)` and regenerates (bounded by `max_regenerations`);
(d) claims still BLOCKed are withheld (listed here), and when nothing holds `compose`
answers "I don't know" with `MissingEvidence`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from server.core.contracts import (
    CheckCode,
    CitationSlot,
    Claim,
    ClaimVerdict,
    Hit,
    Offsets,
    Repair,
    RepairAction,
    Verdict,
)
from server.core.ports import SupportScorer, warm, warm_pairs
from server.core.text import content_words, word_key
from server.core.text import terms as text_terms
from server.query.evidence import Unit, units

CORRECTED = "[corrected]"
UNSUPPORTED = "[unsupported]"
# A claim with one of these codes is never shown with the citation it has: the id was
# invented or the quoted text is not what the source says at that place.
BROKEN = frozenset({CheckCode.FABRICATED_ID, CheckCode.QUOTE_NOT_VERBATIM, CheckCode.BAD_OFFSETS})


def is_broken(verdict: ClaimVerdict) -> bool:
    return any(f.code in BROKEN for f in verdict.findings)


def _codes(verdict: ClaimVerdict) -> tuple[CheckCode, ...]:
    return tuple(dict.fromkeys(f.code for f in verdict.findings))


def closest_supported(
    text: str,
    hits: Mapping[str, Hit],
    scorer: SupportScorer,
    threshold: float,
    taken: set[tuple[int, int]],
) -> tuple[Hit, Unit, float] | None:
    """The evidence unit that supports `text` best, if any reaches `threshold`.

    Spans in `taken` (already cited by a supported claim) are not offered again; ties keep
    the earlier hit and sentence (deterministic).
    """
    best: tuple[Hit, Unit, float] | None = None
    offered = [
        (hit, sent)
        for hit in hits.values()
        for sent in units(hit.chunk)
        if not sent.meta and (sent.start, sent.end) not in taken
    ]
    warm(scorer, [text, *(sent.quote for _, sent in offered)])
    warm_pairs(scorer, [(text, sent.quote) for _, sent in offered])
    for hit, sent in offered:
        score = scorer.support(text, sent.quote)
        if score >= threshold and (best is None or score > best[2]):
            best = (hit, sent, score)
    return best


def _substitute(
    claim: Claim, found: tuple[Hit, Unit, float], codes: tuple[CheckCode, ...]
) -> tuple[Claim, Repair]:
    hit, sent, score = found
    n = claim.citations[0].n if claim.citations else 1
    slot = CitationSlot(
        n=n,
        snippet_id=hit.chunk.snippet_id,
        offsets=Offsets(start=sent.start, end=sent.end),
        quote=sent.quote,
    )
    fixed = claim.model_copy(
        update={"text": sent.display, "citations": (slot,), "label": CORRECTED}
    )
    repair = Repair(
        action=RepairAction.SUBSTITUTE,
        claim_id=claim.id,
        before=claim.text,
        after=sent.display,
        reason=f"its citation did not support it; the closest supported evidence sentence "
        f"({hit.chunk.snippet_id}, support {score:.2f}) was substituted",
        codes=codes,
    )
    return fixed, repair


def _strip(claim: Claim, codes: tuple[CheckCode, ...]) -> tuple[Claim, Repair]:
    stripped = claim.model_copy(update={"citations": (), "label": UNSUPPORTED})
    repair = Repair(
        action=RepairAction.STRIP_CITATION,
        claim_id=claim.id,
        before=claim.text,
        after=f"{UNSUPPORTED} {claim.text}",
        reason="no retrieved evidence supports this claim: its citation was stripped and the "
        "claim is marked unsupported",
        codes=codes,
    )
    return stripped, repair


def _needs_repair(claim: Claim, verdict: ClaimVerdict) -> bool:
    if not claim.citations:
        return False
    return is_broken(verdict) or not (verdict.verdict is Verdict.PASS or verdict.supported)


def substitute_or_strip(
    claims: Sequence[Claim],
    verdicts: Sequence[ClaimVerdict],
    hits: Mapping[str, Hit],
    scorer: SupportScorer,
    threshold: float,
) -> tuple[list[Claim], list[Repair]]:
    """Ladder steps (a) and (b) for every cited claim its citation does not hold up."""
    taken = {
        (s.offsets.start, s.offsets.end)
        for c, v in zip(claims, verdicts, strict=True)
        if v.supported and not is_broken(v)
        for s in c.citations
    }
    out, repairs = [], []
    for claim, verdict in zip(claims, verdicts, strict=True):
        if not _needs_repair(claim, verdict):
            out.append(claim)
            continue
        found = closest_supported(claim.text, hits, scorer, threshold, taken)
        if found is not None:
            taken.add((found[1].start, found[1].end))
            fixed, repair = _substitute(claim, found, _codes(verdict))
        else:
            fixed, repair = _strip(claim, _codes(verdict))
        out.append(fixed)
        repairs.append(repair)
    moved = {r.claim_id for r in repairs if r.action is RepairAction.SUBSTITUTE and r.claim_id}
    return resegment(out, moved, hits), repairs


def _section(claim: Claim, hits: Mapping[str, Hit]) -> str | None:
    return next(
        (hits[s.snippet_id].chunk.section_id for s in claim.citations if s.snippet_id in hits),
        None,
    )


def resegment(claims: Sequence[Claim], moved: set[str], hits: Mapping[str, Hit]) -> list[Claim]:
    """A substituted claim whose new citation lies in another section than the rest of its
    segment cite joins a segment that cites that section, else a segment of its own (seed
    002 rule 3: one segment, one section; the repair must not break the rule it is held to)."""
    out = list(claims)
    for i, claim in enumerate(out):
        new = _section(claim, hits) if claim.id in moved else None
        if new is None:
            continue
        others = [(c.segment, _section(c, hits)) for c in out if c.id != claim.id]
        if all(sec in (None, new) for seg, sec in others if seg == claim.segment):
            continue
        same = [seg for seg, sec in others if sec == new]
        segment = same[0] if same else max([claim.segment, *(seg for seg, _ in others)]) + 1
        out[i] = claim.model_copy(update={"segment": segment})
    return out


def unsupported_count(verdicts: Sequence[ClaimVerdict]) -> int:
    """Claims that cite (or should cite) but are not supported and did not pass."""
    return sum(not v.supported and v.verdict is not Verdict.PASS for v in verdicts)


def needs_regeneration(verdicts: Sequence[ClaimVerdict]) -> bool:
    """Seed 001 step 3: more than half of the claims lack support."""
    return bool(verdicts) and unsupported_count(verdicts) * 2 > len(verdicts)


def expand_query(question: str, hits: Sequence[Hit], *, words: int = 6, top: int = 5) -> str:
    """The question plus up to `words` key words of the titles and headings of the `top`
    retrieved sections (`integrity.expansion_terms`, `integrity.expansion_hits`)."""
    asked = set(content_words(question))
    terms: Counter[str] = Counter()
    for hit in hits[:top]:
        heading = f"{hit.chunk.title} {hit.chunk.section_id.replace('/', ' ')}"
        terms.update(w for w in dict.fromkeys(text_terms(heading)) if word_key(w) not in asked)
    extra = [w for w, _ in sorted(terms.items(), key=lambda kv: (-kv[1], kv[0]))]
    return " ".join([question, *extra[:words]]).strip()


def withhold(
    claims: Sequence[Claim], verdicts: Sequence[ClaimVerdict]
) -> tuple[list[Claim], list[Repair]]:
    """Claims still BLOCKed after the ladder leave the text, each with a visible Repair."""
    visible, repairs = [], []
    for claim, verdict in zip(claims, verdicts, strict=True):
        if verdict.verdict is not Verdict.BLOCK:
            visible.append(claim)
            continue
        codes = _codes(verdict)
        listed = ", ".join(c.value for c in codes)
        repairs.append(
            Repair(
                action=RepairAction.FALLBACK,
                claim_id=claim.id,
                before=claim.text,
                reason=f"withheld: still blocked after repair ({listed})",
                codes=codes,
            )
        )
    return visible, repairs
