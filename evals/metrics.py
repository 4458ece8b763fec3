"""Evaluation metrics, one pure function each (SPEC 7.2; STYLE habit 11).

Inputs are plain records so every formula can be checked by hand in the tests. A citation
is a `CitedSpan` (a path and character spans in that document's normalised text), a gold
quote a `GoldSpan` (the quote's span and its section's). Paths are corpus-relative.

Conventions: an item whose population is empty contributes nothing; a rate over an empty
population is 0.0 here (the runner reports such a metric as null: not measured).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from evals.gold import GoldSpan


@dataclass(frozen=True)
class CitedSpan:
    """What a metric needs of one citation.

    `also_in`: other corpus paths holding the same cited text (a duplicate document); the
    citation counts as a citation in each of them too, at `also_at[i]` when the copy's place
    there is known (a copied sentence), else at its own offsets (a duplicated document).
    """

    path: str
    start: int
    end: int
    chunk_start: int
    chunk_end: int
    supported: bool
    also_in: tuple[str, ...] = ()
    also_at: tuple[tuple[int, int] | None, ...] = ()

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.path, *self.also_in)

    def places(self) -> list[tuple[str, int, int]]:
        """(path, start, end) of the cited text in its document and in each `also_in` one."""
        out = [(self.path, self.start, self.end)]
        for i, p in enumerate(self.also_in):
            at = self.also_at[i] if i < len(self.also_at) else None
            out.append((p, *(at or (self.start, self.end))))
        return out


def overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    """Half-open spans `[a0, a1)` and `[b0, b1)` share at least one character."""
    return a0 < b1 and b0 < a1


def matches(c: CitedSpan, gold: Sequence[GoldSpan]) -> bool:
    """Same document (its path or an `also_in` path) and the cited span overlaps a gold quote."""
    return any(
        g.path == p and overlaps(s, e, g.start, g.end) for g in gold for p, s, e in c.places()
    )


def in_gold_section(c: CitedSpan, gold: Sequence[GoldSpan]) -> bool:
    """Same document and `section_start <= start` and `end <= section_end` of a gold quote."""
    return any(
        g.path == p and g.section_start <= s and e <= g.section_end
        for g in gold
        for p, s, e in c.places()
    )


def _answered(
    cites: Sequence[Sequence[CitedSpan]], refused: Sequence[bool] | None
) -> list[Sequence[CitedSpan]]:
    """A refused item cites nothing, whatever its citations say."""
    if refused is None:
        return list(cites)
    return [() if r else cs for cs, r in zip(cites, refused, strict=True)]


def citation_match_rate(
    cites: Sequence[Sequence[CitedSpan]],
    gold: Sequence[Sequence[GoldSpan]],
    refused: Sequence[bool] | None = None,
) -> float:
    """mean over items with gold of [ any citation c of the item: matches(c, gold) ].

    Pass the answerable items only; a refused item scores 0.
    """
    items = [(cs, g) for cs, g in zip(_answered(cites, refused), gold, strict=True) if g]
    return sum(any(matches(c, g) for c in cs) for cs, g in items) / len(items) if items else 0.0


def match_at_1(
    cites: Sequence[Sequence[CitedSpan]],
    gold: Sequence[Sequence[GoldSpan]],
    refused: Sequence[bool] | None = None,
) -> float:
    """mean over items with gold of [ the item's first citation matches a gold quote ]."""
    items = [(cs, g) for cs, g in zip(_answered(cites, refused), gold, strict=True) if g]
    return sum(bool(cs) and matches(cs[0], g) for cs, g in items) / len(items) if items else 0.0


def citation_precision(
    cites: Sequence[Sequence[CitedSpan]], gold: Sequence[Sequence[GoldSpan]]
) -> float:
    """citations lying inside a gold quote's section / all citations (items with gold)."""
    pairs = [(c, g) for cs, g in zip(cites, gold, strict=True) if g for c in cs]
    return sum(in_gold_section(c, g) for c, g in pairs) / len(pairs) if pairs else 0.0


def citation_precision_strict(
    cites: Sequence[Sequence[CitedSpan]], gold: Sequence[Sequence[GoldSpan]]
) -> float:
    """citations overlapping a gold quote / all citations (items with gold)."""
    pairs = [(c, g) for cs, g in zip(cites, gold, strict=True) if g for c in cs]
    return sum(matches(c, g) for c, g in pairs) / len(pairs) if pairs else 0.0


def coverage(cites: Sequence[Sequence[CitedSpan]], gold: Sequence[Sequence[GoldSpan]]) -> float:
    """Share of items with gold whose cited chunks reach a gold section at least once."""
    items = [(cs, g) for cs, g in zip(cites, gold, strict=True) if g]
    hit = sum(
        any(
            s.path in c.paths
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
    """Citations the support scorer did not back / all citations."""
    flat = [c for cs in cites for c in cs]
    return sum(not c.supported for c in flat) / len(flat) if flat else 0.0


def fabricated_id_rate(fabricated: int, citations_emitted: int) -> float:
    """Fabricated ids the generator emitted / all citation ids it emitted."""
    total = fabricated + citations_emitted
    return fabricated / total if total else 0.0


def refusal_rate(refused: Sequence[bool]) -> float:
    """Refused items / items."""
    return sum(refused) / len(refused) if refused else 0.0


def cited_chars(cites: Sequence[CitedSpan]) -> int:
    """Characters covered by the cited spans of one answer (overlaps counted once per path)."""
    total = 0
    for path in {c.path for c in cites}:
        end = -1
        for c in sorted((c for c in cites if c.path == path), key=lambda c: c.start):
            lo = max(c.start, end)
            total += max(0, c.end - lo)
            end = max(end, c.end)
    return total


def cited_chars_per_answer(cites: Sequence[Sequence[CitedSpan]]) -> float:
    """mean over answered (not refused) items of cited_chars(item)."""
    return mean([float(cited_chars(cs)) for cs in cites])


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b| (1 when both are empty)."""
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


def latency_ratio(latencies_ms: Sequence[float], reference_ms: Sequence[float]) -> float:
    """percentile(latencies, 50) / percentile(reference, 50): answer time in model passes.

    Both are measured in the same run on the same machine, so the ratio compares across
    runs where raw milliseconds do not.
    """
    ref = percentile(reference_ms, 50)
    return percentile(latencies_ms, 50) / ref if ref > 0 else 0.0


def mean(values: Sequence[float]) -> float:
    """sum / count (0 for no values)."""
    return sum(values) / len(values) if values else 0.0


def bootstrap_intervals(
    statistic: Callable[[Sequence[int]], Mapping[str, float | None]],
    n: int,
    keys: Sequence[str],
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, tuple[float, float]]:
    """Seeded percentile bootstrap: draw `n` item indices with replacement `resamples` times
    (random.Random(seed)), evaluate `statistic` on each draw, and give each key the
    (1-level)/2 and (1+level)/2 nearest-rank percentiles of its measured (not None) values.
    A key never measured is left out.
    """
    if n == 0:
        return {}
    rng = random.Random(seed)
    values: dict[str, list[float]] = {k: [] for k in keys}
    for _ in range(resamples):
        got = statistic([rng.randrange(n) for _ in range(n)])
        for k in keys:
            v = got.get(k)
            if v is not None:
                values[k].append(v)
    tail = (1 - level) / 2 * 100
    return {k: (percentile(v, tail), percentile(v, 100 - tail)) for k, v in values.items() if v}
