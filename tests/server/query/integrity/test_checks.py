"""Each integrity check against a hand-worked case (SPEC 5.1)."""

from __future__ import annotations

import pytest

from server.core.contracts import CheckCode, Claim, ClaimType, CodeFinding, Offsets, Verdict
from server.query.integrity import checks, gate
from tests.server.query.integrity.helpers import HIT_A, HIT_B, HITS, LIVE, claim, slot

ROTATE = "The signing key is rotated every 90 days since version 2.1."


def codes(findings: list[CodeFinding]) -> list[CheckCode]:
    return [f.code for f in findings]


def test_valid_slot_has_no_findings() -> None:
    c = claim(ROTATE, ClaimType.NUMBER, slot(1, ROTATE))
    assert checks.check_slot(c, c.citations[0], HITS, LIVE) == []


def test_fabricated_id() -> None:
    s = slot(1, ROTATE).model_copy(update={"snippet_id": "invented-1"})
    c = claim(ROTATE, ClaimType.FACT, s)
    assert codes(checks.check_slot(c, s, HITS, LIVE)) == [CheckCode.FABRICATED_ID]


def test_quote_not_verbatim_and_bad_offsets() -> None:
    s = slot(1, ROTATE).model_copy(update={"quote": "The key rotates every 30 days."})
    assert codes(checks.check_slot(claim("x", ClaimType.FACT, s), s, HITS, LIVE)) == [
        CheckCode.QUOTE_NOT_VERBATIM
    ]
    moved = slot(1, ROTATE).model_copy(
        update={
            "offsets": Offsets(
                start=HIT_A.chunk.offsets.start + 1, end=HIT_A.chunk.offsets.start + 1 + len(ROTATE)
            )
        }
    )
    assert codes(checks.check_slot(claim("x", ClaimType.FACT, moved), moved, HITS, LIVE)) == [
        CheckCode.BAD_OFFSETS
    ]
    outside = slot(1, ROTATE).model_copy(update={"offsets": Offsets(start=0, end=5)})
    assert codes(checks.check_slot(claim("x", ClaimType.FACT, outside), outside, HITS, LIVE)) == [
        CheckCode.BAD_OFFSETS
    ]


def test_revision_analyzer_and_rank() -> None:
    stale = LIVE.model_copy(update={"revs": {"keys.md": "r2"}, "analyzer": "other"})
    c = claim(ROTATE, ClaimType.FACT, slot(1, ROTATE))
    assert codes(checks.check_slot(c, c.citations[0], HITS, stale)) == [
        CheckCode.ANALYZER_MISMATCH,
        CheckCode.REV_MISMATCH,
    ]
    unranked = {"keys-a": HIT_A.model_copy(update={"k_final": None})}
    assert codes(checks.check_slot(c, c.citations[0], unranked, LIVE)) == [CheckCode.MISSING_RANK]


def test_markers_match_citations() -> None:
    c = claim(ROTATE, ClaimType.FACT, slot(1, ROTATE))
    assert checks.check_markers("Rotated every 90 days [1].", [c]) == []
    assert codes(checks.check_markers("Rotated [1] [2].", [c])) == [
        CheckCode.MARKER_WITHOUT_CITATION
    ]
    assert codes(checks.check_markers("Rotated.", [c])) == [CheckCode.CITATION_WITHOUT_MARKER]


def test_number_needs_same_number_and_reference_point() -> None:
    good = claim("Keys rotate every 90 days.", ClaimType.NUMBER, slot(1, ROTATE))
    assert checks.check_type_evidence(good, [ROTATE], allow_general=False) == []
    wrong = claim("Keys rotate every 30 days.", ClaimType.NUMBER, slot(1, ROTATE))
    assert codes(checks.check_type_evidence(wrong, [ROTATE], allow_general=False)) == [
        CheckCode.NUMBER_MISMATCH
    ]
    words = claim("Keys rotate every ninety days.", ClaimType.NUMBER)
    assert codes(checks.check_type_evidence(words, [], allow_general=False)) == [
        CheckCode.MISSING_CITATION
    ]


