"""The integrity checks of SPEC 5.1, one pure function per rule (seed 002 return codes).

Each returns `CodeFinding`s naming the claim (and citation) it concerns; nothing here does
I/O or calls a model: support scores come in precomputed.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from server.core.contracts import CheckCode, CitationSlot, Claim, ClaimType, CodeFinding, Hit
from server.core.text import INLINE_TAG, content_words
from server.core.text import display as display_text
from server.query.claims import defined_term, has_reference_point
from server.query.integrity.coverage import (
    foreign_names,
    judged_parts,
    misplaced_names,
    unsupported_parts,
)
from server.query.integrity.live import LiveIndex, identity_part
from server.query.integrity.meaning import negation_mismatches, quantifier_mismatches
from server.query.integrity.numbers import (
    LIST_NUMBER,
    misplaced_numbers,
    named_numbers,
    normalise_numbers,
    ordinal_numbers,
)

__all__ = ["LiveIndex"]  # re-exported: callers import it from here or from compose

_MARKER = re.compile(r"\[(\d+)\]")
_WS = re.compile(r"\s+")
_GUIDANCE = re.compile(
    r"\b(?:should|must|recommend\w*|prefer\w*|avoid|make sure|ensure|best practice|"
    r"do not|don't|never|always|use|set|need to|have to)\b",
    re.IGNORECASE,
)
# A sentence or step that opens with a verb in the imperative ("Choose a non-human ID.",
# "1. Enter your email address.", "* Click **New policy**."): a capitalised first word that
# is no pronoun, article or preposition, followed by an article, a possessive or a name.
_IMPERATIVE = re.compile(
    r"(?:(?:^|\n)[ \t]*(?:(?:\d+[.)]|[*+-])[ \t]+)?|[.!?:]\s+)(?:please\s+)?"
    r"(?!(?:In|On|At|For|To|By|With|From|Of|As|If|When|After|Before|During|The|A|An|This|"
    r"That|These|Those|It|They|We|You|He|She|All|Each|Every|Some|Many|Most|One|There|Here|"
    r"Our|Your|Its|Their|His|Her|My|No|Not|Any|Both|Either|Neither)\b)"
    r"(?-i:[A-Z][a-z]+)\s+(?:(?:the|a|an|your|this|that|these|those|it|them|all|any|each|"
    r"every|one|new)\b|(?-i:[A-Z*`\"“]))",
    re.IGNORECASE,
)
GK_DISCLAIMER = "not verified against the corpus"
LABELS = {
    ClaimType.GENERAL_KNOWLEDGE: "[general knowledge]",
    ClaimType.SELF_KNOWLEDGE: "[foundational knowledge]",
}
REASONING_LABEL = "[reasoning]"


def _f(code: CheckCode, claim: Claim, n: int | None = None, detail: str = "") -> CodeFinding:
    return CodeFinding(code=code, claim_id=claim.id, citation_n=n, detail=detail)


def ws(text: str) -> str:
    """Whitespace runs collapsed to one space, ends stripped (the verbatim comparison)."""
    return _WS.sub(" ", text).strip()


_MARKUP = re.compile(r"[*_`]+|^\s*(?:[-*+]|\d+[.)])\s+", re.M)


def plain(text: str) -> str:
    """Text as read, for comparing a claim with its span: link and emphasis syntax, code
    ticks and list markers removed, whitespace collapsed (never used as a quote)."""
    return ws(_MARKUP.sub("", display_text(text)))


def restates(claim: str, span: str) -> bool:
    """The claim is the span's own words (as the extractive generator writes its claims):
    no rule can find it saying something the span does not. A lead-in shown without what it
    leads into ends in '.' where its span has ':' and still restates it, and tokenised text
    ("the text 's compilation ." for "the text's compilation.") is read without its spacing."""
    said = squash(claim)
    return bool(said) and said in squash(span)


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


def check_empty(claims: Sequence[Claim]) -> list[CodeFinding]:
    """Seed 002 `empty_citations`: claims were made but the draft cites nothing at all."""
    if claims and not any(c.citations for c in claims):
        return [CodeFinding(code=CheckCode.EMPTY_CITATIONS, detail="the draft cites nothing")]
    return []


def _span(claim: Claim, slot: CitationSlot, hit: Hit) -> list[CodeFinding]:
    chunk = hit.chunk
    lo, hi = slot.offsets.start - chunk.offsets.start, slot.offsets.end - chunk.offsets.start
    if lo < 0 or hi > len(chunk.text) or lo >= hi:
        return [_f(CheckCode.BAD_OFFSETS, claim, slot.n, "span lies outside the cited chunk")]
    if chunk.text[lo:hi] == slot.quote:
        return []
    if ws(slot.quote) and ws(slot.quote) in ws(chunk.text):
        return [_f(CheckCode.BAD_OFFSETS, claim, slot.n, "the quote is elsewhere in the chunk")]
    return [_f(CheckCode.QUOTE_NOT_VERBATIM, claim, slot.n, "quote is not in the cited chunk")]


def check_identity(
    claim: Claim, slot: CitationSlot, hit: Hit, live: LiveIndex
) -> list[CodeFinding]:
    """Seed 002 rules 4, 6, 7: analyzer parity, index identity, revision lock."""
    chunk, out = hit.chunk, []
    if chunk.analyzer != live.analyzer:
        detail = f"chunk analyzer {chunk.analyzer!r}, live {live.analyzer!r}"
        out.append(_f(CheckCode.ANALYZER_MISMATCH, claim, slot.n, detail))
    same_models = chunk.embed_model == live.embed_model
    if not same_models or identity_part(chunk.index_hash) != identity_part(live.index_hash):
        detail = (
            f"chunk written by {chunk.index_hash} ({chunk.embed_model}), live {live.index_hash}"
        )
        out.append(_f(CheckCode.MISMATCH_INDEX_HASH, claim, slot.n, detail))
    live_rev = live.revs.get(chunk.doc_id)
    if not chunk.rev or live_rev != chunk.rev:
        detail = (
            "the cited chunk has no version"
            if not chunk.rev
            else f"cites rev {chunk.rev}, live is {live_rev or 'none: the document was deleted'}"
        )
        out.append(_f(CheckCode.REV_MISMATCH, claim, slot.n, detail))
    return out


def check_trace(claim: Claim, slot: CitationSlot, hit: Hit) -> list[CodeFinding]:
    """Seed 002 rule 8: a finite score and the ranks (k_pos always, k_final after rerank)."""
    out = []
    if not math.isfinite(hit.score_raw):
        out.append(_f(CheckCode.MISSING_SCORE, claim, slot.n, f"score_raw is {hit.score_raw}"))
    if hit.k_final is None:
        out.append(_f(CheckCode.MISSING_RANK, claim, slot.n, "no k_final: rerank did not run"))
    return out


def check_slot(
    claim: Claim,
    slot: CitationSlot,
    hits: Mapping[str, Hit],
    live: LiveIndex,
    quarantine: Mapping[str, str] | None = None,
) -> list[CodeFinding]:
    """Quarantined or fabricated id, else span, identity and trace findings of one slot.

    `quarantine` maps the ids of retrieved chunks that carry text written to the model
    (`server.query.integrity.injection`) to what was found; they are never evidence.
    """
    if quarantine and slot.snippet_id in quarantine:
        detail = f"{slot.snippet_id} addresses the model ({quarantine[slot.snippet_id]})"
        return [_f(CheckCode.INJECTED_INSTRUCTION, claim, slot.n, detail)]
    hit = hits.get(slot.snippet_id)
    if hit is None:
        return [_f(CheckCode.FABRICATED_ID, claim, slot.n, f"{slot.snippet_id} was not retrieved")]
    return (
        _span(claim, slot, hit)
        + check_identity(claim, slot, hit, live)
        + check_trace(claim, slot, hit)
    )


def check_support(
    claim: Claim,
    score: float | None,
    threshold: float,
    elsewhere: tuple[str, float] | None = None,
) -> list[CodeFinding]:
    """Unsupported (score below threshold), or misattributed when `elsewhere` does support it.

    `score` is the best support of the claim by what it cites (None: cites nothing);
    `elsewhere` is the best (snippet_id, score) among retrieved chunks it does not cite.
    """
    if not claim.citations or (score is not None and score >= threshold):
        return []
    got = score if score is not None else 0.0
    if elsewhere is not None and elsewhere[1] >= threshold:
        detail = f"cited support {got:.2f}; {elsewhere[0]} supports it ({elsewhere[1]:.2f})"
        return [_f(CheckCode.MISATTRIBUTED, claim, detail=detail)]
    return [_f(CheckCode.UNSUPPORTED, claim, detail=f"support {got:.2f} < {threshold:.2f}")]


def _labelled(claim: Claim, allow_general: bool, foundational: bool) -> list[CodeFinding]:
    want = LABELS[claim.type]
    out = []
    if claim.label != want:
        out.append(_f(CheckCode.LABEL_MISSING, claim, detail=f"needs {want}"))
    if claim.type is ClaimType.GENERAL_KNOWLEDGE:
        if GK_DISCLAIMER not in claim.text.lower():
            out.append(_f(CheckCode.LABEL_MISSING, claim, detail=f"needs '{GK_DISCLAIMER}'"))
        if not allow_general:
            detail = "general knowledge is not allowed in this mode"
            out.append(_f(CheckCode.MISSING_CITATION, claim, detail=detail))
    elif claim.citations and not foundational:
        detail = "self-knowledge must cite the foundational documents"
        out.append(_f(CheckCode.MISSING_CITATION, claim, detail=detail))
    return out


def _definition(claim: Claim, joined: str) -> list[CodeFinding]:
    term = defined_term(claim.text)
    if term and not set(content_words(term)) <= set(content_words(joined)):
        return [_f(CheckCode.TERM_NOT_IN_SPAN, claim, detail=f"'{term}' is not in the cited span")]
    return []


def _numbers_match(claim: Claim, joined: str) -> list[CodeFinding]:
    """Every number of the claim appears in its cited spans, after normalisation (SPEC 5.1),
    and is the number a span gives for the same thing (context words, unit, range end). A
    list item's own number is no number of the claim (`numbers.LIST_NUMBER`)."""
    held = normalise_numbers(joined) | named_numbers(joined) | ordinal_numbers(joined)
    text = LIST_NUMBER.sub("", claim.text)
    missing = normalise_numbers(text) - held
    if missing:
        detail = f"{', '.join(sorted(missing))} not in the cited span"
        return [_f(CheckCode.NUMBER_MISMATCH, claim, detail=detail)]
    if misplaced := misplaced_numbers(text, joined):
        return [_f(CheckCode.NUMBER_MISMATCH, claim, detail="; ".join(misplaced))]
    return []


