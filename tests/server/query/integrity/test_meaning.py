"""Rule checks of meaning against hand-worked cases: numbers by role, negation, quantifiers.

Each oracle was worked out by reading the pair: a flagged claim says something its span
does not; an unflagged one is a faithful restatement (or the span says the same thing).
"""

from __future__ import annotations

import pytest

from server.query.integrity.meaning import negation_mismatches, quantifier_mismatches
from server.query.integrity.numbers import (
    misplaced_numbers,
    normalise_numbers,
    number_mentions,
    stem,
)

TIMEOUT = "timeout defaults to 10 seconds; the maximum is 30 seconds"
RANGE = "The value ranges from 1 to 9"
KEYS = (
    "The signing key is rotated every 90 days since version 2.1. "
    "Admins must store keys in the vault."
)


def test_mentions_carry_context_unit_and_range_end() -> None:
    ten, thirty = number_mentions(TIMEOUT)
    # nearest word weighs 1, the next 0.7, the unit 1; ';' ends the sentence, so 30 knows
    # only 'max' and its unit
    assert (ten.value, ten.kind, ten.unit, ten.role) == ("10", "count", "second", None)
    assert dict(ten.context) == {"default": 1.0, "timeout": 0.7, "second": 1.0}
    thirty_context = {"max": 1.0, "second": 1.0}
    assert (thirty.value, dict(thirty.context), thirty.unit) == ("30", thirty_context, "second")
    (after_comma,) = number_mentions("the maximum, sadly, is 30")
    assert dict(after_comma.context) == {"sadly": 0.5, "max": 0.7 * 0.25}
    lo, hi = number_mentions(RANGE)
    assert (lo.value, lo.role, hi.value, hi.role) == ("1", "lo", "9", "hi")
    assert [m.role for m in number_mentions("between 2 and 4 nodes, or 5-7 pods")] == [
        "lo",
        "hi",
        "lo",
        "hi",
    ]
    # an ISO date is a chain of three numbers, not a range; versions keep their digits
    assert [(m.value, m.kind, m.role) for m in number_mentions("on 2024-03-01 in v2.10")] == [
        ("2024", "year", None),
        ("3", "count", None),
        ("1", "count", None),
        ("2.10", "version", None),
    ]
    found = number_mentions("five percent of 1,000 keys [2] cost $40 in the 1990s")
    assert [(m.value, m.kind) for m in found] == [
        ("5%", "percent"),
        ("1000", "count"),
        ("40", "money"),
        ("1990", "year"),
    ]
    assert found[-1].unit is None  # '1990s': a decade, not seconds
    # a range end knows its other end; a date's day is marked, a spaced hyphen joins a unit
    assert [(m.value, m.role, m.partner) for m in number_mentions("from 1 -- 9")] == [
        ("1", "lo", "9"),
        ("9", "hi", "1"),
    ]
    assert [(m.value, m.day) for m in number_mentions("on March 3, 2024 or 4 May")] == [
        ("3", True),
        ("2024", False),
        ("4", True),
    ]
    # 'May' before a short number is a month; 'may' the verb is not
    assert [(m.value, m.day) for m in number_mentions("Sales rose on May 7 and may 3x")] == [
        ("7", True),
        ("3", False),
    ]
    (minute,) = number_mentions("a 10 - minute overtime")
    assert (minute.unit, dict(minute.context)) == ("minute", {"overtim": 1.0, "minut": 1.0})
    assert stem("rotated") == stem("rotates") == "rotat"
    assert stem("secs") == "second"


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("The value ranges from 9 to 9", RANGE),  # 9 is the top of the range, not the bottom
        ("The value ranges from 9 to 1", RANGE),  # the ends swapped: each end misplaced
        ("It defaults to 30 seconds", TIMEOUT),  # 30 is the maximum, the default is 10
        ("The maximum is 10 seconds", TIMEOUT),
        ("It times out after 30 seconds", "It times out after 30 minutes"),  # unit changed
        # the range '10 - 2' ends at 10, not 11 (11 is Oregon's vote count)
        ("A 11 - 2 majority convicts", "A 10 - 2 majority convicts; Oregon needs 11 votes."),
        ("Bronck ( c. 1639 -- 43 ) settled", "Bronck ( c. 1600 -- 43 ) arrived in 1639."),
        # a date's day: 25 is a distance in the span, its date is July 21
        ("It was won on July 25 of 1861", "It was won on July 21 , 1861, 25 miles away."),
        # 'May 7' is a date as 'March 7' is: the day and the count swapped
        ("On May 12, 7 people joined the team.", "On May 7, 12 people joined the team."),
        # a year in a day's place: no month has 1929 days
        (
            "It opens on January 1929, 2025",
            "It appeared in January 1929 ; it opens January 1 , 2025",
        ),
        # '10 - minute' is one word: the 10-minute overtime ends in a tie
        (
            "In the playoffs, 10 - minute periods continue until a winner",
            "After the 10 - minute overtime the game ends. In the playoffs, 15 - minute "
            "periods continue until a winner.",
        ),
        # a day the span's month never has: it dates June by its year, 8 is a volume
        ("The charter of June 8 was signed", "The charter of June 1215 was signed ( vol. 8 )."),
        # the word a number qualifies is its context: 2016 dates the film, not a novel
        (
            "She wrote the original novel in 2016.",
            "It is a 2016 horror film. It parodies the 1813 novel by Jane Austen.",
        ),
        # the span's own words around another number: 23 was changed to the 24 beside it
        ("February was truncated to 24 or 24 days", "February was truncated to 23 or 24 days"),
        # an identifier's number: the span names the form FW-001, never FW-2
        ("Fill in two forms (FW-2) for both courts", "Fill in two forms FW-001 for both courts"),
        # money is a unit: the span's 1000 is dollars, the claim's months
        ("For a lease of 1000 months", "For a 12 month lease at $1000 per month"),
    ],
)
def test_a_number_given_for_something_else_is_misplaced(claim: str, span: str) -> None:
    found = misplaced_numbers(claim, span)
    assert len(found) == (2 if claim.endswith("9 to 1") else 1)