def test_a_number_inside_any_claim_type_must_match_its_span() -> None:
    fact = claim("Keys are rotated every 30 days by the vault.", ClaimType.FACT, slot(1, ROTATE))
    assert codes(checks.check_type_evidence(fact, [ROTATE], allow_general=False)) == [
        CheckCode.NUMBER_MISMATCH
    ]
    same = claim("Keys are rotated every 90 days.", ClaimType.FACT, slot(1, ROTATE))
    assert checks.check_type_evidence(same, [ROTATE], allow_general=False) == []


def test_definition_needs_the_term_and_quote_must_be_verbatim() -> None:
    gate = "The gate blocks fabricated citations."
    d = claim(
        "The gate is the part that blocks fabricated citations.",
        ClaimType.DEFINITION,
        slot(1, gate, HIT_B),
    )
    assert checks.check_type_evidence(d, [gate], allow_general=False) == []
    d2 = claim("The vault is the store for keys.", ClaimType.DEFINITION, slot(1, gate, HIT_B))
    assert codes(checks.check_type_evidence(d2, [gate], allow_general=False)) == [
        CheckCode.TERM_NOT_IN_SPAN
    ]
    q = claim(
        'The docs say "blocks invented citations" plainly.', ClaimType.QUOTE, slot(1, gate, HIT_B)
    )
    assert codes(checks.check_type_evidence(q, [gate], allow_general=False)) == [
        CheckCode.QUOTE_NOT_VERBATIM
    ]


def test_a_quote_differing_only_in_marks_spacing_or_closing_punctuation_is_verbatim() -> None:
    span = "Both `` Byzantine Empire '' and `` Eastern Roman Empire '' are later terms ."
    ok = "Both \"Byzantine Empire'' and “Eastern Roman Empire” are later terms."
    assert checks.quoted_words(ok) == ["Byzantine Empire", "Eastern Roman Empire"]
    q = claim(ok, ClaimType.QUOTE)
    assert checks.check_type_evidence(q, [span], allow_general=False) == []
    title = claim('He wrote "Social Behavior as Exchange."', ClaimType.QUOTE)
    tokenised = "He published a work `` Social Behavior as Exchange '' ."
    assert checks.check_type_evidence(title, [tokenised], allow_general=False) == []
    wrong = claim("Both \"Byzantine Realm'' and more.", ClaimType.QUOTE)
    assert codes(checks.check_type_evidence(wrong, [span], allow_general=False)) == [
        CheckCode.QUOTE_NOT_VERBATIM
    ]


def test_an_inline_html_tag_is_read_out_of_claim_and_span_alike() -> None:
    """FastAPI dev f43 and f46: the code a claim shows holds HTML whose attribute values
    (`<span style="color: green;">`) read as quotations, while the span, read as plain text,
    has the tag out; a glossary term's `<dfn title="...">` is no word the span says."""
    span = (
        "Run it:\n```console\n$ uvicorn main:app\n"
        '<span style="color: green;">INFO</span>:     Uvicorn running\n```'
    )
    shown = claim(span.replace(":\n```", ":\n\n```"), ClaimType.QUOTE)
    assert checks.check_type_evidence(shown, [span], allow_general=False) == []
    term = 'Mark it <dfn title="obsolete, recommended not to use it">deprecated</dfn> today.'
    said = claim("Mark it deprecated today.", ClaimType.QUOTE)
    assert checks.check_type_evidence(said, [term], allow_general=False) == []
    assert checks.restates(said.text, term)
    quoted = claim('It says "Uvicorn running" in the log.', ClaimType.QUOTE)
    assert checks.check_type_evidence(quoted, [span], allow_general=False) == []
    wrong = claim('It says "Uvicorn stopped" in the log.', ClaimType.QUOTE)
    assert codes(checks.check_type_evidence(wrong, [span], allow_general=False)) == [
        CheckCode.QUOTE_NOT_VERBATIM
    ]


