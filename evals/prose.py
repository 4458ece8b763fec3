"""Human-written answers as LLM drafts: does the real check -> repair -> gate path let good
claims through and stop perturbed ones? (issue "[gate]")

    python -m evals.prose --out runs/prose.json [--limit 150] [--bacc-per-set 400]
                          [--data ../shared/data]

A good LLM is stood in for by human-written answers with their passages: ClapNQ long answers
(one Wikipedia passage each) and MTRAG-UN reference answers (up to 10 passages). Each answer
sentence becomes a claim citing the passage sentence(s) it rests on, found by content-word
overlap (at least `MIN_COVERAGE` of the sentence's content words; sentences that no passage
holds that well are left out of the draft and counted); the quote is the exact passage text
at exact offsets. Each passage is one document and one chunk (offsets 0..len), every chunk is
live, and the draft (at most `integrity.max_claims` claims, as the LLM schema allows) is handed
to `server.query.answer.generate_verified` by a scripted generator: fence, label, evaluate,
regenerate (the same hits, the same draft), repair, gate, exactly as for an LLM draft.

Bad drafts are good drafts with one perturbation (only where it applies): `number`, `entity`,
`negation`, `quantifier`, `unsupported_addition`, `neighbour_citation`, `merged` (see the
functions of the same names). A perturbed claim is *caught* when it does not reach the user as
drafted with a PASS verdict: the answer fell back to "I don't know", or the claim was withheld,
stripped, substituted (or its citation changed). `caught_when_original_passed` counts only
perturbations of claims whose unperturbed version was shown with PASS in the good draft (the
catch that is due to the perturbation, not to a weak original).

Items are split dev/test by a hash of their id; figures are on test (dev is for tuning). Rates
carry a seeded percentile bootstrap 95 % interval (units: drafts for good claims, perturbed
drafts for catches, pairs for the checker's balanced accuracy). `curve` re-runs the test half
with `integrity.support_threshold` overridden, `curve_dev` the dev half; `operating_point` is
chosen on dev alone (`choose_threshold`) and reports the test half at that threshold.
`checker_bacc` is `evals.checker_accuracy` on the held-out WiCE, SciFact, HaluEval and BEGIN
pairs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import numpy as np

from evals.calibration.support import balanced_accuracy, splits
from evals.calibration.support_data import evidence_titles
from evals.checker_accuracy import decisions
from server.core.contracts import (
    Chunk,
    CitationSlot,
    Claim,
    Draft,
    Hit,
    Offsets,
    Verdict,
)
from server.core.paths import shared_data
from server.core.ports import Embedder, RelevanceScorer, SupportScorer, warm_pairs
from server.core.settings import Settings, load_settings
from server.core.text import SENTENCE_STOP, STOP, content_words, mentions, named_terms
from server.index.embed import Delegating
from server.query.answer import generate_verified
from server.query.claims import classify_claim, render
from server.query.evidence import units
from server.query.integrity.numbers import LIST_NUMBER
from server.query.integrity.verify import Composed, LiveIndex

KINDS = (
    "number",
    "entity",
    "negation",
    "quantifier",
    "unsupported_addition",
    "neighbour_citation",
    "merged",
)
MIN_COVERAGE = 0.5  # share of an answer sentence's content words its cited span must hold
MAX_EXTRA = 2  # passage sentences added to the best one when they cover more of the claim
THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8)  # curve grid, + the configured one
GOOD_FLOOR = 0.90  # the floor for good claims shown with PASS at the operating point
RULE_FLOOR = 0.95  # the floor for each kind a rule can check, preferred when reachable
RULE_KINDS = ("number", "negation", "quantifier", "neighbour_citation", "merged")
BOOT = 1000
ANALYZER = "prose-eval"
INDEX_HASH = "prose-eval:0"
EMBED_MODEL = "prose-eval"
_UPDATED = datetime(2026, 1, 1, tzinfo=UTC)
Split = Literal["dev", "test"]


# ---------------------------------------------------------------- items and passages


@dataclass(frozen=True)
class Passage:
    doc_id: str
    title: str
    text: str
    spans: tuple[tuple[int, int], ...]  # sentence spans, exact offsets into `text`


@dataclass(frozen=True)
class Item:
    source: str
    id: str
    question: str
    answer: str
    passages: tuple[Passage, ...]

    @property
    def key(self) -> str:
        return f"{self.source}:{self.id}"


def split_of(key: str) -> Split:
    """dev or test, from a hash of the item's key (stable across runs and machines)."""
    return "dev" if hashlib.sha1(key.encode()).digest()[0] % 2 == 0 else "test"


# A sentence ends where the product's units end one (`text.SENTENCE_STOP`: not after an
# initial, "e.g." or "U.S."), and not after a list number ("follow these steps: 1. Click"):
# an answer cut at "General Robert E." is no claim an LLM would write.
_SPLIT = re.compile(SENTENCE_STOP + r"(?<!\b\d\.)\s+(?=[\"'(\[]?[A-Z0-9])|\n+")


