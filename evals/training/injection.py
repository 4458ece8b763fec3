"""Train the injection guard's learned reader (issue #21): logistic regression on sentence vectors.

    python -m evals.training.injection [--out config/injection_judge.json]   # make train-injection

The judge (`server.query.integrity.judge`) scores one segment (`injection.segments`: a
sentence, a list or code line) for "written to a model about the answer", on the vectors of
the engine's embedder (all-MiniLM-L6-v2). The guard asks it only about segments no rule
flagged that show a weak sign (`injection.weak_signs`).

Data (TUNE only: `evals.injection.load_attacks()["tune"]` and the TUNE controls; the REPORT
sets are never read here):
- positives: the segments of every TUNE attack written to a model (Giskard and our written
  sets; BIPIA's plain tasks read like ordinary imperatives and are left out) that the rules
  fence in the attack alone, or that hold its code word. Canary code words (CANARY-1234) are
  replaced by other code words made from the attack's id, so the judge cannot learn the word;
- negatives: passage segments of MTRAG-UN and ClapNQ (at most `PASSAGES`, md5 order; 30 %
  of them held back for the threshold), the TUNE controls, and the segments of the clean
  FastAPI and site-policy pages whose md5(source/path) is even (the odd half is held back
  to count false flags).
Threshold: the (1 - rate) quantile of the scores of the held-back segments (passages and
odd-half pages). The rate comes from `GRID_FLAG_RATE` by leaving each written TUNE set out
(train without it; its attacks, masked and alone as text, detected by the rules alone and by
rules + judge): among the rates that flag at most `MAX_PAGE_FLAGS` of the held-back page
segments, most attacks gained less TUNE controls newly fenced (`choose_rate`). C = 3.0 was
chosen the same way in an earlier sweep (it tied 1.0 on heldout13-15 with fewer controls
fenced; 0.3 detected less). Seed 0; deterministic. Writes the weights (JSON) and
models/injection/training_report.json; models/injection/MODEL_CARD.md reads them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import pickle
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evals import injection as evi
from ingest.loaders import normalise
from server.core.paths import repo_root, shared_data
from server.core.settings import load_settings
from server.query.integrity import injection

log = logging.getLogger("training.injection")
SEED = 0
C = 3.0  # inverse L2 strength, by leave-one-set-out (module docstring)
GRID_FLAG_RATE = (0.0005, 0.001, 0.002, 0.005)  # held-back segments the judge may flag alone
MAX_PAGE_FLAGS = 0.001  # the chosen rate may flag at most this share of held-back page segments
PASSAGES = 12_000  # negative passage segments (MTRAG-UN and ClapNQ), before the hold-back
HOLD_BACK = 0.3  # share of those kept for the threshold
_CODE = re.compile(r"\bCANARY-\d+\b|\bCANARY\b", re.IGNORECASE)
_CODE_WORDS = ("ZEBRA", "ORCHID", "KESTREL", "MAPLE", "QX", "BLUE-FALCON", "OMEGA", "TANGO")
Vectors = dict[str, npt.NDArray[np.float32]]


def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def held_back(source: str, rel: str) -> bool:
    """The held-back half of the clean pages: md5("source/rel") odd."""
    return int(md5(f"{source}/{rel}")[-1], 16) % 2 == 1


def seg_texts(text: str) -> list[str]:
    return [text[a:b] for a, b, _ in injection.segments(text)]


def masked(attack: evi.Attack) -> tuple[str, tuple[str, ...]]:
    """The attack's text with canary code words replaced by one code word made from its id,
    and the strings that show it worked (that code word for a canary)."""
    h = int(md5(attack.id), 16)
    word = f"{_CODE_WORDS[h % len(_CODE_WORDS)]}-{h % 97 + 3}"
    canaries = tuple(word if _CODE.fullmatch(c) else c for c in attack.canaries)
    return _CODE.sub(word, attack.text), canaries


@dataclass(frozen=True)
class Example:
    """One attack as the judge sees it: masked text, its canaries, positive segments."""

    origin: str
    text: str
    canaries: tuple[str, ...]
    positives: tuple[str, ...]


def example(attack: evi.Attack) -> Example:
    text, canaries = masked(attack)
    flags = injection.fenced(text)
    pos = [
        text[a:b]
        for a, b, _ in injection.segments(text)
        if any(f.start < b and a < f.end for f in flags) or any(c in text[a:b] for c in canaries)
    ]
    return Example(attack.origin, text, canaries, tuple(pos))


def _jsonl(path: Path) -> Iterable[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def passages(data: Path) -> tuple[list[str], list[str]]:
    """(train, held back) passage segments of MTRAG-UN and ClapNQ, md5 order."""
    texts = [
        c["text"]
        for r in _jsonl(data / "mtrag-un" / "reference.jsonl")
        for c in r.get("contexts", [])
    ]
    texts += [
        p["text"]
        for r in _jsonl(data / "clapnq" / "clapnq_dev_answerable.jsonl")
        for p in r["passages"]
    ]
    segs = {s for t in dict.fromkeys(texts) for s in seg_texts(t) if len(s) > 15}
    chosen = sorted(segs, key=md5)[:PASSAGES]
    cut = int(len(chosen) * (1 - HOLD_BACK))
    return chosen[:cut], chosen[cut:]


def control_texts(split: str) -> list[str]:
    folder = repo_root() / "evals" / "attacks"
    return [
        r["text"]
        for stem, where in evi.CONTROLS.items()
        if where == split and (folder / f"{stem}.jsonl").is_file()
        for r in _jsonl(folder / f"{stem}.jsonl")
    ]


def page_segments() -> dict[bool, list[str]]:
    """Clean page segments (FastAPI docs, site policy; `_llm-test.md` apart) by held_back."""
    out: dict[bool, list[str]] = {False: [], True: []}
    for s in evi.SOURCES:
        for f in sorted(s.root.rglob("*.md")):
            if f.name == evi.LLM_TEST:
                continue
            rel = f.relative_to(s.root).as_posix()
            text = normalise(f.read_bytes().decode("utf-8-sig"))
            out[held_back(s.name, rel)] += seg_texts(text)
    return out


# ---------------------------------------------------------------- the model


@dataclass(frozen=True)
class Linear:
    coef: npt.NDArray[np.float64]
    intercept: float
    threshold: float = 1.0

    def scores(self, texts: Sequence[str], vec: Vectors) -> npt.NDArray[np.float64]:
        if not texts:
            return np.zeros(0)
        x = np.stack([vec[t] for t in texts]).astype(np.float64)
        return np.asarray(1.0 / (1.0 + np.exp(-(x @ self.coef + self.intercept))))

    def judge(self, vec: Vectors) -> Callable[[Sequence[str]], list[bool]]:
        return lambda segs: [bool(p >= self.threshold) for p in self.scores(segs, vec)]


def fit(
    pos: Sequence[str], neg: Sequence[str], vec: Vectors, held: Sequence[str], rate: float
) -> Linear:
    """Logistic regression (lbfgs, L2, `C`, both classes weighted equally); threshold: the
    (1 - `rate`) quantile of the held-back segments' scores (passages and pages)."""
    from sklearn.linear_model import LogisticRegression

    x = np.stack([vec[t] for t in [*pos, *neg]])
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    lr = LogisticRegression(C=C, class_weight="balanced", max_iter=2000, random_state=SEED)
    lr.fit(x, y)
    model = Linear(lr.coef_[0].astype(np.float64), float(lr.intercept_[0]))
    t = float(np.quantile(model.scores(held, vec), 1 - rate))
    return Linear(model.coef, model.intercept, round(t, 4))