def test_a_claim_restating_tokenised_text_is_a_restatement_and_no_rule_reads_it() -> None:
    span = (
        "Because no texts of the Analects have been discovered earlier , and because the "
        "Analects was not referred to by name in any source , some scholars date the text 's "
        "compilation late ."
    )
    said = (
        "Because no texts of the Analects have been discovered earlier, and because the "
        "Analects was not referred to by name in any source, some scholars date the text's "
        "compilation late."
    )
    assert checks.restates(said, span)
    assert checks.restates("A lead-in shows.", "A lead-in shows:")
    assert not checks.restates(said.replace("was not", "was"), span)
    c = claim(said, ClaimType.FACT)
    assert checks.check_type_evidence(c, [span], allow_general=False) == []


def test_labels_and_general_knowledge_mode() -> None:
    gk = claim("Water boils at 100 C at sea level.", ClaimType.GENERAL_KNOWLEDGE)
    assert codes(checks.check_type_evidence(gk, [], allow_general=True)) == [
        CheckCode.LABEL_MISSING,
        CheckCode.LABEL_MISSING,
    ]
    labelled = gk.model_copy(
        update={
            "label": "[general knowledge]",
            "text": "Water boils at 100 C (general knowledge, not verified against the corpus)",
        }
    )
    assert checks.check_type_evidence(labelled, [], allow_general=True) == []
    assert codes(checks.check_type_evidence(labelled, [], allow_general=False)) == [
        CheckCode.MISSING_CITATION
    ]


def test_self_knowledge_needs_its_label_and_the_foundational_docs() -> None:
    own = claim("The gate blocks fabricated citations.", ClaimType.SELF_KNOWLEDGE, slot(1, ROTATE))
    assert codes(
        checks.check_type_evidence(own, [ROTATE], allow_general=False, foundational=True)
    ) == [CheckCode.LABEL_MISSING]
    labelled = own.model_copy(update={"label": "[foundational knowledge]"})
    assert (
        checks.check_type_evidence(labelled, [ROTATE], allow_general=False, foundational=True) == []
    )
    assert codes(checks.check_type_evidence(labelled, [ROTATE], allow_general=False)) == [
        CheckCode.MISSING_CITATION
    ]


def test_recommendation_cites_guidance_or_is_labelled_reasoning() -> None:
    vault = "Admins must store keys in the vault."
    rec = claim("Store keys in the vault.", ClaimType.RECOMMENDATION, slot(1, vault))
    assert checks.check_type_evidence(rec, [vault], allow_general=False) == []
    assert codes(checks.check_type_evidence(rec, [ROTATE], allow_general=False)) == [
        CheckCode.MISSING_CITATION
    ]
    bare = claim("Store keys in the vault.", ClaimType.RECOMMENDATION)
    assert codes(checks.check_type_evidence(bare, [], allow_general=False)) == [
        CheckCode.MISSING_CITATION
    ]
    reasoned = bare.model_copy(update={"label": "[reasoning]"})
    assert checks.check_type_evidence(reasoned, [], allow_general=False) == []


@pytest.mark.parametrize(
    ("span", "guides"),
    [
        ("Choose a non-human-identifiable ID.", True),  # a step in the imperative
        ("Keys are listed below.\n1. Enter your email address.", True),
        ("* Click New Policy and select a template.", True),
        ("In the morning the server restarts.", False),
        ("Vaccines are a safer way to build immunity.", False),
        ("The server restarts at midnight.", False),
    ],
)
def test_an_imperative_step_is_guidance(span: str, guides: bool) -> None:
    rec = claim("You should do this.", ClaimType.RECOMMENDATION, slot(1, ROTATE))
    found = codes(checks.check_type_evidence(rec, [span], allow_general=False))
    assert found == ([] if guides else [CheckCode.MISSING_CITATION])


def test_numbers_normalise_before_comparing() -> None:
    span = "Up to 1,000 keys, 5 percent of them rotated in 2025."
    same = claim("1000 keys and 5% rotated.", ClaimType.NUMBER, slot(1, ROTATE))
    assert checks.check_type_evidence(same, [span], allow_general=False) == []
    three = claim("Three keys rotate.", ClaimType.NUMBER, slot(1, ROTATE))
    assert (
        codes(checks.check_type_evidence(three, ["3 keys rotate in v2.1."], allow_general=False))
        == []
    )
    no_anchor = claim("Keys rotate every 90 days.", ClaimType.NUMBER, slot(1, ROTATE))
    assert codes(
        checks.check_type_evidence(no_anchor, ["Keys rotate 90 times."], allow_general=False)
    ) == [CheckCode.MISSING_CITATION]