def split_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans of prose (whitespace trimmed), exact offsets into `text`."""
    out, cursor = [], 0
    for cut in [*(m.start() for m in _SPLIT.finditer(text)), len(text)]:
        raw = text[cursor:cut]
        start = cursor + len(raw) - len(raw.lstrip())
        end = cursor + len(raw.rstrip())
        if end > start:
            out.append((start, end))
        cursor = cut
    return out


def locate(text: str, given: Sequence[str]) -> list[tuple[int, int]]:
    """Spans of the given sentences in `text`, in order (a sentence not found is skipped)."""
    out, cursor = [], 0
    for sent in given:
        s = sent.strip()
        if not s:
            continue
        at = text.find(s, cursor)
        if at < 0:
            at = text.find(s)
        if at < 0:
            continue
        out.append((at, at + len(s)))
        cursor = at + len(s)
    return sorted(set(out))


def _norm(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip()


def clapnq_items(path: Path) -> list[Item]:
    """Answerable ClapNQ items with a long answer; the annotators' sentence split is kept."""
    items = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        answer = _norm(row["output"][0]["answer"]) if row.get("output") else ""
        if not answer or not row.get("passages"):
            continue
        passages = []
        for j, p in enumerate(row["passages"]):
            text = _norm(p["text"])
            spans = locate(text, p.get("sentences") or []) or split_spans(text)
            passages.append(
                Passage(f"clapnq-{row['id']}-{j}", p.get("title", ""), text, tuple(spans))
            )
        items.append(Item("clapnq", str(row["id"]), row["input"], answer, tuple(passages)))
    return items


def mtrag_items(path: Path) -> list[Item]:
    """ANSWERABLE MTRAG-UN tasks with passages; the question is the last user turn."""
    items = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("answerability") != ["ANSWERABLE"] or not row.get("contexts"):
            continue
        answer = _norm(row["targets"][0]["text"]) if row.get("targets") else ""
        users = [t["text"] for t in row["input"] if t["speaker"] == "user"]
        if not answer or not users:
            continue
        tid = re.sub(r"[^\w-]+", "-", row["task_id"])
        passages = []
        for j, ctx in enumerate(row["contexts"]):
            text = _norm(ctx["text"])
            if text:
                passages.append(
                    Passage(
                        f"mtrag-{tid}-{j}", ctx.get("title", ""), text, tuple(split_spans(text))
                    )
                )
        if passages:
            items.append(Item("mtrag", row["task_id"], users[-1], answer, tuple(passages)))
    return items


def chunk_of(p: Passage) -> Chunk:
    return Chunk(
        doc_id=p.doc_id,
        section_id=p.doc_id,
        snippet_id=f"{p.doc_id}#0",
        source_url=p.doc_id,
        offsets=Offsets(start=0, end=len(p.text)),
        tokens=len(p.text.split()),
        index_hash=INDEX_HASH,
        embed_model=EMBED_MODEL,
        analyzer=ANALYZER,
        rev="r1",
        text=p.text,
        title=p.title or p.doc_id,
        tags=("public",),
        updated_at=_UPDATED,
        content_hash=hashlib.sha1(p.text.encode()).hexdigest(),
    )


def hits_of(item: Item) -> list[Hit]:
    """One retrieved hit per passage, in the data set's order, with scores and ranks."""
    return [
        Hit(
            chunk=chunk_of(p),
            score_raw=1.0 / (j + 1),
            score_norm=1.0 / (j + 1),
            k_pos=j + 1,
            k_final=j + 1,
        )
        for j, p in enumerate(item.passages)
    ]


def live_for(items: Iterable[Item]) -> LiveIndex:
    """Every passage of every item is a live document at revision r1."""
    revs = {p.doc_id: "r1" for it in items for p in it.passages}
    return LiveIndex(index_hash=INDEX_HASH, analyzer=ANALYZER, embed_model=EMBED_MODEL, revs=revs)


# ---------------------------------------------------------------- alignment -> good drafts


@dataclass(frozen=True)
class Aligned:
    text: str
    passage: int
    sents: tuple[int, ...]  # indices into the passage's spans
    coverage: float


def coverage(claim: str, evidence: str) -> float:
    words = set(content_words(claim))
    return len(words & set(content_words(evidence))) / len(words) if words else 0.0


def align(sentence: str, passages: Sequence[Passage]) -> Aligned | None:
    """The passage sentence sharing most content words with `sentence`, plus up to
    `MAX_EXTRA` sentences of the same passage that cover more; None below `MIN_COVERAGE`."""
    words = set(content_words(sentence))
    if len(words) < 3:
        return None
    best: tuple[int, int, int] | None = None  # (overlap, -passage, -sentence)
    for pi, p in enumerate(passages):
        for si, (a, b) in enumerate(p.spans):
            got = len(words & set(content_words(p.text[a:b])))
            if best is None or (got, -pi, -si) > best:
                best = (got, -pi, -si)
    if best is None or best[0] == 0:
        return None
    pi, chosen = -best[1], [-best[2]]
    p = passages[pi]
    covered = words & set(content_words(p.text[slice(*p.spans[chosen[0]])]))
    for _ in range(MAX_EXTRA):
        gains = [
            (len((words & set(content_words(p.text[a:b]))) - covered), -si)
            for si, (a, b) in enumerate(p.spans)
            if si not in chosen
        ]
        if not gains or max(gains)[0] == 0:
            break
        si = -max(gains)[1]
        chosen.append(si)
        covered |= words & set(content_words(p.text[slice(*p.spans[si])]))
    share = len(covered) / len(words)
    if share < MIN_COVERAGE:
        return None
    return Aligned(sentence, pi, tuple(sorted(chosen)), share)


def slot_spans(p: Passage, sents: Sequence[int]) -> list[tuple[int, int]]:
    """One span from the first to the last sentence when they lie within 3 sentences of each
    other, else one span per sentence."""
    lo, hi = min(sents), max(sents)
    if hi - lo < 3:
        return [(p.spans[lo][0], p.spans[hi][1])]
    return [p.spans[i] for i in sorted(sents)]


