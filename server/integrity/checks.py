"""The integrity checks of SPEC 5.1, one pure function per rule (seed 002 return codes).

Each returns `CodeFinding`s naming the claim (and citation) it concerns; nothing here does
I/O or calls a model: support scores come in precomputed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from server.contracts import (
    CheckCode,
    CitationSlot,
    Claim,
    ClaimType,
    CodeFinding,
    DocRecord,
    Frozen,
    Hit,
    IndexMeta,
)
from server.generate.claims import defined_term, has_reference_point
from server.integrity.support import normalise_numbers
from server.text import content_words

_MARKER = re.compile(r"\[(\d+)\]")
_WS = re.compile(r"\s+")
NEEDS_CITATION = frozenset(
    {
        ClaimType.DEFINITION,
        ClaimType.NUMBER,
        ClaimType.QUOTE,
        ClaimType.FACT,
        ClaimType.RECOMMENDATION,
    }
)
LABELS = {
    ClaimType.GENERAL_KNOWLEDGE: "[general knowledge]",
    ClaimType.SELF_KNOWLEDGE: "[foundational knowledge]",
}


class LiveIndex(Frozen):
    """The read-side truth the citations are checked against (seed 002 rules 4, 6, 7)."""

    index_hash: str
    analyzer: str
    embed_model: str
    revs: dict[str, str]
    checked_at: datetime | None = None

    @classmethod
    def from_store(cls, meta: IndexMeta, docs: Sequence[DocRecord]) -> LiveIndex:
        return cls(
            index_hash=meta.index_hash,
            analyzer=meta.identity.analyzer,
            embed_model=meta.identity.embed_model,
            revs={d.doc_id: d.rev for d in docs},
        )


def _f(code: CheckCode, claim: Claim, n: int | None = None, detail: str = "") -> CodeFinding:
    return CodeFinding(code=code, claim_id=claim.id, citation_n=n, detail=detail)


def ws(text: str) -> str:
    return _WS.sub(" ", text).strip()


def check_markers(answer: str, claims: Sequence[Claim]) -> list[CodeFinding]:
    """Every [n] in the text has a slot and every slot has its [n] in the text."""
    markers = {int(m) for m in _MARKER.findall(answer)}
    slots = {s.n: c for c in claims for s in c.citations}
    out = [
        CodeFinding(
            code=CheckCode.MARKER_WITHOUT_CITATION, citation_n=n, detail=f"[{n}] has no citation"
        )
        for n in sorted(markers - set(slots))
    ]
    out += [
        _f(CheckCode.CITATION_WITHOUT_MARKER, slots[n], n, f"citation {n} is never marked")
        for n in sorted(set(slots) - markers)
    ]
    return out


def check_slot(
    claim: Claim, slot: CitationSlot, hits: Mapping[str, Hit], live: LiveIndex
) -> list[CodeFinding]:
    """Fabricated id, bad offsets, quote not verbatim, identity, revision, score and rank."""
    hit = hits.get(slot.snippet_id)
    if hit is None:
        return [_f(CheckCode.FABRICATED_ID, claim, slot.n, f"{slot.snippet_id} was not retrieved")]
    chunk, out = hit.chunk, []
    lo, hi = slot.offsets.start - chunk.offsets.start, slot.offsets.end - chunk.offsets.start
    if lo < 0 or hi > len(chunk.text):
        out.append(_f(CheckCode.BAD_OFFSETS, claim, slot.n, "span lies outside the cited chunk"))
    elif chunk.text[lo:hi] != slot.quote:
        code = (
            CheckCode.QUOTE_NOT_VERBATIM
            if ws(slot.quote) not in ws(chunk.text)
            else CheckCode.BAD_OFFSETS
        )
        out.append(_f(code, claim, slot.n, "quote differs from the text at its offsets"))
    if chunk.analyzer != live.analyzer:
        out.append(_f(CheckCode.ANALYZER_MISMATCH, claim, slot.n, chunk.analyzer))
    if live.revs.get(chunk.doc_id) != chunk.rev:
        out.append(
            _f(
                CheckCode.REV_MISMATCH,
                claim,
                slot.n,
                f"cites rev {chunk.rev}, live is {live.revs.get(chunk.doc_id, 'deleted')}",
            )
        )
    if hit.k_final is None:
        out.append(_f(CheckCode.MISSING_RANK, claim, slot.n, "no k_final in the trace"))
    return out


def _labelled(claim: Claim, allow_general: bool) -> list[CodeFinding]:
    out = []
    if claim.label != LABELS[claim.type]:
        out.append(_f(CheckCode.LABEL_MISSING, claim, detail=f"needs {LABELS[claim.type]}"))
    if claim.type is ClaimType.GENERAL_KNOWLEDGE and not allow_general:
        out.append(
            _f(
                CheckCode.MISSING_CITATION,
                claim,
                detail="general knowledge is not allowed in this mode",
            )
        )
    return out


def _definition(claim: Claim, joined: str, context: Sequence[str]) -> list[CodeFinding]:
    term = defined_term(claim.text)
    if term and not set(content_words(term)) <= set(content_words(joined)):
        return [_f(CheckCode.TERM_NOT_IN_SPAN, claim, detail=f"'{term}' is not in the cited span")]
    return []


def _number(claim: Claim, joined: str, context: Sequence[str]) -> list[CodeFinding]:
    if not normalise_numbers(claim.text) <= normalise_numbers(joined):
        return [
            _f(CheckCode.NUMBER_MISMATCH, claim, detail="a number of the claim is not in the span")
        ]
    if not any(has_reference_point(t) for t in (joined, *context)):
        return [
            _f(CheckCode.MISSING_CITATION, claim, detail="no reference point (date, version, env)")
        ]
    return []


def _quote(claim: Claim, joined: str, context: Sequence[str]) -> list[CodeFinding]:
    quoted = re.findall(r"[\"“]([^\"”]{8,})[\"”]", claim.text)
    if any(ws(q) not in ws(joined) for q in quoted):
        return [
            _f(CheckCode.QUOTE_NOT_VERBATIM, claim, detail="the quoted words are not in the span")
        ]
    return []


_BY_TYPE = {ClaimType.DEFINITION: _definition, ClaimType.NUMBER: _number, ClaimType.QUOTE: _quote}


def check_type_evidence(
    claim: Claim, spans: Sequence[str], context: Sequence[str], allow_general: bool
) -> list[CodeFinding]:
    """The minimum evidence of SPEC 1.2 for the claim's type; `spans` are the cited quotes."""
    if claim.type in LABELS:
        return _labelled(claim, allow_general)
    if claim.type is ClaimType.REASONING:
        return []
    if not spans:
        return [
            _f(CheckCode.MISSING_CITATION, claim, detail=f"a {claim.type.value} needs a citation")
        ]
    check = _BY_TYPE.get(claim.type)
    return check(claim, " ".join(spans), context) if check else []


