"""Refusal as one calibrated decision over every signal the answer path has.

The rule-based refusals (names no passage mentions, a best score below the floor) run first
and stay; after generation, a small logistic model (`config/refusal_model.json`, fitted on
the tune halves of several corpora by `evals/calibration/decision.py`) weighs the signals
below and says "I don't know" when the chance that the question is answerable from what was
found falls under its calibrated threshold; one rule overrules it (`verdict`): a question
that asks for a price, a size, ... is refused when no claim states one. The signals travel
with the Answer (`Answer.decision`), so evaluators can plot them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

from pydantic import Field

from server.core.contracts import Claim, Decision, Frozen, Hit, Signals
from server.core.errors import ConfigError
from server.core.fitted import read_fitted
from server.core.ports import SparseEncoder
from server.core.text import content_words, named_terms
from server.query.answer_types import (
    counts_in_words,
    time_in_words,
    unbound,
    unnamed,
    unstated,
)
from server.query.claims import has_number
from server.query.rerank import question_coverage

# A question that asks for a quantity: its answer must hold a number.
_WANTS_NUMBER = re.compile(
    r"\b(?:how (?:many|much|long|often|old|big|large|far|fast)|what (?:is the |are the )?"
    r"(?:default|maximum|minimum|max|min|limit|size|number|count|port|version|timeout|price|"
    r"percentage|rate)|which (?:port|version|year|status code)|when (?:was|were|did|will))\b",
    re.IGNORECASE,
)


def wants_number(question: str) -> bool:
    """The question asks for a quantity, a limit, a default, a version or a date, anywhere in
    it: a signal of the fitted refusal model, read as it was fitted ("How do I limit how many
    files ...?" counts; the answer-type rules, which overrule the model, read only the
    clauses that ask for a value, `answer_types.value_asked`)."""
    return bool(_WANTS_NUMBER.search(question))


def signals(
    question: str,
    hits: Sequence[Hit],
    claims: Sequence[Claim],
    relevance: Sequence[float],
    sparse: SparseEncoder,
    absent_share: float,
    units: int | None = None,
    recalled: Sequence[str] = (),
) -> Signals:
    """Every signal of one answer, each in [0, 1] or a small range (see `Signals`);
    `recalled` are the texts of every recalled candidate, which weigh the question's words
    for `answer_coverage` (`rare_coverage`)."""
    top = hits[0] if hits else None
    second = hits[1].score_norm if len(hits) > 1 else 0.0
    return Signals(
        best_score=top.score_norm if top else 0.0,
        margin=(top.score_norm - second) if top else 0.0,
        coverage=question_coverage(question, top.chunk.text, sparse) if top else 0.0,
        answer_coverage=rare_coverage(question, [c.text for c in claims], recalled),
        relevance=max(relevance, default=0.0),
        absent_share=absent_share,
        number_missing=float(
            wants_number(question)
            and not any(
                has_number(c.text) or counts_in_words(question, c.text) or time_in_words(c.text)
                for c in claims
            )
        ),
        fused_agreement=1.0 / top.k_pos if top else 0.0,
        claims=float(len(claims) if units is None else units),
    )


def rare_coverage(question: str, shown: Sequence[str], recalled: Sequence[str]) -> float:
    """Share of the question's content words that the claims `shown` hold, each word weighted
    by how rare it is among the `recalled` candidates' texts: log((n + 1) / (df + 0.5)) over
    n candidates, df of them holding the word. The words every candidate holds name the
    topic that retrieval already matched ("Mozilla", "Typer"); the rare ones are what the
    question asks about ("student discount", "on Windows"), and an answer without them is
    about the topic but not the question. With no candidate every word weighs the same (the
    plain share); 1.0 when the question has no content word (nothing to look for)."""
    asked = set(content_words(question))
    if not asked:
        return 1.0
    held = set(content_words(" ".join(shown)))
    docs = [set(content_words(t)) for t in recalled]
    n = len(docs)
    weight = {w: math.log((n + 1) / (sum(w in d for d in docs) + 0.5)) for w in asked}
    total = sum(weight.values())
    return sum(weight[w] for w in asked & held) / total if total > 0 else 1.0


def verdict(
    question: str,
    found: Signals,
    claim_texts: Sequence[str],
    model: RefusalModel | None,
    answer_type_rule: bool,
    contexts: Sequence[tuple[str, str]] = (),
    common: frozenset[str] = frozenset(),
    name_rule: bool = False,
) -> Decision:
    """The decision on an answer that has claims: the model's verdict (when one is
    configured), overruled by the answer-type rule when the question asks for a price, a
    size, ... and no claim states one, or every claim that states one is about something
    else (`server.query.answer_types.unbound`: `contexts` are (claim text, its section's
    title and headings), `common` the question's names every hit holds); with `name_rule`,
    also when no claim names a name of several words the question uses
    (`answer_types.unnamed`)."""
    decision = model.decide(found) if model else Decision(signals=found)
    headings = [where for _, where in contexts]
    missing = unstated(question, claim_texts, headings) if answer_type_rule else []
    if answer_type_rule and not missing:
        missing = unbound(question, contexts, common)
    if missing:
        return decision.model_copy(update={"refused": True, "unstated": tuple(missing)})
    names = unnamed(question, contexts, common) if name_rule else []
    if names:
        return decision.model_copy(update={"refused": True, "unnamed": tuple(names)})
    return decision


def absent_share(question: str, absent: Sequence[str]) -> float:
    """Share of the question's names that no readable candidate mentions (`absent` may
    also hold code identifiers, `text.missing_identifiers`, which are no names here)."""
    names = named_terms(question)
    return len(set(absent) & set(names)) / len(names) if names else 0.0


class RefusalModel(Frozen):
    """A logistic model over named signals: p(answerable) = sigmoid(bias + sum w_i x_i) on
    standardised x_i; refuse below `threshold`."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    bias: float
    threshold: float = Field(ge=0.0, le=1.0)
    origin: str = ""

    def p_answer(self, s: Signals) -> float:
        values = s.model_dump()
        z = self.bias + sum(
            w * (float(values[f]) - m) / (sc or 1.0)
            for f, w, m, sc in zip(
                self.features, self.weights, self.means, self.scales, strict=True
            )
        )
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def decide(self, s: Signals) -> Decision:
        p = self.p_answer(s)
        return Decision(signals=s, p_answer=round(p, 6), refused=p < self.threshold)


def load_refusal_model(path: Path) -> RefusalModel | None:
    """The fitted model, or None when the file is absent (the rules alone then decide)."""
    if not path.is_file():
        return None
    model = read_fitted(
        path,
        RefusalModel,
        "a refusal model",
        "re-fit it with `python -m evals.calibration.decision` or delete it to use the rules alone",
    )
    unknown = set(model.features) - set(Signals.model_fields)
    if unknown:
        raise ConfigError(f"{path} names unknown signals {sorted(unknown)}; re-fit it")
    return model
