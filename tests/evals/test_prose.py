"""evals.prose: perturbations on small sentences, alignment to exact spans, and the caught /
shown-with-PASS accounting through the real gate path with a word-overlap support scorer."""

from __future__ import annotations

from typing import Any

from evals.prose import (
    KINDS,
    Case,
    GoodDraft,
    Item,
    Passage,
    bootstrap,
    bump,
    choose_threshold,
    good_draft,
    judge,
    live_for,
    merge_sentences,
    merged,
    neighbour_citation,
    perturb_entity,
    perturb_negation,
    perturb_number,
    perturb_quantifier,
    run_case,
    split_of,
    split_spans,
    unsupported_addition,
)
from server.core.contracts import Claim
from server.core.settings import load_settings
from tests.server.query.integrity.helpers import WordOverlapScorer

TEXT = (
    "The bridge opened in 1932. The river floods every spring. "
    "Tourists visit the old mill near the harbour."
)


def _item(answer: str = "The bridge opened in 1932. The river floods every spring.") -> Item:
    passage = Passage("doc-0", "Town", TEXT, tuple(split_spans(TEXT)))
    return Item("test", "t1", "What about the town?", answer, (passage,))


def _good() -> GoodDraft:
    good = good_draft(_item(), max_claims=4)
    assert good is not None
    return good


# ---------------------------------------------------------------- perturbations


def test_number_prefers_another_number_of_the_span_else_plus_one() -> None:
    claim = "The bridge opened in 1932 with 4 lanes."
    assert perturb_number(claim, claim) == (
        "The bridge opened in 1933 with 4 lanes.",
        "1932 -> 1933 (+1)",
    )
    span = "The bridge opened in 1932 with 4 lanes and was rebuilt in 1990."
    got = perturb_number(claim, span)
    assert got is not None
    assert got[0] == "The bridge opened in 1990 with 4 lanes."
    assert perturb_number("The bridge has no number.", span) is None
    # a list item's own number orders steps: the item's number in the text is changed
    assert perturb_number("2. The bridge has 4 lanes.", "It has 4 lanes.") == (
        "2. The bridge has 5 lanes.",
        "4 -> 5 (+1)",
    )
    assert perturb_number("1. Open the bridge.", "Open the bridge.") is None


def test_bump_keeps_how_the_number_is_written() -> None:
    assert bump("1,999") == "2,000"
    assert bump("3.5") == "4.5"
    assert bump("75.00") == "76.00"


def test_entity_is_swapped_for_another_name_of_the_passage() -> None:
    passage = "France signed it first. Later Germany joined the treaty."
    got = perturb_entity("The treaty was signed by France in Paris.", passage)
    assert got == ("The treaty was signed by Germany in Paris.", "France -> Germany")
    # no other name in the passage: nothing to swap
    assert perturb_entity("The treaty was signed by France.", "France signed it.") is None


def test_negation_is_added_after_the_first_auxiliary_or_removed() -> None:
    assert perturb_negation("The gate is open.") == (
        "The gate is not open.",
        "added 'not' after 'is'",
    )
    assert perturb_negation("You can go home.")[0] == "You cannot go home."  # type: ignore[index]
    assert perturb_negation("The gate is not open.")[0] == "The gate is open."  # type: ignore[index]
    assert perturb_negation("It does n't rain.")[0] == "It does rain."  # type: ignore[index]
    assert perturb_negation("Birds fly south.") is None


def test_quantifier_stretches_unless_the_span_licenses_it() -> None:
    river = "The river often floods in spring."
    assert perturb_quantifier(river, river) == (
        "The river always floods in spring.",
        "often -> always",
    )
    gate = "The gate is open."
    assert perturb_quantifier(gate, gate)[0] == "The gate is always open."  # type: ignore[index]
    assert perturb_quantifier(gate, "The gate is always open.") is None
    cost = "It costs $5 a day."
    assert perturb_quantifier(cost, cost)[0] == "It costs only $5 a day."  # type: ignore[index]
    assert perturb_quantifier("Birds fly south.", "Birds fly south.") is None


def test_merge_sentences_joins_with_and() -> None:
    assert (
        merge_sentences("The bridge opened in 1932.", "The river floods.")
        == "The bridge opened in 1932, and the river floods."
    )


# ---------------------------------------------------------------- drafts


def test_answer_sentences_are_not_cut_after_an_initial_an_abbreviation_or_a_list_number() -> None:
    text = (
        "The war ended when General Robert E. Lee surrendered to Ulysses S. Grant in 1865. "
        "Votes are counted at 1 p.m. in the U.S. House. Follow these steps: 1. Open it."
    )
    assert [text[a:b] for a, b in split_spans(text)] == [
        "The war ended when General Robert E. Lee surrendered to Ulysses S. Grant in 1865.",
        "Votes are counted at 1 p.m. in the U.S. House.",
        "Follow these steps: 1. Open it.",
    ]


def test_good_draft_cites_the_exact_sentence_each_answer_sentence_rests_on() -> None:
    good = _good()
    assert [c.text for c in good.claims] == [
        "The bridge opened in 1932.",
        "The river floods every spring.",
    ]
    for claim, expected in zip(
        good.claims, ["The bridge opened in 1932.", "The river floods every spring."], strict=True
    ):
        (slot,) = claim.citations
        assert slot.quote == expected
        assert TEXT[slot.offsets.start : slot.offsets.end] == expected
    assert [s.n for c in good.claims for s in c.citations] == [1, 2]


