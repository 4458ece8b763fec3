"""The extractive generator: claims are evidence units, so it always works offline.

Claims first: the evidence units of the top hits (`server.query.evidence`: a sentence, or a
sentence with the list or code it introduces, never a pointer, a change-log entry or a
fragment unless the question asks for one) are scored against the question (embedding
cosine of the unit, read with its heading path in a sectioned document; content-word
overlap; the hit's rerank score relative to the best hit's; weights and cut-offs in
`generation` settings, fitted by `evals/calibration/extractive.py`), picked greedily
without redundancy, typed, and each gets one citation slot whose quote is the exact unit
(a unit copied into another recalled document, word for word or with a short clause added, is
one slot, the other document and the copy's span in its `also_in`).
The best unit leads the answer (the direct answer first; for a question that asks for a
duration, price, size, count ..., the best unit that states one; for a "how do I" question, the
best unit that carries code); the others follow by
score, one paragraph (segment) per section in the order the sections first appear. Chosen
units that sit side by side in one chunk (only whitespace or a list marker between them) are
one citation over both (`generation.join_adjacent`): "Create a random secret key ..." cited
with the command after it, the passage read in its own order.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from server.core import markdown
from server.core.contracts import AlsoIn, CitationSlot, Claim, Draft, Hit, Offsets
from server.core.ports import Embedder
from server.core.settings.generation import GenerationSettings
from server.core.text import (
    HTML_COMMENT,
    asking_sentences,
    content_words,
    embed_input,
    word_run,
)
from server.query.answer_types import (
    acronyms,
    asked_types,
    asks_how_to,
    code_names,
    common_names,
    defines_asked,
    focus_words,
    gives_default,
    instructs,
    instructs_closely,
    leads,
    stated_kinds,
    states_kind,
)
from server.query.claims import classify_claim, render
from server.query.evidence import (
    CUT_MARK,
    Unit,
    admissible,
    sentence_parts,
    unit_input,
    units,
)
from server.query.integrity.numbers import normalise_numbers
from server.query.retrieve import cosine


@dataclass(frozen=True)
class Features:
    """One candidate unit and what its score is made of (computed once per question)."""

    hit: Hit
    sentence: Unit
    cosine: float  # question vs sentence embedding
    overlap: float  # share of the question's content words in the sentence
    hit_score: float  # the hit's rerank score relative to the best hit's (best = 1)
    words: frozenset[str]  # content words, for the redundancy test
    instruction: bool = False  # says how to do what a how-to question asks (`instructs`)


@dataclass(frozen=True)
class Picked:
    hit: Hit
    sentence: Unit
    score: float
    words: frozenset[str]
    also_in: tuple[AlsoIn, ...] = ()  # other documents whose candidate unit is this same text


def _copies(a: Picked, b: Picked, jaccard: float) -> bool:
    """Two units of different documents that are one passage copied: the same text as read
    (whitespace, case and Markdown emphasis aside), or the smaller's content words all in the
    larger at `jaccard` or more (a short clause added)."""
    if a.hit.chunk.doc_id == b.hit.chunk.doc_id:
        return False
    if a.sentence.display.casefold() == b.sentence.display.casefold():
        return True
    small, large = sorted((a.words, b.words), key=len)
    return bool(small) and small <= large and _jaccard(a.words, b.words) >= jaccard


def _twin(cand: Picked, chosen: Picked) -> Picked:
    """`chosen` with `cand`, the same text in another document, listed in its `also_in`; the
    copy with the later `updated_at` is the one cited (as for near-duplicate chunks)."""
    later = cand.hit.chunk.updated_at > chosen.hit.chunk.updated_at
    keep, other = (cand, chosen) if later else (chosen, cand)
    at = Offsets(start=other.sentence.start, end=other.sentence.end)
    also = (*chosen.also_in, *cand.also_in, AlsoIn.of(other.hit.chunk, at))
    return dataclasses.replace(keep, score=chosen.score, also_in=also)


def _overlap(question: Mapping[str, float], words: list[str]) -> float:
    """Weighted share of the question's content words `words` holds (`question_weights`)."""
    total = sum(question.values())
    return sum(question[w] for w in set(words) if w in question) / total if total else 0.0


# A question of several sentences ("Our servers have no internet access. What can I do?")
# asks in the ones that end in "?": their words count this many times as much as the
# setting's words (our choice).
ASKING_SENTENCE_WEIGHT = 2.0


