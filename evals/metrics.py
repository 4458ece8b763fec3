"""Evaluation metrics, one pure function each (SPEC 7.2; STYLE habit 11).

Inputs are plain records so every formula can be checked by hand in the tests.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from evals.gold import GoldSpan


@dataclass(frozen=True)
class CitedSpan:
    """What a metric needs of one citation."""

    path: str
    start: int
    end: int
    chunk_start: int
    chunk_end: int
    supported: bool


def overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    return a0 < b1 and b0 < a1


def matches(c: CitedSpan, gold: Sequence[GoldSpan]) -> bool:
    """Same file and the cited span overlaps a gold quote span."""
    return any(c.path == g.path and overlaps(c.start, c.end, g.start, g.end) for g in gold)


def citation_match_rate(
    cites: Sequence[Sequence[CitedSpan]], gold: Sequence[Sequence[GoldSpan]]
) -> float:
    """Matching citations / all citations, over answered items that have gold quotes."""
    pairs = [(c, g) for cs, g in zip(cites, gold, strict=True) if g for c in cs]
    return sum(matches(c, g) for c, g in pairs) / len(pairs) if pairs else 0.0


def coverage(cites: Sequence[Sequence[CitedSpan]], gold: Sequence[Sequence[GoldSpan]]) -> float:
    """Share of items with gold whose citations reach the gold section at least once."""
    items = [(cs, g) for cs, g in zip(cites, gold, strict=True) if g]
    hit = sum(
        any(
            c.path == s.path
            and overlaps(c.chunk_start, c.chunk_end, s.section_start, s.section_end)
            for c in cs
            for s in g
        )
        for cs, g in items
    )
    return hit / len(items) if items else 0.0


def citation_missing_rate(claims_without: int, claims_total: int) -> float:
    """Claims that need a citation but carry none / claims."""
    return claims_without / claims_total if claims_total else 0.0


def unsupported_citation_rate(cites: Sequence[Sequence[CitedSpan]]) -> float:
    flat = [c for cs in cites for c in cs]
    return sum(not c.supported for c in flat) / len(flat) if flat else 0.0


def fabricated_id_rate(fabricated: int, citations_emitted: int) -> float:
    """Fabricated ids the generator emitted / all citation ids it emitted."""
    total = fabricated + citations_emitted
    return fabricated / total if total else 0.0


def refusal_rate(refused: Sequence[bool]) -> float:
    return sum(refused) / len(refused) if refused else 0.0


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def convergence(runs: Sequence[frozenset[str]]) -> float:
    """Mean pairwise Jaccard of the cited snippet sets of paraphrases x seeds (1 = identical)."""
    pairs = list(combinations(runs, 2))
    return sum(jaccard(a, b) for a, b in pairs) / len(pairs) if pairs else 1.0


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
