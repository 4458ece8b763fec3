"""Two rules for what support scores miss in paraphrased claims (an LLM's, not our own
extractive restatements, which these never flag):

- a name the claim uses that neither the cited span nor its document's title and section
  mention (an entity swapped for another of the same passage, a product it does not name):
  `entity_mismatch`;
- a part of the claim (a clause or a second sentence) that shares almost none of its content
  words with the cited spans (two claims merged with one citation, a sentence added):
  `unsupported_part`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from server.core.text import content_words, mentions, named_terms

_PARTS = re.compile(r"(?<=[.!?;])\s+|,?\s+(?:and|but|while|whereas|although)\s+(?=\w)")
_CODE = re.compile(r"`([^`\s]{3,})`")
MIN_PART_WORDS = 3  # content words a part needs before it is judged on its own
MIN_PART_SHARE = 0.34  # share of a part's content words the cited spans must hold


def foreign_names(claim: str, cited: Sequence[str]) -> list[str]:
    """Names (capitalised runs, code identifiers) of the claim no cited chunk mentions."""
    text = "\n".join(cited)
    names = [*named_terms(claim), *_CODE.findall(claim)]
    return [n for n in dict.fromkeys(names) if not mentions(n, text) and n not in text]


def _stem(word: str) -> str:
    return word[:6]


def unsupported_parts(claim: str, spans: Sequence[str]) -> list[str]:
    """Parts of the claim whose content words the cited spans barely hold."""
    held = {_stem(w) for w in content_words(" ".join(spans))}
    out = []
    for part in _PARTS.split(claim):
        words = {_stem(w) for w in content_words(part)}
        if len(words) < MIN_PART_WORDS:
            continue
        if len(words & held) / len(words) < MIN_PART_SHARE:
            out.append(part.strip())
    return out