def question_weights(question: str) -> dict[str, float]:
    """The question's content words, each weighted 1, or `ASKING_SENTENCE_WEIGHT` when the
    question has several sentences and this word is in one that asks (`asking_sentences`)."""
    asked = asking_sentences(question)
    asking = set(content_words(asked)) if asked != question else set()
    return {w: ASKING_SENTENCE_WEIGHT if w in asking else 1.0 for w in content_words(question)}


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _inside(a: frozenset[str], b: frozenset[str]) -> float:
    """Share of `a`'s words found in `b`: a candidate inside a chosen unit says nothing new;
    one that holds a chosen unit and more does (the lead-in "You can configure the two
    documentation user interfaces included: ..." with its list of settings, beside the
    chosen "For example, to set Swagger UI to be served at `/documentation` and disable
    ReDoc."). Measured (all-MiniLM-L6-v2, extractive), against the share of the smaller
    unit's words: FastAPI dev citation match 0.753 -> 0.767, match@1 0.589 -> 0.603 (f53);
    no other tune or dev figure moved."""
    return len(a & b) / len(a) if a else 0.0


def features(
    question: str,
    hits: Sequence[Hit],
    embedder: Embedder,
    evidence_hits: int,
    max_unit_chars: int = 900,
) -> list[Features]:
    """Every admissible unit of the top `evidence_hits` hits (never a question: it asserts
    nothing); a unit repeated by overlapping chunks is scored once."""
    seen: set[tuple[str, int, int]] = set()
    pairs = []
    for h in hits[:evidence_hits]:
        for u in units(h.chunk, max_unit_chars):
            key = (h.chunk.doc_id, u.start, u.end)
            if key in seen or not admissible(u, question):
                continue
            seen.add(key)
            pairs.append((h, u))
    if not pairs:
        return []
    # the corpus's own name ("GitHub", "FastAPI": `common_names`) says nothing of what is asked
    chunks = [h.chunk for h in hits[:evidence_hits]]
    common = common_names(question, [embed_input(k.title, k.heading, k.text) for k in chunks])
    qwords = {w: x for w, x in question_weights(question).items() if w not in common}
    vectors = embedder.embed_documents([unit_input(h.chunk, s.scored) for h, s in pairs])
    qv = embedder.embed_query(question)
    best = max(h.score_norm for h in hits[:evidence_hits]) or 1.0
    return [
        Features(
            h,
            s,
            cosine(qv, v),
            _overlap(qwords, words := content_words(s.quote)),
            h.score_norm / best,
            frozenset(words),
            instructs(question, s.display),
        )
        for (h, s), v in zip(pairs, vectors, strict=True)
    ]


def scored(found: Sequence[Features], cfg: GenerationSettings) -> list[Picked]:
    """Every unit with its score (the `generation` weights), best first; ties by hit rank,
    then by position."""
    return sorted(
        (
            Picked(
                f.hit,
                f.sentence,
                cfg.w_cosine * f.cosine
                + cfg.w_overlap * f.overlap
                + cfg.w_hit * f.hit_score
                + cfg.w_instruction * f.instruction,
                f.words,
            )
            for f in found
        ),
        key=lambda c: (-c.score, c.hit.k_final or 0, c.sentence.start),
    )


def select(found: Sequence[Features], cfg: GenerationSettings, max_claims: int) -> list[Picked]:
    """Score every sentence; pick greedily above the floors, mostly one section, no repeats."""
    return _pick(scored(found, cfg), cfg, max_claims)


def _floor(ranked: Sequence[Picked], cfg: GenerationSettings) -> float:
    """The score a unit needs to be chosen: absolute, and relative to the best (non-empty)."""
    return max(cfg.min_score, cfg.relative_cutoff * ranked[0].score)


def _pick(ranked: Sequence[Picked], cfg: GenerationSettings, max_claims: int) -> list[Picked]:
    """Greedy, best first (`ranked` from `scored`)."""
    if not ranked:
        return []
    top = ranked[0]
    floor = _floor(ranked, cfg)
    chosen: list[Picked] = []
    for cand in ranked:
        if cand.score < floor or len(chosen) == max_claims:
            break
        # joined to its twin below; or a longer unit over a chosen one (`distinct` would
        # leave one out)
        if _twin_of(cand, chosen, cfg.twin_jaccard) is not None or any(
            _covers(cand, c) for c in chosen
        ):
            continue
        held = next((i for i, c in enumerate(chosen) if _holds(cand, c)), None)
        if held is not None:  # says a chosen unit again with more around it: a copy of it
            chosen[held] = _held_in(chosen[held], cand)
            continue
        far = (
            cand.hit.chunk.section_id != top.hit.chunk.section_id
            and cand.score < cfg.other_section_cutoff * top.score
        )
        if not far and not _redundant(cand, chosen, cfg):
            chosen.append(cand)
    # A chosen unit copied into another recalled document, whatever that copy scored (its
    # hit's rank is what differs): one slot, the other document in `also_in`.
    for cand in ranked:
        i = _twin_of(cand, chosen, cfg.twin_jaccard)
        if i is not None and cand.hit.chunk.doc_id not in _docs(chosen[i]):
            chosen[i] = _twin(cand, chosen[i])
    return chosen