def test_a_sentence_no_passage_holds_is_left_out() -> None:
    good = good_draft(_item("The bridge opened in 1932. Penguins eat krill daily."), 4)
    assert good is not None
    assert [c.text for c in good.claims] == ["The bridge opened in 1932."]
    assert good.skipped == 1


def test_neighbour_citation_points_at_a_sentence_that_does_not_hold_the_claim() -> None:
    case = neighbour_citation(_good())
    assert case is not None
    moved = next(c for c in case.claims if c.id == case.target)
    (slot,) = moved.citations
    assert slot.quote != moved.text
    assert TEXT[slot.offsets.start : slot.offsets.end] == slot.quote


def test_merged_cites_only_the_first_claims_span() -> None:
    case = merged(_good())
    assert case is not None
    assert len(case.claims) == 1
    (claim,) = case.claims
    assert " and " in claim.text
    assert len(claim.citations) == 1
    assert set(case.originals) == {"c1", "c2"}


def test_unsupported_addition_cites_the_closest_passage_sentence() -> None:
    # tourist, visit, old, mill of tourist, visit, old, mill, daily: 4/5 held, no addition
    assert unsupported_addition(_good(), "Tourists visit the old mill daily.") is None
    case = unsupported_addition(_good(), "Penguins eat krill in Antarctic waters daily.")
    assert case is not None
    added = case.claims[-1]
    assert added.id == case.target == "c_add"
    assert added.citations[0].quote in TEXT


# ---------------------------------------------------------------- accounting


def _run(case: Case) -> dict[str, object]:
    settings = load_settings()
    composed = run_case(case, WordOverlapScorer(), settings, live_for([case.item]))
    return judge(case, composed)


def _with_text(good: GoodDraft, kind: str, text: str) -> Case:
    first = good.claims[0].model_copy(update={"text": text})
    claims: tuple[Claim, ...] = (first, *good.claims[1:])
    return Case(good.item, kind, claims, "c1", ("c1",))


def test_good_claims_are_shown_with_pass() -> None:
    good = _good()
    row = _run(Case(good.item, "good", good.claims))
    assert row["passed"] == [True, True]


def test_a_negated_claim_is_caught_and_an_unchanged_one_is_not() -> None:
    good = _good()
    assert _run(_with_text(good, "negation", "The bridge did not open in 1932."))["caught"]
    # a "perturbation" that changed nothing reaches the user with PASS: not caught
    assert not _run(_with_text(good, "negation", "The bridge opened in 1932."))["caught"]


def test_an_unrelated_addition_is_caught() -> None:
    case = unsupported_addition(_good(), "Penguins eat krill in Antarctic waters daily.")
    assert case is not None
    assert _run(case)["caught"]


def test_split_and_bootstrap_are_deterministic() -> None:
    assert split_of("clapnq:1") == split_of("clapnq:1")
    assert {split_of(f"x:{i}") for i in range(20)} == {"dev", "test"}
    lo, hi = bootstrap([1, 0, 1, 1], [1, 1, 1, 1])
    assert (lo, hi) == tuple(bootstrap([1, 0, 1, 1], [1, 1, 1, 1]))
    assert 0.0 <= lo <= 0.75 <= hi <= 1.0
    assert len(KINDS) == 7


def _point(t: float, good: float | None, caught: float | None) -> dict[str, Any]:
    return {
        "support_threshold": t,
        "good_claims_pass_rate": {"rate": good},
        "caught_overall": {"rate": caught},
    }


def test_the_operating_point_catches_most_above_the_good_floor() -> None:
    curve = [
        _point(0.3, 0.95, 0.80),
        _point(0.4, 0.92, 0.90),
        _point(0.5, 0.92, 0.90),  # a tie: the lower threshold blocks fewer good claims
        _point(0.6, 0.85, 0.97),  # catches more, but shows too few good claims
    ]
    assert choose_threshold(curve) == 0.4


def test_the_operating_point_keeps_the_rule_kinds_at_their_floor_when_it_can() -> None:
    def kinds(merged: float) -> dict[str, Any]:
        rates = dict.fromkeys(("number", "negation", "quantifier", "neighbour_citation"), 0.97)
        return {k: {"rate": r} for k, r in {**rates, "merged": merged}.items()}

    curve = [
        {**_point(0.2, 0.93, 0.95), "caught": kinds(0.90)},  # most caught, merged under 0.95
        {**_point(0.4, 0.91, 0.94), "caught": kinds(0.96)},
        {**_point(0.6, 0.85, 0.97), "caught": kinds(0.99)},  # too few good claims
    ]
    assert choose_threshold(curve) == 0.4
    for p in curve:
        p["caught"]["merged"]["rate"] = 0.9  # no point holds the rule floor: most caught wins
    assert choose_threshold(curve) == 0.2


def test_without_a_point_above_the_floor_the_one_showing_most_good_claims_wins() -> None:
    curve = [_point(0.3, 0.70, 0.5), _point(0.5, 0.88, 0.6), _point(0.7, None, None)]
    assert choose_threshold(curve) == 0.5