def check_meaning(claim: Claim, spans: Sequence[str]) -> list[CodeFinding]:
    """Numbers by role, negation and quantifiers of the claim against its cited spans.

    Runs for every claim type that cites something; rule checks, no model
    (`server.query.integrity.meaning`, `numbers.misplaced_numbers`).
    """
    if not spans:
        return []
    joined = " ".join(spans)
    if restates(claim.text, joined):
        return []
    out = _numbers_match(claim, joined)
    if flips := negation_mismatches(claim.text, joined):
        out.append(_f(CheckCode.NEGATION_MISMATCH, claim, detail="; ".join(flips)))
    elif stronger := quantifier_mismatches(claim.text, joined):
        out.append(_f(CheckCode.QUANTIFIER_MISMATCH, claim, detail="; ".join(stronger)))
    return out


def check_coverage(
    claim: Claim,
    spans: Sequence[str],
    chunks: Sequence[str],
    score: float | None = None,
    part_trust: float = 1.0,
) -> list[CodeFinding]:
    """Names the cited chunks never mention, and claim parts the spans barely hold
    (`server.query.integrity.coverage`); a claim that restates its span is exempt.

    A claim of one part whose support `score` is above `part_trust` is not held to the parts
    rule: the support model has read that part whole against the same spans, and a word
    share cannot tell its paraphrase from a claim the spans lack. The rule's own catch is a
    part beside others (two claims merged under one citation, a clause added), which the
    score of the whole does not see."""
    if not spans or restates(claim.text, " ".join(spans)):
        return []
    out = []
    if names := foreign_names(claim.text, chunks):
        detail = f"the cited span never mentions {', '.join(names)}"
        out.append(_f(CheckCode.ENTITY_MISMATCH, claim, detail=detail))
    elif swapped := misplaced_names(claim.text, spans):
        out.append(_f(CheckCode.ENTITY_MISMATCH, claim, detail="; ".join(swapped)))
    lone = len(judged_parts(claim.text)) == 1
    if lone and score is not None and score > part_trust:
        return out
    if parts := unsupported_parts(claim.text, spans):
        detail = "the cited spans do not hold: " + " | ".join(p[:80] for p in parts)
        out.append(_f(CheckCode.UNSUPPORTED_PART, claim, detail=detail))
    return out