def check_reasoning(claim: Claim, cited_claims: Sequence[Claim]) -> list[CodeFinding]:
    """A reasoning claim may only combine what cited claims already say."""
    if claim.type is not ClaimType.REASONING:
        return []
    known = {w for c in cited_claims for w in content_words(c.text)}
    new = set(content_words(claim.text)) - known
    if len(new) > max(2, len(content_words(claim.text)) // 3):
        return [_f(CheckCode.NEW_FACT_IN_REASONING, claim, detail=", ".join(sorted(new)[:6]))]
    return []


def check_over_generalised(
    claim: Claim, phrases: Sequence[str], supported: bool
) -> list[CodeFinding]:
    """'Studies show' and friends need specific support (seed 001)."""
    lowered = claim.text.lower()
    hit = next((p for p in phrases if re.search(rf"\b{re.escape(p)}\b", lowered)), None)
    if hit and not supported:
        return [_f(CheckCode.OVER_GENERALISED, claim, detail=f"'{hit}' without specific support")]
    return []


def check_cross_section(claims: Sequence[Claim], hits: Mapping[str, Hit]) -> list[CodeFinding]:
    """Seed 002 rule 3: one segment's citations share one section_id."""
    out: list[CodeFinding] = []
    first: dict[int, str] = {}
    for claim in claims:
        for slot in claim.citations:
            hit = hits.get(slot.snippet_id)
            if hit is None:
                continue
            section = first.setdefault(claim.segment, hit.chunk.section_id)
            if section != hit.chunk.section_id:
                out.append(
                    _f(
                        CheckCode.CROSS_SECTION_REUSE,
                        claim,
                        slot.n,
                        f"segment {claim.segment} mixes {section} and {hit.chunk.section_id}",
                    )
                )
    return out