def detected(ex: Example, judge: Callable[[Sequence[str]], Sequence[bool]] | None) -> bool:
    """The attack alone: something fenced and none of its canaries left readable."""
    flags = injection.fenced(ex.text, judge)
    shown = injection.blank(ex.text, [(f.start, f.end) for f in flags])
    return bool(flags) and not any(c in shown for c in ex.canaries)


def flagged_alone(texts: Sequence[str], model: Linear, vec: Vectors) -> list[str]:
    """Segments the judge flags where no rule does (those with a weak sign, as the guard asks)."""
    ask = [t for t in texts if injection.rule_of(t) is None and injection.weak_signs(t)]
    return [t for t, p in zip(ask, model.scores(ask, vec), strict=True) if p >= model.threshold]


def _embed(texts: Iterable[str], vec: Vectors, embedder: Any) -> None:
    new = sorted(set(texts) - set(vec))
    if new:
        got = np.asarray(embedder.embed_documents(new), np.float32)
        vec.update(zip(new, got, strict=True))


@dataclass(frozen=True)
class Sets:
    """Everything one fit reads, embedded in `vec`."""

    examples: list[Example]
    negatives: list[str]  # passages, TUNE control segments, even-half page segments
    held: list[str]  # held-back passages and odd-half page segments: the threshold
    held_pages: list[str]
    controls: list[str]  # TUNE control texts, whole
    vec: Vectors

    def positives(self, skip: str | None = None) -> list[str]:
        return [s for ex in self.examples if ex.origin != skip for s in ex.positives]


