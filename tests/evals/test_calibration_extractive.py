"""The extractive calibration's objective on hand-built candidates (oracle by hand)."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from evals.calibration.extractive import GRID, Item, grid, objective, write_settings
from evals.gold import GoldSpan
from server.core.contracts import Chunk, Hit, Offsets
from server.core.settings import default_config_dir, load_settings
from server.query.evidence import Unit
from server.query.generate.extractive import Features

DOC = "# A\n\nAlpha is first. Beta is second.\n\n# B\n\nGamma is third.\n"


def _hit(section: str, start: int, end: int, k: int) -> Hit:
    chunk = Chunk(
        doc_id="a.md",
        section_id=section,
        snippet_id=f"s{k}",
        source_url="a.md",
        offsets=Offsets(start=start, end=end),
        tokens=5,
        index_hash="ih",
        embed_model="m",
        analyzer="a",
        rev="r",
        text=DOC[start:end],
        title="A",
        tags=(),
        updated_at=datetime(2026, 1, 1, tzinfo=UTC),
        content_hash="c",
    )
    return Hit(chunk=chunk, score_raw=0.1, score_norm=0.8, k_pos=k, k_final=k)


def _feature(hit: Hit, text: str, cosine: float) -> Features:
    start = DOC.index(text)
    sentence = Unit(start, start + len(text), text, text, "sentence")
    return Features(hit, sentence, cosine, 0.0, 1.0, frozenset(text.lower().split()))


HIT_A = _hit("a/a", DOC.index("Alpha"), DOC.index("second.") + 7, 1)
HIT_B = _hit("a/b", DOC.index("Gamma"), len(DOC) - 1, 2)
ALPHA = _feature(HIT_A, "Alpha is first.", 0.9)
BETA = _feature(HIT_A, "Beta is second.", 0.8)
GAMMA = _feature(HIT_B, "Gamma is third.", 0.85)
GOLD_BETA = GoldSpan("a.md", DOC.index("Beta"), DOC.index("second.") + 7, 4, DOC.index("# B"))


def test_objective_is_the_mean_of_match_rate_match_at_1_and_precision() -> None:
    cfg = load_settings().generation.model_copy(
        update={
            "w_cosine": 1.0,
            "w_overlap": 0.0,
            "w_hit": 0.0,
            "min_score": 0.0,
            "relative_cutoff": 0.8,
            "other_section_cutoff": 1.0,
            "evidence_hits": 2,
        }
    )
    item = Item((ALPHA, BETA, GAMMA), (GOLD_BETA,))
    # Picks: Alpha (0.9) then Beta (0.8 >= 0.72); Gamma is another section below 1.0 * 0.9.
    # Beta matches: any 1, first 0 (Alpha leads), precision 1 of 2: (1 + 0 + 0.5) / 3.
    assert objective([item], cfg, max_claims=4) == 0.5
    # Only hit 1 competes with evidence_hits=1: the same picks.
    assert objective([item], cfg.model_copy(update={"evidence_hits": 1}), 4) == 0.5
    # One claim: Alpha alone, which misses the quote: (0 + 0 + 0) / 3.
    assert objective([item], cfg, max_claims=1) == 0.0
    # Gold on Alpha, which leads: (1 + 1 + 0.5) / 3.
    gold_alpha = GoldSpan("a.md", DOC.index("Alpha"), DOC.index("first.") + 6, 4, DOC.index("# B"))
    assert objective([Item((ALPHA, BETA, GAMMA), (gold_alpha,))], cfg, 4) == 2.5 / 3
    # An item whose gold is in section B, where nothing is picked: 0.
    far = Item((ALPHA, BETA, GAMMA), (GoldSpan("a.md", 40, 50, 40, 60),))
    assert objective([far], cfg, 4) == 0.0
    assert objective([], cfg, 4) == 0.0


def test_fitted_keys_are_written_in_place_and_the_rest_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(default_config_dir(), tmp_path / "config")
    monkeypatch.setenv("CITEGATE_CONFIG_DIR", str(tmp_path / "config"))
    before = load_settings().generation
    fitted = before.model_copy(update={"relative_cutoff": 0.75, "w_hit": 0.8})
    path = write_settings(fitted, ["before dev 0.4", "chosen dev 0.5"])
    after = load_settings().generation
    assert after == fitted  # max_unit_chars, llm_offered, redundancy keys kept as they were
    assert "# fitted by evals/calibration/extractive.py on dev gold sets (before dev 0.4; " in (
        path.read_text(encoding="utf-8")
    )


def test_the_grid_covers_every_combination() -> None:
    points = list(grid(load_settings().generation))
    expected = 1
    for values in GRID.values():
        expected *= len(values)
    assert len(points) == expected and len({p.model_dump_json() for p in points}) == expected