def test_a_number_changed_in_the_spans_own_words_is_named() -> None:
    span = "February was truncated to 23 or 24 days, or left at 28 days."
    found = misplaced_numbers("February was truncated to 24 or 24 days", span)
    assert found == ["24 where the span says 23 in the same words"]
    assert misplaced_numbers("Fill in form FW-2", "Fill in form FW-001") == [
        "FW-2 where the span has FW-001"
    ]


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("The value ranges from 1 to 9", RANGE),
        ("Values lie between 1 and 9", RANGE),
        ("The timeout defaults to ten seconds", TIMEOUT),
        ("The maximum timeout is 30 seconds", TIMEOUT),
        ("The timeout can be at most 30 seconds", TIMEOUT),  # no context word decides: a tie
        ("Keys rotate every ninety days since v2.1", KEYS),
        ("Up to 1000 keys", "Up to 1,000 keys, 5 percent of them rotated in 2025."),
        ("Released on March 3, 2024", "Released 2024-03-03"),
        ("It times out after 30 seconds", "It times out after 30 s"),  # unit alias
        ("3 retries", "Three retries, then 10 seconds of back-off"),
        ("A value the span never states: 7", RANGE),  # the set comparison reports it
        ("A 10 - 2 majority convicts", "A 10 - 2 majority convicts; Oregon needs 11 votes."),
        # the same range end, whatever the words around it
        (
            "A 10 - 2 majority for criminal cases and at least 11 votes in Oregon",
            "Each requires a 10 - 2 majority for conviction. Oregon requires at least 11 votes",
        ),
        ("It was won on July 21 of 1861", "It was won on July 21 , 1861, 25 miles away."),
        ("It was won on 21 July 1861", "It was won on July 21 , 1861, 25 miles away."),
        ("Sales from March 2019, 2020 and 2021", "Sales from March 2019, 2020 and 2021 rose."),
        ("It may 3 times fail", "It may fail 3 times on May 5"),  # 'may' the modal
        ("The charter of June 8 was signed", "It was signed on the 8th of June 1215."),
        # a comma and a year anchor nothing: the span dates March 4 in other words
        ("It aired on March 4, 2019", "It airs from March 4th, and on Netflix on March 6th, 2019"),
        # the same words around the same number, once among others
        ("truncated to 23 or 24 days", "cut to 2 or 3 days, or truncated to 23 or 24 days"),
        ("Fill in form FW-001", "Fill in form FW-001, or FW-002 on appeal"),
        ("A lease of 12 months", "A 12 month lease at $1000 per month"),
    ],
)
def test_a_number_in_its_own_place_is_not_misplaced(claim: str, span: str) -> None:
    assert misplaced_numbers(claim, span) == []


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("It is not the case that the signing key is rotated every 90 days.", KEYS),
        ("Admins do not store keys in the vault.", KEYS),
        ("The client cannot retry requests.", "The client can retry requests."),
        ("Tokens may be logged.", "Tokens are not logged."),  # a negation dropped
        ("Admins never store keys in the vault.", "Admins always store keys in the vault."),
        ("Compression is enabled by default.", "Compression is disabled by default."),
        ("Logging is required.", "Logging is optional; auth is required."),
        ("The hook runs after the build.", "The hook runs before the build starts."),
        ("The response excludes the token.", "The response includes the token."),
        ("The 5 is the minimum batch size.", "The 5 is the maximum batch size."),
        (
            "Keys are rotated every 90 days and they are not kept in logs.",
            "Keys are rotated every 90 days. Keys are kept in logs.",
        ),
        ("No, borrowing money does not create a liability.", "Borrowing creates a liability."),
        # the negation sits in a clause that names nothing new ("then it is not required")
        (
            "When you set a default for query parameters, it is required.",
            "When you set a default for query parameters, then it is not required.",
        ),
        (
            "In the 32 states with a statutory minimum age, it does not vary from 14 to 18.",
            "In the 32 states with a statutory minimum age, it varies from 14 to 18, while in "
            "18 states there is no minimum age.",
        ),
        # the words the span's negation bears on are the claim's: it drops the negation
        (
            "A 1% expense ratio sounds like much.",
            "A 1% expense ratio may not sound like much, yet the fund eats a quarter of your "
            "earnings.",
        ),
        # the span negates 'neither' and 'nor' as the claim does, never 'see'
        (
            "Neither third parties nor the internet cannot see your traffic.",
            "Neither third parties nor the internet can see your traffic.",
        ),
        # the claim keeps one negation of two: 'actual investing' is negated in the span
        (
            "They are not licensed, because they do do actual investing.",
            "They are not licensed, because they don't do actual investing.",
        ),
        # the direction of a change turned round, in another word than the span's
        (
            "Antiretroviral therapy increases rates of tuberculosis.",
            "Antiretroviral therapy is associated with a reduction in rates of tuberculosis.",
        ),
        ("Caching lowers the response time.", "Caching leads to a higher response time."),
        (
            "Birth weight is negatively associated with risk.",
            "Birth weight is positively associated with risk.",
        ),
        ("The mutation deactivates the pathway.", "The mutation activates the pathway."),
        ("The gene deactivates the receptor.", "The gene acts by activating the receptor."),
        # a clause opened by 'whereas' is about another subject: not read with the first
        (
            "Eating whole fruits increases the risk of type 2 diabetes.",
            "Eating whole fruits, particularly apples, grapes, and berries, is associated with "
            "a lower risk of type 2 diabetes, whereas eating fruit juice is associated with a "
            "higher risk.",
        ),
        ("Pooling improves throughput.", "Pooling impairs throughput."),
        # an effect held back against one furthered
        (
            "IFI16 impedes STING phosphorylation and translocation.",
            "IFI16 interacts with STING to promote STING phosphorylation and translocation.",
        ),
        ("The drug suppresses tumour growth.", "The drug stimulates tumour growth."),
        # a negating prefix: 'invalid' / 'valid', 'inaccurate' / 'accurate'
        ("The signature on the token is invalid.", "The signature on the token is valid."),
        (
            "Home monitoring is inaccurate at diagnosis.",
            "Home monitoring is accurate at diagnosis.",
        ),
        # two negations where the span has one on the same word: a double negation
        (
            "There is not no wage limit on the Medicare tax.",
            "There is no wage limit on the Medicare tax.",
        ),
    ],
)
def test_a_flipped_polarity_is_a_negation_mismatch(claim: str, span: str) -> None:
    assert len(negation_mismatches(claim, span)) == 1


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("The signing key is rotated every 90 days.", KEYS),
        ("Tokens are not logged.", "Tokens are not logged in plain text."),  # span says not
        ("Tokens are never logged.", "Tokens are never logged in plain text."),  # copied
        ("Tokens aren't logged.", "Tokens are never logged in plain text."),
        ("Logging is not required.", "Logging is optional; auth is required."),  # same thing
        ("Auth is required.", "Logging is optional; auth is required."),
        ("Keys are rotated every 90 days.", "Keys are rotated every 90 days, not every 30."),
        (
            "Keys are rotated every 90 days and are not stored in logs.",
            "Keys are rotated every 90 days. Keys are not stored in logs.",
        ),
        ("Not only admins but also users can rotate keys.", "Admins and users can rotate keys."),
        ("The limit is no more than 5 requests.", "The limit is at most 5 requests."),
        ("Rain falls.", KEYS),  # nothing to align with: the support score judges it
        (  # the span's negation sits in a clause about something else
            "The offense attempts to advance down the field by running.",
            "The offense attempts to advance down the field by running, while the defense, "
            "which is the team without the ball, aims to stop it.",
        ),
        ("The motto means 'fear nothing'.", "The motto, 'Nyle ye drede', means 'Fear nothing'."),
        # an answer particle answers the question; it negates nothing
        ("No, borrowing money creates a liability.", "Borrowing money creates a liability."),
        ("Radio is not just an old hobby.", "Radio is an old hobby and a modern service."),
        # the negation is in the second clause the claim clause spans
        ("As the sum is small, no form is needed.", "As the sum is small, no form is needed."),
        (  # a third clause on another subject, with its own negation, is left out
            "In the 32 states with a statutory minimum age, it varies from 14 to 18.",
            "In the 32 states with a statutory minimum age, it varies from 14 to 18, while in "
            "18 states there is no minimum age.",
        ),
        # the span's negation bears on words the claim never says ("sound like much")
        (
            "A 1% expense ratio eats a quarter of your earnings.",
            "A 1% expense ratio may not sound like much, yet the fund eats a quarter of your "
            "earnings.",
        ),
        (  # a claim of two sentences: each is read on its own (a joined evidence unit)
            "When you set a default for query parameters, then it is not required.\n"
            "To make it required, do not declare a default.",
            "When you set a default for query parameters, then it is not required.\n\n"
            "To make it required, do not declare a default:",
        ),
        (
            "Put the endpoints in a separate, dedicated subnet.",
            "Put the endpoints in a separate, dedicated subnet that is not shared with workloads.",
        ),
        # the span negates the same words, where its sentence split ('...') or a parenthesis
        # puts the negation outside the aligned clause; 'are n't' as a tokenised text has it
        (
            "The androids, the aliens ... they aren't coming.",
            "The androids , the aliens ... They are n't coming .",
        ),
        (  # two negations of one clause, each negated by its own span sentence
            "Some of us aren't human at all, or at least not completely.",
            "I believe some of us are n't human at all . Or at least not completely .",
        ),
        (
            "British Blues are not a distinct breed, but a British Shorthair.",
            "Russian Blues should not be confused with British Blues (which are not a distinct "
            "breed, but a British Shorthair), nor the Korat.",
        ),
        # the same direction in other words; a participle that qualifies a noun is no verb
        ("Caching reduces the response time.", "Caching lowers the response time."),
        ("Sepsis incidence rose after 2009.", "Sepsis incidence increased after 2009."),
        (
            "Taxation reduced the incidence of diabetes.",
            "Taxation could mitigate the rising incidence of obesity and diabetes.",
        ),
        # the same effect in other words; a span that says it both ways raises nothing
        ("The drug inhibits tumour growth.", "The drug suppresses tumour growth."),
        (
            "Stiff substrates encourage beta-catenin degradation.",
            "On a stiff matrix, cells show activity that promotes beta-catenin degradation "
            "and inhibits differentiation.",
        ),
        # a negated prefixed word is the plain one; a short base is a word of its own
        ("The signature on the token is not valid.", "The signature on the token is invalid."),
        ("Write the unit tests first.", "Write the tests first, it says."),
        # 'raise' and 'fall' are left out: 'raise an exception', 'falls back'
        (
            "The handler raises an error when the item is missing.",
            "When the item is missing, the handler falls back to an error.",
        ),
    ],
)
def test_a_kept_polarity_is_not_a_negation_mismatch(claim: str, span: str) -> None:
    assert negation_mismatches(claim, span) == []


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("All requests are retried.", "Failed requests are retried."),
        ("Only admins can rotate keys.", "Admins can rotate keys."),
        ("The gate always blocks fabricated citations.", "The gate blocks fabricated citations."),
        ("Every node stores a replica.", "Some nodes store a replica."),
        ("Tokens are never logged.", "Tokens may not be logged."),  # a hedged negation
        ("None of the keys are exported.", "Keys are often not exported."),
        # another span sentence says the word beside the same word, but negated there
        (
            "The term is based on the perceived process of harvesting fruit, the picker would "
            "be expected to only select the ripest and healthiest fruits.",
            "The term is based on the perceived process of harvesting fruit, such as cherries. "
            "The picker would never be expected to only select the ripest fruits.",
        ),
    ],
)
def test_a_strengthened_claim_is_a_quantifier_mismatch(claim: str, span: str) -> None:
    assert len(quantifier_mismatches(claim, span)) == 1


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("All requests are retried.", "Every request is retried."),
        ("Only admins can rotate keys.", "Keys can be rotated by admins alone."),
        ("Keys are rotated every 90 days.", KEYS),  # 'every 90 days' is a frequency
        ("Tokens are never logged.", "Tokens are never logged in plain text."),
        ("Tokens are never logged.", "Tokens are not logged."),  # a plain negation
        ("Not only admins rotate keys.", "Admins rotate keys, and so do users."),
        ("Some requests are retried.", "Failed requests are retried."),  # weaker is fine
        ("All dogs bark.", KEYS),  # nothing aligned
        ("The CBS news streams every evening.", "The CBS news streams nightly."),
        (  # 'U.S.' does not end the sentence that carries 'only'
            "He was the only U.S. president to resign from office.",
            "He was the 37th president, the only U.S. president to resign from office.",
        ),
        # the claim joins two span sentences; the one it aligns with lacks the word, the
        # other says it in the same place
        (
            "The term is based on the perceived process of harvesting fruit, the picker would "
            "be expected to only select the ripest and healthiest fruits.",
            "The term is based on the perceived process of harvesting fruit, such as cherries. "
            "The picker would be expected to only select the ripest and healthiest fruits.",
        ),
        (
            "Some of us aren't human at all, or at least not completely.",
            "I believe some of us are n't human at all . Or at least not completely .",
        ),
    ],
)
def test_a_claim_as_strong_as_its_span_is_not_a_quantifier_mismatch(claim: str, span: str) -> None:
    assert quantifier_mismatches(claim, span) == []