def test_a_rank_the_span_writes_as_a_word_is_a_number_it_gives() -> None:
    span = "The 1895-96 season was the eighth season of the Football League, won in 1896."
    eighth = claim("The 1895-96 season was the 8th season of the Football League.", ClaimType.FACT)
    assert checks.check_type_evidence(eighth, [span], allow_general=False) == []
    ninth = claim("The 1895-96 season was the 9th season of the Football League.", ClaimType.FACT)
    found = checks.check_type_evidence(ninth, [span], allow_general=False)
    assert [(f.code, f.detail) for f in found] == [
        (CheckCode.NUMBER_MISMATCH, "9 not in the cited span")
    ]


def test_a_list_items_own_number_is_no_number_of_the_claim() -> None:
    span = "Click **New Policy**. Enter a name and save. A policy costs 4 dollars."
    step = claim('1. Click "New Policy."', ClaimType.FACT)
    assert checks.check_type_evidence(step, [span], allow_general=False) == []
    steps = claim("2) Enter a name and save.\n3. Click New Policy.", ClaimType.FACT)
    assert checks.check_type_evidence(steps, [span], allow_general=False) == []
    # a number in the item's text is still checked
    priced = claim("2. A policy costs 5 dollars.", ClaimType.FACT)
    found = checks.check_type_evidence(priced, [span], allow_general=False)
    assert [(f.code, f.detail) for f in found] == [
        (CheckCode.NUMBER_MISMATCH, "5 not in the cited span")
    ]


def test_support_unsupported_and_misattributed() -> None:
    c = claim(ROTATE, ClaimType.FACT, slot(1, ROTATE))
    assert checks.check_support(c, 0.9, 0.5) == []
    assert codes(checks.check_support(c, 0.2, 0.5)) == [CheckCode.UNSUPPORTED]
    assert codes(checks.check_support(c, 0.2, 0.5, ("keys-b", 0.4))) == [CheckCode.UNSUPPORTED]
    found = checks.check_support(c, 0.2, 0.5, ("keys-b", 0.8))
    assert codes(found) == [CheckCode.MISATTRIBUTED]
    assert "keys-b" in found[0].detail
    assert checks.check_support(claim("So it holds.", ClaimType.REASONING), None, 0.5) == []


def test_index_identity_missing_version_and_deleted_doc() -> None:
    c = claim(ROTATE, ClaimType.FACT, slot(1, ROTATE))
    s = c.citations[0]
    later = LIVE.model_copy(update={"index_hash": "ih:content2"})
    assert checks.check_identity(c, s, HIT_A, later) == []  # same identity, later content
    other = LIVE.model_copy(update={"index_hash": "other:content"})
    assert codes(checks.check_identity(c, s, HIT_A, other)) == [CheckCode.MISMATCH_INDEX_HASH]
    model = LIVE.model_copy(update={"embed_model": "bge"})
    assert codes(checks.check_identity(c, s, HIT_A, model)) == [CheckCode.MISMATCH_INDEX_HASH]
    unversioned = HIT_A.model_copy(update={"chunk": HIT_A.chunk.model_copy(update={"rev": ""})})
    found = checks.check_identity(c, s, unversioned, LIVE)
    assert codes(found) == [CheckCode.REV_MISMATCH]
    assert "no version" in found[0].detail
    gone = LIVE.model_copy(update={"revs": {}})
    found = checks.check_identity(c, s, HIT_A, gone)
    assert codes(found) == [CheckCode.REV_MISMATCH]
    assert "deleted" in found[0].detail


def test_trace_needs_a_score_and_ranks() -> None:
    c = claim(ROTATE, ClaimType.FACT, slot(1, ROTATE))
    nan = HIT_A.model_copy(update={"score_raw": float("nan")})
    assert codes(checks.check_trace(c, c.citations[0], nan)) == [CheckCode.MISSING_SCORE]
    assert checks.check_trace(c, c.citations[0], HIT_A) == []