# Words that open a sentence leaning on the one before it: a connective ("But that magic
# doesn't work anymore ..."), or a pronoun or demonstrative whose referent is there ("There
# will be no refunds ...", "This includes ..."). English function words, no corpus's phrases.
_LEAN_WORDS = (
    "but|however|and|so|yet|otherwise|instead|then|still|also|this|that|these|those|it|"
    "it's|they|such|thus|hence|therefore"
)
_LEANS = re.compile(rf"(?:{_LEAN_WORDS}|there|because)\b", re.IGNORECASE)
# Of those, the ones that lean on the paragraph before when they open a paragraph: not the
# existential "There are ..." nor "Because ...", which state their own reason.
_LEANS_BACK = re.compile(rf"(?:{_LEAN_WORDS})\b", re.IGNORECASE)


def _opening(unit: Unit) -> str:
    """The unit's reading text past emphasis (not a code span's backtick)."""
    return unit.display.lstrip("*_ ")


def continues(unit: Unit, gap: str) -> bool:
    """Whether `unit` (a sentence or a lead-in, `gap` after the unit before it) reads as the
    rest of that unit: it opens in lower case (the sentence broke off for code: "... executed
    when your file is called with: <code> but is not called when another file imports it"),
    or, in the same paragraph, with a word that leans on the sentence before (`_LEANS`). A
    list item is the next of a list, never the rest of a sentence."""
    if unit.kind not in ("sentence", "lead_in"):
        return False
    text = _opening(unit)
    if text[:1].islower():
        return True
    return "\n\n" not in gap and _LEANS.match(text) is not None


def _goes_on(a: Picked, b: Picked) -> bool:
    """`b` comes right after `a` in its chunk and continues it (`continues`)."""
    return _adjacent(a, b) and continues(b.sentence, _gap(a, b))


def with_continuations(
    ranked: Sequence[Picked], chosen: list[Picked], cfg: GenerationSettings
) -> list[Picked]:
    """Each chosen unit with the unit right after it in its chunk when that one continues it
    (`continues`) and clears the floor the chosen units cleared: one citation over both,
    since the answer often sits in the sentence that leans on the one found ("The
    `TestClient` does some magic inside ..." and "But that magic doesn't work anymore when
    we're using it inside asynchronous functions." for "Why can't I keep using TestClient
    once my tests are async def?"). Joined before the lead is chosen, so a value the second
    states can lead. Measured (all-MiniLM-L6-v2, extractive, `citegate eval`, with the
    `</div>` gap of `_adjacent`): FastAPI tune2 citation match 0.633 -> 0.733 (t13, t20; t01
    no longer refused), incorrect refusal 0.067 -> 0.033; FastAPI dev match@1 0.575 ->
    0.589; no other figure of the FastAPI and site-policy dev, tune2 and tune3 sets or ClapNQ
    rows 0-149 moved; cited characters per answer up 1-4 %."""
    if not chosen or not cfg.join_continuations:
        return chosen
    floor = _floor(ranked, cfg)
    out = list(chosen)
    for i, c in enumerate(out):
        rest = next(
            (
                n
                for n in ranked
                if n.score >= floor and _goes_on(c, n) and not any(_overlapping(n, k) for k in out)
            ),
            None,
        )
        if rest is not None:
            out[i] = _joined(c, rest)
    return out


def lead_with_head(
    ranked: Sequence[Picked], chosen: list[Picked], cfg: GenerationSettings
) -> list[Picked]:
    """The leading unit, when it leans on the text before it, is cited with that text: an
    answer does not open on a pronoun or connective whose referent it never shows. The head
    is the unit right before it in its chunk when the lead continues it (`continues`: "It
    also listens on the IP address `0.0.0.0` ...", "in that case, the automatically created
    variable ...") or opens a paragraph that leans on the one before (`_LEANS_BACK`, after a
    sentence or a lead-in: "You can use `jsonable_encoder` for that." before "It receives an
    object, like a Pydantic model, and returns a JSON compatible version:"). A chosen unit
    that is the head joins the lead (`join_adjacent` would join them later, too late for
    the next step); otherwise the head is a unit of `ranked` that no chosen unit overlaps,
    within `max_unit_chars`. A head that leans in turn takes its own, across one paragraph
    break at most (the paragraph before, not the page before the answer: "Most of the
    standard headers are separated by a hyphen ... But a variable like `user-agent` is
    invalid in Python. So, by default, `Header` will convert ... Also, HTTP headers are
    case-insensitive" came to open on its background). Only the lead: the
    units after it read after other evidence; it keeps its score and place. Measured (stop
    63, all-MiniLM-L6-v2, extractive; same-paragraph heads since stop 45): 7 leads of the
    FastAPI sets changed, no figure of the FastAPI and site-policy dev, tune2, tune3 and
    blind sets or ClapNQ rows 0-149 moved. With no limit on paragraph breaks, FastAPI dev
    f56 cited its gold first (0.822 -> 0.836) and f33 opened on four paragraphs of
    background before its answer; the limit was kept for the reading."""
    if not chosen or not cfg.join_continuations:
        return chosen
    lead, others = chosen[0], list(chosen[1:])
    across = True  # a paragraph break may still be crossed
    while True:
        held = next((i for i, k in enumerate(others) if _leans_on(k, lead, across)), None)
        head = others.pop(held) if held is not None else _head_of(ranked, lead, others, across)
        if head is None or (
            held is None and lead.sentence.end - head.sentence.start > cfg.max_unit_chars
        ):
            return [lead, *others]
        across = across and continues(lead.sentence, _gap(head, lead))
        lead = dataclasses.replace(_joined(head, lead), score=chosen[0].score)