def test_a_clause_aligns_with_the_span_clause_that_says_only_its_words() -> None:
    span = (
        "In small claims court, you may ask a lawyer for advice before you go to court, "
        "but you cannot have a lawyer in court."
    )
    # "you cannot have a lawyer in court" shares {lawyer, court} with two span clauses; the
    # one with no other words is what it restates, so the claim restating the span passes
    assert negation_mismatches(span, span) == []
    flipped = span.replace("you cannot have", "you can have")
    assert negation_mismatches(flipped, span) == [
        "the claim drops the negation of what the span says"
    ]


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        # a number joined to a name is part of the name, as 'BRCA1' or 'OAuth2' are
        ("IL-6 signaling, HIV-1 and CTLA-4", set()),
        ("OCT3/4 and BRCA1/2 carriers, UTF-8 text, A-769662", set()),
        # and so is one at the end of a compound of words
        ("anti-CTLA-4 treatment, SARS-CoV-2 and anti-interleukin-2 antibodies", set()),
        # and a word that opens with digits, then letters and digits: cell lines, loci
        ("NIH 3T3 cells, 4T1 tumours and the 5q31 locus", set()),
        # but not a size or a duration
        ("a 3x3 grid, 1h30m later", {"3", "1"}),
        # a year stays a number, and so do ranges, percentages and a number before a noun
        ("rates before pre-2010 rules", {"2010"}),
        ("from 1990-2000, 76-85% of cases, a 10-minute wait", {"1990", "2000", "76", "85%", "10"}),
    ],
)
def test_a_number_joined_to_a_name_is_no_quantity(text: str, numbers: set[str]) -> None:
    assert normalise_numbers(text) == numbers
    assert {m.value for m in number_mentions(text)} == numbers