def make_claim(cid: str, text: str, item: Item, pi: int, spans: Sequence[tuple[int, int]]) -> Claim:
    p = item.passages[pi]
    sid = f"{p.doc_id}#0"
    slots = tuple(
        CitationSlot(n=1, snippet_id=sid, offsets=Offsets(start=a, end=b), quote=p.text[a:b])
        for a, b in spans
    )
    return Claim(id=cid, text=text, type=classify_claim(text), citations=slots, segment=pi + 1)


def numbered(claims: Sequence[Claim]) -> tuple[Claim, ...]:
    """Slots numbered 1.. across the draft, in claim order."""
    out, n = [], 0
    for c in claims:
        slots = []
        for s in c.citations:
            n += 1
            slots.append(s.model_copy(update={"n": n}))
        out.append(c.model_copy(update={"citations": tuple(slots)}))
    return tuple(out)


def answer_sentences(answer: str) -> list[str]:
    return [answer[a:b] for a, b in split_spans(answer)]


@dataclass(frozen=True)
class GoodDraft:
    item: Item
    claims: tuple[Claim, ...]
    aligned: tuple[Aligned, ...]
    skipped: int  # answer sentences no passage holds (left out of the draft)


def good_draft(item: Item, max_claims: int) -> GoodDraft | None:
    """The answer's sentences that a passage holds, as cited claims (None: none is held)."""
    got: list[Aligned] = []
    skipped = 0
    for sent in answer_sentences(item.answer):
        if sent.rstrip().endswith("?"):
            skipped += 1
            continue
        a = align(sent, item.passages)
        if a is None:
            skipped += 1
        elif len(got) < max_claims:
            got.append(a)
    if not got:
        return None
    claims = [
        make_claim(
            f"c{i + 1}", a.text, item, a.passage, slot_spans(item.passages[a.passage], a.sents)
        )
        for i, a in enumerate(got)
    ]
    return GoodDraft(item, numbered(claims), tuple(got), skipped)


# ---------------------------------------------------------------- perturbations (pure)

_NUM = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|[.,]\d)")


def bump(raw: str) -> str:
    """The number plus one, written as the original is (thousands commas, decimals)."""
    value = Decimal(raw.replace(",", "")) + 1
    if "," in raw:
        whole, _, frac = f"{value}".partition(".")
        return f"{int(whole):,}" + (f".{frac}" if frac else "")
    return f"{value}"


def perturb_number(text: str, span: str) -> tuple[str, str] | None:
    """The first number of the claim changed: to another number of the cited span when it
    has one the claim does not use, else plus one. (new text, what changed) A list item's
    own number ("1. Click Save") orders steps and is never the one changed."""
    marked = [range(m.start(), m.end()) for m in LIST_NUMBER.finditer(text)]
    found = [m for m in _NUM.finditer(text) if not any(m.start() in r for r in marked)]
    if not found:
        return None
    m = found[0]
    mine = {x.group().replace(",", "") for x in found}
    others = [x.group() for x in _NUM.finditer(span) if x.group().replace(",", "") not in mine]
    new = others[0] if others else bump(m.group())
    how = "span's other number" if others else "+1"
    return text[: m.start()] + new + text[m.end() :], f"{m.group()} -> {new} ({how})"


def perturb_entity(text: str, passage: str) -> tuple[str, str] | None:
    """A name of the claim swapped for another name of the same passage (one sharing no word
    with it and not mentioned in the claim); a name of equal length is preferred."""
    mine = [n for n in named_terms(text) if n in text]
    if not mine:
        return None
    pool = list(
        dict.fromkeys(n for a, b in split_spans(passage) for n in named_terms(passage[a:b]))
    )
    for name in mine:
        words = {w.lower() for w in name.split()}
        cands = [
            c
            for c in pool
            if not words & {w.lower() for w in c.split()}
            and not mentions(c, text)
            and not mentions(name, c)
        ]
        if cands:
            same = [c for c in cands if len(c.split()) == len(name.split())]
            new = (same or cands)[0]
            at = text.index(name)
            return text[:at] + new + text[at + len(name) :], f"{name} -> {new}"
    return None


_AUXES = "is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|must|may|might"
_NEG_REMOVE = (
    (
        re.compile(rf"\b({_AUXES}) not\b"),
        r"\1",
    ),
    (re.compile(r"\bcannot\b"), "can"),
    (re.compile(r"\bwon't\b"), "will"),
    (re.compile(r"\bcan't\b"), "can"),
    (
        re.compile(r"\b(is|are|was|were|do|does|did|has|have|had|could|would|should|must)n't\b"),
        r"\1",
    ),
    (re.compile(r"\b(\w+) n't\b"), r"\1"),
    (re.compile(r"\bnever "), ""),
)
_AUX = re.compile(
    r"\b(is|are|was|were|can|could|will|would|should|must|may|might|does|do|did)\b(?! not\b)"
)
_PERFECT = re.compile(r"\b(has|have|had)(?= (?:been|\w+ed)\b)")