def fragments_with_heads(
    ranked: Sequence[Picked], chosen: list[Picked], cfg: GenerationSettings
) -> list[Picked]:
    """A chosen unit after the lead that opens in lower case is the rest of a sentence that
    code broke off ("that would mean that you would use the versions `0.112.0` or above
    ..."): it is cited with the unit it goes on from (`continues`), when no other chosen
    unit overlaps that one, within `max_unit_chars`, at its own place. Only such fragments:
    taking the sentence before for every leaning unit after the lead cost FastAPI dev
    match@1 0.603 -> 0.589 (stop 45, `lead_with_head`)."""
    if not cfg.join_continuations:
        return chosen
    out = list(chosen)
    for i, unit in enumerate(out[1:], start=1):
        if not _opening(unit.sentence)[:1].islower():
            continue
        others = out[:i] + out[i + 1 :]
        head = _head_of(ranked, unit, others, across=False)
        if head is not None and unit.sentence.end - head.sentence.start <= cfg.max_unit_chars:
            out[i] = dataclasses.replace(_joined(head, unit), score=unit.score)
    return out


def _leans_on(p: Picked, lead: Picked, across: bool) -> bool:
    """`lead` comes right after `p` in its chunk and leans on it (see `lead_with_head`):
    continues it (`_goes_on`), or, when `across`, opens the paragraph after it with
    `_LEANS_BACK`."""
    if _goes_on(p, lead):
        return True
    return (
        across
        and _adjacent(p, lead)
        and "\n\n" in _gap(p, lead)
        and p.sentence.kind in ("sentence", "lead_in")
        and lead.sentence.kind in ("sentence", "lead_in")
        and _LEANS_BACK.match(_opening(lead.sentence)) is not None
    )


def _head_of(
    ranked: Sequence[Picked], lead: Picked, others: Sequence[Picked], across: bool
) -> Picked | None:
    """The unit of `ranked` that `lead` leans on (`_leans_on`) and no chosen unit overlaps."""
    return next(
        (
            p
            for p in ranked
            if _leans_on(p, lead, across) and not any(_overlapping(p, k) for k in others)
        ),
        None,
    )


def _twin_of(cand: Picked, chosen: Sequence[Picked], jaccard: float) -> int | None:
    """The chosen unit `cand` copies from another document, if any."""
    return next((i for i, c in enumerate(chosen) if _copies(c, cand, jaccard)), None)


def _docs(p: Picked) -> set[str]:
    return {p.hit.chunk.doc_id, *(a.doc_id for a in p.also_in)}


def shows_code(unit: Unit) -> bool:
    """The unit carries code: a code block, alone or under the sentence that introduces it,
    or the file an include directive names."""
    return unit.kind == "code" or unit.reference is not None or markdown.has_fence(unit.quote)


def _with_best(
    ranked: Sequence[Picked],
    chosen: list[Picked],
    cfg: GenerationSettings,
    max_claims: int,
    wanted: Callable[[Unit], bool],
) -> list[Picked]:
    """`chosen` with the best unit of `ranked` that is `wanted`, when no chosen unit is: it
    joins them first (in place of the weakest at `max_claims`) if it clears the floors the
    chosen units cleared and comes from the best chosen unit's document."""
    if not chosen or any(wanted(c.sentence) for c in chosen):
        return chosen
    floor = _floor(ranked, cfg)  # chosen units came from `ranked`, so it is not empty
    docs = _docs(chosen[0])
    best = next(
        (
            c
            for c in ranked
            if c.score >= floor and c.hit.chunk.doc_id in docs and wanted(c.sentence)
        ),
        None,
    )
    if best is None:
        return chosen
    rest = [c for c in chosen if not _overlapping(c, best)]
    return [best, *rest[: max_claims - 1]]


