"""The repair ladder's pieces, seed 004 labels and the "I don't know" note, by hand."""

from __future__ import annotations

from server.core.contracts import (
    CheckCode,
    ClaimType,
    ClaimVerdict,
    CodeFinding,
    RepairAction,
    Verdict,
)
from server.query.integrity import repair
from server.query.integrity.labels import GK_NOTE, label_claim
from server.query.integrity.missing import asked_phrase, missing_evidence, source_kind
from server.query.integrity.numbers import normalise_numbers
from tests.server.query.integrity.helpers import HIT_A, HIT_B, HITS, WordOverlapScorer, claim, slot

ROTATE = "The signing key is rotated every 90 days since version 2.1."
VAULT = "Admins must store keys in the vault."


def verdict(cid: str, v: Verdict, supported: bool, *codes: CheckCode) -> ClaimVerdict:
    findings = tuple(CodeFinding(code=c, claim_id=cid) for c in codes)
    return ClaimVerdict(claim_id=cid, verdict=v, supported=supported, findings=findings)


def test_closest_supported_skips_taken_spans_and_needs_the_threshold() -> None:
    scorer = WordOverlapScorer()
    found = repair.closest_supported("Admins store keys.", HITS, scorer, 0.5, set())
    assert found is not None
    hit, sent, score = found
    assert (hit.chunk.snippet_id, sent.quote, score) == ("keys-a", VAULT, 1.0)
    taken = {(sent.start, sent.end)}
    assert repair.closest_supported("Admins store keys.", HITS, scorer, 0.5, taken) is None
    assert repair.closest_supported("Llamas hum.", HITS, scorer, 0.5, set()) is None


def test_substitute_or_strip_leaves_passing_claims_alone() -> None:
    good = claim(ROTATE, ClaimType.FACT, slot(1, ROTATE))
    vague = claim("Admins store keys.", ClaimType.FACT, slot(2, ROTATE), cid="c2")
    lost = claim("Llamas hum.", ClaimType.FACT, slot(3, ROTATE), cid="c3")
    verdicts = [
        verdict("c1", Verdict.PASS, True),
        verdict("c2", Verdict.BLOCK, False, CheckCode.UNSUPPORTED),
        verdict("c3", Verdict.BLOCK, False, CheckCode.UNSUPPORTED),
    ]
    out, repairs = repair.substitute_or_strip(
        [good, vague, lost], verdicts, HITS, WordOverlapScorer(), 0.5
    )
    assert out[0] == good
    assert (out[1].text, out[1].label, out[1].citations[0].quote) == (VAULT, "[corrected]", VAULT)
    assert (out[2].citations, out[2].label) == ((), "[unsupported]")
    assert [(r.action, r.claim_id, r.codes) for r in repairs] == [
        (RepairAction.SUBSTITUTE, "c2", (CheckCode.UNSUPPORTED,)),
        (RepairAction.STRIP_CITATION, "c3", (CheckCode.UNSUPPORTED,)),
    ]


def test_a_claim_substituted_from_another_section_leaves_its_segment() -> None:
    gate = "The gate blocks fabricated citations."
    vault = claim(VAULT, ClaimType.FACT, slot(1, VAULT), segment=1)
    lost = claim("The gate blocks fabricated lies.", ClaimType.FACT, slot(2, VAULT), cid="c2")
    verdicts = [
        verdict("c1", Verdict.PASS, True),
        verdict("c2", Verdict.BLOCK, False, CheckCode.UNSUPPORTED),
    ]
    out, _ = repair.substitute_or_strip([vault, lost], verdicts, HITS, WordOverlapScorer(), 0.5)
    assert out[1].citations[0].quote == gate
    # its new citation is in keys/keys/gate, segment 1 cites keys/keys: a segment of its own
    assert [c.segment for c in out] == [1, 2]
    moved = out[1].model_copy(update={"segment": 1})
    other = claim(gate, ClaimType.FACT, slot(3, gate, HIT_B), segment=3, cid="c3")
    again = repair.resegment([vault, moved, other], {"c2"}, HITS)
    assert [c.segment for c in again] == [1, 3, 3]  # joins the segment that cites its section
    alone = repair.resegment([lost], {"c2"}, HITS)
    assert alone == [lost]  # nothing else in its segment: it stays where it is


def test_regeneration_needs_more_than_half_unsupported() -> None:
    bad = verdict("a", Verdict.BLOCK, False, CheckCode.UNSUPPORTED)
    good = verdict("b", Verdict.PASS, True)
    reasoning = verdict("r", Verdict.PASS, False)  # cites nothing and needs nothing
    assert not repair.needs_regeneration([bad, good])
    assert repair.needs_regeneration([bad, bad, good])
    assert not repair.needs_regeneration([bad, good, reasoning])
    assert not repair.needs_regeneration([])


def test_expand_query_adds_heading_terms_not_in_the_question() -> None:
    assert repair.expand_query("Where do keys go?", [HIT_A, HIT_B]) == "Where do keys go? gate"
    assert repair.expand_query("gate", []) == "gate"