def test_empty_citations() -> None:
    bare = claim(ROTATE, ClaimType.FACT)
    assert codes(checks.check_empty([bare])) == [CheckCode.EMPTY_CITATIONS]
    assert checks.check_empty([claim(ROTATE, ClaimType.FACT, slot(1, ROTATE))]) == []
    assert checks.check_empty([]) == []


def test_reasoning_may_not_add_facts_and_overgeneralisation() -> None:
    cited = [claim(ROTATE, ClaimType.FACT, slot(1, ROTATE))]
    ok = claim("So the signing key is rotated since version 2.1.", ClaimType.REASONING, cid="c2")
    assert checks.check_reasoning(ok, cited) == []
    new = claim(
        "So quantum computers break elliptic curves tomorrow morning.",
        ClaimType.REASONING,
        cid="c2",
    )
    assert codes(checks.check_reasoning(new, cited)) == [CheckCode.NEW_FACT_IN_REASONING]
    vague = claim("Studies show keys should rotate.", ClaimType.FACT)
    assert codes(checks.check_over_generalised(vague, ["studies show"], supported=False)) == [
        CheckCode.OVER_GENERALISED
    ]
    assert checks.check_over_generalised(vague, ["studies show"], supported=True) == []


def test_cross_section_reuse_in_one_segment() -> None:
    a = claim(ROTATE, ClaimType.FACT, slot(1, ROTATE), segment=1)
    b = claim(
        "The gate blocks fabricated citations.",
        ClaimType.FACT,
        slot(2, "The gate blocks fabricated citations.", HIT_B),
        segment=1,
        cid="c2",
    )
    assert codes(checks.check_cross_section([a, b], HITS)) == [CheckCode.CROSS_SECTION_REUSE]
    assert checks.check_cross_section([a, b.model_copy(update={"segment": 2})], HITS) == []


def test_cross_section_reuse_lands_on_the_citation_that_strays_from_its_segment() -> None:
    gate = "The gate blocks fabricated citations."
    stray = claim(gate, ClaimType.FACT, slot(1, gate, HIT_B), segment=1, cid="c1")
    a = claim(ROTATE, ClaimType.FACT, slot(2, ROTATE), segment=1, cid="c2")
    vault = "Admins must store keys in the vault."
    b = claim(vault, ClaimType.FACT, slot(3, vault), segment=1, cid="c3")
    found = checks.check_cross_section([stray, a, b], HITS)
    # two of three citations name keys/keys: the first claim strays, not the two after it
    assert [(f.code, f.claim_id) for f in found] == [(CheckCode.CROSS_SECTION_REUSE, "c1")]
    assert found[0].detail == "segment 1 mixes keys/keys and keys/keys/gate"


def test_a_number_the_span_gives_for_something_else_is_a_number_mismatch() -> None:
    span = "The value ranges from 1 to 9"
    wrong = claim("The value ranges from 9 to 9", ClaimType.NUMBER, slot(1, ROTATE))
    found = checks.check_type_evidence(wrong, [span], allow_general=False)
    assert codes(found) == [CheckCode.NUMBER_MISMATCH]
    assert "says 1" in found[0].detail
    timeout = "timeout defaults to 10 seconds; the maximum is 30 seconds"
    fact = claim("It defaults to 30 seconds", ClaimType.FACT, slot(1, ROTATE))
    assert codes(checks.check_type_evidence(fact, [timeout], allow_general=False)) == [
        CheckCode.NUMBER_MISMATCH
    ]
    right = claim("It defaults to ten seconds", ClaimType.FACT, slot(1, ROTATE))
    assert checks.check_type_evidence(right, [timeout], allow_general=False) == []


