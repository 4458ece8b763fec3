"""Fit the extractive generator's sentence weights and cut-offs (`generation`) on dev gold sets.

    python -m evals.calibration.extractive [--dry-run]

For every answerable item of each dev set, retrieval runs once and the candidate sentences'
features (cosine, overlap, relative hit score) are computed once; then every point of a
small grid is scored by replaying the generator's own `select` on them. Objective per set:
the mean of citation match rate, match at 1 and citation precision of the picks (see
`objective`), the metrics `citegate eval` reports. Sets weigh equally, so that no one corpus
sets the weights:

- our FastAPI and GitHub site-policy dev gold sets (`evals/gold/`),
- ClapNQ dev items 0..149 of each file (`data/bench/clapnq-0-150`, written by
  `python -m evals.calibration.refusal`).

ClapNQ items 150..299 (`data/bench/clapnq-150-300`, written by `make eval`'s convert step or
here) are reported for the chosen point and the previous one, never tuned on. The best point
is written to `config/defaults/generation.yaml` unless `--dry-run`.
"""

from __future__ import annotations

import argparse
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from evals.convert import clapnq, write
from evals.gold import GoldSpan, load_gold, resolve
from evals.metrics import overlaps
from evals.runner import open_scratch, scratch_settings
from ingest.pipeline import ingest_paths
from server.core.paths import shared_data
from server.core.ports import Embedder, SparseEncoder
from server.core.settings import Settings, default_config_dir, load_settings
from server.core.settings.generation import GenerationSettings
from server.query.engine import build_embedder, build_sparse
from server.query.generate.extractive import Features, Picked, features, select
from server.query.rerank import build_reranker, rerank
from server.query.retrieve import recall

DATA = shared_data()
DEV_GOLD = (
    ("evals/gold/fastapi.jsonl", DATA / "fastapi-docs" / "docs"),
    ("evals/gold/github_site_policy.jsonl", DATA / "github-site-policy" / "docs"),
)
MAX_EVIDENCE_HITS = 8
GRID = {  # the objective is item-level since this wave, so the cut-offs go lower than before
    "evidence_hits": (5, 8),  # 8 = retrieval.final_k, every hit that reaches the generator
    "w_cosine": (0.55, 0.7, 0.9),
    "w_overlap": (0.0, 0.15, 0.3),
    "w_hit": (0.3, 0.5, 0.8, 1.2),
    "relative_cutoff": (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9),
    "other_section_cutoff": (0.8, 0.85, 0.9, 0.95, 1.0),
}


@dataclass(frozen=True)
class Item:
    """One answerable question: its candidate sentences and where its gold quotes are."""

    found: tuple[Features, ...]
    gold: tuple[GoldSpan, ...]


def items_of(
    settings: Settings, emb: Embedder, sp: SparseEncoder, gold: Path, corpus: Path
) -> list[Item]:
    """Retrieve once per answerable item of `gold` over an index of `corpus`."""
    store = open_scratch(settings, emb, sp)
    try:
        ingest_paths([corpus], settings=settings, embedder=emb, sparse=sp, store=store)
        reranker = build_reranker(settings.models, emb, store)
        out = []
        for item in load_gold(gold):
            if not item.answerable:
                continue
            got = recall(
                item.question, embedder=emb, sparse=sp, store=store, settings=settings.retrieval
            )
            hits = rerank(item.question, list(got.hits), reranker, settings.retrieval.final_k)
            found = features(item.question, hits, emb, MAX_EVIDENCE_HITS)
            out.append(Item(tuple(found), tuple(resolve(item, corpus))))
        return out
    finally:
        store.close()


def clapnq_items(base: Settings, emb: Embedder, sp: SparseEncoder, span: range) -> list[Item]:
    folder = Path("data/bench") / f"clapnq-{span.start}-{span.stop}"
    if not (folder / "gold.jsonl").is_file():
        pages, items = clapnq(DATA, span.stop - span.start, span.start)
        write(folder, pages, items)
    settings = base.model_copy(update={"data_dir": folder / "index"})
    return items_of(settings, emb, sp, folder / "gold.jsonl", folder / "corpus")