def test_withhold_lists_every_blocked_claim() -> None:
    a = claim(ROTATE, ClaimType.FACT, slot(1, ROTATE))
    b = claim("Llamas hum.", ClaimType.FACT, cid="c2")
    visible, repairs = repair.withhold(
        [a, b],
        [
            verdict("c1", Verdict.WARN, True),
            verdict("c2", Verdict.BLOCK, False, CheckCode.MISSING_CITATION),
        ],
    )
    assert visible == [a]
    assert [(r.action, r.claim_id, r.codes) for r in repairs] == [
        (RepairAction.FALLBACK, "c2", (CheckCode.MISSING_CITATION,))
    ]


def test_labels_of_seed_004() -> None:
    gk = label_claim(claim("Water is H2O.", ClaimType.GENERAL_KNOWLEDGE), foundational=False)
    assert (gk.label, gk.text) == ("[general knowledge]", f"Water is H2O. {GK_NOTE}")
    assert label_claim(gk, foundational=False) == gk  # idempotent
    own = label_claim(claim(VAULT, ClaimType.FACT, slot(1, VAULT)), foundational=True)
    assert (own.type, own.label) == (ClaimType.SELF_KNOWLEDGE, "[foundational knowledge]")
    num = label_claim(claim(ROTATE, ClaimType.NUMBER, slot(1, ROTATE)), foundational=True)
    assert (num.type, num.label) == (ClaimType.NUMBER, "[foundational knowledge]")
    plain = claim(VAULT, ClaimType.FACT, slot(1, VAULT))
    assert label_claim(plain, foundational=False) == plain


def test_missing_evidence_names_the_kind_of_source() -> None:
    assert source_kind("What is a signing key?", "signing key").startswith("a glossary")
    assert "changelog" in source_kind("How many keys are allowed?", "keys allowed")
    assert source_kind("How do I rotate keys?", "rotate keys").startswith("a how-to guide")
    assert source_kind("Why rotate keys?", "rotate keys").startswith("a design note")
    assert source_kind("Keys and llamas", "keys llamas").startswith("a document that states")
    note = missing_evidence("How do I rotate keys?", [HIT_B])
    assert note.query_terms == ("rotate", "keys")
    assert note.suggested_sources[1] == "keys.md#keys/keys/gate (nearest match, not sufficient)"
    assert "citegate ingest" in note.summary


def test_missing_evidence_names_the_value_no_evidence_states() -> None:
    """Refused by the answer-type rule, the note says which value is missing, without the
    rule's own "(about: ...)" words."""
    q = "What does Basecamp Big cost per month?"
    note = missing_evidence(q, [HIT_B], unstated=("price", "duration (about: big month)"))
    topic = "“Basecamp Big cost per month”"
    assert (
        note.suggested_sources[0]
        == f"a document that states the price and the duration for {topic}"
    )
    assert note.summary.startswith(
        f"No indexed passage states the price and the duration asked for {topic}."
    )
    assert "about:" not in note.summary
    # names no passage mentions come first: the topic is the name, the source as before
    named = missing_evidence(q, [HIT_B], absent_names=("Basecamp Big",), unstated=("price",))
    assert named.summary.startswith("No indexed passage you may read mentions Basecamp Big.")
    assert named.suggested_sources[0] == source_kind(q, "Basecamp Big")


def test_missing_evidence_quotes_what_was_asked_in_the_question_s_words() -> None:
    # the stemmed key terms read as a bag ("what' maximum number background task ...")
    asked = "What's the maximum number of background tasks I can attach to a single request?"
    assert asked_phrase(asked) == (
        "“maximum number of background tasks I can attach to a single request”"
    )
    assert asked_phrase("How do I change the width of the bar?") == "“change the width of the bar”"
    assert asked_phrase("Does Mozilla offer a student discount?") == (
        "“Mozilla offer a student discount”"
    )
    assert asked_phrase("How many devices can I use?") == "“devices can I use”"
    assert asked_phrase("Keys and llamas") == "“Keys and llamas”"  # no question words
    assert asked_phrase(" ? ") == "this question"
    long = asked_phrase("What is " + "word " * 60)
    assert long.endswith(" …”") and len(long) <= 120 + 4
    note = missing_evidence("How do I rotate keys?", [HIT_B])
    assert note.summary.startswith("No indexed passage supports an answer about “rotate keys”.")
    assert "a how-to guide or tutorial that walks through “rotate keys”" in note.summary


def test_number_normalisation_table() -> None:
    cases = {
        "1,000 users": {"1000"},
        "5 percent": {"5%"},
        "five percent": {"5%"},
        "three keys": {"3"},
        "ninety days": {"90"},
        "90.0 days": {"90"},
        "version 2.10 [3]": {"2.10"},
        "0.5 s": {"0.5"},
        "one day": {"1"},
        "one of the three plans": {"1", "3"},
        "use an existing ID or create a new one": set(),  # a pronoun, not a count
        "the one you need": set(),
    }
    assert {text: normalise_numbers(text) for text in cases} == cases