def test_a_negation_naming_what_is_compared_negates_nothing() -> None:
    span = (
        "The risk was higher among people who had migraine with aura compared with people who "
        "had migraine without aura."
    )
    assert negation_mismatches("Migraine with aura is associated with a higher risk.", span) == []
    span = "Compared with patients with no hypoglycemia, patients with episodes had more risk."
    assert negation_mismatches("Patients with hypoglycemia episodes had more risk.", span) == []
    # outside a comparison the negation still counts
    assert negation_mismatches(
        "Patients with hypoglycemia had more risk.", "Patients without hypoglycemia had more risk."
    )


def test_a_contrast_clause_is_read_on_its_own() -> None:
    span = "Eating whole fruit lowers the risk, whereas drinking fruit juice raises the risk."
    # the claim restating the contrast clause is aligned with it, not with the first clause
    assert negation_mismatches("Drinking fruit juice raises the risk.", span) == []
    assert negation_mismatches("Eating whole fruit lowers the risk.", span) == []


def test_a_named_number_is_checked_as_a_name() -> None:
    # 'IL-6' against 'IL6R': no number to compare; 'FW-2' against 'FW-001': renumbered
    assert misplaced_numbers("IL-6 signaling plays a role.", "IL6R pathways play a role.") == []
    assert misplaced_numbers("Fill in form FW-2", "Fill in form FW-001") == [
        "FW-2 where the span has FW-001"
    ]


