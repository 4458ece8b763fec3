"""Number normalisation for the number-claim check and the support features (SPEC 1.2).

'1,000' == '1000', '5%' == '5 percent' == 'five percent', 'three' == '3', '90.0' == '90'
(but '2.10' != '2.1': versions).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from server.core.text import STOP
from server.query.claims import NUMBER

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
_UNITS += ["eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"]
_UNITS += ["eighteen", "nineteen"]
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}
_TENS |= {"eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000, "million": 1000000}
WORD_NUMBERS = {w: i for i, w in enumerate(_UNITS)} | _TENS
_WORDS = re.compile(rf"\b({'|'.join(WORD_NUMBERS)})\b(\s*(?:%|percent\b))?", re.IGNORECASE)
_MARKER = re.compile(r"\[\d+\]")
# A number joined to a name is part of the name, not a quantity: 'IL-6', 'HIV-1', 'UTF-8',
# 'A-769662' (a hyphen after a word), 'anti-CTLA-4', 'SARS-CoV-2' (after a compound of
# words), 'OCT3/4', 'BRCA1/2' (a slash after a name with digits), as 'BRCA1' or 'OAuth2'
# already are. A year stays a number ('pre-2010'). Such numbers are never compared as
# quantities; `_renumbered_identifiers` compares them as names.
# A name of one word or a compound of words ('ctla', 'anti-ctla', 'sars-cov'), lowercased.
_NAME = r"[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*"
_NAMED_NUMBER = re.compile(
    rf"(?<![\w-])(?:{_NAME}-|[a-z]+\d+/)"
    r"(?!(?:1[5-9]|20)\d\d\b)(?=(\d+)\b(?![.,]\d))"
)


# A word that opens with digits and has letters, then digits again, is a name too: the cell
# lines 'NIH 3T3' and '4T1', the locus '5q31'. Not a size ('3x3') nor a duration ('1h30m').
_CODED_NAME = re.compile(r"(?<![\w.,-])\d+(?=(?!(?:h|m|min|s|ms|d)\d)[a-wyz][a-z]*\d)")


# A list item's number at the start of a line ("1. Click Save", "2) Install it") orders an
# answer's steps; it states nothing a span must hold.
LIST_NUMBER = re.compile(r"^[ \t]*\d{1,3}[.)][ \t]+(?=\S)", re.M)


def _lower(text: str) -> str:
    """`text` lowercased, citation markers blanked, and the joint of each named number
    ('il-6') made a word character ('il_6'), as the opening digits of a coded name ('3t3' ->
    '_t3'), so no number pattern reads them; offsets kept."""
    lowered = _MARKER.sub(" ", text.lower())
    lowered = _CODED_NAME.sub(lambda m: "_" * len(m.group(0)), lowered)
    return _NAMED_NUMBER.sub(lambda m: m.group(0)[:-1] + "_", lowered)


def _canonical(raw: str) -> str:
    percent = raw.endswith("%") or raw.endswith("percent")
    digits = re.sub(r"[^\d.]", "", raw.replace(",", "")).rstrip(".")
    whole, _, frac = digits.partition(".")
    whole = whole.lstrip("0") or "0"
    digits = f"{whole}.{frac}" if frac.strip("0") else whole
    return f"{digits}%" if percent else digits


# A range of years written short: '2018–19' is 2018 to 2019, as '2018-2019' writes it (the
# second year later than the first; '2019-12' may be a month).
_SHORT_YEARS = re.compile(r"\b(1[5-9]|20)(\d\d)(\s*[-–—]\s*)(\d\d)\b(?![.,]?\d)")


def _long_years(m: re.Match[str]) -> str:
    century, first, dash, second = m.groups()
    return f"{century}{first}{dash}{century}{second}" if second > first else m.group(0)


def normalise_numbers(text: str) -> set[str]:
    """The numbers a text states, canonical ('1000', '5%'); [n] citation markers are ignored,
    and a short range of years counts whole ('2018–19' states 2018 and 2019)."""
    lowered = _SHORT_YEARS.sub(_long_years, _lower(text))
    found = {_canonical(m.group(0)) for m in NUMBER.finditer(lowered)}
    found |= {
        _canonical(f"{WORD_NUMBERS[m.group(1)]}{'%' if m.group(2) else ''}")
        for m in _WORDS.finditer(lowered)
        if not (m.group(1) == "one" and _PRONOUN_ONE.search(lowered, 0, m.start()))
    }
    return found


# From 'third' on: 'first' and 'second' are as often no rank ('first, install it', 'one
# second'), and a span holding them would then give every claim's 1 and 2.
_ORDINAL_WORDS = {
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
    "twentieth": 20,
}
_ORDINAL = re.compile(rf"\b({'|'.join(_ORDINAL_WORDS)})\b", re.IGNORECASE)


def ordinal_numbers(text: str) -> set[str]:
    """The ranks a text writes as words ('Seventh Avenue' -> '7', 'its eighth season' ->
    '8'), canonical. Read on the span's side: a claim's '7th' is a number the span gives as
    'seventh'; a claim's own rank words are not read, as before."""
    return {str(_ORDINAL_WORDS[m.group(1).lower()]) for m in _ORDINAL.finditer(text)}


