"""Rule checks of meaning: a claim that flips or strengthens what its cited span says.

Pure functions over (claim text, cited span text); no model. Each claim clause is aligned
with the span clauses or sentences that share the most of its content words, and then

* negation: the claim adds or drops a negation ('X does not Y' / 'X Y', 'never' / 'always',
  'cannot' / 'can'), or swaps a word for its antonym ('required' / 'optional', the direction
  of a change: 'increases' / 'a reduction', 'higher' / 'lower', or a negating prefix:
  'invalid' / 'valid'); a negated antonym ('not required' / 'optional') is the same
  statement and passes;
* quantifier: the claim says 'all', 'always', 'every', 'only', 'never' or 'none' where the
  aligned span has no such word ('some', 'may', 'often' or nothing at all).

A finding needs every best-aligned span unit to disagree, so a span that says the thing
both ways, or a claim that cannot be aligned (too few shared words), raises nothing: the
support score judges those.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache

from server.core.text import STOP
from server.query.integrity.numbers import number_mentions, stem

_MARKER = re.compile(r"\[\d+\]")
_WORD = re.compile(r"[a-z0-9][a-z0-9_'’.-]*[a-z0-9]|[a-z0-9]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n+|;\s*")
_CONTRASTS = "but|while|whereas|although|though"
_CLAUSE = re.compile(rf",\s*(?:(?:{_CONTRASTS})\s+)?|\s+(?:{_CONTRASTS})\s+|\s+and\s+(?=\w+\s)")
_CONTRAST = re.compile(rf"\b(?:{_CONTRASTS})\b")
_CLAIM_CLAUSE = re.compile(rf";\s*|,?\s+(?:and|{_CONTRASTS})\s+")

# Bounds and idioms that hold a negation word without negating the statement.
_NOT_NEGATION = re.compile(
    r"\b(?:not (?:only|just|merely|simply|solely|exclusively)|"
    r"no (?:more|less|later|earlier|fewer|longer than|sooner)|"
    r"not (?:more|less|later|earlier|fewer)|no matter|no doubt|nothing but)\b|"
    # an answer particle that opens the claim ("No, when you borrow ...") answers the
    # question; it does not negate the statement after it
    r"^\W*(?:yes|no)\s*[,;:.!-]"
)
_NEGATION = frozenset(
    ["not", "no", "never", "cannot", "none", "nothing", "nobody", "neither", "nor", "without"]
) | frozenset({"can't", "won't", "shan't"})

_HEDGE = frozenset(
    [
        "some",
        "may",
        "might",
        "can",
        "could",
        "often",
        "sometimes",
        "usually",
        "typically",
        "generally",
        "most",
        "many",
        "several",
        "occasionally",
        "possibly",
        "perhaps",
        "partly",
    ]
)
# Strong quantifiers of a claim, each with the span words that license it.
_UNIVERSAL = frozenset(["all", "every", "each", "always", "whenever", "entire", "both", "any"])
_STRONG: dict[str, frozenset[str]] = {
    "all": _UNIVERSAL,
    "every": _UNIVERSAL,
    "always": _UNIVERSAL,
    "only": frozenset(["only", "solely", "exclusively", "sole", "just", "alone"]),
    "never": frozenset(["never", "none", "nothing", "nobody"]),
    "none": frozenset(["never", "none", "nothing", "nobody"]),
}
_TIME = frozenset(
    [
        "second",
        "minute",
        "hour",
        "day",
        "week",
        "month",
        "year",
        "time",
        "night",
        "morning",
        "evening",
        "other",
        "run",
    ]
)
# General antonym pairs; each pole lists its inflections.
_ANTONYMS: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(a.split()), frozenset(b.split()))
    for a, b in (
        ("required require requires mandatory compulsory", "optional"),
        ("enabled enable enables", "disabled disable disables"),
        (
            "allowed allow allows permitted permit permits",
            "forbidden forbid forbids prohibited prohibit prohibits disallowed disallow",
        ),
        ("true", "false"),
        ("before", "after"),
        ("include includes included including", "exclude excludes excluded excluding"),
        ("minimum min lowest", "maximum max highest"),
        # the direction of a change or a comparison. '-ing' forms only where they were
        # before ('rising obesity' qualifies a noun more often than not); 'fall' is left out
        # ('falls back to'). 'raise' is in: "Mutations in RIM1 raise levels of IME1 RNA"
        # against "rim1 mutations cause reduced expression of IME1" (SciFact train: 2 more
        # contradicted claims flagged, no supported one; of 488 sentences with 'raise' in six
        # technical docs sets, each against its own paragraph, none newly flagged: 'raise an
        # exception' meets no pole of a decrease)
        (
            "increase increases increased increasing rise rises rose risen raise raises raised "
            "higher elevated "
            "enhance enhances enhanced upregulate upregulates upregulated upregulation",
            "decrease decreases decreased decreasing reduce reduces reduced reduction lower "
            "lowers lowered decline declines declined diminish diminishes diminished "
            "downregulate downregulates downregulated downregulation mitigate mitigates "
            "mitigated",
        ),
        ("positive positively", "negative negatively"),
        (
            "activate activates activated activating activation",
            "deactivate deactivates deactivated deactivating deactivation inactivate "
            "inactivates inactivated inactivating",
        ),
        (
            "improve improves improved improvement",
            "impair impairs impaired worsen worsens worsened",
        ),
        # an effect furthered or held back ("IFI16 ... interacts with STING to promote STING
        # phosphorylation" against "IFI16 impedes STING phosphorylation"); 'block' is left out
        # ('a code block')
        (
            "promote promotes promoted promoting stimulate stimulates stimulated facilitate "
            "facilitates facilitated encourage encourages encouraged",
            "inhibit inhibits inhibited inhibiting suppress suppresses suppressed impede "
            "impedes impeded hinder hinders hindered",
        ),
        ("present", "absent missing"),
        ("benefit benefits beneficial", "harm harms harmful"),
        ("better", "worse"),
        ("faster", "slower"),
        ("longer", "shorter"),
    )
)
# Each antonym pair's words, and both poles stemmed (for a negation's scope).
_ANTONYM_STEMS = tuple((a | b, frozenset(stem(w) for w in a | b)) for a, b in _ANTONYMS)
_POLAR = _NEGATION | _HEDGE | frozenset(_STRONG) | frozenset().union(*(a | b for a, b in _ANTONYMS))
# A claim clause is compared only when it shares at least this many content words with a
# span unit (all of them, when it has fewer), and at least this share of its own content
# words; otherwise it is not aligned and nothing is raised.
MIN_SHARED = 2
MIN_SHARE = 0.5
# A clause below `MIN_SHARE` is still compared for an antonym swap alone (not for a negation)
# against a sentence sharing `MIN_SHARED` of its content words and at least this share: a
# direction said in other words ("Women with a lower birth weight are more likely to develop
# breast cancer" against "heavier birth weights were associated with increased breast cancer
# risk"). Chosen on SciFact train rationales and the other checkers' dev splits, read as
# claims each rule flags: 0.34 flags 6 contradicted SciFact claims and 0 supported ones, 0.25
# flags 16 and 2, 0.2 flags 17 and 3; WiCE dev, HaluEval-QA 0-249, BEGIN dev, ClapNQ rows
# 0-149 and the prose eval's dev half: none at any of them.
SWAP_SHARE = 0.25
# Content words after a negation that it bears on ("may not sound like much": sound, much).
# A negation of the span counts against the claim only when one of them is in the claim too:
# "the fund eats a quarter of your earnings" does not drop the negation of "may not sound
# like much". The claim's own negations always count. Our choice, from the good drafts of
# the prose eval's dev half.
SCOPE_TOKENS = 4  # content words
# A claim clause that negates, and is too far from the span for `MIN_SHARE`, is still
# compared against the sentences it is loosely aligned with (`SWAP_SHARE`): it denies what
# one of them states when the first this-many content words after its negation are all in
# that sentence and no negation there bears on them. Chosen on SciFact train rationales and
# the other checkers' dev splits: flags 4 unsupported and 1 supported claim there, and none of
# the prose eval's dev good claims.
DENIED_WORDS = 2  # content words
# Verbs that only carry what a negation denies ("does not have", "did not show any").
_LIGHT_VERBS = frozenset(
    ["have", "has", "had", "contain", "contains", "show", "shows", "cause", "causes", "any"]
)


@dataclass(frozen=True)
class _Unit:
    words: frozenset[str]  # tokens, lowercased ('don't' kept whole)
    content: frozenset[str]  # stemmed content words and numbers, polarity words left out
    stems: frozenset[str]  # stemmed non-stop words, polarity words kept
    # per negation, the stemmed words it bears on (`SCOPE_TOKENS` after it; empty at the end)
    scopes: tuple[frozenset[str], ...]
    heads: tuple[str, ...] = ()  # per negation, the first stemmed word after it ('' at the end)
    contrast: bool = False  # a span clause opened by 'but', 'whereas', ...: another subject
    # the first `DENIED_WORDS` content words after its first negation, light verbs skipped
    # ("do not have side effects": side, effect)
    denied: tuple[str, ...] = ()

    @property
    def negations(self) -> int:
        return len(self.scopes)


# A negation that names the reference group of a comparison ("compared with people who had
# migraine without aura", "than those with no ...") says what is compared, not that the
# statement is false: the negation word is dropped, the words around it kept.
_REFERENCE_NEGATION = re.compile(
    r"\b((?:compared (?:with|to)|relative to|versus|vs\.?|than)\s+(?:[a-z][\w-]*\s+){0,4}?)"
    r"(?:no|without)\b"
)


def _tokens(text: str) -> list[str]:
    lowered = _MARKER.sub(" ", text.lower()).replace("’", "'")
    lowered = _NOT_NEGATION.sub(" ", lowered.strip())
    lowered = _REFERENCE_NEGATION.sub(lambda m: m.group(1) + " ", lowered)
    return _WORD.findall(lowered)


@lru_cache(maxsize=4096)  # a span's sentences are read again for each claim and round
def _unit(text: str) -> _Unit:
    tokens = _tokens(text)
    content = {stem(t) for t in tokens if t not in STOP and t not in _POLAR and len(t) > 1}
    content |= {m.value for m in number_mentions(text)}
    at = [i for i, t in enumerate(tokens) if _negating(t)]
    scopes = tuple(
        frozenset([stem(t) for t in tokens[i + 1 :] if t not in STOP][:SCOPE_TOKENS]) for i in at
    )
    stems = frozenset(stem(t) for t in tokens if t not in STOP)
    heads = tuple(next((stem(t) for t in tokens[i + 1 :] if t not in STOP), "") for i in at)
    after = tokens[at[0] + 1 :] if at else []
    denied = tuple(
        stem(t) for t in after if t not in STOP and t not in _POLAR | _LIGHT_VERBS and len(t) > 1
    )[:DENIED_WORDS]
    return _Unit(frozenset(tokens), frozenset(content), stems, scopes, heads, denied=denied)


def _merge(units: list[_Unit]) -> _Unit:
    return _Unit(
        frozenset().union(*(u.words for u in units)),
        frozenset().union(*(u.content for u in units)),
        frozenset().union(*(u.stems for u in units)),
        tuple(sc for u in units for sc in u.scopes),
        tuple(h for u in units for h in u.heads),
    )


def _bearing(unit: _Unit, other: _Unit) -> int:
    """The negations of `unit` that bear on what `other` says: those whose scope shares a word
    with it (or with the other pole of an antonym it uses: 'not required' bears on a span that
    says 'optional'), or has no words (a negation at the end)."""
    said = other.stems.union(*(poles for words, poles in _ANTONYM_STEMS if other.words & words))
    return sum(not sc or bool(sc & said) for sc in unit.scopes)


def _clauses(sentence: str) -> list[_Unit]:
    """The sentence's clauses, each marked when a contrast word opens it."""
    out, start, contrast = [], 0, False
    for m in [*_CLAUSE.finditer(sentence), None]:
        piece = sentence[start : m.start() if m else len(sentence)]
        if piece.strip():
            out.append(replace(_unit(piece), contrast=contrast))
        if m:
            start, contrast = m.end(), bool(_CONTRAST.search(m.group(0)))
    return out


