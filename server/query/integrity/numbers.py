"""Number normalisation for the number-claim check and the support features (SPEC 1.2).

'1,000' == '1000', '5%' == '5 percent' == 'five percent', 'three' == '3', '90.0' == '90'
(but '2.10' != '2.1': versions).
"""

from __future__ import annotations

import re

from server.query.generate.claims import NUMBER

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
_UNITS += ["eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"]
_UNITS += ["eighteen", "nineteen"]
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}
_TENS |= {"eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000, "million": 1000000}
WORD_NUMBERS = {w: i for i, w in enumerate(_UNITS)} | _TENS
_WORDS = re.compile(rf"\b({'|'.join(WORD_NUMBERS)})\b(\s*(?:%|percent\b))?", re.IGNORECASE)
_MARKER = re.compile(r"\[\d+\]")


def _canonical(raw: str) -> str:
    percent = raw.endswith("%") or raw.endswith("percent")
    digits = re.sub(r"[^\d.]", "", raw.replace(",", "")).rstrip(".")
    whole, _, frac = digits.partition(".")
    whole = whole.lstrip("0") or "0"
    digits = f"{whole}.{frac}" if frac.strip("0") else whole
    return f"{digits}%" if percent else digits


def normalise_numbers(text: str) -> set[str]:
    """The numbers a text states, canonical ('1000', '5%'); [n] citation markers are ignored."""
    lowered = _MARKER.sub(" ", text.lower())
    found = {_canonical(m.group(0)) for m in NUMBER.finditer(lowered)}
    found |= {
        _canonical(f"{WORD_NUMBERS[m.group(1)]}{'%' if m.group(2) else ''}")
        for m in _WORDS.finditer(lowered)
    }
    return found
