"""The checker-accuracy decision on hand-made pairs, with a word-overlap support scorer."""

from __future__ import annotations

from evals.checker_accuracy import accuracy, as_claim, supported
from server.core.contracts import ClaimType
from server.core.settings import load_settings
from tests.server.query.integrity.helpers import WordOverlapScorer


def test_pair_becomes_a_typed_claim_quoting_the_whole_evidence() -> None:
    claim = as_claim("In 2024 the limit was 10 MB.", "Uploads over 10 MB are refused.")
    assert claim.type is ClaimType.NUMBER
    slot = claim.citations[0]
    assert (slot.offsets.start, slot.offsets.end) == (0, len("Uploads over 10 MB are refused."))


def test_supported_needs_support_and_matching_numbers() -> None:
    settings = load_settings()
    scorer = WordOverlapScorer()
    assert supported(
        ("Uploads over 10 MB are refused.", "Uploads over 10 MB are refused.", 1), scorer, settings
    )
    # every word but the number is there: support passes, the number check does not
    assert not supported(
        ("Uploads over 12 MB are refused.", "Uploads over 10 MB are refused.", 0), scorer, settings
    )
    assert not supported(("Cats dream at night.", "Uploads are refused.", 0), scorer, settings)


def test_accuracy_is_balanced_over_both_classes() -> None:
    settings = load_settings()
    pairs = [
        ("Uploads are refused.", "Uploads are refused.", 1),  # right
        ("Cats dream at night.", "Cats dream at night.", 0),  # wrong: label says unsupported
        ("Dogs bark loudly.", "Uploads are refused.", 0),  # right
    ]
    report = accuracy(pairs, WordOverlapScorer(), settings)
    # recall on supported 1/1, on unsupported 1/2: balanced (1 + 0.5) / 2
    assert report["balanced_accuracy"] == 0.75
    assert report["n"] == 3 and report["supported"] == 1
    assert report["precision_supported"] == 0.5


def test_supported_is_the_gates_decision_names_included() -> None:
    settings = load_settings(integrity={"coverage_trust": 1.0})
    scorer = WordOverlapScorer()
    pair = ("The Acme service refuses uploads over 10 MB.", "Uploads over 10 MB are refused.", 0)
    # support 4/8 words passes the threshold; the name "Acme" the span never mentions does
    # not (entity_mismatch, as the gate raises it); the figure without coverage passes it
    assert scorer.support(pair[0], pair[1]) > settings.integrity.support_threshold
    assert not supported(pair, scorer, settings)
    assert supported(pair, scorer, settings, coverage=False)
    # a support score above coverage_trust lets the support model decide alone
    trusting = load_settings(integrity={"coverage_trust": 0.4})
    assert supported(pair, scorer, trusting)


def test_accuracy_reports_the_figure_without_coverage_beside_it() -> None:
    settings = load_settings(integrity={"coverage_trust": 1.0})
    pairs = [
        ("The Acme service refuses uploads over 10 MB.", "Uploads over 10 MB are refused.", 1),
        ("Dogs bark loudly.", "Uploads are refused.", 0),
    ]
    report = accuracy(pairs, WordOverlapScorer(), settings)
    # with names checked the supported pair is blocked: (0 + 1) / 2; without, (1 + 1) / 2
    assert report["balanced_accuracy"] == 0.5
    assert report["without_coverage"] == 1.0


def test_a_name_the_evidences_title_holds_is_no_foreign_name() -> None:
    settings = load_settings(integrity={"coverage_trust": 1.0})
    pair = (
        "Refusals at the Acme service cover uploads over 10 MB.",
        "Uploads over 10 MB are refused.",
        1,
    )
    # the span never says "Acme"; its document's title does, as a chunk's title does in the gate
    assert not supported(pair, WordOverlapScorer(), settings)
    assert supported(pair, WordOverlapScorer(), settings, title="Acme upload limits")
    other = ("Dogs bark loudly.", "Uploads are refused.", 0)
    titled = accuracy([pair, other], WordOverlapScorer(), settings, {pair[:2]: "Acme uploads"})
    assert titled["balanced_accuracy"] == 1.0  # both right
    assert accuracy([pair, other], WordOverlapScorer(), settings)["balanced_accuracy"] == 0.5