def perturb_negation(text: str) -> tuple[str, str] | None:
    """A negation removed when the claim has one, else added after its first auxiliary."""
    for pattern, repl in _NEG_REMOVE:
        m = pattern.search(text)
        if m:
            return text[: m.start()] + m.expand(repl) + text[m.end() :], f"removed '{m.group()}'"
    m = _AUX.search(text) or _PERFECT.search(text)
    if m is None:
        return None
    neg = "cannot" if m.group() == "can" else f"{m.group()} not"
    return text[: m.start()] + neg + text[m.end() :], f"added 'not' after '{m.group()}'"


_HEDGES = {
    "some": "all",
    "many": "all",
    "most": "all",
    "several": "all",
    "often": "always",
    "usually": "always",
    "sometimes": "always",
    "typically": "always",
    "generally": "always",
    "frequently": "always",
}
_UNIVERSAL = frozenset(["all", "every", "each", "always", "whenever", "entire", "both", "any"])
_LICENSE = {
    "all": _UNIVERSAL,
    "always": _UNIVERSAL,
    "only": frozenset(["only", "solely", "exclusively", "sole", "just", "alone"]),
}
_HEDGE = re.compile(r"\b(" + "|".join(_HEDGES) + r")\b")
_MODAL = re.compile(
    r"\b(is|are|was|were|can|could|will|would|should|must|may|might)\b(?= \w)(?! not\b| n't\b)"
)
_FIRST_NUM = re.compile(r"(?<![\w.,$€£])[$€£]?\d")


def perturb_quantifier(text: str, span: str) -> tuple[str, str] | None:
    """The claim stretched: a hedge made universal ('some' -> 'all', 'often' -> 'always'),
    else 'always' after its first copula or modal, else 'only' before its first number;
    never where the cited span itself licenses the stronger word."""
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", span)}

    def licensed(word: str) -> bool:
        return bool(said & _LICENSE[word])

    m = _HEDGE.search(text)
    if m and not licensed(_HEDGES[m.group()]):
        new = _HEDGES[m.group()]
        return text[: m.start()] + new + text[m.end() :], f"{m.group()} -> {new}"
    m = _MODAL.search(text)
    if m and not licensed("always") and "always" not in text.lower():
        return text[: m.end()] + " always" + text[m.end() :], f"'always' after '{m.group()}'"
    m = _FIRST_NUM.search(text)
    if m and not licensed("only") and "only" not in text.lower():
        return text[: m.start()] + "only " + text[m.start() :], "'only' before a number"
    return None


def merge_sentences(a: str, b: str) -> str:
    """'A.' + 'The B.' -> 'A, and the B.' (the second's first word lowered when common)."""
    head = a.rstrip().rstrip(".!?;:, ")
    first, _, rest = b.strip().partition(" ")
    if first.lower() in STOP:
        first = first.lower()
    return f"{head}, and {first} {rest}".rstrip() if rest else f"{head}, and {first}"


# ---------------------------------------------------------------- bad drafts


@dataclass(frozen=True)
class Case:
    item: Item
    kind: str  # "good" or one of KINDS
    claims: tuple[Claim, ...]
    target: str | None = None  # id of the perturbed claim
    originals: tuple[str, ...] = ()  # ids of the good claims it was made from
    detail: str = ""


def _rotation(key: str, kind: str, n: int) -> list[int]:
    """All indices 0..n-1, starting at a hash-chosen one (which claim gets perturbed)."""
    start = int(hashlib.sha1(f"{key}/{kind}".encode()).hexdigest(), 16) % n if n else 0
    return [(start + i) % n for i in range(n)]


def _quote(c: Claim) -> str:
    return " ".join(s.quote for s in c.citations)


def _replace_text(claims: Sequence[Claim], i: int, text: str) -> tuple[Claim, ...]:
    new = claims[i].model_copy(update={"text": text, "type": classify_claim(text)})
    return tuple(new if j == i else c for j, c in enumerate(claims))


def _text_kind(
    good: GoodDraft, kind: str, fn: Callable[[Claim], tuple[str, str] | None]
) -> Case | None:
    for i in _rotation(good.item.key, kind, len(good.claims)):
        c = good.claims[i]
        got = fn(c)
        if got is not None and got[0] != c.text:
            return Case(
                good.item, kind, _replace_text(good.claims, i, got[0]), c.id, (c.id,), got[1]
            )
    return None


def _best_sentence(
    text: str, item: Item, avoid: set[tuple[int, int, int]]
) -> tuple[int, int, float] | None:
    """(passage, sentence, coverage) of the passage sentence sharing most words with `text`."""
    best: tuple[float, int, int] | None = None
    for pi, p in enumerate(item.passages):
        for si, (a, b) in enumerate(p.spans):
            if (pi, a, b) in avoid:
                continue
            cov = coverage(text, p.text[a:b])
            if best is None or cov > best[0]:
                best = (cov, pi, si)
    return None if best is None else (best[1], best[2], best[0])


def unsupported_addition(good: GoodDraft, stranger: str) -> Case | None:
    """`stranger` (an unrelated item's answer sentence) appended, citing the passage sentence
    of this item that shares most words with it; only where no passage holds it."""
    item = good.item
    if align(stranger, item.passages) is not None:
        return None
    found = _best_sentence(stranger, item, set())
    if found is None:
        return None
    pi, si, _ = found
    extra = make_claim("c_add", stranger, item, pi, [item.passages[pi].spans[si]])
    return Case(
        item, "unsupported_addition", numbered([*good.claims, extra]), "c_add", (), stranger
    )