def with_code(
    question: str,
    ranked: Sequence[Picked],
    chosen: list[Picked],
    cfg: GenerationSettings,
    max_claims: int,
) -> list[Picked]:
    """A "how do I" question is answered in technical documentation by the code that does it:
    when no chosen unit carries code, the best unit that does joins them (`_with_best`: in
    place of the weakest at `max_claims`, if it clears the floors the chosen units cleared
    and comes from the best chosen unit's document; code elsewhere on the topic shows
    something else: the first-steps file for "how do I debug my app"). `lead_with_value` then
    puts it first. Such code is passed over when other units fill the claims first (the
    other-section cut-off, redundancy, `max_claims`). Measured, all-MiniLM-L6-v2 extractive,
    `citegate eval` on the FastAPI dev set: citation match 0.699 -> 0.726, match@1 0.507 ->
    0.534 (f51 `--workers`, f67 the temporary response's `status_code`), nothing else lost;
    site policy and the ClapNQ held-out half unchanged (no code)."""
    if not asks_how_to(question):
        return chosen
    return _with_best(ranked, chosen, cfg, max_claims, shows_code)


def with_value(
    question: str,
    ranked: Sequence[Picked],
    chosen: list[Picked],
    cfg: GenerationSettings,
    max_claims: int,
) -> list[Picked]:
    """A question that asks for a kind of value (a version, a date, a duration:
    `answer_types.states_kind`) is answered by the unit that states one: when no chosen
    unit does, the best unit that does joins them (`_with_best`), as `with_code` does for
    code. "How can I document outgoing webhooks, and which FastAPI version do I need?" chose
    the units on how, none with "supported by FastAPI `0.99.0` and above", and the
    answer-type rule then refused it. `lead_with_value` puts it first; a value about
    something else is still refused (`answer_types.unbound`)."""
    kinds = asked_types(question)  # read once, not for every unit
    if not kinds:
        return chosen
    return _with_best(ranked, chosen, cfg, max_claims, lambda u: states_kind(kinds, u.display))


def distinct(chosen: list[Picked]) -> list[Picked]:
    """Each character cited once: a unit overlapping one placed before it is left out. A
    lead-in carries the first items of its list, so the list's item that leads ("`allow_origins`
    - A list of origins ...") and its lead-in ("The following arguments are supported: *
    `allow_origins` - ...") showed that item twice; redundancy by words misses it when the item
    runs past the lead-in's cut. Measured, all-MiniLM-L6-v2 extractive units on the dev sets:
    2 of 105 FastAPI answers change (f01, f15), no gold citation lost; site policy none."""
    kept: list[Picked] = []
    for c in chosen:
        if not any(_overlapping(c, k) for k in kept):
            kept.append(c)
    return kept


def _covers(a: Picked, b: Picked) -> bool:
    """`a`'s span holds `b`'s, in the same document."""
    return (
        a.hit.chunk.doc_id == b.hit.chunk.doc_id
        and a.sentence.start <= b.sentence.start
        and b.sentence.end <= a.sentence.end
    )


def _redundant(cand: Picked, chosen: Sequence[Picked], cfg: GenerationSettings) -> bool:
    """A chosen unit says much the same: most words alike, or most of `cand`'s inside it,
    and no number of `cand` it lacks ("up to 16 weeks leave" for the primary caregiver is
    not said by "up to 6 weeks leave" for the secondary one)."""
    numbers = _numbers(cand)
    return any(
        (
            _jaccard(cand.words, c.words) > cfg.redundant_overlap
            or _inside(cand.words, c.words) > cfg.redundant_containment
        )
        and numbers <= _numbers(c)
        for c in chosen
    )


def _numbers(p: Picked) -> set[str]:
    return normalise_numbers(p.sentence.display)


# Characters a chosen unit needs for a longer unit of another document to be a copy of it
# because it holds its text (our choice: a short phrase is held by chance).
HELD_MIN_CHARS = 30


def _as_read(p: Picked) -> str:
    """The unit's text as read, whitespace and case aside."""
    return " ".join(p.sentence.display.casefold().split())


def _holds(a: Picked, b: Picked) -> bool:
    """`a`, in another document, says all of `b` as read (whitespace and case aside) and more:
    a Markdown list item that holds the sentence an HTML copy of the page gave alone."""
    said = _as_read(b)
    return (
        a.hit.chunk.doc_id not in _docs(b) and len(said) >= HELD_MIN_CHARS and said in _as_read(a)
    )


