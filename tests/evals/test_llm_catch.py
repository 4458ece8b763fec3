"""The invented-citation oracle and the caught/not-caught rule, on hand-built evidence."""

from __future__ import annotations

from evals.llm_catch import defects, judge, shown_as_supported, summarise
from server.core.contracts import (
    Answer,
    CitationSlot,
    Claim,
    ClaimType,
    ClaimVerdict,
    Draft,
    GateResult,
    Offsets,
    Timings,
    Verdict,
)
from tests.server.query.integrity.helpers import HIT_A, HIT_B, HITS, claim, slot

ROTATE = "The signing key is rotated every 90 days since version 2.1."


def _final(claims: tuple[Claim, ...], verdict: Verdict, *, fallback: bool = False) -> Answer:
    verdicts = tuple(
        ClaimVerdict(claim_id=c.id, verdict=verdict, supported=verdict is Verdict.PASS)
        for c in claims
    )
    return Answer(
        question="q",
        answer="a",
        claims=claims,
        fallback=fallback,
        gate=GateResult(verdict=verdict, mode="strict", claims=verdicts),
        trace_id="t",
        index_hash="ih",
        generator="llm",
        timings=Timings(),
    )


def test_oracle_names_fabricated_not_verbatim_and_unsupported() -> None:
    good = claim("The signing key is rotated every 90 days.", ClaimType.FACT, slot(1, ROTATE))
    assert defects(good, good.citations[0], HITS) == []
    invented = slot(1, ROTATE).model_copy(update={"snippet_id": "nope"})
    assert defects(good, invented, HITS) == ["fabricated"]
    wrong_number = claim(
        "The signing key is rotated every 30 days.", ClaimType.FACT, slot(1, ROTATE)
    )
    assert defects(wrong_number, wrong_number.citations[0], HITS) == ["unsupported"]
    off_topic = claim("Bananas ripen quickly in summer.", ClaimType.FACT, slot(1, ROTATE))
    assert defects(off_topic, off_topic.citations[0], HITS) == ["unsupported"]
    lost = CitationSlot(n=1, snippet_id="keys-a", offsets=Offsets(start=0, end=1), quote="keys rot")
    # the quote is not in the chunk; the whole chunk still covers the claim
    assert defects(good, lost, HITS) == ["not_verbatim"]


def test_caught_unless_shown_with_pass_citing_the_same_snippet() -> None:
    bad = claim("Bananas ripen quickly in summer.", ClaimType.FACT, slot(1, ROTATE))
    assert shown_as_supported(_final((bad,), Verdict.PASS), bad, "keys-a")
    assert not shown_as_supported(_final((bad,), Verdict.WARN), bad, "keys-a")
    assert not shown_as_supported(_final((bad,), Verdict.PASS, fallback=True), bad, "keys-a")
    assert not shown_as_supported(_final((bad,), Verdict.BLOCK), bad, "keys-a")
    stripped = bad.model_copy(update={"citations": ()})
    assert not shown_as_supported(_final((stripped,), Verdict.PASS), bad, "keys-a")


def test_judge_and_summarise_count_by_defect_kind() -> None:
    good = claim("The signing key is rotated every 90 days.", ClaimType.FACT, slot(1, ROTATE))
    bad = claim("Bananas ripen quickly.", ClaimType.FACT, slot(2, ROTATE), cid="c2")
    fake = claim(
        "It is fast.",
        ClaimType.FACT,
        slot(3, ROTATE).model_copy(update={"snippet_id": "x"}),
        cid="c3",
    )
    draft = Draft(claims=(good, bad, fake), answer="...", generator="llm")
    final = _final((good, bad), Verdict.PASS)  # the unsupported one slipped through
    rows = judge([([HIT_A, HIT_B], draft)], final)
    assert [(r["defects"], r["caught"]) for r in rows] == [
        (["unsupported"], False),
        (["fabricated"], True),
    ]
    summary = summarise(rows, drafts=1, claims=3)
    assert summary["fabricated"] == {"n": 1, "caught": 1, "catch_rate": 1.0}
    assert summary["unsupported"] == {"n": 1, "caught": 0, "catch_rate": 0.0}
    assert summary["not_verbatim"] == {"n": 0, "caught": 0, "catch_rate": None}