def _hits_gold(p: Picked, gold: Sequence[GoldSpan]) -> bool:
    return any(
        p.hit.chunk.source_url == g.path
        and overlaps(p.sentence.start, p.sentence.end, g.start, g.end)
        for g in gold
    )


def components(
    items: Sequence[Item], cfg: GenerationSettings, max_claims: int
) -> tuple[float, float, float]:
    """(citation match rate, match at 1, precision) of the generator's picks on these items."""
    if not items:
        return 0.0, 0.0, 0.0
    chosen_n = precise = any_match = first = 0
    for item in items:
        pool = [f for f in item.found if (f.hit.k_final or 0) <= cfg.evidence_hits]
        picks = select(pool, cfg, max_claims)
        hits = [_hits_gold(p, item.gold) for p in picks]
        chosen_n += len(picks)
        precise += sum(hits)
        any_match += any(hits)
        first += bool(hits) and hits[0]
    precision = precise / chosen_n if chosen_n else 0.0
    return any_match / len(items), first / len(items), precision


def objective(items: Sequence[Item], cfg: GenerationSettings, max_claims: int) -> float:
    """Mean of three item-level figures of the generator's picks, as `citegate eval` reports
    them: citation match rate (any pick overlaps a gold quote), match at 1 (the first pick,
    which leads the answer, does) and precision (picks overlapping a gold quote / picks). The
    first rewards answers that contain the evidence, the second the direct answer first, the
    third keeps answers from padding themselves with more units to reach the first."""
    return sum(components(items, cfg, max_claims)) / 3


def grid(base: GenerationSettings) -> Iterator[GenerationSettings]:
    keys = list(GRID)
    for values in itertools.product(*(GRID[k] for k in keys)):
        yield base.model_copy(update=dict(zip(keys, values, strict=True)))


def write_settings(cfg: GenerationSettings, lines: Sequence[str]) -> Path:
    """The fitted keys replaced in place in `generation.yaml` (their comments and every other
    key kept) and the origin line rewritten."""
    path = default_config_dir() / "defaults" / "generation.yaml"
    origin = "fitted by evals/calibration/extractive.py on dev gold sets (" + "; ".join(lines) + ")"
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^# fitted by evals/calibration/extractive\.py.*$", f"# {origin}", text)
    for key in GRID:
        value = getattr(cfg, key)
        text, n = re.subn(rf"(?m)^{key}:[ \t]*[^ \t#\n]+", f"{key}: {value}", text)
        if n != 1:
            raise SystemExit(f"{path}: expected one `{key}:` line, found {n}")
    path.write_text(text, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--dry-run", action="store_true", help="report, do not write the settings")
    args = ap.parse_args(argv)
    base = load_settings()
    emb, sp = build_embedder(base), build_sparse(base)
    dev = {
        Path(g).stem: items_of(scratch_settings(base, c), emb, sp, Path(g), c) for g, c in DEV_GOLD
    }
    dev["clapnq-dev-0-150"] = clapnq_items(base, emb, sp, range(0, 150))
    held_out = clapnq_items(base, emb, sp, range(150, 300))
    max_claims = base.integrity.max_claims

    def mean_dev(cfg: GenerationSettings) -> float:
        return sum(objective(v, cfg, max_claims) for v in dev.values()) / len(dev)

    before = base.generation
    best = max(grid(before), key=mean_dev)
    lines = []
    for name, cfg in (("before", before), ("chosen", best)):
        per_set = ", ".join(
            f"{k} {objective(v, cfg, max_claims):.3f} (match, @1, precision "
            + "/".join(f"{x:.3f}" for x in components(v, cfg, max_claims))
            + ")"
            for k, v in dev.items()
        )
        held = objective(held_out, cfg, max_claims)
        print(f"{name}: mean dev {mean_dev(cfg):.3f} ({per_set}); held-out ClapNQ {held:.3f}")
        lines.append(f"{name} dev {mean_dev(cfg):.3f}, held-out ClapNQ {held:.3f}")
    print("chosen:", best.model_dump())
    if not args.dry_run:
        print(f"written: {write_settings(best, lines)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