def test_a_number_of_a_name_is_compared_as_part_of_the_name() -> None:
    # 'IL-6' names a protein, it counts nothing: the span need not state a 6
    il6 = claim("IL-6 signaling plays a role in disease.", ClaimType.FACT, slot(1, ROTATE))
    span = "IL6R-related pathways play a role in disease."
    assert checks.check_type_evidence(il6, [span], allow_general=False) == []
    # the span's name gives the number the claim states on its own: 'Route 690' for 'I-690'
    road = claim("It is adjacent to Route 690 West.", ClaimType.FACT, slot(1, ROTATE))
    near = "The fairgrounds are adjacent to I-690 West."
    assert checks.check_type_evidence(road, [near], allow_general=False) == []
    # digits inside a word are a name's too: 'T-helper 17' for 'TH17', 'BRCA 1' for 'BRCA1'
    th17 = claim("Depletion of T-helper 17 cells follows.", ClaimType.FACT, slot(1, ROTATE))
    depleted = ["TH17 cells were depleted."]
    assert checks.check_type_evidence(th17, depleted, allow_general=False) == []
    brca = claim("BRCA 1 carriers' risk varies.", ClaimType.FACT, slot(1, ROTATE))
    varies = ["Risks of BRCA1/2 vary."]
    assert checks.check_type_evidence(brca, varies, allow_general=False) == []
    # a cell line's opening digits count nothing ('NIH 3T3'), and a span's coded name gives
    # the number of a claim that writes it apart ('10EB' for '10E8')
    cells = claim("Clocks time mitosis in NIH 3T3 cells.", ClaimType.FACT, slot(1, ROTATE))
    assert checks.check_type_evidence(cells, ["Clocks time mitosis."], allow_general=False) == []
    bnab = claim("Antibody 10EB does not bind lipids.", ClaimType.FACT, slot(1, ROTATE))
    bound = ["10E8 did not bind lipids."]
    assert checks.check_type_evidence(bnab, bound, allow_general=False) == []
    # a claim number the span states nowhere, named or not, is still a mismatch
    far = claim("It is adjacent to Route 691 West.", ClaimType.FACT, slot(1, ROTATE))
    assert codes(checks.check_type_evidence(far, [near], allow_general=False)) == [
        CheckCode.NUMBER_MISMATCH
    ]


def test_numbers_are_checked_for_every_claim_type_that_cites() -> None:
    wrong = "The signing key is rotated every 30 days."
    own = claim(wrong, ClaimType.SELF_KNOWLEDGE, slot(1, ROTATE), label="[foundational knowledge]")
    assert codes(
        checks.check_type_evidence(own, [ROTATE], allow_general=False, foundational=True)
    ) == [CheckCode.NUMBER_MISMATCH]
    reasoned = claim(wrong, ClaimType.REASONING, slot(1, ROTATE))
    assert codes(checks.check_type_evidence(reasoned, [ROTATE], allow_general=False)) == [
        CheckCode.NUMBER_MISMATCH
    ]
    rec = claim("Rotate the signing key every 30 days.", ClaimType.RECOMMENDATION, slot(1, ROTATE))
    guidance = "You should rotate the signing key every 90 days."
    assert codes(checks.check_type_evidence(rec, [guidance], allow_general=False)) == [
        CheckCode.NUMBER_MISMATCH
    ]


def test_negation_and_quantifier_mismatches_for_any_claim_type() -> None:
    negated = claim(
        "It is not the case that the signing key is rotated every 90 days since version 2.1.",
        ClaimType.NUMBER,
        slot(1, ROTATE),
    )
    assert codes(checks.check_type_evidence(negated, [ROTATE], allow_general=False)) == [
        CheckCode.NEGATION_MISMATCH
    ]
    vault = "Admins must store keys in the vault."
    rec = claim("Admins must never store keys in the vault.", ClaimType.RECOMMENDATION)
    rec = rec.model_copy(update={"citations": (slot(1, vault),)})
    found = checks.check_type_evidence(rec, [vault], allow_general=False)
    assert codes(found) == [CheckCode.NEGATION_MISMATCH]  # not also a quantifier finding
    gate = "The gate blocks fabricated citations."
    always = claim("The gate always blocks fabricated citations.", ClaimType.FACT)
    always = always.model_copy(update={"citations": (slot(1, gate, HIT_B),)})
    assert codes(checks.check_type_evidence(always, [gate], allow_general=False)) == [
        CheckCode.QUANTIFIER_MISMATCH
    ]
    faithful = claim("Fabricated citations are blocked by the gate.", ClaimType.FACT)
    faithful = faithful.model_copy(update={"citations": (slot(1, gate, HIT_B),)})
    assert checks.check_type_evidence(faithful, [gate], allow_general=False) == []
    never = "Plain-text tokens are never written to the logs."
    copied = claim("Tokens are never written to the logs.", ClaimType.FACT, slot(1, ROTATE))
    assert checks.check_type_evidence(copied, [never], allow_general=False) == []
    kept = claim("Tokens are not written to the logs.", ClaimType.FACT, slot(1, ROTATE))
    assert checks.check_type_evidence(kept, [never], allow_general=False) == []