def test_a_compound_name_with_another_number_is_renumbered() -> None:
    assert misplaced_numbers("Give anti-CTLA-5 daily.", "Give anti-CTLA-4 daily.") == [
        "ANTI-CTLA-5 where the span has ANTI-CTLA-4"
    ]
    assert misplaced_numbers("Give anti-CTLA-4 daily.", "Give anti-CTLA-4 daily.") == []


def test_a_short_range_of_years_states_both_years() -> None:
    assert normalise_numbers("during the 2018–19 academic year") == {"2018", "2019"}
    assert normalise_numbers("the 2000-01 season") == {"2000", "2001"}
    # not a range of years: a month after a year, a second number lower than the first
    assert normalise_numbers("in 2019-12 and 1999–00") == {"2019", "12", "1999", "0"}


def test_number_mentions_hands_out_a_new_list_each_time() -> None:
    text = "Keys rotate every 90 days, from 1 to 9 times."
    first = number_mentions(text)
    assert [m.value for m in first] == ["90", "1", "9"]
    first.clear()  # a caller emptying its list leaves the next caller's intact
    assert [m.value for m in number_mentions(text)] == ["90", "1", "9"]


def test_a_direction_said_in_other_words_is_swapped_though_the_clause_is_far() -> None:
    claim = "Daily walking lowers blood pressure in older adults with type 2 diabetes."
    # three of the claim's nine content words are in the span: too few to compare a
    # negation (MIN_SHARE), enough to compare the direction (SWAP_SHARE)
    span = "In the trial, walking was followed by increased blood pressure."
    assert negation_mismatches(claim, span) == ["'lowers' where the span says 'increased'"]
    # the same direction, or a swap in a sentence sharing one word only, is no mismatch
    assert negation_mismatches(claim, span.replace("increased", "decreased")) == []
    assert negation_mismatches(claim, "Walking in winter increased the number of falls.") == []
    # a negation is not compared that far: it may bear on other words than the claim's
    far = "In the trial, walking was not followed by changes in blood pressure."
    assert negation_mismatches(claim, far) == []


