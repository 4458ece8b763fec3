"""Each metric against its formula written out by hand (STYLE habit 11)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from evals import metrics as m
from evals.gold import GoldSpan, load_gold, read_gold, resolve
from evals.runner import METRICS, Tolerance, load_tolerances, regressions
from server.core.errors import InputError
from server.core.paths import repo_root

G = GoldSpan(path="a.md", start=10, end=20, section_start=0, section_end=50)


def c(
    path: str, start: int, end: int, supported: bool = True, chunk: tuple[int, int] = (0, 40)
) -> m.CitedSpan:
    return m.CitedSpan(path, start, end, chunk[0], chunk[1], supported)


def test_match_rate_and_coverage() -> None:
    cites = [[c("a.md", 15, 25), c("a.md", 20, 30)], [c("b.md", 0, 5, chunk=(60, 70))]]
    gold = [[G], [G]]
    # item 1: (15,25) overlaps [10,20) -> 1; item 2 cites b.md only -> 0: mean 1/2
    assert m.citation_match_rate(cites, gold) == 0.5
    # the first citation of item 1 matches, item 2 has none: 1/2
    assert m.match_at_1(cites, gold) == 0.5
    # a refused item counts 0 whatever it cites
    assert m.citation_match_rate(cites, gold, refused=[True, False]) == 0.0
    # per citation: (15,25) overlaps; (20,30) touches at 20 only: no; b.md: no -> 1/3
    assert m.citation_precision_strict(cites, gold) == pytest.approx(1 / 3)
    # per citation inside the gold section [0,50) of a.md: both a.md spans, not b.md -> 2/3
    assert m.citation_precision(cites, gold) == pytest.approx(2 / 3)
    assert m.citation_precision([[c("a.md", 45, 55)]], [[G]]) == 0.0  # crosses the section end
    # item 1 reaches the gold section [0,50) of a.md; item 2 cites b.md: 1/2
    assert m.coverage(cites, gold) == 0.5
    assert m.citation_match_rate([[c("a.md", 0, 5)]], [[]]) == 0.0  # no gold -> not counted
    assert m.citation_precision_strict([[c("a.md", 0, 5)]], [[]]) == 0.0


def test_also_in_counts_the_citation_in_each_document() -> None:
    dup = m.CitedSpan("copy/a.md", 12, 14, 0, 40, True, also_in=("a.md",))
    assert m.matches(dup, [G]) and m.citation_match_rate([[dup]], [[G]]) == 1.0
    assert m.coverage([[dup]], [[G]]) == 1.0 and m.citation_precision([[dup]], [[G]]) == 1.0
    assert not m.matches(m.CitedSpan("copy/a.md", 12, 14, 0, 40, True), [G])


def test_a_copied_sentence_counts_where_it_sits_in_the_other_document() -> None:
    # cited at [300, 320) of copy/a.md; the same sentence sits at [10, 30) of a.md
    moved = m.CitedSpan("copy/a.md", 300, 320, 0, 400, True, ("a.md",), ((10, 30),))
    assert moved.places() == [("copy/a.md", 300, 320), ("a.md", 10, 30)]
    assert m.matches(moved, [G]) and m.citation_match_rate([[moved]], [[G]]) == 1.0
    # without the copy's place, its own offsets are used: they miss the gold quote
    assert not m.matches(m.CitedSpan("copy/a.md", 300, 320, 0, 400, True, ("a.md",)), [G])


def test_cited_chars_latency_ratio_and_bootstrap() -> None:
    # a.md [0,10) and [5,15) union 15 chars, b.md [0,3) 3 chars -> 18; second answer 4
    one = [c("a.md", 0, 10), c("a.md", 5, 15), c("b.md", 0, 3)]
    assert m.cited_chars(one) == 18
    assert m.cited_chars_per_answer([one, [c("a.md", 0, 4)]]) == 11.0
    # p50 of answers 20 ms over p50 of the reference 5 ms
    assert m.latency_ratio([10, 20, 30], [5, 5, 10]) == 4.0
    hits = [1.0, 0.0, 1.0, 1.0]

    def stat(idx: Sequence[int]) -> dict[str, float | None]:
        return {"r": m.mean([hits[i] for i in idx]), "never": None}

    got = m.bootstrap_intervals(stat, len(hits), ["r", "never"], resamples=1000, seed=7)
    assert set(got) == {"r"}
    lo, hi = got["r"]
    assert 0.0 <= lo <= 0.75 <= hi <= 1.0
    assert got == m.bootstrap_intervals(stat, len(hits), ["r", "never"], seed=7)  # seeded
    assert m.bootstrap_intervals(stat, 0, ["r"]) == {}


def test_rates_and_convergence() -> None:
    assert (
        m.unsupported_citation_rate([[c("a", 0, 1, False), c("a", 1, 2)], [c("a", 2, 3, False)]])
        == 2 / 3
    )
    assert m.fabricated_id_rate(1, 3) == 0.25
    assert m.citation_missing_rate(1, 4) == 0.25
    assert m.refusal_rate([True, False, True, True]) == 0.75
    runs = [frozenset({"x", "y"}), frozenset({"x", "y"}), frozenset({"x"})]
    # pairs: J=1, J=1/2, J=1/2 -> mean 2/3
    assert m.convergence(runs) == pytest.approx(2 / 3)
    assert m.percentile([5, 1, 3, 2, 4], 50) == 3 and m.percentile([5, 1, 3, 2, 4], 95) == 5


def test_regressions_follow_each_metric_direction() -> None:
    tol = {
        "coverage": Tolerance(metric="coverage", better="higher", tolerance=0.03, comment=""),
        "latency_ratio": Tolerance(
            metric="latency_ratio", better="lower", tolerance=0.5, comment=""
        ),
        "convergence": Tolerance(metric="convergence", better="higher", tolerance=0.0, comment=""),
    }
    old = {"coverage": 0.8, "latency_ratio": 5.0, "convergence": None}
    assert regressions(old, {"coverage": 0.78, "latency_ratio": 5.4, "convergence": 0.1}, tol) == []
    got = regressions(old, {"coverage": 0.7, "latency_ratio": 6.0, "convergence": 0.0}, tol)
    assert [g.split(":")[0] for g in got] == ["coverage", "latency_ratio"]
    # a metric missing or null on either side is never compared
    assert regressions({"coverage": 0.8}, {"coverage": None, "latency_ratio": 9.0}, tol) == []


def test_tolerance_file_has_a_comment_on_each_metric() -> None:
    tols = load_tolerances(repo_root() / "evals" / "tolerances.yaml")
    assert "latency_p50_ms" not in tols and "latency_ratio" in tols
    assert all(t.comment for t in tols.values())
    assert set(tols) <= set(METRICS)


def test_gold_quotes_resolve_and_bad_gold_is_named(tmp_path: Path) -> None:
    repo = repo_root()
    items = load_gold(repo / "evals" / "gold" / "samples.jsonl")
    for item in items:
        resolve(item, repo / "samples" / "corpus")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "x", "question": "q", "answerable": true, "gold": [{"path": "overview.md", '
        '"quote": "not in the file at all"}]}\n'
    )
    with pytest.raises(InputError, match="not found verbatim"):
        resolve(load_gold(bad)[0], repo / "samples" / "corpus")
    bad.write_text('{"id": 1}\n')
    with pytest.raises(InputError, match=r"bad.jsonl:1"):
        load_gold(bad)
    bad.write_text(
        '{"id": "a", "question": "q", "answerable": false, "note": "x"}\n\n'
        '{"id": "b", "question": "q", "answerable": false, "note": 1, "gold": []}\n'
        '{"question": "q", "answerable": false}\n'
    )
    with pytest.raises(InputError, match=r"bad.jsonl:4.*id"):
        load_gold(bad)
    bad.write_text(
        '{"id": "a", "question": "q", "answerable": true, "note": "x", '
        '"gold": [{"path": "p.md", "quote": "q", "page": 3}]}\n'
    )
    items, ignored = read_gold(bad)
    assert items[0].id == "a" and ignored == ["gold.page", "note"]


def test_dev_gold_sets_quote_their_corpora_verbatim(shared_data: Path) -> None:
    repo = repo_root()
    items = load_gold(repo / "evals" / "gold" / "fastapi.jsonl")
    assert sum(not i.answerable for i in items) >= 3
    for item in items:
        assert len(resolve(item, shared_data / "fastapi-docs" / "docs")) == len(item.gold)