def _number(claim: Claim, joined: str) -> list[CodeFinding]:
    if _numbers_match(claim, joined):
        return []  # check_meaning reports the wrong number
    if not has_reference_point(joined):
        detail = "the cited span gives no reference point (date, version, environment)"
        return [_f(CheckCode.MISSING_CITATION, claim, detail=detail)]
    return []


_QUOTE_MARKS = re.compile(r"``|''|[“”„‟«»]")
_QUOTED = re.compile(r'"([^"]{8,})"')
_UNQUOTED = re.compile(r"[\s\"'`‘’“”„‟«»]+")


def quoted_words(text: str) -> list[str]:
    """The passages a claim puts in quotation marks (8+ characters), whatever marks it uses:
    straight, curly, guillemets, or the ``...'' of tokenised text. Read without inline HTML
    tags, as `plain` reads the span: an attribute's value (`<a href="{{ url_for(...) }}">`,
    `<span style="color: green;">` in the code a claim shows) is no quotation."""
    return _QUOTED.findall(_QUOTE_MARKS.sub('"', INLINE_TAG.sub("", text)))


def squash(text: str) -> str:
    """Text as read with whitespace, quotation marks and closing punctuation left out: a
    quote that differs from its span only in those (``x '' against "x", "Day." against
    "Day '' .", "a , b" against "a, b") is still verbatim."""
    return _UNQUOTED.sub("", plain(text)).rstrip(".,;:!?")