def test_raising_a_level_is_a_direction_and_raising_an_exception_meets_none() -> None:
    span = "Mutations in the gene cause reduced expression of the enzyme in yeast."
    claim = "Mutations in the gene raise expression of the enzyme in yeast."
    assert negation_mismatches(claim, span) == ["'raise' where the span says 'reduced'"]
    raised = "When the timeout is reached, the client raises an exception."
    assert negation_mismatches("The client raises an exception at the timeout.", raised) == []


@pytest.mark.parametrize("bound", ["only", "solely", "exclusively"])
def test_not_only_bounds_a_statement_without_negating_it(bound: str) -> None:
    # 'not solely' says the statement holds and more besides, as 'not only' does
    span = "Smoking causes lung cancer."
    assert negation_mismatches(f"Smoking does not {bound} cause lung cancer.", span) == []
    assert negation_mismatches("Smoking does not cause lung cancer.", span) == [
        "the claim negates what the span says"
    ]


def test_a_far_clause_that_denies_what_the_span_states_is_caught() -> None:
    # the claim shares only 'side effects' with the span (2 of 5 content words: too far to
    # compare its negation by MIN_SHARE), but denies exactly what the span states
    denies = "Medications to treat obesity do not have side effects."
    span = "Orlistat reduced weight but increased rates of gastrointestinal side effects."
    assert negation_mismatches(denies, span) == [
        "the claim denies what the span states (side effect)"
    ]
    # the span denies them too: nothing to flag
    assert negation_mismatches(denies, "Orlistat reduced weight and had no side effects.") == []
    # what the claim denies is not what the span states
    other = "Medications to treat obesity do not prevent heart attacks."
    assert negation_mismatches(other, span) == []
