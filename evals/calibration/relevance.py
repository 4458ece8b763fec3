"""Calibrate the relevance floor (`integrity.relevance_floor`) on the tune halves.

    python -m evals.calibration.relevance [--clapnq 150] [--dry-run]

Every tune item is answered once with the floor off (the other refusal rules stay on); the
relevance of the answer's most relevant claim (cosine of question and claim,
`EmbeddingRelevance`) is kept. A floor refuses an item when its best claim falls below it, on
top of what the other rules refused. The grid keeps the floor with the best mean balanced
accuracy (answerable answered, unanswerable refused; each set one vote) among the floors that
raise no set's incorrect-refusal rate by more than the release tolerance
(`evals/tolerances.yaml`) over the floor off. Sets (evals/splits.yaml): FastAPI and GitHub
site-policy even ids, ClapNQ dev rows 0..N-1. The report halves (odd ids, ClapNQ rows N..2N-1)
are answered with the chosen floor and printed as the held-out figures, never tuned on.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from evals.convert import clapnq, write
from evals.gold import GoldItem, load_gold
from evals.runner import load_tolerances, prepare, scratch_settings
from server.core.paths import repo_root, shared_data
from server.core.settings import Settings, default_config_dir, load_settings
from server.query.answer import Engine, answer

TOLERANCES = repo_root() / "evals" / "tolerances.yaml"


@dataclass(frozen=True)
class Row:
    """One answered item: whether it should be answered, whether another rule refused it,
    and the best claim's relevance (None when nothing was claimed)."""

    answerable: bool
    refused: bool
    best: float | None


def _number(item_id: str) -> int:
    digits = re.sub(r"\D", "", item_id)
    return int(digits) if digits else 0


def half(items: Sequence[GoldItem], part: str) -> list[GoldItem]:
    """evals/splits.yaml's id-parity rule: even ids tune, odd ids report."""
    want = 0 if part == "tune" else 1
    return [it for it in items if _number(it.id) % 2 == want]


def rows(engine: Engine, items: Sequence[GoldItem]) -> list[Row]:
    out = []
    for it in items:
        a = answer(it.question, engine)
        scores = engine.relevance.relevance(it.question, [c.text for c in a.claims])
        out.append(Row(it.answerable, a.fallback, max(scores) if scores else None))
    return out


def rates(data: Sequence[Row], floor: float) -> tuple[float, float]:
    """(refusal rate on unanswerable, incorrect refusal rate on answerable) at `floor`."""

    def refused(r: Row) -> bool:
        return r.refused or r.best is None or r.best < floor

    unans = [refused(r) for r in data if not r.answerable]
    ans = [refused(r) for r in data if r.answerable]
    return (
        sum(unans) / len(unans) if unans else 0.0,
        sum(ans) / len(ans) if ans else 0.0,
    )


def balanced(data: Sequence[Row], floor: float) -> float:
    caught, wrong = rates(data, floor)
    return (caught + 1.0 - wrong) / 2


def fit(sets: dict[str, list[Row]], max_extra: float) -> float:
    """The floor with the best mean balanced accuracy that passes the guard."""
    base = {name: rates(data, -1.0)[1] for name, data in sets.items()}
    best, best_score = -1.0, -1.0
    for step in range(0, 81):
        floor = step / 100
        if any(rates(d, floor)[1] - base[n] > max_extra + 1e-9 for n, d in sets.items()):
            continue
        score = sum(balanced(d, floor) for d in sets.values()) / len(sets)
        if score > best_score + 1e-9:
            best, best_score = floor, score
    return best


def _engine(base: Settings, corpus: Path, floor: float) -> Engine:
    integrity = base.integrity.model_copy(update={"relevance_floor": floor})
    settings = base.model_copy(update={"integrity": integrity})
    return prepare(scratch_settings(settings, corpus), corpus)


def answered(base: Settings, corpus: Path, items: Sequence[GoldItem], floor: float) -> list[Row]:
    engine = _engine(base, corpus, floor)
    try:
        return rows(engine, items)
    finally:
        engine.store.close()


def _clapnq(work: Path, offset: int, limit: int) -> tuple[Path, list[GoldItem]]:
    out = work / f"clapnq-{offset}-{limit}"
    pages, items = clapnq(shared_data(), limit, offset)
    write(out, pages, items)
    return out / "corpus", load_gold(out / "gold.jsonl")


def _line(name: str, data: Sequence[Row], floor: float) -> str:
    caught, wrong = rates(data, floor)
    return (
        f"{name} (n={len(data)}): refusal on unanswerable {caught:.3f}, "
        f"incorrect refusal {wrong:.3f}, balanced accuracy {balanced(data, floor):.3f}"
    )


def _write(floor: float, lines: Sequence[str]) -> None:
    path = default_config_dir() / "defaults" / "integrity.yaml"
    text = path.read_text(encoding="utf-8")
    origin = "; ".join(lines)
    new = (
        f"relevance_floor: {floor}      # cosine(question, claim), all-MiniLM-L6-v2: below it "
        f"a claim is off_topic; evals/calibration/relevance.py, best mean tune balanced "
        f"accuracy under the incorrect-refusal guard ({origin})"
    )
    text = re.sub(r"^relevance_floor:.*$", new, text, count=1, flags=re.M)
    path.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clapnq", type=int, default=150, help="ClapNQ rows per file and half")
    parser.add_argument("--work", type=Path, default=Path("runs/calibration"))
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    base = load_settings()
    max_extra = load_tolerances(TOLERANCES)["incorrect_refusal_rate"].tolerance
    gold: dict[str, tuple[Path, list[GoldItem]]] = {
        name: (shared_data() / sub / "docs", load_gold(repo_root() / "evals" / "gold" / f))
        for name, sub, f in (
            ("fastapi", "fastapi-docs", "fastapi.jsonl"),
            ("github_site_policy", "github-site-policy", "github_site_policy.jsonl"),
        )
    }
    tune: dict[str, list[Row]] = {}
    report: dict[str, Callable[[float], list[Row]]] = {}
    for name, (corpus, items) in gold.items():
        tune[name] = answered(base, corpus, half(items, "tune"), -1.0)
        report[name] = partial(answered, base, corpus, half(items, "report"))
    corpus, items = _clapnq(args.work, 0, args.clapnq)
    tune["clapnq"] = answered(base, corpus, items, -1.0)
    held_corpus, held = _clapnq(args.work, args.clapnq, args.clapnq)
    report["clapnq"] = partial(answered, base, held_corpus, held)
    floor = fit(tune, max_extra)
    lines = [_line(f"{n} tune", d, floor) for n, d in tune.items()]
    for line in lines:
        print(line)
    print(
        f"chosen relevance_floor {floor} (off: "
        + "; ".join(_line(n, d, -1.0) for n, d in tune.items())
        + ")"
    )
    for name, run in report.items():
        print(_line(f"{name} report (held out)", run(floor), floor))
    if not args.dry_run:
        _write(floor, [f"{n}: {balanced(d, floor):.3f}" for n, d in tune.items()])


if __name__ == "__main__":
    main()