def _span_units(span: str) -> list[tuple[_Unit, list[_Unit]]]:
    """Every sentence of the span, with its clauses."""
    return [(_unit(s), _clauses(s)) for s in _SENTENCE.split(span) if s.strip()]


def _claim_units(claim: str) -> list[_Unit]:
    """The claim's clauses, read sentence by sentence: a claim over several sentences (a
    joined evidence unit, an LLM's two-sentence claim) is never read as one clause that runs
    across a sentence end."""
    parts = [p for s in _SENTENCE.split(claim) for p in _CLAIM_CLAUSE.split(s) if p and p.strip()]
    return [_unit(p) for p in parts]


def _aligned(
    clause: _Unit, sentences: list[tuple[_Unit, list[_Unit]]], share: float = MIN_SHARE
) -> list[tuple[_Unit, _Unit]]:
    """The best-aligned span sentences, each whole and as what it says about the clause's
    words: its clauses sharing `MIN_SHARED` of them (else any), so that a negation in a
    clause about something else is not held against the claim."""
    if not clause.content:
        return []
    need = min(MIN_SHARED, len(clause.content))
    shared = [len(clause.content & whole.content) for whole, _ in sentences]
    best = max(shared, default=0)
    if best < need or best < share * len(clause.content):
        return []
    out = []
    for (whole, parts), n in zip(sentences, shared, strict=True):
        if n == best:
            about = _cover(clause.content & whole.content, parts)
            about += [p for p in parts if p not in about and _restating(p, clause)]
            out.append((whole, _merge(about) if about else whole))
    return out


