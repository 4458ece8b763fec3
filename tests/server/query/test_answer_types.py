"""Which kind of value a question asks for, and whether an answer states one (by hand)."""

from __future__ import annotations

import pytest

from server.query.answer_types import asked_types, unstated


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("How much does the Team plan cost per user per month?", ["price"]),
        ("How much prize money do the winners receive?", ["price"]),
        ("What is the maximum file size I can push?", ["size"]),
        ("How much storage do packages get on the free plan?", ["size"]),
        ("What uptime percentage does the SLA guarantee?", ["percentage"]),
        ("How long does the service keep audit log events?", ["duration"]),
        ("On what date will the new terms take effect?", ["date"]),
        ("What is the phone number of the designated agent?", ["phone number"]),
        # left to the refusal model: their answers are often words
        ("How many members can an organization have?", []),
        ("When does the cookie expire?", []),
        ("How long is the Great Wall of China?", []),  # a length, not a duration
        ("How big is Texas?", []),
        ("How do I enable CORS?", []),
    ],
)
def test_the_kinds_a_question_asks_for(question: str, kinds: list[str]) -> None:
    assert [t.name for t in asked_types(question)] == kinds


def test_a_claim_states_the_kind_or_the_question_goes_unanswered() -> None:
    price = "How much does the Team plan cost?"
    assert unstated(price, ["The Team plan costs $4 per user per month."]) == []
    assert unstated(price, ["Public repositories are free for everyone."]) == []
    assert unstated(price, ["The Team plan includes code review tools."]) == ["price"]
    size = "What is the maximum file size I can push?"
    assert unstated(size, ["Files larger than 100 MB are blocked."]) == []
    # a number of another kind is not a size: a liability cap in dollars
    assert unstated(size, ["Liability is limited to $500.00 USD."]) == ["size"]
    duration = "How long does GitHub keep audit log events?"
    assert unstated(duration, ["Events are kept for 90 days."]) == []
    assert unstated(duration, ["Audit logs list the events of an organization."]) == ["duration"]
    date = "In what year did the war end?"
    assert unstated(date, ["The king died in 1786."]) == []
    assert unstated(date, ["The king may have died young."]) == ["date"]  # 'may' is no month
    assert unstated("What uptime percentage is guaranteed?", ["Uptime is 99.9%."]) == []
    phone = "What is the phone number of the agent?"
    assert unstated(phone, ["Call +1 (415) 555-0100."]) == []
    assert unstated(phone, ["Write to 88 Colin P Kelly Jr St, San Francisco."]) == ["phone number"]


def test_any_claim_of_the_answer_may_state_it() -> None:
    claims = ["The Team plan includes code review tools.", "It costs 4 dollars a seat."]
    assert unstated("How much does the Team plan cost?", claims) == []
    assert unstated("How do I enable CORS?", []) == []  # nothing asked, nothing missing