def neighbour_citation(good: GoodDraft) -> Case | None:
    """A claim's citation moved to a span that does not hold it (coverage < MIN_COVERAGE):
    the best sentence of the next passage when there are several, else the nearest other
    sentence of the same passage."""
    item = good.item
    for i in _rotation(item.key, "neighbour_citation", len(good.claims)):
        c, a = good.claims[i], good.aligned[i]
        p_count = len(item.passages)
        if p_count > 1:
            pi = (a.passage + 1) % p_count
            p = item.passages[pi]
            ranked = sorted(
                range(len(p.spans)), key=lambda s: -coverage(c.text, p.text[slice(*p.spans[s])])
            )
        else:
            pi, p = a.passage, item.passages[a.passage]
            ranked = sorted(
                (s for s in range(len(p.spans)) if s not in a.sents),
                key=lambda s: min(abs(s - t) for t in a.sents),
            )
        for si in ranked:
            span = p.spans[si]
            if (
                coverage(c.text, p.text[slice(*span)]) < MIN_COVERAGE
                and len(content_words(p.text[slice(*span)])) >= 3
            ):
                moved = make_claim(c.id, c.text, item, pi, [span])
                claims = numbered(tuple(moved if j == i else x for j, x in enumerate(good.claims)))
                return Case(
                    item,
                    "neighbour_citation",
                    claims,
                    c.id,
                    (c.id,),
                    f"passage {a.passage}->{pi} sentence {si}",
                )
    return None


def merged(good: GoodDraft) -> Case | None:
    """Two claims resting on different passages (or, with one passage, on disjoint sentences)
    merged into one sentence that cites only the first's span; only where that span does not
    hold the second claim."""
    item = good.item
    n = len(good.claims)
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    for k in _rotation(item.key, "merged", len(pairs)):
        i, j = pairs[k]
        a, b = good.aligned[i], good.aligned[j]
        apart = a.passage != b.passage or (
            len(item.passages) == 1 and not set(a.sents) & set(b.sents)
        )
        ci, cj = good.claims[i], good.claims[j]
        if not apart or coverage(cj.text, _quote(ci)) >= MIN_COVERAGE:
            continue
        text = merge_sentences(ci.text, cj.text)
        joined = ci.model_copy(update={"text": text, "type": classify_claim(text)})
        claims = numbered([joined if x.id == ci.id else x for x in good.claims if x.id != cj.id])
        how = "other passage" if a.passage != b.passage else "same passage, other sentences"
        return Case(item, "merged", claims, ci.id, (ci.id, cj.id), how)
    return None


def bad_drafts(good: GoodDraft, stranger: str) -> list[Case]:
    """Every perturbation that applies to this draft, one case per kind."""
    item = good.item
    cited = {
        c.id: item.passages[a.passage].text for c, a in zip(good.claims, good.aligned, strict=True)
    }
    made = [
        _text_kind(good, "number", lambda c: perturb_number(c.text, _quote(c))),
        _text_kind(good, "entity", lambda c: perturb_entity(c.text, cited[c.id])),
        _text_kind(good, "negation", lambda c: perturb_negation(c.text)),
        _text_kind(good, "quantifier", lambda c: perturb_quantifier(c.text, _quote(c))),
        unsupported_addition(good, stranger),
        neighbour_citation(good),
        merged(good),
    ]
    return [c for c in made if c is not None]


# ---------------------------------------------------------------- the real path, and accounting


class Scripted:
    """A Generator that drafts the scripted claims, whatever it is shown (the 'good LLM')."""

    name = "scripted-human"

    def __init__(self, claims: Sequence[Claim]) -> None:
        self.claims = tuple(claims)

    def generate(self, question: str, hits: Sequence[Hit], *, seed: int = 0) -> Draft:
        return Draft(claims=self.claims, answer=render(self.claims), generator=self.name)


def run_case(
    case: Case,
    scorer: SupportScorer,
    settings: Settings,
    live: LiveIndex,
    relevance: RelevanceScorer | None = None,
) -> Composed:
    """The draft through fence -> label -> [relevance] -> evaluate -> (regenerate) -> repair
    -> gate."""
    hits = hits_of(case.item)
    return generate_verified(
        case.item.question,
        hits,
        generator=Scripted(case.claims),
        scorer=scorer,
        relevance=relevance,
        settings=settings,
        live=live,
        retrieve_again=lambda _expanded: list(hits),
    )


def _spans(c: Claim) -> list[tuple[str, int, int]]:
    return [(s.snippet_id, s.offsets.start, s.offsets.end) for s in c.citations]


def shown_with_pass(composed: Composed, claim: Claim) -> bool:
    """The claim reaches the user as drafted: same text, same cited spans, verdict PASS."""
    if composed.fallback or not claim.citations:
        return False
    verdicts = {v.claim_id: v.verdict for v in composed.gate.claims}
    return any(
        c.id == claim.id
        and c.text == claim.text
        and _spans(c) == _spans(claim)
        and verdicts.get(c.id) is Verdict.PASS
        for c in composed.claims
    )


def _fate(composed: Composed, claim_id: str | None) -> str:
    if composed.fallback:
        return "fallback"
    acts = [r.action.value for r in composed.repairs if r.claim_id == claim_id]
    verdicts = {v.claim_id: v.verdict.value for v in composed.gate.claims}
    return ",".join(acts) or verdicts.get(claim_id or "", "absent")


def _codes(composed: Composed, claim_id: str | None) -> list[str]:
    codes = {c.value for r in composed.repairs if r.claim_id == claim_id for c in r.codes}
    codes |= {f.code.value for f in composed.gate.codes if f.claim_id == claim_id}
    return sorted(codes)


