"""Relevance as a check: off-topic claims leave the answer, visibly (oracles by hand)."""

from __future__ import annotations

from collections.abc import Sequence

from server.core.contracts import CheckCode, ClaimType, Draft, Hit, RepairAction
from server.core.settings import load_settings
from server.query.answer import generate_verified
from server.query.claims import render
from server.query.integrity.relevance import claim_relevance, floor_of, off_topic
from tests.server.query.integrity.helpers import HIT_A, HIT_B, LIVE, WordOverlapScorer, claim, slot

ROTATE = "The signing key is rotated every 90 days since version 2.1."
GATE = "The gate blocks fabricated citations."
CFG = load_settings(integrity={"relevance_floor": 0.3, "relevance_relative": 0.5}).integrity


def test_the_bar_is_the_floor_or_half_the_best() -> None:
    assert floor_of([0.8, 0.5, 0.2], CFG) == 0.4  # max(0.3, 0.5 * 0.8)
    assert floor_of([0.4, 0.35], CFG) == 0.3  # max(0.3, 0.2)
    assert floor_of([], CFG) == 0.3


def test_claims_below_the_bar_are_dropped_with_off_topic() -> None:
    claims = [
        claim(ROTATE, ClaimType.NUMBER, slot(1, ROTATE), cid="c1"),
        claim(GATE, ClaimType.FACT, slot(2, GATE, HIT_B), cid="c2"),
    ]
    kept, repairs, findings = off_topic(claims, [0.8, 0.3], CFG)
    assert [c.id for c in kept] == ["c1"]
    assert [(r.action, r.claim_id, r.codes) for r in repairs] == [
        (RepairAction.DROP, "c2", (CheckCode.OFF_TOPIC,))
    ]
    assert [(f.code, f.claim_id) for f in findings] == [(CheckCode.OFF_TOPIC, "c2")]


class _Scripted:
    name = "scripted"

    def __init__(self, text: str, hit: Hit) -> None:
        self.claims = (claim(text, ClaimType.FACT, slot(1, text, hit)),)

    def generate(self, question: str, hits: Sequence[Hit], *, seed: int = 0) -> Draft:
        return Draft(claims=self.claims, answer=render(self.claims), generator=self.name)


class _Relevance:
    """Fake RelevanceScorer: 1 for texts that share a word with the question, else 0."""

    name = "shared-word"

    def relevance(self, question: str, texts: Sequence[str]) -> list[float]:
        asked = {w.strip("?.").lower() for w in question.split()}
        return [float(bool(asked & {w.strip(".").lower() for w in t.split()})) for t in texts]


def _run(question: str, text: str, hit: Hit):  # type: ignore[no-untyped-def]
    return generate_verified(
        question,
        [HIT_A, HIT_B],
        generator=_Scripted(text, hit),
        scorer=WordOverlapScorer(),
        relevance=_Relevance(),
        settings=load_settings(integrity={"support_threshold": 0.6}),
        live=LIVE,
        retrieve_again=lambda q: [],
    )


def test_a_supported_but_off_topic_answer_is_i_dont_know_with_the_code() -> None:
    out = _run("Which vault holds admin passwords?", GATE, HIT_B)  # true, but beside it
    assert out.fallback and not out.claims
    assert CheckCode.OFF_TOPIC in {f.code for f in out.gate.codes}
    assert any(r.action is RepairAction.DROP for r in out.repairs)


def test_an_on_topic_claim_is_kept() -> None:
    out = _run("How often is the signing key rotated?", ROTATE, HIT_A)
    assert not out.fallback and [c.text for c in out.claims] == [ROTATE]
    assert CheckCode.OFF_TOPIC not in {f.code for f in out.gate.codes}


def test_a_claim_giving_the_asked_value_is_also_read_under_its_headings() -> None:
    # "New in 2.1." says nothing of rotation alone; under "Keys > Rotation", or under a
    # page's one heading "Rotation", it does. Only a claim that gives the asked kind (here a
    # version) is read so, and only under a heading.
    deep = HIT_A.chunk.model_copy(update={"heading": "Keys > Rotation"})
    flat = HIT_B.chunk.model_copy(update={"heading": "Rotation"})
    bare = HIT_B.chunk.model_copy(update={"heading": ""})
    chunks = {deep.snippet_id: deep, flat.snippet_id: flat}
    note = "New in 2.1."
    claims = [
        claim(note, ClaimType.NUMBER, slot(1, "The signing", HIT_A), cid="c1"),
        claim(note, ClaimType.NUMBER, slot(2, "The gate", HIT_B), cid="c2"),
        claim(note, ClaimType.NUMBER, cid="c3"),  # no citation: its text alone
        claim("Keys are kept.", ClaimType.FACT, slot(3, "The signing", HIT_A), cid="c4"),
    ]
    question = "Which release started rotation?"
    assert claim_relevance(_Relevance(), question, claims, chunks.get) == [1.0, 1.0, 0.0, 0.0]
    # no heading: the text alone
    unheaded = [claim(note, ClaimType.NUMBER, slot(2, "The gate", HIT_B), cid="c5")]
    assert claim_relevance(_Relevance(), question, unheaded, {bare.snippet_id: bare}.get) == [0.0]
    # the text's own score stands when it is the higher
    said = [claim("Rotation is new in 2.1.", ClaimType.NUMBER, slot(1, "The signing"))]
    assert claim_relevance(_Relevance(), question, said, chunks.get) == [1.0]