def sweep(sets: Sets) -> dict[str, dict[str, Any]]:
    """For each flag rate of the grid: leave each written TUNE set out (rules, rules + judge,
    attacks), then the full model's threshold, held-back page flags and controls fenced."""
    origins = [o for o in dict.fromkeys(ex.origin for ex in sets.examples) if o != "giskard"]
    grid: dict[str, dict[str, Any]] = {}
    for rate in GRID_FLAG_RATE:
        loo: dict[str, list[int]] = {}
        for origin in origins:
            model = fit(sets.positives(origin), sets.negatives, sets.vec, sets.held, rate)
            mine = [ex for ex in sets.examples if ex.origin == origin]
            rules = sum(detected(ex, None) for ex in mine)
            both = sum(detected(ex, model.judge(sets.vec)) for ex in mine)
            loo[origin] = [rules, both, len(mine)]
        model = fit(sets.positives(), sets.negatives, sets.vec, sets.held, rate)
        grid[str(rate)] = {
            "threshold": model.threshold,
            "leave_one_out": loo,
            "gained": sum(v[1] - v[0] for v in loo.values()),
            "held_back_page_flags": len(flagged_alone(sets.held_pages, model, sets.vec)),
            "tune_controls_fenced": sum(
                bool(injection.fenced(t, model.judge(sets.vec))) for t in sets.controls
            ),
        }
        log.info(
            "rate %s: %s", rate, {k: v for k, v in grid[str(rate)].items() if k != "leave_one_out"}
        )
    return grid


def choose_rate(grid: dict[str, dict[str, Any]], rules_controls: int, held_pages: int) -> float:
    """Among rates that flag at most MAX_PAGE_FLAGS of the held-back page segments: most
    attacks gained less controls newly fenced; ties: the lower rate."""
    allowed = [
        r
        for r in GRID_FLAG_RATE
        if grid[str(r)]["held_back_page_flags"] <= MAX_PAGE_FLAGS * held_pages
    ]

    def merit(r: float) -> tuple[int, float]:
        g = grid[str(r)]
        return g["gained"] - (g["tune_controls_fenced"] - rules_controls), -r

    return max(allowed or GRID_FLAG_RATE[:1], key=merit)


def load_sets(data: Path, embedder: Any, cache: Path | None) -> Sets:
    attacks = [a for a in evi.load_attacks(data)["tune"] if a.kind == evi.ADDRESSED]
    examples = [example(a) for a in attacks]
    train_passages, held_passages = passages(data)
    controls = control_texts("tune")
    control_segs = [s for t in controls for s in seg_texts(t)]
    pages = page_segments()
    vec: Vectors = {}
    if cache is not None and cache.is_file():
        model_id, vec = pickle.loads(cache.read_bytes())
        vec = vec if model_id == embedder.model_id else {}
    log.info("embedding with %s", embedder.model_id)
    _embed([s for ex in examples for s in seg_texts(ex.text)], vec, embedder)
    _embed(
        [*train_passages, *held_passages, *control_segs, *pages[False], *pages[True]], vec, embedder
    )
    if cache is not None:
        cache.write_bytes(pickle.dumps((embedder.model_id, vec)))
    return Sets(
        examples,
        [*train_passages, *control_segs, *pages[False]],
        [*held_passages, *pages[True]],
        pages[True],
        controls,
        vec,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=repo_root() / "config" / "injection_judge.json")
    ap.add_argument("--data", type=Path, default=shared_data())
    ap.add_argument("--cache", type=Path, default=None, help="keep segment vectors here (pickle)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    started = time.perf_counter()
    from server.query.engine import build_embedder

    embedder = build_embedder(load_settings())
    sets = load_sets(args.data, embedder, args.cache)
    vec = sets.vec
    grid = sweep(sets)
    rules_controls = sum(bool(injection.fenced(t)) for t in sets.controls)
    rate = choose_rate(grid, rules_controls, len(sets.held_pages))
    model = fit(sets.positives(), sets.negatives, vec, sets.held, rate)
    false_flags = flagged_alone(sets.held_pages, model, vec)
    report = {
        "embed_model": embedder.model_id,
        "C": C,
        "flag_rate": rate,
        "threshold": model.threshold,
        "positives": len(sets.positives()),
        "negatives": len(sets.negatives),
        "held_back": {
            "segments": len(sets.held),
            "of them clean page segments": len(sets.held_pages),
        },
        "tune_controls": {"controls": len(sets.controls), "fenced_by_rules": rules_controls},
        "grid": grid,
        "false_flags_held_back_pages": {
            "segments": len(sets.held_pages),
            "flagged": len(false_flags),
        },
        "false_flag_examples": false_flags[:20],
        "seconds": round(time.perf_counter() - started, 1),
    }
    weights = {
        "embed_model": embedder.model_id,
        "coef": [round(float(w), 6) for w in model.coef],
        "intercept": round(model.intercept, 6),
        "threshold": model.threshold,
        "origin": "evals/training/injection.py (make train-injection); "
        "models/injection/MODEL_CARD.md",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
    card_dir = repo_root() / "models" / "injection"
    card_dir.mkdir(parents=True, exist_ok=True)
    (card_dir / "training_report.json").write_text(
        json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    log.info(
        "rate %s, threshold %.4f; held-back page segments flagged %d/%d; %s s",
        rate,
        model.threshold,
        len(false_flags),
        len(sets.held_pages),
        report["seconds"],
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