def judge(case: Case, composed: Composed) -> dict[str, Any]:
    """One result row: per-claim PASS for a good draft, caught for a bad one."""
    row: dict[str, Any] = {
        "source": case.item.source,
        "item": case.item.id,
        "split": split_of(case.item.key),
        "kind": case.kind,
    }
    if case.kind == "good":
        row["passed"] = [shown_with_pass(composed, c) for c in case.claims]
        row["fates"] = [_fate(composed, c.id) for c in case.claims]
        row["codes"] = [_codes(composed, c.id) for c in case.claims]
        row["texts"] = [c.text[:300] for c in case.claims]
        return row
    target = next(c for c in case.claims if c.id == case.target)
    row.update(
        caught=not shown_with_pass(composed, target),
        target=case.target,
        originals=list(case.originals),
        text=target.text,
        quote=_quote(target)[:300],
        detail=case.detail,
        fate=_fate(composed, case.target),
        codes=_codes(composed, case.target),
    )
    return row


def run_all(
    cases: Sequence[Case], scorer: SupportScorer, settings: Settings, live: LiveIndex
) -> list[dict[str, Any]]:
    rows = [judge(c, run_case(c, scorer, settings, live)) for c in cases]
    good = {
        (r["source"], r["item"]): dict(zip([c.id for c in cs.claims], r["passed"], strict=True))
        for r, cs in zip(rows, cases, strict=True)
        if r["kind"] == "good"
    }
    for r in rows:
        if r["kind"] != "good":
            passed = good.get((r["source"], r["item"]), {})
            r["original_passed"] = all(passed.get(o, False) for o in r["originals"])
    return rows


# ---------------------------------------------------------------- figures


def bootstrap(
    num: Sequence[float], den: Sequence[float], seed: int = 0, n: int = BOOT
) -> list[float]:
    """Percentile 95 % interval of sum(num)/sum(den) over units resampled with replacement."""
    x, y = np.asarray(num, float), np.asarray(den, float)
    if len(x) == 0 or y.sum() == 0:
        return [float("nan"), float("nan")]
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(x), size=(n, len(x)))
    sy = y[idx].sum(axis=1)
    stats = x[idx].sum(axis=1)[sy > 0] / sy[sy > 0]
    return [round(float(np.percentile(stats, 2.5)), 3), round(float(np.percentile(stats, 97.5)), 3)]


def rate(num: Sequence[float], den: Sequence[float] | None = None) -> dict[str, Any]:
    d = list(den) if den is not None else [1.0] * len(num)
    total = sum(d)
    value = round(sum(num) / total, 3) if total else None
    return {"rate": value, "ci95": bootstrap(num, d), "n": int(total)}