def test_meaning_mismatches_block_like_a_wrong_number() -> None:
    for code in (CheckCode.NEGATION_MISMATCH, CheckCode.QUANTIFIER_MISMATCH):
        assert gate.code_verdict(code, ClaimType.FACT, "strict") is Verdict.BLOCK
        assert gate.code_verdict(code, ClaimType.FACT, "lenient") is Verdict.WARN
        assert gate.code_verdict(code, ClaimType.RECOMMENDATION, "strict") is Verdict.WARN
        assert gate.code_verdict(code, ClaimType.FACT, "strict") is gate.code_verdict(
            CheckCode.NUMBER_MISMATCH, ClaimType.FACT, "strict"
        )


def test_check_evidence_raises_coverage_up_to_the_trust_and_not_above_it() -> None:
    span = "Uploads over 10 MB are refused."
    c = claim("The Acme service refuses uploads over 10 MB.", ClaimType.FACT)
    # "Acme" is a name the span never mentions: entity_mismatch while the score is at or
    # under the trust (or unknown), nothing once the support score is above it
    for score in (0.5, 0.8, None):
        found = checks.check_evidence(c, [span], [span], score, trust=0.8, allow_general=False)
        assert [f.code for f in found] == [CheckCode.ENTITY_MISMATCH]
    assert checks.check_evidence(c, [span], [span], 0.81, trust=0.8, allow_general=False) == []
    # trust 1.0: the rules run whatever the score
    found = checks.check_evidence(c, [span], [span], 1.0, trust=1.0, allow_general=False)
    assert [f.code for f in found] == [CheckCode.ENTITY_MISMATCH]


def test_check_evidence_keeps_the_number_rule_whatever_the_trust() -> None:
    span = "Uploads over 10 MB are refused."
    c = claim("Uploads over 12 MB are refused.", ClaimType.NUMBER)
    found = checks.check_evidence(c, [span], [span], 0.99, trust=0.5, allow_general=False)
    assert [f.code for f in found] == [CheckCode.NUMBER_MISMATCH]


def test_part_trust_frees_a_claim_of_one_part_but_never_a_merged_one() -> None:
    span = "Uploads over 10 MB are refused by the server."
    lone = claim("Large files are rejected when they exceed ten megabytes.", ClaimType.FACT)
    merged = claim(
        "Uploads over 10 MB are refused by the server, and large archives are "
        "unpacked nightly by workers.",
        ClaimType.FACT,
    )

    def codes(c: Claim, score: float, part_trust: float) -> list[CheckCode]:
        found = checks.check_evidence(
            c, [span], [span], score, trust=1.0, part_trust=part_trust, allow_general=False
        )
        return [f.code for f in found]

    # one part (files, rejected, exceed, megabytes: none held): the parts rule fires at or
    # under part_trust, and not above it, where the support score has read it whole
    assert codes(lone, 0.7, 0.7) == [CheckCode.UNSUPPORTED_PART]
    assert codes(lone, 0.71, 0.7) == []
    assert codes(lone, 0.71, 1.0) == [CheckCode.UNSUPPORTED_PART]
    # two parts, the second unheld: the part rule fires whatever the score
    assert codes(merged, 0.99, 0.5) == [CheckCode.UNSUPPORTED_PART]
