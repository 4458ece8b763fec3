"""Fit the support scorer's logistic coefficients and threshold on dev splits; report test.

    python -m evals.calibration.support [--per-set 400] [--data ../shared/data]

Dev (fit + threshold): WiCE dev, SciFact train rationales, HaluEval-QA items 0-249.
Test (reported only): WiCE test, SciFact dev rationales, HaluEval-QA items 250-499.
Labels: supported = 1; not supported = 0 (WiCE `partially_supported` is left out: the
checker's decision is binary). Writes `config/support_model.json` and the calibrated
`support_threshold` into `config/defaults/integrity.yaml`.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from server.embed import load_embedder
from server.integrity.support import FEATURES, features
from server.settings import default_config_dir, load_settings
from server.text import content_words

Pair = tuple[str, str, int]


def _best_sentences(claim: str, sentences: list[str], k: int = 2) -> str:
    cw = set(content_words(claim))
    ranked = sorted(sentences, key=lambda s: -len(cw & set(content_words(s))))
    return " ".join(ranked[:k])


def wice(path: Path) -> Iterator[Pair]:
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        ev = item["evidence"]
        if item["label"] == "supported":
            idx = sorted({i for ann in item["supporting_sentences"] for i in ann})
            yield item["claim"], " ".join(ev[i] for i in idx if i < len(ev)), 1
        elif item["label"] == "not_supported":
            yield item["claim"], _best_sentences(item["claim"], ev), 0


def scifact(claims: Path, corpus: Path) -> Iterator[Pair]:
    docs = {}
    for line in corpus.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        docs[str(d["doc_id"])] = d["abstract"]
    for line in claims.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        for doc_id, sets in item["evidence"].items():
            for ev in sets:
                text = " ".join(docs[doc_id][i] for i in ev["sentences"])
                yield item["claim"], text, 1 if ev["label"] == "SUPPORT" else 0
        if not item["evidence"] and item["cited_doc_ids"]:
            doc = docs.get(str(item["cited_doc_ids"][0]))
            if doc:
                yield item["claim"], _best_sentences(item["claim"], doc), 0


def halueval(path: Path, lo: int, hi: int) -> Iterator[Pair]:
    for line in path.read_text(encoding="utf-8").splitlines()[lo:hi]:
        item = json.loads(line)
        q = re.sub(r"\?$", "", item["question"])
        yield f"{q}: {item['right_answer']}", item["knowledge"], 1
        yield f"{q}: {item['hallucinated_answer']}", item["knowledge"], 0


def sample(pairs: Iterator[Pair], n: int, seed: int = 0) -> list[Pair]:
    items = list(pairs)
    random.Random(seed).shuffle(items)
    return items[:n]


def matrix(pairs: list[Pair], embed: object) -> np.ndarray:
    texts = sorted({t for c, e, _ in pairs for t in (c, e)})
    vecs = dict(zip(texts, embed.embed_documents(texts), strict=True))  # type: ignore[attr-defined]
    rows = [features(c, e, vecs[c], vecs[e]) for c, e, _ in pairs]
    return np.array([[r[k] for k in FEATURES] for r in rows])


def balanced_accuracy(y: np.ndarray, pred: np.ndarray) -> float:
    """(TPR + TNR) / 2, the figure issue 5 asks for."""
    pos, neg = y == 1, y == 0
    return float(((pred[pos] == 1).mean() + (pred[neg] == 0).mean()) / 2)


def best_threshold(y: np.ndarray, p: np.ndarray) -> float:
    grid = np.linspace(0.05, 0.95, 91)
    return float(max(grid, key=lambda t: balanced_accuracy(y, (p >= t).astype(int))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "data"
    )
    ap.add_argument("--per-set", type=int, default=400)
    args = ap.parse_args()
    d, n = args.data, args.per_set
    dev = {
        "wice": sample(wice(d / "wice/claim/dev.jsonl"), n),
        "scifact": sample(
            scifact(d / "scifact/claims_train.jsonl", d / "scifact/corpus_sentences.jsonl"), n
        ),
        "halueval": sample(halueval(d / "halueval-qa/qa_one-turn_data.json", 0, 250), n),
    }
    test = {
        "wice": sample(wice(d / "wice/claim/test.jsonl"), n),
        "scifact": sample(
            scifact(d / "scifact/claims_dev.jsonl", d / "scifact/corpus_sentences.jsonl"), n
        ),
        "halueval": sample(halueval(d / "halueval-qa/qa_one-turn_data.json", 250, 500), n),
    }
    embedder = load_embedder(load_settings().models)
    xs = {
        k: matrix(v, embedder)
        for k, v in {
            **{f"dev:{a}": b for a, b in dev.items()},
            **{f"test:{a}": b for a, b in test.items()},
        }.items()
    }
    ys = {
        f"{s}:{k}": np.array([lab for *_, lab in v])
        for s, sets in (("dev", dev), ("test", test))
        for k, v in sets.items()
    }
    x_dev = np.vstack([xs[f"dev:{k}"] for k in dev])
    y_dev = np.concatenate([ys[f"dev:{k}"] for k in dev])
    model = LogisticRegression(class_weight="balanced", max_iter=1000).fit(x_dev, y_dev)
    threshold = best_threshold(y_dev, model.predict_proba(x_dev)[:, 1])
    report = {}
    for key in xs:
        pred = (model.predict_proba(xs[key])[:, 1] >= threshold).astype(int)
        report[key] = round(balanced_accuracy(ys[key], pred), 3)
        print(f"{key:16s} n={len(ys[key]):4d} balanced_accuracy={report[key]:.3f}")
    out = {
        "intercept": float(model.intercept_[0]),
        "weights": {k: float(w) for k, w in zip(FEATURES, model.coef_[0], strict=True)},
        "origin": f"evals/calibration/support.py: logistic fit on dev (wice dev, scifact train, "
        f"halueval 0-249; {n}/set) with {embedder.model_id}; threshold {threshold:.2f}",
        "dev_balanced_accuracy": {k: v for k, v in report.items() if k.startswith("dev:")},
    }
    config = default_config_dir()
    (config / "support_model.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    yaml_path = config / "defaults" / "integrity.yaml"
    text = re.sub(
        r"^support_threshold:.*$",
        f"support_threshold: {threshold:.2f}   # calibrated on dev by evals/calibration/support.py",
        yaml_path.read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    )
    yaml_path.write_text(text, encoding="utf-8")
    print(json.dumps({"threshold": threshold, **out}, indent=2))


if __name__ == "__main__":
    main()