def _restating(part: _Unit, clause: _Unit) -> bool:
    """A span clause that names nothing of its own (no content word, only a pronoun and a
    polar word: "..., then it is not required") and shares a word with the claim clause: it
    says something about the claim's subject, so its negation counts, though it adds no word
    to cover."""
    return not part.content and bool(part.stems & clause.stems)


def _cover(words: frozenset[str], parts: list[_Unit]) -> list[_Unit]:
    """The span clauses that say what the claim clause is about: the one sharing most of
    `words`, grown over its neighbours while each adds words of it not yet covered ("As the
    amount is small, there is no paperwork required": both clauses). A later clause on
    another subject that only repeats covered words is left out, with its negation."""
    if not parts:
        return []
    # most shared words; of equals, the clause with fewest words of its own beside them ("you
    # cannot have a lawyer in court", not "you may ask a lawyer ... before you go to court")
    best = max(
        range(len(parts)),
        key=lambda i: (len(words & parts[i].content), -len(parts[i].content - words)),
    )
    lo = hi = best
    covered = set(words & parts[best].content)
    grown = True
    while grown:
        grown = False
        for j in (lo - 1, hi + 1):
            # a clause opened by a contrast word is about another subject: not grown into
            # ("..., whereas fruit juice is associated with a higher risk"), nor out of
            if not 0 <= j < len(parts) or (parts[j] if j > hi else parts[lo]).contrast:
                continue
            if (words & parts[j].content) - covered:
                covered |= words & parts[j].content
                lo, hi = min(lo, j), max(hi, j)
                grown = True
    return [] if not covered else parts[lo : hi + 1]