def good_rate(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    good = [r for r in rows if r["kind"] == "good"]
    return rate([sum(r["passed"]) for r in good], [len(r["passed"]) for r in good])


def caught_rates(rows: Sequence[dict[str, Any]], conditional: bool = False) -> dict[str, Any]:
    out = {}
    for kind in KINDS:
        got = [r for r in rows if r["kind"] == kind and (not conditional or r["original_passed"])]
        out[kind] = rate([float(r["caught"]) for r in got])
    return out


def overall_caught(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return rate([float(r["caught"]) for r in rows if r["kind"] != "good"])


def choose_threshold(curve: Sequence[dict[str, Any]], floor: float = GOOD_FLOOR) -> float:
    """The threshold of a curve that catches most perturbations while at least `floor` of
    good claims are shown with PASS (ties: the lower threshold, which blocks fewer good
    claims), among those points the ones where every rule-checkable kind is caught at
    `RULE_FLOOR` when there are any; when no point reaches the floor, the one that shows most
    good claims."""

    def good(p: dict[str, Any]) -> float:
        return float(p["good_claims_pass_rate"]["rate"] or 0.0)

    def caught(p: dict[str, Any]) -> float:
        return float(p["caught_overall"]["rate"] or 0.0)

    def rules_hold(p: dict[str, Any]) -> bool:
        caught_by_kind = p.get("caught", {})
        return all(
            (caught_by_kind[k]["rate"] or 0.0) >= RULE_FLOOR
            for k in RULE_KINDS
            if k in caught_by_kind
        )

    ok = [p for p in curve if good(p) >= floor]
    ok = [p for p in ok if rules_hold(p)] or ok
    if ok:
        best = max(ok, key=lambda p: (caught(p), -p["support_threshold"]))
    else:
        best = max(curve, key=lambda p: (good(p), -p["support_threshold"]))
    return float(best["support_threshold"])


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {
        "good_claims_pass_rate": good_rate(rows),
        "caught": caught_rates(rows),
        "caught_when_original_passed": caught_rates(rows, conditional=True),
        "caught_overall": overall_caught(rows),
    }


def bacc_interval(y: np.ndarray, pred: np.ndarray, seed: int = 0, n: int = BOOT) -> list[float]:
    rng = np.random.default_rng(seed)
    stats = []
    for _ in range(n):
        idx = rng.integers(0, len(y), size=len(y))
        yy, pp = y[idx], pred[idx]
        if 0 < yy.sum() < len(yy):
            stats.append(balanced_accuracy(yy, pp))
    return [round(float(np.percentile(stats, 2.5)), 3), round(float(np.percentile(stats, 97.5)), 3)]


def checker_bacc(
    data: Path,
    per_set: int,
    scorer: SupportScorer,
    settings: Settings,
    warm: Callable[[Iterable[str]], None],
) -> dict[str, Any]:
    """`evals.checker_accuracy`'s decision on the held-out pairs of each set, with intervals
    (`without_coverage`: the same with the names and claim-parts rules off)."""
    sets = {
        k.split(":", 1)[1]: v for k, v in splits(data, per_set).items() if k.startswith("test:")
    }
    warm(t for pairs in sets.values() for c, e, _ in pairs for t in (c, e))
    titles = evidence_titles(data)
    out = {}
    for name, pairs in sets.items():
        y = np.array([label for *_, label in pairs])
        both = np.array([decisions(p, scorer, settings, titles.get(p[:2], "")) for p in pairs], int)
        pred, bare = both[:, 0], both[:, 1]
        out[name] = {
            "balanced_accuracy": round(balanced_accuracy(y, pred), 3),
            "ci95": bacc_interval(y, pred),
            "n": len(pairs),
            "without_coverage": round(balanced_accuracy(y, bare), 3),
        }
    return out


# ---------------------------------------------------------------- model plumbing


class Prewarmed(Delegating):
    """An Embedder that embeds texts in batches ahead of time (`warm`) and answers from that
    cache; the support scorer asks one text at a time."""

    def __init__(self, inner: Embedder, batch: int = 128) -> None:
        super().__init__(inner)
        self.batch = batch
        self.vectors: dict[str, list[float]] = {}

    def warm(self, texts: Iterable[str]) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        for i in range(0, len(todo), self.batch):
            part = todo[i : i + self.batch]
            self.vectors.update(zip(part, self.inner.embed_documents(part), strict=True))

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.warm(texts)
        return [self.vectors[t] for t in texts]


@dataclass
class Memo:
    """A SupportScorer that remembers every (claim, evidence) score: the threshold curve
    re-runs the same drafts, and a score does not depend on the threshold."""

    inner: SupportScorer
    seen: dict[tuple[str, str], float] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.inner.name

    def support(self, claim: str, evidence: str) -> float:
        key = (claim, evidence)
        if key not in self.seen:
            self.seen[key] = self.inner.support(claim, evidence)
        return self.seen[key]

    def warm_pairs(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Batch the inner scorer's pair model over the pairs not remembered yet."""
        warm_pairs(self.inner, [p for p in pairs if p not in self.seen])


def texts_of(cases: Sequence[Case]) -> list[str]:
    """What the scorer will be asked about: claims, quotes, chunks and their sentences."""
    out: list[str] = []
    for case in cases:
        out += [c.text for c in case.claims] + [s.quote for c in case.claims for s in c.citations]
    for item in {c.item.key: c.item for c in cases}.values():
        for h in hits_of(item):
            out.append(h.chunk.text)
            out += [u.quote for u in units(h.chunk)]
    return out


# ---------------------------------------------------------------- building the set


def prose_claims(
    d: Path, split: Split, max_claims: int, sources: Sequence[str] = ("clapnq", "mtrag")
) -> list[tuple[str, str, int, str]]:
    """(claim, cited quote, label, kind) of one half of the drafts of `sources`: every good
    claim (label 1, kind "") and every perturbed claim (label 0, its perturbation kind)."""
    readers = {
        "clapnq": lambda: clapnq_items(d / "clapnq/clapnq_dev_answerable.jsonl"),
        "mtrag": lambda: mtrag_items(d / "mtrag-un/reference.jsonl"),
    }
    out: list[tuple[str, str, int, str]] = []
    for name in sources:
        cases, _ = build_cases(readers[name](), 150, max_claims)
        for case in cases:
            if split_of(case.item.key) != split:
                continue
            if case.kind == "good":
                out += [(c.text, _quote(c), 1, "") for c in case.claims]
            else:
                out += [
                    (c.text, _quote(c), 0, case.kind) for c in case.claims if c.id == case.target
                ]
    return [p for p in out if p[0].strip() and p[1].strip()]


def build_cases(
    items: Sequence[Item], limit: int, max_claims: int
) -> tuple[list[Case], dict[str, int]]:
    """Good and bad drafts of the first `limit` items (with a good draft) of one source."""
    goods: list[GoodDraft] = []
    no_draft = 0
    for item in items:
        if len(goods) == limit:
            break
        g = good_draft(item, max_claims)
        if g is None:
            no_draft += 1
        else:
            goods.append(g)
    cases: list[Case] = []
    for i, g in enumerate(goods):
        cases.append(Case(g.item, "good", g.claims))
        stranger = ""
        for k in range(1, len(goods)):
            other = goods[(i + len(goods) // 2 + k - 1) % len(goods)]
            if (
                other.item.key != g.item.key
                and align(other.claims[0].text, g.item.passages) is None
            ):
                stranger = other.claims[0].text
                break
        cases += (
            bad_drafts(g, stranger)
            if stranger
            else [c for c in bad_drafts(g, g.claims[0].text) if c.kind != "unsupported_addition"]
        )
    counts = {
        "items_read": len(items),
        "items_without_held_sentence": no_draft,
        "drafts": len(goods),
        "claims": sum(len(g.claims) for g in goods),
        "answer_sentences_left_out": sum(g.skipped for g in goods),
    }
    return cases, counts


def _examples(rows: Sequence[dict[str, Any]], per_kind: int = 3) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for kind in KINDS:
        missed = [r for r in rows if r["kind"] == kind and not r["caught"] and r["original_passed"]]
        out[kind] = [
            {k: r[k] for k in ("source", "item", "text", "quote", "detail", "fate")}
            for r in missed[:per_kind]
        ]
    return out


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")


def with_threshold(settings: Settings, t: float) -> Settings:
    """`settings` with `integrity.support_threshold` = t (the YAML is not read again)."""
    integrity = settings.integrity.model_copy(update={"support_threshold": t})
    return settings.model_copy(update={"integrity": integrity})


def threshold_curves(
    halves: dict[str, tuple[list[Case], list[dict[str, Any]]]],
    scorer: SupportScorer,
    settings: Settings,
    live: LiveIndex,
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """split -> its curve over `THRESHOLDS` (+ the configured one, whose rows are given), and
    the operating point chosen on dev with both halves' summaries at it."""
    configured = settings.integrity.support_threshold
    curves: dict[str, list[dict[str, Any]]] = {"test": [], "dev": []}
    by_t: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for split, (half, at_configured) in halves.items():
        for t in sorted({*THRESHOLDS, configured}):
            rows = (
                at_configured
                if t == configured
                else run_all(half, scorer, with_threshold(settings, t), live)
            )
            by_t[(split, t)] = rows
            curves[split].append(
                {
                    "support_threshold": t,
                    "good_claims_pass_rate": good_rate(rows),
                    "caught_overall": overall_caught(rows),
                    "caught": caught_rates(rows),
                }
            )
    chosen = choose_threshold(curves["dev"])
    operating = {
        "support_threshold": chosen,
        "configured": configured,
        "rule": f"most perturbations caught with >= {GOOD_FLOOR} of good claims shown, on dev",
        "dev": summary(by_t[("dev", chosen)]),
        "test": summary(by_t[("test", chosen)]),
    }
    return curves, operating


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--limit", type=int, default=150, help="drafts per source (dev + test)")
    ap.add_argument("--bacc-per-set", type=int, default=400, help="pairs per checker set (0: skip)")
    ap.add_argument("--data", type=Path, default=shared_data())
    args = ap.parse_args(argv)
    started = time.perf_counter()

    settings = load_settings()
    from server.query.engine import build_embedder
    from server.query.integrity.support import build_support_scorer

    embedder = Prewarmed(build_embedder(settings))
    scorer = Memo(build_support_scorer(settings, embedder))
    max_claims = settings.integrity.max_claims

    cases: list[Case] = []
    counts: dict[str, Any] = {}
    sources = {
        "clapnq": clapnq_items(args.data / "clapnq/clapnq_dev_answerable.jsonl"),
        "mtrag": mtrag_items(args.data / "mtrag-un/reference.jsonl"),
    }
    for name, items in sources.items():
        got, counts[name] = build_cases(items, args.limit, max_claims)
        cases += got
    live = live_for(c.item for c in cases)
    embedder.warm(texts_of(cases))
    t_built = time.perf_counter()

    test = [c for c in cases if split_of(c.item.key) == "test"]
    dev = [c for c in cases if split_of(c.item.key) == "dev"]
    configured = settings.integrity.support_threshold
    rows_test = run_all(test, scorer, settings, live)
    rows_dev = run_all(dev, scorer, settings, live)
    halves = {"test": (test, rows_test), "dev": (dev, rows_dev)}
    curves, operating = threshold_curves(halves, scorer, settings, live)
    t_runs = time.perf_counter()
    bacc = (
        checker_bacc(args.data, args.bacc_per_set, scorer, settings, embedder.warm)
        if args.bacc_per_set
        else {}
    )
    for split, rows in (("test", rows_test), ("dev", rows_dev)):
        counts[split] = {
            "drafts": sum(r["kind"] == "good" for r in rows),
            "claims": sum(len(r["passed"]) for r in rows if r["kind"] == "good"),
            **{k: sum(r["kind"] == k for r in rows) for k in KINDS},
        }
    head = summary(rows_test)
    report = {
        "split": "test",
        "scorer": scorer.name,
        "support_threshold": configured,
        "gate_mode": settings.integrity.gate_mode,
        **head,
        "checker_bacc": bacc,
        "counts": counts,
        "curve": curves["test"],
        "curve_dev": curves["dev"],
        "operating_point": operating,
        "dev": summary(rows_dev),
        "missed_examples": _examples(rows_test),
        "seconds": {
            "build": round(t_built - started, 1),
            "runs": round(t_runs - t_built, 1),
            "checker_bacc": round(time.perf_counter() - t_runs, 1),
            "total": round(time.perf_counter() - started, 1),
        },
        "rows": rows_test,
        "rows_dev": rows_dev,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    g = head["good_claims_pass_rate"]
    _say(f"good claims shown with PASS (test): {g['rate']} {g['ci95']} n={g['n']}")
    for kind, r in head["caught"].items():
        c = head["caught_when_original_passed"][kind]
        _say(
            f"caught {kind:22s} {r['rate']} {r['ci95']} n={r['n']}   "
            f"(original passed: {c['rate']} n={c['n']})"
        )
    op = operating["test"]
    _say(
        f"operating point (chosen on dev): support_threshold {operating['support_threshold']} "
        f"(configured {configured}); "
        f"test good PASS {op['good_claims_pass_rate']['rate']}, "
        f"caught {op['caught_overall']['rate']}"
    )
    for name, b in bacc.items():
        _say(f"checker bacc {name:10s} {b['balanced_accuracy']} {b['ci95']} n={b['n']}")
    _say(f"{report['seconds']['total']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
