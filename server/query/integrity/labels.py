"""Knowledge-type labels of seed 004, applied visibly before the checks run.

- a claim whose citations all point at the foundational-docs collection (chunks tagged
  `integrity.foundational_tag`, documents describing citegate itself) is self-knowledge,
  labelled `[foundational knowledge]` (numbers and quotes keep their stricter type);
- a general-knowledge claim is labelled `[general knowledge]` and carries the visible
  "not verified against the corpus" note; whether it may appear at all is the gate's call
  (`allow_general_knowledge`), so it is labelled even where it will be blocked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from server.core.contracts import Claim, ClaimType
from server.query.integrity.checks import GK_DISCLAIMER, LABELS

_KEEP_TYPE = frozenset({ClaimType.NUMBER, ClaimType.QUOTE, ClaimType.REASONING})
GK_NOTE = f"(general knowledge, {GK_DISCLAIMER})"


def _general(claim: Claim) -> Claim:
    text = claim.text if GK_DISCLAIMER in claim.text.lower() else f"{claim.text} {GK_NOTE}"
    return claim.model_copy(update={"text": text, "label": LABELS[ClaimType.GENERAL_KNOWLEDGE]})


def label_claim(claim: Claim, foundational: bool) -> Claim:
    """The claim with its seed 004 label (and type, for foundational evidence)."""
    if claim.type is ClaimType.GENERAL_KNOWLEDGE:
        return _general(claim)
    label = LABELS[ClaimType.SELF_KNOWLEDGE]
    if claim.type is ClaimType.SELF_KNOWLEDGE:
        return claim.model_copy(update={"label": label})
    if foundational and claim.type not in _KEEP_TYPE and claim.label is None:
        return claim.model_copy(update={"type": ClaimType.SELF_KNOWLEDGE, "label": label})
    if foundational and claim.type in _KEEP_TYPE and claim.label is None:
        return claim.model_copy(update={"label": label})
    return claim


def apply_labels(
    claims: Sequence[Claim], foundational: Callable[[Claim], bool]
) -> tuple[Claim, ...]:
    """Every claim labelled per seed 004; `foundational(claim)`: cites only foundational docs."""
    return tuple(label_claim(c, foundational(c)) for c in claims)