# A word with a negating prefix is the antonym of the word it prefixes ('invalid' / 'valid',
# 'non-toxic' / 'toxic', 'inaccurate' / 'accurate'), when that word has at least
# `PREFIXED_BASE` letters (a shorter base is often a word of its own by chance: 'unit' /
# 'it', 'income' / 'come').
_NEGATING_PREFIX = re.compile(r"^(?:non-?|un|in|im|ir|il|dis)(?=[a-z])")
PREFIXED_BASE = 5  # letters


def _prefixed(words: frozenset[str]) -> dict[str, str]:
    """The words of a unit that negate a base by a prefix: base -> the word."""
    out: dict[str, str] = {}
    for w in words:
        m = _NEGATING_PREFIX.match(w)
        if m and len(w) - m.end() >= PREFIXED_BASE:
            out[w[m.end() :]] = w
    return out


def _prefix_swaps(claim: _Unit, span: _Unit) -> list[str]:
    """A prefixed word on one side where the other has its base alone ('invalid' / 'valid')."""
    out = []
    for unit, facing in ((claim, span), (span, claim)):
        for base, word in _prefixed(unit.words).items():
            if base in facing.words and base not in unit.words and word not in facing.words:
                pair = (word, base) if unit is claim else (base, word)
                out.append(f"'{pair[0]}' where the span says '{pair[1]}'")
    return out


