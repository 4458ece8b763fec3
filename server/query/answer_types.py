"""The kind of value a question asks for, and whether an answer states one.

"How much does X cost?" is answered by a price, "What is the maximum file size?" by a size,
"What uptime percentage ...?" by a percentage. When the question asks for one of these and no
claim of the answer states a value of that kind, the claims are on the topic but do not
answer it (a liability cap in dollars for a file-size question, a 30-day notice period for a
"how many times" question): the answer is refused with the kind named, instead of shown.

Only kinds whose values have an unmistakable surface form are checked (a currency, a byte
unit, a percent sign, a time unit, a year or month, a phone number); a bare "how many" or
"when" is left to the refusal model, because their answers are often words ("when the
request is closed", "every member"). The question patterns are English and general, never a
corpus's phrases. Measured on the dev gold sets and HaluEval-QA (see the note on
`retrieval.answer_type_rule`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_I = re.IGNORECASE
_NUMBER_WORD = (
    r"(?:\d[\d,.]*|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred)"
)
_DATA_NOUN = (
    r"(?:file|repository|repo|storage|disk|upload|attachment|package|cache|artifact|"
    r"bandwidth|memory|message|payload|body|request|image|database)"
)


@dataclass(frozen=True)
class AnswerType:
    """A kind of value: the question forms that ask for it and the forms that state it."""

    name: str
    asks: re.Pattern[str]
    states: re.Pattern[str]


TYPES: tuple[AnswerType, ...] = (
    AnswerType(
        "price",
        re.compile(
            r"\bhow much\b[^?.]*\b(?:cost|costs|charge|charges|pay|pays|paid|price|fee|fees)\b"
            r"|\bwhat (?:is|are) the (?:price|cost|fee)s?\b|\bprize money\b",
            _I,
        ),
        re.compile(
            r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:USD|EUR|GBP|dollars?|euros?|pounds|cents?)\b"
            r"|\bfree\b|\b(?:no|without) (?:charge|cost|fee)s?\b|\bnot charge\b",
            _I,
        ),
    ),
    AnswerType(
        "size",
        re.compile(
            rf"\b{_DATA_NOUN}\s+(?:size|limit|quota)s?\b"
            rf"|\bsize of (?:a |an |the |each |one )?(?:single )?{_DATA_NOUN}"
            r"|\bhow much (?:storage|disk|space|memory|bandwidth)\b|\bin (?:[KMGT]i?B|bytes)\b",
            _I,
        ),
        re.compile(
            r"\b\d[\d,.]*\s?(?:[KMGTP]i?B|bytes?|kilobytes?|megabytes?|gigabytes?|terabytes?)\b"
            r"|\bunlimited\b|\bno (?:size )?limit\b",
            _I,
        ),
    ),
    AnswerType(
        "percentage",
        re.compile(r"\bpercent(?:age)?s?\b", _I),
        re.compile(r"\d\s?%|\bper ?cent\b", _I),
    ),
    AnswerType(
        "duration",
        re.compile(
            r"\bhow long (?:do|does|did|will|would|can|could|should|must|may|has|have|had|"
            r"until|before|after|to)\b"
            r"|\bfor how many (?:seconds|minutes|hours|days|weeks|months|years)\b",
            _I,
        ),
        re.compile(
            rf"\b{_NUMBER_WORD}[\s-]+(?:business |calendar |working )?"
            r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b"
            r"|\b(?:indefinitely|immediately|permanently|forever|until|as long as|hourly|daily|"
            r"weekly|monthly|annually|yearly)\b",
            _I,
        ),
    ),
    AnswerType(
        "date",
        re.compile(r"\b(?:on what|what|which|in what) (?:date|day|year)\b", _I),
        re.compile(
            r"\b\d{3,4}\b|(?-i:\b(?:January|February|March|April|May|June|July|August|"
            r"September|October|November|December)\b)|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b",
            _I,
        ),
    ),
    AnswerType(
        "phone number",
        re.compile(r"\b(?:phone|telephone|fax) number\b", _I),
        re.compile(r"\+?\d[\d ().-]{6,}\d"),
    ),
)


def asked_types(question: str) -> list[AnswerType]:
    """The kinds of value the question asks for (usually none, at most a couple)."""
    return [t for t in TYPES if t.asks.search(question)]


def unstated(question: str, texts: Sequence[str]) -> list[str]:
    """Names of the kinds the question asks for that none of `texts` states."""
    joined = "\n".join(texts)
    return [t.name for t in asked_types(question) if not t.states.search(joined)]
