"""The load run's verdicts, offline (default tier): what counts as a mixed or stale citation,
and the RSS growth ratio, on cases worked out by hand."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bench.load.revisions import CHURN_DOC, check_answer, content_half, live_states
from server.core.contracts import (
    Answer,
    Citation,
    GateResult,
    IndexIdentity,
    Offsets,
    Timings,
    Verdict,
    Verification,
)
from server.core.identity import index_hash
from tests.load.rss import Sample, growth

STATIC = {"overview.md": "r-ov", "security.md": "r-sec"}
STATES = live_states("ident", STATIC)
HASH_ABSENT, HASH_A, HASH_B = (f"ident:{content_half(s)}" for s in STATES.values())


def _cite(n: int, doc_id: str, rev: str) -> Citation:
    return Citation(
        doc_id=doc_id,
        section_id="s",
        snippet_id=f"{doc_id}-{n}",
        source_url=doc_id,
        offsets=Offsets(start=0, end=4),
        tokens=1,
        index_hash="old:hash",
        embed_model="m",
        analyzer="a",
        rev=rev,
        text="text",
        title="t",
        updated_at=datetime(2026, 1, 1, tzinfo=UTC),
        content_hash="c",
        n=n,
        span=Offsets(start=0, end=4),
        quote="text",
        verification=Verification(verbatim=True, offsets_valid=True, supported=True),
    )


def _answer(live_hash: str, *cites: Citation) -> Answer:
    return Answer(
        question="q",
        answer="a",
        citations=cites,
        fallback=False,
        gate=GateResult(verdict=Verdict.PASS, mode="strict"),
        trace_id="t",
        index_hash=live_hash,
        generator="extractive",
        timings=Timings(),
    )


def test_three_states_use_the_servers_formula() -> None:
    identity = IndexIdentity(embed_model="e", dense_dim=3, analyzer="a", chunker="c")
    real = index_hash(identity, [*STATIC.items(), (CHURN_DOC, "load-b")])
    assert content_half({**STATIC, CHURN_DOC: "load-b"}) == real.split(":", 1)[1]
    assert list(STATES.values()) == [
        STATIC,
        {**STATIC, CHURN_DOC: "load-a"},
        {**STATIC, CHURN_DOC: "load-b"},
    ]


def test_live_revisions_pass() -> None:
    ok = _answer(HASH_A, _cite(1, CHURN_DOC, "load-a"), _cite(2, "overview.md", "r-ov"))
    assert check_answer(ok, STATES) == []


def test_two_revisions_of_one_doc_are_mixed_and_one_of_them_stale() -> None:
    both = _answer(HASH_A, _cite(1, CHURN_DOC, "load-a"), _cite(2, CHURN_DOC, "load-b"))
    assert [f.kind for f in check_answer(both, STATES)] == ["mixed", "stale"]


@pytest.mark.parametrize("live_hash", [HASH_ABSENT, HASH_B], ids=["deleted", "at-b"])
def test_a_revision_not_live_at_the_hash_is_stale(live_hash: str) -> None:
    old = _answer(live_hash, _cite(1, CHURN_DOC, "load-a"))
    assert [(f.kind, f.flagged) for f in check_answer(old, STATES)] == [("stale", False)]


def test_an_unknown_hash_is_reported() -> None:
    other = _answer("ident:0000000000000000", _cite(1, "overview.md", "r-ov"))
    assert [f.kind for f in check_answer(other, STATES)] == ["unknown_index_hash"]


def test_growth_is_last_quarter_median_over_first_minute_after_warmup() -> None:
    # 0-50 s warm-up (ignored), 60-110 s baseline median 100, 120-170 s middle,
    # 180-230 s (t >= 0.75 * 240) tail median 108: growth 1.08.
    rss = [50, 70, 80, 90, 95, 99] + [100] * 6 + [104] * 6 + [107, 108, 108, 108, 109, 110]
    samples = [Sample(t_s=10.0 * i, rss_kib=v) for i, v in enumerate(rss)]
    grew = growth(samples, duration_s=240, warmup_s=60)
    assert (grew.baseline_kib, grew.tail_kib) == (100, 108)
    assert grew.ratio == pytest.approx(1.08)


def test_growth_refuses_a_run_too_short_for_its_windows() -> None:
    with pytest.raises(ValueError, match="at least 180 s"):
        growth([Sample(t_s=0.0, rss_kib=1)], duration_s=30, warmup_s=60)