def _swaps(claim: _Unit, span: _Unit) -> list[str]:
    """Antonyms the claim puts where the span has the other pole (and not its own)."""
    out = _prefix_swaps(claim, span)
    for a, b in _ANTONYMS:
        for mine, other in ((a, b), (b, a)):
            said, instead = claim.words & mine, span.words & other
            if said and instead and not claim.words & other and not span.words & mine:
                out.append(f"'{sorted(said)[0]}' where the span says '{sorted(instead)[0]}'")
    return out


def _flipped(claim: _Unit, span: _Unit) -> str | None:
    swaps = _swaps(claim, span)
    mine, theirs = claim.negations, _bearing(span, claim)
    if (mine + theirs + len(swaps)) % 2 == 0:
        return None
    if swaps:
        return swaps[0]
    said = "negates" if mine % 2 else "drops the negation of"
    return f"the claim {said} what the span says"


def _strong(tokens: list[str]) -> list[str]:
    """Strong quantifiers of a claim; 'every 90 days', 'every day' are frequencies."""
    out = []
    for i, t in enumerate(tokens):
        if t not in _STRONG:
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if t == "every" and (nxt[:1].isdigit() or {nxt, stem(nxt)} & _TIME or nxt in ("few", "n")):
            continue
        out.append(t)
    return out


def _unlicensed(word: str, span: _Unit) -> bool:
    if span.words & _STRONG[word]:
        return False
    # 'never' / 'none' restate a plain negation ('is not logged'), not a hedged one.
    plain_negation = span.negations % 2 == 1 and not span.words & _HEDGE
    return not (word in ("never", "none") and plain_negation)


def _said_negated(clause: _Unit, sentences: list[tuple[_Unit, list[_Unit]]]) -> bool:
    """The span negates what the claim clause negates, wherever its sentence and clause
    boundaries put it: every negation of the clause has its own in the span before the same
    word ("which are not a distinct breed" for "British Blues are not a distinct breed";
    "They are n't coming" after "The aliens ..."; "aren't human at all, or at least not
    completely" across two span sentences; never "not no wage limit" for "no wage limit"),
    and no span negation stands before a word of the clause that the clause does not negate
    ("they don't do actual investing" against "they do do actual investing")."""
    theirs = Counter(h for whole, _ in sentences for h in whole.heads)
    mine = Counter(clause.heads)
    return (
        bool(mine)
        and "" not in mine
        and mine <= theirs
        and not any(h in clause.stems and h not in mine for h in theirs)
    )