# "one" as a pronoun, not a count: "create a new one", "the one you need", "each one".
_PRONOUN_ONE = re.compile(
    r"\b(?:a|an|the|this|that|which|each|every|any|no|another|new|existing|same|other|"
    r"only|right|wrong|last|first|next|old)\s+$"
)


# Digits inside a word are a name's too: 'BRCA1' -> '1', 'Th17' -> '17', 'T1D' -> '1'.
_GLUED_NUMBER = re.compile(r"(?<![\w-])[a-z]+(\d+)[a-z]*\b")


def named_numbers(text: str) -> set[str]:
    """The numbers of `text`'s names ('I-690' -> '690', 'OCT3/4' -> '4', 'Th17' -> '17',
    '10E8' -> '10'), canonical: a claim that says 'Route 690' where its span names 'I-690',
    or 'T-helper 17' where it names 'Th17', states no number the span lacks."""
    lowered = _MARKER.sub(" ", text.lower())
    named = {_canonical(m.group(1)) for m in _NAMED_NUMBER.finditer(lowered)}
    named |= {_canonical(m.group(0)) for m in _CODED_NAME.finditer(lowered)}
    return named | {_canonical(m.group(1)) for m in _GLUED_NUMBER.finditer(lowered)}


# --- numbers by role -------------------------------------------------------------------
# A number is identified by what it counts: the content words near it in its sentence, the
# unit after it, and its place in a range ('from 1 to 9': 1 is the low end). A claim's
# number must be the one the span gives for the same thing, not merely one the span states.