def _held_in(chosen: Picked, holder: Picked) -> Picked:
    """`chosen` with `holder`'s document in its `also_in`, at the place there that says the
    chosen text's words (the holder's whole unit when they cannot be found in order)."""
    held = holder.sentence
    lo, hi = word_run(chosen.sentence.quote, held.quote) or (0, held.end - held.start)
    at = Offsets(start=held.start + lo, end=held.start + hi)
    return dataclasses.replace(chosen, also_in=(*chosen.also_in, AlsoIn.of(holder.hit.chunk, at)))


def _overlapping(a: Picked, b: Picked) -> bool:
    return (
        a.hit.chunk.doc_id == b.hit.chunk.doc_id
        and a.sentence.start < b.sentence.end
        and b.sentence.start < a.sentence.end
    )


def lead_with_value(question: str, chosen: list[Picked], margin: float = 0.0) -> list[Picked]:
    """Best first, except that when the question asks for a kind of value (a duration, a
    price, a count: `server.query.answer_types`; a duration also for "how long is / are")
    the best unit that states one leads (of several, one that states most of the kinds asked,
    `answer_types.stated_kinds`, then the one most about the asked thing: `_about`); when it
    asks what a term is ("What does X do?") the best unit that opens with the term's
    definition does ("X - a list of ...", '"X" means'); and when it asks how to do something
    ("How do I ...?") the best unit that carries code does: the direct answer first, the units that
    explain the topic after it. Measured (all-MiniLM-L6-v2, FastAPI dev run files): of 33
    answered how-to questions, the code unit leading puts the gold first in 14 instead of 8,
    and moves it from first in none. Otherwise, of the units scored within `margin` of the
    best, the one most about the asked thing (`_about`) leads."""
    stating = [i for i, c in enumerate(chosen) if leads(question, c.sentence.display)]
    said = {i: stated_kinds(question, chosen[i].sentence.display) for i in stating}
    stating = [i for i in stating if said[i] == max(said.values())]  # most of what is asked
    # a default asked for: a unit that gives one ("By default the certifi CA bundle is used")
    # before one that only names it ("... instead of the default location")
    giving = [i for i in stating if gives_default(question, chosen[i].sentence.display)]
    lead = _most_about(question, chosen, giving or stating)
    if lead is None:
        lead = next(
            (i for i, c in enumerate(chosen) if defines_asked(question, c.sentence.display)), None
        )
    if lead is None:  # the question's own task with its instruction (`instructs_closely`)
        lead = next(
            (i for i, c in enumerate(chosen) if instructs_closely(question, c.sentence.display)),
            None,
        )
    if lead is None and asks_how_to(question):
        code = [i for i, c in enumerate(chosen) if shows_code(c.sentence)]
        # of those, the one with most of the question's numbers ("60 seconds to connect,
        # 10 for everything else": `Timeout(10.0, connect=60.0)`), the better scored of equals
        asked = normalise_numbers(question)
        lead = max(code, key=lambda i: (len(asked & _numbers(chosen[i])), -i), default=None)
    if lead is None and chosen:
        # units scored within `margin` of the best are as good an answer by score: of them,
        # the one most about the asked thing leads ("Which IP address does fastapi run listen
        # on?": the `fastapi run` section's address, not the `fastapi dev` one's)
        near = [i for i, c in enumerate(chosen) if c.score >= chosen[0].score - margin]
        lead = _most_about(question, chosen, near)
    lead = lead or 0
    return [chosen[lead], *chosen[:lead], *chosen[lead + 1 :]] if chosen else []


# A terminal session: a shell block holding a prompt line ("$ uv run python main.py --help")
# and what the program printed or a comment on it ("Usage: main.py [OPTIONS]", "// It won't
# show the env var"). It shows a feature at work; the sentence that names the feature answers.
_SESSION = re.compile(
    r"^[ \t]*(?:```|~~~)[ \t]*(?:console|shell-session|bash|shell|sh|zsh|powershell|pwsh)"
    r"[ \t]*\n(.*?)^[ \t]*(?:```|~~~)",
    re.MULTILINE | re.DOTALL,
)
_PROMPT = re.compile(r"^[ \t]*(?:\$|PS[^>\n]*>|>>>|\.\.\.)(?:[ \t]|$)")


def demonstrates(text: str) -> bool:
    """`text` holds a terminal session with output: a prompt line and a line that is none."""
    for m in _SESSION.finditer(text):
        lines = [line for line in m.group(1).splitlines() if line.strip()]
        prompts = sum(bool(_PROMPT.match(line)) for line in lines)
        if 0 < prompts < len(lines):
            return True
    return False