def negation_mismatches(claim: str, span: str) -> list[str]:
    """Claim clauses whose polarity differs from every best-aligned unit of the span; a
    clause with negations is let through when span sentences negate the same words."""
    units, out = _span_units(span), []
    for clause in _claim_units(claim):
        aligned = _aligned(clause, units)
        if not aligned:
            loose = _aligned(clause, units, SWAP_SHARE)
            out += _swapped_far(clause, loose) or _denied_far(clause, loose)
            continue
        flips = [_flipped(clause, about) for _, about in aligned]
        if all(flips):
            if (
                clause.negations
                and not _swaps_any(clause, aligned)
                and _said_negated(clause, units)
            ):
                continue
            out.append(str(flips[0]))
    return out


def _swapped_far(clause: _Unit, loose: list[tuple[_Unit, _Unit]]) -> list[str]:
    """A clause too far from the span for its negations to be compared: flagged only when
    every sentence it is loosely aligned with (`SWAP_SHARE`) has an antonym the clause swaps,
    and the polarity comes out flipped."""
    flips = [_flipped(clause, about) if _swaps(clause, about) else None for _, about in loose]
    return [str(flips[0])] if flips and all(flips) else []


def _denied_far(clause: _Unit, loose: list[tuple[_Unit, _Unit]]) -> list[str]:
    """A clause too far from the span for its negation to be compared, that denies what a
    loosely aligned span sentence (`SWAP_SHARE`) states without a negation bearing on it:
    the words the clause denies are all in that sentence ("Medications to treat obesity do
    not have side effects" against "... but increased rates of gastrointestinal side
    effects")."""
    if clause.negations != 1 or len(clause.denied) < DENIED_WORDS:
        return []
    for whole, _ in loose:
        if set(clause.denied) <= whole.content and not _bearing(whole, clause):
            return [f"the claim denies what the span states ({' '.join(clause.denied)})"]
    return []


def _swaps_any(clause: _Unit, aligned: list[tuple[_Unit, _Unit]]) -> bool:
    return any(_swaps(clause, about) for _, about in aligned)


def _contexts(tokens: list[str], word: str) -> set[tuple[str, str, bool]]:
    """Per `word` in `tokens`: the words on either side ('' at either end), and whether a
    negation stands among the `SCOPE_TOKENS` before it."""
    padded = ["", *tokens, ""]
    return {
        (
            padded[i - 1],
            padded[i + 1],
            any(_negating(t) for t in padded[max(0, i - SCOPE_TOKENS) : i]),
        )
        for i, t in enumerate(padded)
        if t == word
    }


def _negating(token: str) -> bool:
    return token in _NEGATION or token.endswith("n't")


def _said_beside(word: str, part: list[str], span: str) -> bool:
    """A span sentence says `word` beside the same word as the claim part does, negated alike
    ("to only select", "aren't human at all"; not "all cases" against "not all cases", nor
    "are human at all" against "aren't human at all"): the claim repeats the span's own
    quantifier, whichever span sentence it is aligned with."""
    mine = _contexts(part, word)
    theirs = {c for s in _SENTENCE.split(span) if s.strip() for c in _contexts(_tokens(s), word)}
    return any(
        neg == sneg and ((cp and cp == sp) or (cn and cn == sn))
        for cp, cn, neg in mine
        for sp, sn, sneg in theirs
    )


def quantifier_mismatches(claim: str, span: str) -> list[str]:
    """Strong quantifiers of the claim that no best-aligned unit of the span licenses, and that
    no span sentence says in the same place."""
    units, out = _span_units(span), []
    for part in _CLAIM_CLAUSE.split(claim):
        if not part.strip():
            continue
        clause, tokens = _unit(part), _tokens(part)
        aligned = _aligned(clause, units)
        for word in dict.fromkeys(_strong(tokens)):
            if (
                aligned
                and all(_unlicensed(word, whole) for whole, _ in aligned)
                and not _said_beside(word, tokens, span)
            ):
                out.append(f"'{word}' where the span says less")
    return out
