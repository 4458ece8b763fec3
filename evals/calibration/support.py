"""Fit the support scorer's logistic coefficients and threshold on dev splits; report test.

    python -m evals.calibration.support [--per-set 400] [--data ../shared/data]

Dev (fit + threshold): WiCE dev, SciFact train rationales, HaluEval-QA items 0-249, BEGIN
(Wizard of Wikipedia) dev. Test (reported only): WiCE test, SciFact dev rationales,
HaluEval-QA items 250-499, BEGIN test. Labels: supported = 1, not supported = 0 (WiCE
`partially_supported` and BEGIN `Generic` are left out: the checker's decision is binary).
Writes `config/support_model.json` (coefficients, threshold, figures, origin) and the
calibrated `support_threshold` into `config/defaults/integrity.yaml`. Embeddings are cached
in `.artifacts/support_embeddings.npz`, so a second run takes seconds.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

from evals.calibration.support_data import Pair, begin, halueval, sample, scifact, wice
from server.core.paths import repo_root
from server.core.ports import Embedder
from server.core.settings import default_config_dir, load_settings
from server.index.embed import load_embedder
from server.query.integrity.support import FEATURES, features

log = logging.getLogger("calibrate.support")
ROOT = repo_root()
CACHE = ROOT / ".artifacts" / "support_embeddings.npz"


def embed_cached(texts: list[str], embedder: Embedder) -> dict[str, np.ndarray]:
    """Vectors for `texts`, reusing `.artifacts/support_embeddings.npz` for the same model."""
    key = re.sub(r"\W", "_", embedder.model_id)
    cache: dict[str, np.ndarray] = {}
    if CACHE.is_file():
        with np.load(CACHE, allow_pickle=False) as data:
            if f"{key}__texts" in data:
                cache = dict(zip(data[f"{key}__texts"].tolist(), data[f"{key}__vecs"], strict=True))
    todo = sorted(set(texts) - set(cache))
    log.info("embedding %d new texts (%d cached)", len(todo), len(cache))
    for i in range(0, len(todo), 256):
        batch = todo[i : i + 256]
        cache.update(zip(batch, np.array(embedder.embed_documents(batch)), strict=True))
    if todo:
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        names = list(cache)
        arrays: dict[str, Any] = {
            f"{key}__texts": np.array(names),
            f"{key}__vecs": np.stack([cache[t] for t in names]),
        }
        np.savez(CACHE, **arrays)
    return cache


def matrix(pairs: list[Pair], vecs: dict[str, np.ndarray]) -> np.ndarray:
    rows = [features(c, e, vecs[c].tolist(), vecs[e].tolist()) for c, e, _ in pairs]
    return np.array([[r[k] for k in FEATURES] for r in rows])


def balanced_accuracy(y: np.ndarray, pred: np.ndarray) -> float:
    """(TPR + TNR) / 2, the figure issue 5 asks for."""
    pos, neg = y == 1, y == 0
    return float(((pred[pos] == 1).mean() + (pred[neg] == 0).mean()) / 2)


def set_weights(ys: list[np.ndarray]) -> np.ndarray:
    """Sample weights giving every data set, and both classes within it, the same total."""
    total = sum(len(y) for y in ys)
    parts = [np.where(y == 1, 0.5 / max(y.sum(), 1), 0.5 / max((1 - y).sum(), 1)) for y in ys]
    return np.concatenate(parts) * total / len(ys)


def best_threshold(ys: list[np.ndarray], ps: list[np.ndarray]) -> float:
    """The grid threshold with the best mean balanced accuracy over the dev sets."""
    grid = np.linspace(0.05, 0.95, 91)
    return float(
        max(
            grid,
            key=lambda t: np.mean(
                [balanced_accuracy(y, (p >= t).astype(int)) for y, p in zip(ys, ps, strict=True)]
            ),
        )
    )


def splits(d: Path, n: int) -> dict[str, list[Pair]]:
    halu = d / "halueval-qa/qa_one-turn_data.json"
    sci = d / "scifact/corpus_sentences.jsonl"
    return {
        "dev:wice": sample(wice(d / "wice/claim/dev.jsonl"), n),
        "dev:scifact": sample(scifact(d / "scifact/claims_train.jsonl", sci), n),
        "dev:halueval": sample(halueval(halu, 0, 250), n),
        "dev:begin": sample(begin(d / "begin-wow/begin_dev_wow.tsv"), n),
        "test:wice": sample(wice(d / "wice/claim/test.jsonl"), n),
        "test:scifact": sample(scifact(d / "scifact/claims_dev.jsonl", sci), n),
        "test:halueval": sample(halueval(halu, 250, 500), n),
        "test:begin": sample(begin(d / "begin-wow/begin_test_wow.tsv"), n),
    }


def _write(out: dict[str, object], threshold: float) -> None:
    config = default_config_dir()
    (config / "support_model.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    yaml_path = config / "defaults" / "integrity.yaml"
    text = re.sub(
        r"^support_threshold:.*$",
        f"support_threshold: {threshold:.2f}   # probability 0..1; best mean dev balanced "
        "accuracy over 4 sets, written by evals/calibration/support.py",
        yaml_path.read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    )
    yaml_path.write_text(text, encoding="utf-8")


def fit(xs: dict[str, np.ndarray], ys: dict[str, np.ndarray]) -> tuple[LogisticRegression, float]:
    """Coefficients on the dev sets (each weighted equally) and the best mean-BA threshold."""
    dev = [k for k in xs if k.startswith("dev:")]
    x_dev, y_dev = np.vstack([xs[k] for k in dev]), np.concatenate([ys[k] for k in dev])
    model = LogisticRegression(max_iter=2000).fit(
        x_dev, y_dev, sample_weight=set_weights([ys[k] for k in dev])
    )
    threshold = best_threshold(
        [ys[k] for k in dev], [model.predict_proba(xs[k])[:, 1] for k in dev]
    )
    return model, threshold


def evaluate(
    model: LogisticRegression,
    threshold: float,
    xs: dict[str, np.ndarray],
    ys: dict[str, np.ndarray],
) -> dict[str, float]:
    """Balanced accuracy of the supported / not-supported decision on every split."""
    report = {}
    for key, x in xs.items():
        pred = (model.predict_proba(x)[:, 1] >= threshold).astype(int)
        report[key] = round(balanced_accuracy(ys[key], pred), 3)
        log.info(
            "%-14s n=%4d pos=%4d balanced_accuracy=%.3f",
            key,
            len(ys[key]),
            int(ys[key].sum()),
            report[key],
        )
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--per-set", type=int, default=400)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    sets = splits(args.data, args.per_set)
    embedder = load_embedder(load_settings().models)
    vecs = embed_cached(
        [t for pairs in sets.values() for c, e, _ in pairs for t in (c, e)], embedder
    )
    xs = {k: matrix(v, vecs) for k, v in sets.items()}
    ys = {k: np.array([lab for *_, lab in v]) for k, v in sets.items()}
    model, threshold = fit(xs, ys)
    report = evaluate(model, threshold, xs, ys)
    out = {
        "intercept": float(model.intercept_[0]),
        "weights": {k: float(w) for k, w in zip(FEATURES, model.coef_[0], strict=True)},
        "threshold": round(threshold, 2),
        "origin": "evals/calibration/support.py: logistic regression on dev pairs, each set and "
        "each class within it weighted equally (wice dev, scifact train rationales, halueval "
        f"0-249, begin-wow dev; <= {args.per_set}/set, seed 0) with {embedder.model_id}; "
        "threshold = best mean dev balanced accuracy over the four sets",
        "dev_balanced_accuracy": {k: v for k, v in report.items() if k.startswith("dev:")},
        "test_balanced_accuracy": {k: v for k, v in report.items() if k.startswith("test:")},
        "sizes": {k: [len(ys[k]), int(ys[k].sum())] for k in sets},
    }
    _write(out, threshold)
    log.info("%s", json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