def lead_past_session(question: str, chosen: list[Picked]) -> list[Picked]:
    """A terminal session with its output (`demonstrates`) does not lead the answer to a
    question that asks neither how to do something nor for a value (`asks_how_to`,
    `answer_types.asked_types`: a command, a port, a default are read off a session): the
    best chosen unit without one leads, the session right after it. "I'd rather not
    advertise the env var's name in --help. Can I hide it?" is answered by "... you can
    disable them with `show_envvar=False`", not by the `--help` output that shows it hidden."""
    if not chosen or asks_how_to(question) or asked_types(question):
        return chosen
    if not demonstrates(chosen[0].sentence.display):
        return chosen
    lead = next((i for i, c in enumerate(chosen) if not demonstrates(c.sentence.display)), 0)
    return [chosen[lead], *chosen[:lead], *chosen[lead + 1 :]]


def _most_about(question: str, chosen: Sequence[Picked], candidates: list[int]) -> int | None:
    """Of the `candidates` (indexes into `chosen`), the one most about the asked thing
    (`_about`), a word of the code the question writes counting twice where the unit, the
    sentence before it or its headings write it too (`answer_types.code_names`: "do I still
    need to call .scalars()?" is answered by the unit about `.scalars()`, not by one about
    SQLAlchemy at large; counted once more, not first, because code may only set the
    scene: "In Field(foreign_key=...), do I reference the model class name?"; read with the
    headings, as the other words are, because a setting's description often names it only
    in its heading: `sni_hostname`), the earlier of equals; None when there is none."""
    several = len(candidates) > 1
    focus = _focus(question, chosen) if several else frozenset()
    code = code_names(question) if several else frozenset()
    short = acronyms(question) if several else {}
    return max(candidates, key=lambda i: (_about(focus, chosen[i], code, short), -i), default=None)


def _focus(question: str, chosen: Sequence[Picked]) -> frozenset[str]:
    """What the question asks about (`answer_types.focus_words`), without its names that
    every chosen unit's chunk holds."""
    chunks = {c.hit.chunk.snippet_id: c.hit.chunk for c in chosen}.values()
    common = common_names(question, [embed_input(k.title, k.heading, k.text) for k in chunks])
    return focus_words(question, common)


def _about(
    focus: frozenset[str],
    c: Picked,
    code: frozenset[str] = frozenset(),
    short: Mapping[str, frozenset[str]] | None = None,
) -> int:
    """How many of the `focus` words unit `c` shares, in its text, the sentence before it in
    its paragraph, or its chunk's title and headings, the words of the question's `code`
    counted twice, and an acronym of the question's names (`short`, `answer_types.acronyms`)
    read as the words it stands for ("SIRT" in a heading is "Security Incident Response
    Team"): of two units that state the asked kind,
    the one about the asked thing leads ("the `user_session` cookie ... Two weeks" before
    another cookie's "One hour"; "You must make this request within 90 days" read with the
    sentence that says what the request is: "... provide an Account owner with a copy ...")."""
    chunk = c.hit.chunk
    text = embed_input(chunk.title, chunk.heading, f"{_before(c)} {c.sentence.display}")
    said = set(content_words(text))
    for acronym, words in (short or {}).items():
        if re.search(rf"\b{acronym}s?\b", text):
            said |= words
    return len(focus & said) + len(code & said)


def _before(c: Picked) -> str:
    """The sentence before unit `c` in its paragraph, or ''."""
    chunk = c.hit.chunk
    head = chunk.text[: max(0, c.sentence.start - chunk.offsets.start)]
    parts = sentence_parts(head[head.rfind("\n\n") + 1 :])  # the whole head without a break
    return parts[-1] if parts else ""


# ASCII whitespace, bare HTML tags or comments (`</div>` after a console block), or the next
# item's marker. Not any Unicode space: a span the injection guard withheld reads as a run of
# FIGURE SPACE (`injection.FILLER`), and two units on either side of it are not one passage
# (joined, the citation would cover the withheld text).
_BETWEEN = re.compile(
    rf"(?:\s|{markdown.HTML_TAG.pattern}|{HTML_COMMENT.pattern})*(?:(?:[-*+]|\d+[.)])[ \t]+)?",
    re.ASCII,
)


def _gap(a: Picked, b: Picked) -> str:
    """The chunk text between the end of `a` and the start of `b`."""
    base = a.hit.chunk.offsets.start
    return a.hit.chunk.text[a.sentence.end - base : b.sentence.start - base]


def _adjacent(a: Picked, b: Picked) -> bool:
    """`b` starts where `a` ends in the same chunk, with only whitespace, bare HTML tags or
    comments, or a list marker between them; a content tab (`=== "Windows"`) never continues
    the one before it: tabs are alternatives ("macOS and Linux:" beside "Windows:")."""
    if a.hit.chunk.snippet_id != b.hit.chunk.snippet_id or b.sentence.start < a.sentence.end:
        return False
    if markdown.tab_label(b.sentence.quote.split("\n", 1)[0]) is not None:
        return False
    return bool(_BETWEEN.fullmatch(_gap(a, b)))