def _quote(claim: Claim, joined: str) -> list[CodeFinding]:
    quoted = quoted_words(claim.text) or [claim.text]
    source = squash(joined)
    if any(squash(q) not in source for q in quoted):
        detail = "the quoted words are not verbatim in the span"
        return [_f(CheckCode.QUOTE_NOT_VERBATIM, claim, detail=detail)]
    return []


def _recommendation(claim: Claim, joined: str) -> list[CodeFinding]:
    if not (_GUIDANCE.search(joined) or _IMPERATIVE.search(joined)):
        return [_f(CheckCode.MISSING_CITATION, claim, detail="the cited span gives no guidance")]
    return []


_BY_TYPE = {
    ClaimType.DEFINITION: _definition,
    ClaimType.NUMBER: _number,
    ClaimType.QUOTE: _quote,
    ClaimType.RECOMMENDATION: _recommendation,
}


def check_type_evidence(
    claim: Claim,
    spans: Sequence[str],
    *,
    allow_general: bool,
    foundational: bool = False,
) -> list[CodeFinding]:
    """The minimum evidence of SPEC 1.2 for the claim's type; `spans` are the cited quotes.

    `foundational`: every cited chunk belongs to the foundational-docs collection. Every
    claim type that cites something also gets `check_meaning` (numbers, negation,
    quantifiers).
    """
    meaning = check_meaning(claim, spans)
    if claim.type in LABELS:
        return _labelled(claim, allow_general, foundational) + meaning
    if claim.type is ClaimType.REASONING:
        return meaning
    if not spans:
        if claim.type is ClaimType.RECOMMENDATION and claim.label == REASONING_LABEL:
            return []
        detail = f"a {claim.type.value} needs a citation"
        return [_f(CheckCode.MISSING_CITATION, claim, detail=detail)]
    check = _BY_TYPE.get(claim.type)
    return (check(claim, " ".join(spans)) if check else []) + meaning


def check_evidence(
    claim: Claim,
    spans: Sequence[str],
    chunks: Sequence[str],
    score: float | None,
    *,
    trust: float,
    part_trust: float = 1.0,
    allow_general: bool,
    foundational: bool = False,
) -> list[CodeFinding]:
    """What the cited `spans` must show besides the support score: the type's minimum
    evidence with numbers, negation and quantifiers (`check_type_evidence`), and the
    coverage rules on names and claim parts (`check_coverage`; `chunks` are the spans with
    what names their subject) unless the support `score` is above `trust` (1.0: never); the
    parts rule also stays quiet on a claim of one part scored above `part_trust`.
    Those rules read words; a paraphrase a strong support model is sure of ("H pylori
    infection" for "infection with Helicobacter pylori") need not be held to them. The gate
    and `evals.checker_accuracy` both decide with this function."""
    out = check_type_evidence(claim, spans, allow_general=allow_general, foundational=foundational)
    if score is None or score <= trust:
        out += check_coverage(claim, spans, chunks, score, part_trust)
    return out


def check_reasoning(claim: Claim, cited_claims: Sequence[Claim]) -> list[CodeFinding]:
    """A reasoning claim may only combine what cited claims already say (seed 004)."""
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
    """Seed 002 rule 3: one segment's citations share one section_id.

    The segment's section is the one most of its citations name (ties: the first named), so
    the finding lands on the citations that stray from it, not on every claim that follows a
    stray first citation.
    """
    cited: dict[int, list[tuple[Claim, CitationSlot, str]]] = {}
    for claim in claims:
        for slot in claim.citations:
            hit = hits.get(slot.snippet_id)
            if hit is not None:
                cited.setdefault(claim.segment, []).append((claim, slot, hit.chunk.section_id))
    out: list[CodeFinding] = []
    for segment, rows in cited.items():
        # most_common keeps the first-named section on a tie
        main = Counter(section for *_, section in rows).most_common(1)[0][0]
        for claim, slot, section in rows:
            if section != main:
                detail = f"segment {segment} mixes {main} and {section}"
                out.append(_f(CheckCode.CROSS_SECTION_REUSE, claim, slot.n, detail))
    return out
