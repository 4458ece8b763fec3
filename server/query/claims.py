"""Claims as both generators write them and the checker reads them (neutral: neither
generates nor checks): claim typing after seeds 000 and 004 (a small, ordered decision
tree) and `render`, the answer text with its [n] markers."""

from __future__ import annotations

import re
from collections.abc import Sequence

from server.core.contracts import Claim, ClaimType

NUMBER = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?(?:%|percent\b)?")
_REFERENCE = re.compile(
    r"\b(?:19|20)\d{2}\b|\bv?\d+\.\d+(?:\.\d+)?\b|\bversion\b|\brelease\b|\bsince\b|"
    r"\b(?:day|week|month|year|hour|minute|second)s?\b|\bproduction\b|\bdevelopment\b|\bper\b",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"^(?:an?\s+|the\s+)?[`\"']?[\w .`-]{1,60}?[`\"']?\s+(?:is|are)\s+(?:an?|the|one)\s+|"
    r"\b(?:means|refers to|is defined as|stands for)\b",
    re.IGNORECASE,
)
_RECOMMEND = re.compile(
    r"\b(?:should|recommend(?:ed|s)?|must|prefer|best practice|make sure|avoid|we suggest)\b",
    re.IGNORECASE,
)
_QUOTE = re.compile(r"[\"“][^\"”]{8,}[\"”]")
# A claim that ends in a code fence or a table row takes its markers on a line of their own:
# "``` [1]" is no closing fence (CommonMark 4.5: nothing but spaces may follow one), so the
# code block would run on over every claim after it; "| a | b | [1]" adds a cell to the row.
# Group 1: the fence or the row.
_ENDS_IN_BLOCK = re.compile(r"(?:^|\n)[ \t]*(`{3,}|~{3,}|\|.*)$")


def has_number(text: str) -> bool:
    return bool(NUMBER.search(re.sub(r"\[\d+\]", "", text)))


def has_reference_point(text: str) -> bool:
    """A date, a version or an environment that anchors a number (seed 000 checklist)."""
    return bool(_REFERENCE.search(text))


def classify_claim(text: str) -> ClaimType:
    """quote > number > definition > recommendation > fact, for a claim drawn from evidence."""
    if _QUOTE.search(text):
        return ClaimType.QUOTE
    if has_number(text) and has_reference_point(text):
        return ClaimType.NUMBER
    if _DEFINITION.search(text):
        return ClaimType.DEFINITION
    if _RECOMMEND.search(text):
        return ClaimType.RECOMMENDATION
    return ClaimType.FACT


def defined_term(text: str) -> str | None:
    """The term a definition defines ('X is a ...' -> 'X'), for the term-in-span check."""
    match = re.match(
        r"^(?:an?\s+|the\s+)?[`\"']?([\w .-]{1,60}?)[`\"']?\s+(?:is|are|means|refers to)\b",
        text,
        re.IGNORECASE,
    )
    return match.group(1).strip() if match else None


def render(claims: Sequence[Claim]) -> str:
    """Claims joined into paragraphs, one per segment, each with its [n] markers; a claim
    that carries a block (a list or code under its sentence) stands as its own paragraph,
    its markers on the line after it when it ends in a code fence or a table row."""
    segments: dict[int, list[list[str]]] = {}
    for claim in claims:
        markers = "".join(f"[{s.n}]" for s in claim.citations)
        text = claim.text.rstrip()
        label = f"{claim.label} " if claim.label else ""
        gap = " "
        if (block := _ENDS_IN_BLOCK.search(text)) is not None:
            # a line right under a table is one more row of it: a blank line ends the table
            gap = "\n\n" if block.group(1).startswith("|") else "\n"
        shown = f"{label}{text}{gap}{markers}" if markers else f"{label}{text}"
        if claim.reference:
            shown += f" (code: `{claim.reference}`)"
        blocks = segments.setdefault(claim.segment, [[]])
        if "\n" in text:
            blocks += [[shown], []]
        else:
            blocks[-1].append(shown)
    return "\n\n".join(
        " ".join(block) for _, blocks in sorted(segments.items()) for block in blocks if block
    )