def _joined(a: Picked, b: Picked) -> Picked:
    """`a` and `b` (adjacent, `a` first in the text) as one unit over both spans."""
    base = a.hit.chunk.offsets.start
    quote = a.hit.chunk.text[a.sentence.start - base : b.sentence.end - base]
    sep = "\n" if "\n" in _gap(a, b) else " "
    # `a` cut short is cut no longer: what it went on with follows (the items past its cut)
    first = a.sentence.display.removesuffix(CUT_MARK)
    unit = dataclasses.replace(
        a.sentence,
        end=b.sentence.end,
        quote=quote,
        display=f"{first}{sep}{b.sentence.display}",
        reference=a.sentence.reference or b.sentence.reference,
    )
    return dataclasses.replace(
        a,
        sentence=unit,
        score=max(a.score, b.score),
        words=a.words | b.words,
        also_in=_joined_copies((*a.also_in, *b.also_in)),
    )


def _joined_copies(copies: Sequence[AlsoIn]) -> tuple[AlsoIn, ...]:
    """The copies of two joined units, one per document: the copies of both in one document
    are the joined passage there, one span from the first's start to the last's end (a
    citation lists each document once, so the second copy would otherwise be lost)."""
    out: dict[str, AlsoIn] = {}
    for a in copies:
        had = out.get(a.doc_id)
        if had is None or had.span is None:
            out[a.doc_id] = a
        elif a.span is not None:
            span = Offsets(
                start=min(had.span.start, a.span.start), end=max(had.span.end, a.span.end)
            )
            out[a.doc_id] = had.model_copy(update={"span": span})
    return tuple(out.values())


def join_adjacent(chosen: list[Picked]) -> list[Picked]:
    """Chosen units that sit side by side in one chunk ("Create a random secret key ..." and
    the command after it) become one citation over both, at the earlier one's place in the
    answer: the passage reads in its own order, and the lead carries what it leads into."""
    out = list(chosen)
    pair = _adjacent_pair(out)
    while pair is not None:
        i, j = pair  # out[i] ends where out[j] starts
        out[min(i, j)] = _joined(out[i], out[j])
        del out[max(i, j)]
        pair = _adjacent_pair(out)
    return out


def _adjacent_pair(units: Sequence[Picked]) -> tuple[int, int] | None:
    return next(
        ((i, j) for i, a in enumerate(units) for j, b in enumerate(units) if _adjacent(a, b)),
        None,
    )


class ExtractiveGenerator:
    """`Generator` that selects evidence sentences; deterministic (the seed changes nothing)."""

    def __init__(self, embedder: Embedder, cfg: GenerationSettings, *, max_claims: int) -> None:
        self._embedder = embedder
        self._cfg = cfg
        self._max_claims = max_claims

    @property
    def name(self) -> str:
        return "extractive"

    def generate(self, question: str, hits: Sequence[Hit], *, seed: int = 0) -> Draft:
        found = features(
            question, hits, self._embedder, self._cfg.evidence_hits, self._cfg.max_unit_chars
        )
        ranked = scored(found, self._cfg)
        chosen = _pick(ranked, self._cfg, self._max_claims)
        chosen = with_continuations(ranked, chosen, self._cfg)
        chosen = with_code(question, ranked, chosen, self._cfg, self._max_claims)
        chosen = with_value(question, ranked, chosen, self._cfg, self._max_claims)
        chosen = distinct(lead_with_value(question, chosen, self._cfg.lead_margin))
        chosen = lead_past_session(question, chosen)
        chosen = lead_with_head(ranked, chosen, self._cfg)
        chosen = fragments_with_heads(ranked, chosen, self._cfg)
        if self._cfg.join_adjacent:
            chosen = join_adjacent(chosen)
        # The best unit leads; each section's units stay together, by score.
        sections = list(dict.fromkeys(c.hit.chunk.section_id for c in chosen))
        chosen.sort(key=lambda c: sections.index(c.hit.chunk.section_id))
        claims = []
        for n, cand in enumerate(chosen, start=1):
            s = cand.sentence
            slot = CitationSlot(
                n=n,
                snippet_id=cand.hit.chunk.snippet_id,
                offsets=Offsets(start=s.start, end=s.end),
                quote=s.quote,
                also_in=cand.also_in,
            )
            claims.append(
                Claim(
                    id=f"c{n}",
                    text=s.display,
                    type=classify_claim(s.display),
                    citations=(slot,),
                    segment=sections.index(cand.hit.chunk.section_id) + 1,
                    reference=s.reference,
                )
            )
        return Draft(claims=tuple(claims), answer=render(claims), generator=self.name)
