"""Each metric against its formula written out by hand (STYLE habit 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals import metrics as m
from evals.gold import GoldSpan, load_gold, resolve
from evals.runner import regressions
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
    # citations: (15,25) overlaps [10,20) yes; (20,30) touches at 20 only: no; b.md: no -> 1/3
    assert m.citation_match_rate(cites, gold) == pytest.approx(1 / 3)
    # item 1 reaches the gold section [0,50) of a.md; item 2 cites b.md: 1/2
    assert m.coverage(cites, gold) == 0.5
    assert m.citation_match_rate([[c("a.md", 0, 5)]], [[]]) == 0.0  # no gold -> not counted


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
        "coverage": {"better": "higher", "tolerance": 0.03},
        "latency_p95_ms": {"better": "lower", "tolerance": 100},
    }
    assert (
        regressions(
            {"coverage": 0.8, "latency_p95_ms": 500}, {"coverage": 0.78, "latency_p95_ms": 590}, tol
        )
        == []
    )
    got = regressions(
        {"coverage": 0.8, "latency_p95_ms": 500}, {"coverage": 0.7, "latency_p95_ms": 700}, tol
    )
    assert [g.split(":")[0] for g in got] == ["coverage", "latency_p95_ms"]


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


def test_dev_gold_sets_quote_their_corpora_verbatim(shared_data: Path) -> None:
    repo = repo_root()
    items = load_gold(repo / "evals" / "gold" / "fastapi.jsonl")
    assert sum(not i.answerable for i in items) >= 3
    for item in items:
        assert len(resolve(item, shared_data / "fastapi-docs" / "docs")) == len(item.gold)