_TOKEN = re.compile(
    r"(?P<num>(?<![\w.])v?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)*(?:\s?(?:%|percent\b))?)"
    r"|(?P<word>[a-z][a-z0-9_'’]*)"
    r"|(?P<comma>,)"
    r"|(?P<brk>[;.:!?()\[\]{}—]|\s(?:--?|–)\s)"
    r"|(?P<dash>--?|–)"
)
MONTH_NAMES = (  # in calendar order: a month's number is its index + 1
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTHS = frozenset(MONTH_NAMES) | {
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
}
MAX_DAY = 31
# Function words carry no identity; negation, 'only', 'more', 'most' and 'all' do.
_CONTEXT_STOP = (STOP - {"not", "no", "only", "more", "most", "all"}) | {"per"}
_SUFFIX = frozenset(["s", "th", "st", "nd", "rd"])  # '1990s', '9th': part of the number
_ALIAS = {
    "ms": "millisecond",
    "msec": "millisecond",
    "sec": "second",
    "secs": "second",
    "min": "minute",
    "mins": "minute",
    "hr": "hour",
    "hrs": "hour",
    "maximum": "max",
    "minimum": "min",
    "kib": "kb",
    "mib": "mb",
    "gib": "gb",
    "kilobyte": "kb",
    "megabyte": "mb",
    "gigabyte": "gb",
}
_TIME_UNITS = ["millisecond", "second", "minute", "hour", "day", "week", "month", "year"]
UNITS = frozenset([*_TIME_UNITS, "byte", "kb", "mb", "gb", "tb", "bit", "percent"])
_DECAY = 0.7  # weight of a context word one content word further from the number
_COMMA = 0.5  # weight factor for each comma crossed on the way to a context word
_WINDOW = 4  # context words kept on each side of a number, inside its sentence
_UNIT_CLASH = 1.5  # both numbers are followed by a known unit, and the units differ
_ROLE_CLASH = 1.5  # both numbers are range ends, opposite ones ('from X to Y', 'X-Y')
# A claim number is re-attributed only when another span number of the same kind fits its
# context better by at least this much (one nearest shared context word, or a clash):
# ties and near-ties never flag. Hand-set on the brief's cases and the WiCE/SciFact/
# HaluEval/BEGIN supported pairs (evals.calibration.support splits), not fitted.
MARGIN = 1.0


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A crude stem: lowercased, possessive, plural and -ed/-ing endings off ('rotated' ->
    'rotat', 'rotates' -> 'rotat'); aliases folded ('secs' -> 'second', 'maximum' -> 'max')."""
    w = word.lower().replace("’", "'")
    w = _ALIAS.get(w, w)
    if w.endswith("'s"):
        w = w[:-2]
    for suffix in ("ing", "ed", "es", "s", "e"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix) and not w.endswith("ss"):
            w = w[: -len(suffix)]
            break
    return _ALIAS.get(w, w)


def _unit(word: str) -> str:
    w = _ALIAS.get(word, word)
    w = w[:-1] if len(w) > 3 and w.endswith("s") else w
    return _ALIAS.get(w, w)


@dataclass(frozen=True)
class Mention:
    """One number of a text: canonical value and what identifies it there."""

    value: str
    kind: str  # year/version/percent/money/ordinal/one/count: only like kinds compete
    context: tuple[tuple[str, float], ...]  # stemmed content words near it, with weights
    unit: str | None  # the word right after it, when that is not a function word
    role: str | None  # 'lo' / 'hi': an end of a range
    partner: str | None = None  # the value at the range's other end
    day: bool = False  # the day of a date ('March 3', '3 March', 'March 3, 2024')


@dataclass(frozen=True)
class _Tok:
    kind: str  # num / word / comma / brk / dash / sep (a comma or dash between numbers)
    raw: str
    start: int
    end: int


def _tokens(text: str) -> list[_Tok]:
    lowered = _lower(text)
    out: list[_Tok] = []
    for m in _TOKEN.finditer(lowered):
        kind, raw = m.lastgroup or "", m.group(0).strip()
        attached = out and out[-1].kind == "num" and out[-1].end == m.start()
        if kind == "word" and attached and raw in _SUFFIX:
            if raw != "s":  # '1990s' stays a year, '9th' becomes an ordinal
                out[-1] = _Tok("num", out[-1].raw + raw, out[-1].start, m.end())
            continue
        if kind == "word" and raw in WORD_NUMBERS:
            kind = "num"
            tens = out[-2] if len(out) > 1 and out[-1].kind == "dash" else None
            if tens and tens.raw in _TENS and tens.end + 1 == m.start() and raw in _UNITS[1:10]:
                out[-2:] = [_Tok("num", f"{tens.raw}-{raw}", tens.start, m.end())]
                continue  # 'sixty-six' is 66
        out.append(_Tok(kind, raw, m.start(), m.end()))
    for i, t in enumerate(out):  # a comma or dash between two numbers joins them
        inner = 0 < i < len(out) - 1 and out[i - 1].kind == out[i + 1].kind == "num"
        spaced = t.kind == "brk" and t.raw in ("-", "--", "–")
        if (t.kind in ("comma", "dash") or spaced) and inner:
            out[i] = _Tok("sep", t.raw, t.start, t.end)
        elif spaced and 0 < i < len(out) - 1 and out[i - 1].kind == "num":
            out[i] = _Tok("dash", t.raw, t.start, t.end)  # '10 - minute': a hyphen
    return [t for t in out if t.kind != "dash"]  # other hyphens sit inside words


def _sentences(tokens: list[_Tok]) -> list[list[_Tok]]:
    out: list[list[_Tok]] = [[]]
    for t in tokens:
        if t.kind == "brk":
            out.append([])
        else:
            out[-1].append(t)
    return [s for s in out if s]


def _value(t: _Tok, text: str) -> tuple[str, str]:
    """Canonical value and kind of a number token."""
    if t.raw[0].isalpha() and t.raw != "v":
        if "-" in t.raw:
            tens, units = t.raw.split("-")
            return str(WORD_NUMBERS[tens] + WORD_NUMBERS[units]), "count"
        if t.raw in WORD_NUMBERS:
            return str(WORD_NUMBERS[t.raw]), "one" if t.raw == "one" else "count"
    raw = t.raw[1:] if t.raw.startswith("v") else t.raw
    if raw[-2:] in _SUFFIX:
        return _canonical(raw[:-2]), "ordinal"
    value = _canonical(raw)
    if value.endswith("%"):
        kind = "percent"
    elif t.start > 0 and text[t.start - 1] in "$€£¥":
        kind = "money"
    elif "." in value:
        kind = "version"
    else:
        kind = "year" if re.fullmatch(r"[12]\d{3}", raw) else "count"
    return value, kind


def _days(sentence: list[_Tok], text: str) -> set[int]:
    """Numbers in the day place of a date: 'March 3', '3 March', 'March 1929, 2025' (a
    number between a month and a year is its day, whatever its size). 'may' counts only
    before a number and a year, after a number, or written 'May' before a short number
    ('May 7'; never the verb of 'you may 2 ...')."""
    out: set[int] = set()
    for i, t in enumerate(sentence):
        if t.kind != "num" or not t.raw[:1].isdigit() or "." in t.raw:
            continue
        before = sentence[i - 1].raw if i > 0 else ""
        after = sentence[i + 1].raw if i + 1 < len(sentence) else ""
        year_next = (
            i + 2 < len(sentence)
            and sentence[i + 1].raw == ","
            and sentence[i + 2].kind == "num"
            and re.fullmatch(r"[12]\d{3}", sentence[i + 2].raw) is not None
        )
        short = len(t.raw.rstrip("stndrh")) <= 2
        not_verb = before != "may" or text[sentence[i - 1].start] == "M"
        after_month = before in _MONTHS and (year_next or (short and not_verb))
        if after_month or (after in _MONTHS and short):
            out.add(i)
    return out


def _roles(sentence: list[_Tok]) -> dict[int, tuple[str, int]]:
    """Range ends, each with the index of its other end: 'from X to Y', 'between X and Y',
    'X to Y', 'X-Y' (three or more dashed numbers are a date, not a range)."""
    roles: dict[int, tuple[str, int]] = {}
    for i in range(len(sentence) - 2):
        first, mid, last = sentence[i : i + 3]
        if first.kind != "num" or last.kind != "num":
            continue
        before = sentence[i - 1].raw if i > 0 else ""
        dash = mid.kind == "sep" and mid.raw != ","
        chained = (i + 3 < len(sentence) and sentence[i + 3].kind == "sep") or (
            i > 0 and sentence[i - 1].kind == "sep"
        )
        if dash and chained:
            continue
        if dash or mid.raw in ("to", "through") or (mid.raw == "and" and before == "between"):
            roles[i], roles[i + 2] = ("lo", i + 2), ("hi", i)
    return roles


def _side(tokens: list[_Tok]) -> dict[str, float]:
    return side_context([(t.kind, t.raw) for t in tokens])


def side_context(
    tokens: Iterable[tuple[str, str]], stop: frozenset[str] = _CONTEXT_STOP
) -> dict[str, float]:
    """Context words along one side of a number or a name, nearest first, from (kind,
    lowercased text) tokens: decay per word, a cut per comma; words in `stop` are skipped."""
    out: dict[str, float] = {}
    rank, commas = 0, 0
    for kind, raw in tokens:
        if kind == "comma":
            commas += 1
        if kind != "word" or raw in stop or len(raw) < 2:
            continue
        w = stem(raw)
        out[w] = max(out.get(w, 0.0), _DECAY**rank * _COMMA**commas)
        rank += 1
        if rank == _WINDOW:
            break
    return out


def number_mentions(text: str) -> list[Mention]:
    """Every number of `text` with its kind, context words, unit and range role (a new
    list; the mentions are frozen and shared)."""
    return list(_mentions(text))


@lru_cache(maxsize=4096)  # one answer reads its claims and spans again in every check round
def _mentions(text: str) -> tuple[Mention, ...]:
    lowered = _lower(text)
    out: list[Mention] = []
    for sentence in _sentences(_tokens(text)):
        roles, days = _roles(sentence), _days(sentence, text)
        for i, t in enumerate(sentence):
            if t.kind != "num":
                continue
            value, kind = _value(t, lowered)
            after = sentence[i + 1] if i + 1 < len(sentence) else None
            unit = None
            if after and after.kind == "word" and after.raw not in _CONTEXT_STOP:
                unit = _unit(after.raw)
            left = _side(list(reversed(sentence[:i])))
            right = _side(sentence[i + 1 + (unit is not None) :])
            context = {w: max(left.get(w, 0.0), right.get(w, 0.0)) for w in left | right}
            if unit is not None:  # 'the 1813 novel': the word it qualifies is its context too
                context[stem(unit)] = 1.0
            if unit in ("percent",):
                value, kind, unit = f"{value}%", "percent", None
            role, other = roles.get(i, (None, -1))
            partner = _value(sentence[other], lowered)[0] if role else None
            mention = Mention(value, kind, tuple(context.items()), unit, role, partner, i in days)
            out.append(mention)
    return tuple(out)


def fit(c: Mention, s: Mention) -> float:
    """How well span number `s` fits the place of claim number `c`: shared context words
    (the lesser weight of each), less a clash of known units or of range ends."""
    mine, theirs = dict(c.context), dict(s.context)
    score = sum(min(mine[w], theirs[w]) for w in mine.keys() & theirs.keys())
    if c.unit in UNITS and s.unit in UNITS and c.unit != s.unit:
        score -= _UNIT_CLASH
    if c.role and s.role and c.role != s.role:
        score -= _ROLE_CLASH
    return score


def _by_role(c: Mention, spans: list[Mention], same: list[Mention]) -> str | None:
    """The claim number's role decides: a day past `MAX_DAY`; a day where the span gives
    the value only outside a date and dates another day; a range end where the span's
    range with the same other end ends elsewhere ('10-2' where the span says '11-2')."""
    if c.day and any(s.day for s in same):
        return None  # the span dates the same day
    if c.day and c.value.isdigit() and int(c.value) > MAX_DAY:
        return f"{c.value} is no day of a month"
    if c.day:
        days = [s for s in spans if s.day and s.value != c.value]
        if days:
            return f"{c.value} as a day where the span's date has {days[0].value}"
        if month := _undated_month(c, spans, same):
            return f"{c.value} as a day of {month} where the span's {month} date has no such day"
    if c.role and c.partner and not any(s.role == c.role and s.partner == c.partner for s in same):
        ends = [s for s in spans if s.role == c.role and s.partner == c.partner]
        if ends:
            return f"{c.value} where the span's range to {c.partner} gives {ends[0].value}"
    return None


def _undated_month(c: Mention, spans: list[Mention], same: list[Mention]) -> str | None:
    """The month of the claim's day ('March 6') when the span dates that month ('March
    1733') and never puts the claim's number next to it: the day is the claim's own."""
    month = next((w for w, k in c.context if w in _MONTHS and k >= 1.0), None)
    if month is None or any(dict(s.context).get(month, 0.0) >= 1.0 for s in same):
        return None
    dated = any(dict(s.context).get(month, 0.0) >= 1.0 for s in spans)
    return month.title() if dated else None


# A number glued to a name by a hyphen is part of an identifier: 'FW-001', 'PGY-1', 'RFC-7231',
# 'anti-CTLA-4' (the name a compound of words, `_NAME`, as `_NAMED_NUMBER` reads it).
_IDENT = re.compile(rf"(?<![\w-])({_NAME})-(\d+)\b")
_ANCHOR = 2  # tokens on each side of a number that must read the same in claim and span


def _identifiers(text: str) -> dict[str, dict[str, str]]:
    """Identifier names with their numbers: canonical value -> as written."""
    out: dict[str, dict[str, str]] = {}
    for m in _IDENT.finditer(_MARKER.sub(" ", text.lower())):
        out.setdefault(m.group(1), {})[_canonical(m.group(2))] = m.group(0).upper()
    return out


def _renumbered_identifiers(claim: str, span: str) -> list[str]:
    """'FW-2' where the span names only 'FW-001': the name is the span's, its number not."""
    theirs = _identifiers(span)
    return [
        f"{written} where the span has {min(theirs[name].values())}"
        for name, ns in _identifiers(claim).items()
        if name in theirs
        for value, written in sorted(ns.items())
        if value not in theirs[name]
    ]


def _substituted(claim: str, span: str) -> list[str]:
    """A claim number in the span's own words with the number changed: the `_ANCHOR` tokens
    on each side (a word among them) read the same, and the span has only other numbers
    between them ('truncated to 24 or 24 days' where it says 'truncated to 23 or 24 days')."""
    mine, theirs = _tokens(claim), _tokens(span)
    text = [t.raw for t in theirs]
    out = []
    for i, t in enumerate(mine):
        if t.kind != "num" or i < _ANCHOR or i + _ANCHOR >= len(mine):
            continue
        left = [x.raw for x in mine[i - _ANCHOR : i]]
        right = [x.raw for x in mine[i + 1 : i + 1 + _ANCHOR]]
        sides = (mine[i - _ANCHOR : i], mine[i + 1 : i + 1 + _ANCHOR])
        if not all(any(x.kind == "word" for x in side) for side in sides):
            continue  # numbers and commas alone anchor nothing ('March 4, 2019')
        value = _value(t, claim.lower())[0]
        given = [
            _value(u, span.lower())[0]
            for j, u in enumerate(theirs)
            if u.kind == "num"
            and text[max(0, j - _ANCHOR) : j] == left
            and text[j + 1 : j + 1 + _ANCHOR] == right
        ]
        if given and value not in given:  # not said in the same words anywhere in the span
            out.append(f"{value} where the span says {given[0]} in the same words")
    return out


def _unit_of(m: Mention) -> str | None:
    return "money" if m.kind == "money" else m.unit


def misplaced_numbers(claim: str, span: str) -> list[str]:
    """Claim numbers the span states, but for something else: another span number of the
    same kind fits the claim number's place better by `MARGIN`, the span gives the value
    only with another unit ('30 seconds' where it says '30 minutes', '1000 months' where it
    says '$1000'), its role says so (`_by_role`: a date's day, a range end), the span says
    another number in the same words around it (`_substituted`), or an identifier's number
    differs ('FW-2' for 'FW-001'). One line each."""
    spans = number_mentions(span)
    out = _substituted(claim, span) + _renumbered_identifiers(claim, span)
    if out:
        return out
    for c in number_mentions(claim):
        same = [s for s in spans if s.value == c.value]
        if not same or c.kind == "one":
            continue  # a value the span never states: the set comparison reports it
        if found := _by_role(c, spans, same):
            out.append(found)
            continue
        if c.role and any(s.role == c.role and s.partner == c.partner for s in same):
            continue  # the same end of the same range: in its place, whatever the words
        units = [_unit_of(s) for s in same]
        if c.unit in UNITS and all(u in UNITS | {"money"} and u != c.unit for u in units):
            out.append(f"{c.value} {c.unit}: the span gives {c.value} {units[0]}")
            continue
        rivals = [s for s in spans if s.value != c.value and s.kind == c.kind]
        if not rivals:
            continue
        best_same = max(fit(c, s) for s in same)
        rival = max(rivals, key=lambda s: fit(c, s))
        if fit(c, rival) >= best_same + MARGIN:
            out.append(f"{c.value} where the span gives {rival.value} for the same thing")
    return out
