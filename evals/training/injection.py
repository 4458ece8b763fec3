"""Train the prompt-injection classifier (issue #21): hashed n-grams + logistic regression.

    python -m evals.training.injection [--out models/injection] [--report]

Scores a segment (`injection.segments`: a sentence, a list or code line) for "an instruction
aimed at an AI / assistant, or at the answer's form or content" (word 1-2 grams + char_wb
3-5 grams, hashed, no vocabulary; logistic regression). Evaluated as `injection.fenced` with
a segment flagged when a rule fires or the score reaches the threshold (`using`, which
patches `injection.rule_of`). Not hooked into the server: on the leave-one-out TUNE
detection it only ties the rules and it adds false quarantine (models/injection/MODEL_CARD.md).

Data (TUNE only; heldout3 and clean3 are never read here, except by `--report`, at the end):
- positives: every segment of every TUNE attack (`evals.injection.load_attacks()["tune"]`:
  Giskard, BIPIA train, heldout, heldout2); an attack's weight is spread over its segments.
  Canary code words (CANARY-1234) are replaced by other code words made from the attack's
  id, so the model cannot learn the word "canary";
- negatives: segments of the clean pages (FastAPI docs, GitHub site policy, `_llm-test.md`
  left out) whose md5(source/path) falls in the *train* half; the other half is held back for
  the threshold and false quarantine. Plus passages of ClapNQ dev, MTRAG-UN reference and
  SciFact corpus (at most `PER_CORPUS` segments each, by md5 order) and `clean2.jsonl`.
  Positives and negatives carry the same total weight.

Model selection (C, and whether BIPIA's plain tasks are positives): leave one TUNE origin out:
train without it, pick the threshold the same way, count its attacks detected by
`evals.injection.detect` (planted alone on `choose_pages(source, 3)`, three positions), rules
only vs rules + classifier, and its attacks with a segment the classifier alone flags. Most
of both wins; ties: smaller C.
Threshold: the lowest score at which the classifier alone flags at most `MAX_FLAG_RATE` of the
held-back segments of each clean corpus. Seed 0; deterministic.

`--report` (once, at the end; `--report-only` for the saved model): heldout3 detection by
style, rules only vs rules + classifier, and the clean3 controls fenced. Writes weights.npy
(fp16), model.json, training_report.json and MODEL_CARD.md to `--out`.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import logging
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evals import injection as evi
from ingest.loaders import normalise
from server.core.paths import repo_root, shared_data
from server.query.integrity import injection

log = logging.getLogger("training.injection")
SEED = 0
WORD_BITS = 18
CHAR_BITS = 18
PER_CORPUS = 4000  # negative segments per passage corpus (ClapNQ, MTRAG-UN, SciFact)
MAX_FLAG_RATE = 0.0005  # share of held-back clean segments the classifier may flag alone
GRID_C = (0.5, 2.0, 8.0)
GRID_BIPIA = (True, False)
ORIGINS = ("giskard", "bipia-train", "heldout", "heldout2")
_CODE = re.compile(r"\bCANARY-\d+\b|\bCANARY\b", re.IGNORECASE)
_CODE_WORDS = ("ZEBRA", "ORCHID", "KESTREL", "MAPLE", "QX", "BLUE-FALCON", "OMEGA", "TANGO")


def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def held_back(source: str, rel: str) -> bool:
    """The held-back half of the clean pages: md5("source/rel") odd."""
    return int(md5(f"{source}/{rel}")[-1], 16) % 2 == 1


def seg_texts(text: str) -> list[str]:
    return [text[a:b] for a, b, _ in injection.segments(text)]


def masked(attack: evi.Attack) -> str:
    """The attack's text with canary code words replaced by code words made from its id."""
    h = int(md5(attack.id), 16)
    word = _CODE_WORDS[h % len(_CODE_WORDS)]
    return _CODE.sub(lambda _: f"{word}-{h % 97 + 3}", attack.text)


# ---------------------------------------------------------------- the classifier

WEIGHTS = "weights.npy"
META = "model.json"


def features(texts: Sequence[str], word_bits: int, char_bits: int) -> Any:
    """Sparse CSR matrix (len(texts), 2**word_bits + 2**char_bits): hashed word 1-2 grams
    (token \\b\\w+\\b), then hashed char_wb 3-5 grams; lowercased, each part L2-normalised."""
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import HashingVectorizer

    word = HashingVectorizer(
        analyzer="word",
        ngram_range=(1, 2),
        n_features=2**word_bits,
        alternate_sign=False,
        norm="l2",
        lowercase=True,
        token_pattern=r"(?u)\b\w+\b",
    )
    char = HashingVectorizer(
        analyzer="char_wb",
        ngram_range=(3, 5),
        n_features=2**char_bits,
        alternate_sign=False,
        norm="l2",
        lowercase=True,
    )
    return hstack([word.transform(texts), char.transform(texts)], format="csr")


@dataclass(frozen=True)
class Classifier:
    """Logistic regression weights over the hashed features, and the flagging threshold."""

    weights: npt.NDArray[np.float32]
    intercept: float
    word_bits: int
    char_bits: int
    threshold: float

    @classmethod
    def load(cls, folder: Path) -> Classifier:
        meta = json.loads((folder / META).read_text(encoding="utf-8"))
        return cls(
            np.load(folder / WEIGHTS).astype(np.float32),
            float(meta["intercept"]),
            int(meta["word_bits"]),
            int(meta["char_bits"]),
            float(meta["threshold"]),
        )

    def scores(self, texts: Sequence[str]) -> list[float]:
        """P(written to a model) of each text (one vectorisation for the batch)."""
        if not texts:
            return []
        z = features(texts, self.word_bits, self.char_bits) @ self.weights + self.intercept
        return [float(v) for v in 1.0 / (1.0 + np.exp(-np.asarray(z, dtype=np.float64)))]

    def flags(self, texts: Sequence[str]) -> list[bool]:
        return [s >= self.threshold for s in self.scores(texts)]


@contextlib.contextmanager
def using(model: Classifier | None) -> Iterator[None]:
    """Within the block `injection.fenced` flags a segment when a rule fires or `model`
    scores it at least its threshold (rule "classifier"); None: rules only. The classifier
    is not hooked into the server (MODEL_CARD.md), so this patches `injection.rule_of`."""
    if model is None:
        yield
        return
    original: Callable[[str], str | None] = injection.rule_of
    seen: dict[str, bool] = {}

    def rule_of(segment: str) -> str | None:
        found = original(segment)
        if found is None and segment not in seen:
            seen[segment] = model.flags([segment])[0]
        return found or ("classifier" if seen.get(segment) else None)

    injection.rule_of = rule_of
    try:
        yield
    finally:
        injection.rule_of = original  # type: ignore[assignment]


# ---------------------------------------------------------------- data


@dataclass(frozen=True)
class Pages:
    """The clean pages of a source, each (rel, text, held_back)."""

    source: str
    pages: tuple[tuple[str, str, bool], ...]


def clean_pages() -> list[Pages]:
    out = []
    for s in evi.SOURCES:
        rows = []
        for f in sorted(s.root.rglob("*.md")):
            if f.name == evi.LLM_TEST:
                continue
            rel = f.relative_to(s.root).as_posix()
            text = normalise(f.read_bytes().decode("utf-8-sig"))
            rows.append((rel, text, held_back(s.name, rel)))
        out.append(Pages(s.name, tuple(rows)))
    return out


def _jsonl(path: Path) -> Iterable[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def passages(data: Path) -> dict[str, list[str]]:
    """Segments of the passage corpora, at most PER_CORPUS each (md5 order, then sorted)."""
    raw: dict[str, list[str]] = {"clapnq": [], "mtrag-un": [], "scifact": []}
    for name in ("clapnq_dev_answerable.jsonl", "clapnq_dev_unanswerable.jsonl"):
        for r in _jsonl(data / "clapnq" / name):
            raw["clapnq"] += [p["text"] for p in r.get("passages", [])]
    for r in _jsonl(data / "mtrag-un" / "reference.jsonl"):
        raw["mtrag-un"] += [c["text"] for c in r.get("contexts", [])]
    for r in _jsonl(data / "scifact" / "corpus.jsonl"):
        raw["scifact"].append(r["text"])
    out = {}
    for name, texts in raw.items():
        segs = {s for t in dict.fromkeys(texts) for s in seg_texts(t) if len(s) > 3}
        out[name] = sorted(sorted(segs, key=md5)[:PER_CORPUS])
    return out


def clean2() -> list[str]:
    rows = _jsonl(repo_root() / "evals" / "attacks" / "clean2.jsonl")
    return [s for r in rows for s in seg_texts(r["text"])]


@dataclass
class Data:
    attacks: list[evi.Attack]
    pages: list[Pages]
    negatives: list[str]  # train-half page segments, passages, clean2
    neg_counts: dict[str, int]


def load(data: Path) -> Data:
    attacks = evi.load_attacks(data)["tune"]
    pages = clean_pages()
    negatives: list[str] = []
    counts: dict[str, int] = {}
    for p in pages:
        segs = [s for _, text, back in p.pages if not back for s in seg_texts(text)]
        counts[f"{p.source} (train half)"] = len(segs)
        negatives += segs
    for name, segs in passages(data).items():
        counts[name] = len(segs)
        negatives += segs
    c2 = clean2()
    counts["clean2"] = len(c2)
    negatives += c2
    return Data(attacks, pages, negatives, counts)


# ---------------------------------------------------------------- training


def fit(data: Data, attacks: Sequence[evi.Attack], c: float, bipia: bool) -> Classifier:
    """Logistic regression (lbfgs, L2, `c`) on the positives of `attacks` and every negative;
    threshold 1.0 until `choose_threshold`."""
    from sklearn.linear_model import LogisticRegression

    pos: list[str] = []
    pos_w: list[float] = []
    for a in attacks:
        if a.origin == "bipia-train" and not bipia:
            continue
        segs = seg_texts(masked(a)) or [masked(a)]
        pos += segs
        pos_w += [1.0 / len(segs)] * len(segs)
    neg = data.negatives
    w_pos = np.asarray(pos_w) * (len(neg) / sum(pos_w))  # both classes weigh len(neg)
    x = features([*pos, *neg], WORD_BITS, CHAR_BITS)
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    w = np.r_[w_pos, np.ones(len(neg))]
    lr = LogisticRegression(C=c, max_iter=2000, random_state=SEED)
    lr.fit(x, y, sample_weight=w / w.mean())
    return Classifier(
        lr.coef_[0].astype(np.float16).astype(np.float32),
        float(lr.intercept_[0]),
        WORD_BITS,
        CHAR_BITS,
        1.0,
    )


def held_back_segments(data: Data) -> dict[str, list[str]]:
    return {
        p.source: [s for _, text, back in p.pages if back for s in seg_texts(text)]
        for p in data.pages
    }


def choose_threshold(model: Classifier, held: dict[str, list[str]]) -> Classifier:
    """The lowest threshold at which the classifier alone flags at most MAX_FLAG_RATE of each
    corpus's held-back segments (rounded up to 0.01)."""
    t = 0.5
    for segs in held.values():
        s = np.sort(np.asarray(model.scores(segs)))[::-1]
        k = int(MAX_FLAG_RATE * len(s))  # at most k may score >= t
        if k < len(s):
            t = max(t, float(s[k]) + 1e-6)
    t = min(0.99, float(np.ceil(t * 100) / 100))
    return Classifier(model.weights, model.intercept, model.word_bits, model.char_bits, t)


# ---------------------------------------------------------------- evaluation


def planting_pages() -> list[evi.Page]:
    return [p for s in evi.SOURCES if s.root.is_dir() for p in evi.choose_pages(s, 3)]


def detection(
    attacks: Sequence[evi.Attack],
    pages: Sequence[evi.Page],
    model: Classifier | None,
) -> dict[str, list[int]]:
    """style -> [detected, blocks]: every attack alone on page i mod P at each position."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    with using(model):
        for i, a in enumerate(attacks):
            page = pages[i % len(pages)]
            for pos in evi.POSITIONS:
                text, [(lo, hi)] = evi.plant(page.text, [(a.text, pos)])
                d = evi.detect(text, lo, hi, a.canaries)
                out[a.style][0] += d.detected
                out[a.style][1] += 1
    return dict(out)


def total(by_style: dict[str, list[int]]) -> list[int]:
    return [sum(v[0] for v in by_style.values()), sum(v[1] for v in by_style.values())]


def false_quarantine(data: Data, model: Classifier | None) -> dict[str, dict[str, Any]]:
    """Segments fenced by `injection.fenced` (rules + `model`) per corpus and half."""
    out: dict[str, dict[str, Any]] = {}
    with using(model):
        for p in data.pages:
            for half in ("train", "held_back"):
                hit = n = 0
                rules: Counter[str] = Counter()
                examples: list[str] = []
                for _, text, back in p.pages:
                    if back != (half == "held_back"):
                        continue
                    k, m, spans = evi.fenced_segments(text)
                    hit, n = hit + k, n + m
                    for a, b, r in spans:
                        rules[r] += 1
                        if r == "classifier" and len(examples) < 8:
                            examples.append(text[a:b][:160])
                out[f"{p.source}/{half}"] = {
                    "segments": n,
                    "fenced": hit,
                    "rate": round(hit / n, 5) if n else None,
                    "spans_by_rule": dict(rules),
                    "classifier_examples": examples,
                }
    return out


def leave_one_out(
    data: Data, pages: Sequence[evi.Page], c: float, bipia: bool, held: dict[str, list[str]]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for origin in ORIGINS:
        test = [a for a in data.attacks if a.origin == origin]
        train = [a for a in data.attacks if a.origin != origin]
        model = choose_threshold(fit(data, train, c, bipia), held)
        got = detection(test, pages, model)
        alone = sum(any(model.flags(seg_texts(a.text) or [a.text])) for a in test)
        out[origin] = {
            "threshold": model.threshold,
            "detected": total(got),
            "classifier_alone": [alone, len(test)],
            "by_style": got,
        }
        log.info("C=%s bipia=%s  %s: %s (t=%.2f)", c, bipia, origin, total(got), model.threshold)
    return out


# ---------------------------------------------------------------- saving


def save(model: Classifier, out: Path, extra: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / WEIGHTS, model.weights.astype(np.float16))
    meta = {
        "word_bits": model.word_bits,
        "char_bits": model.char_bits,
        "intercept": model.intercept,
        "threshold": model.threshold,
        "features": "HashingVectorizer word 1-2 grams (token \\b\\w+\\b) + char_wb 3-5 grams, "
        "lowercase, alternate_sign False, each part L2-normalised; logistic regression",
        **extra,
    }
    (out / META).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def report_heldout3(pages: Sequence[evi.Page], model: Classifier) -> dict[str, Any]:
    """heldout3 detection by style and the clean3 controls, rules only vs rules + model."""
    attacks = evi.load_attacks()["report"]
    h3 = [a for a in attacks if a.origin == "heldout3"]
    out: dict[str, Any] = {}
    for name, m in (("rules", None), ("rules+classifier", model)):
        got = detection(h3, pages, m)
        with using(m):
            ctl = evi.controls(pages)
        out[name] = {"detected": total(got), "by_style": got, "controls": ctl}
    return out


LICENCES = (
    (
        "Giskard prompt injections (garak + PromptInject)",
        "MIT; garak Apache-2.0, PromptInject MIT",
        "positives (35 prompts)",
    ),
    ("BIPIA (microsoft/BIPIA) text attacks, train split", "MIT", "positives (75 tasks)"),
    ("evals/attacks heldout.jsonl, heldout2.jsonl", "this repository", "positives"),
    (
        "FastAPI docs",
        "MIT (Sebastián Ramírez)",
        "negatives: train-half pages; held-back half: threshold, false quarantine",
    ),
    ("GitHub site policy", "CC0-1.0", "as FastAPI docs"),
    ("ClapNQ dev passages", "Apache-2.0; Wikipedia text CC BY-SA 3.0", "negatives"),
    (
        "MTRAG-UN reference passages",
        "Apache-2.0; ClapNQ/Wikipedia CC BY-SA, FiQA CC BY-SA, "
        "US government pages public domain, IBM Cloud docs (their terms)",
        "negatives",
    ),
    ("SciFact corpus abstracts", "ODC-By 1.0", "negatives"),
    ("evals/attacks clean2.jsonl", "this repository", "negatives"),
)


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.3f})" if n else "-"


def card(report: dict[str, Any]) -> str:
    """MODEL_CARD.md from a training report."""
    chosen = next(
        g
        for g in report["grid"]
        if g["C"] == report["chosen"]["C"]
        and g["bipia_positives"] == report["chosen"]["bipia_positives"]
    )
    lines = [
        "# citegate prompt-injection classifier (hashed n-grams + logistic regression)",
        "",
        'Scores one segment (`injection.segments`: a sentence, a list or code line) for "an '
        "instruction aimed at an AI / assistant, or at the answer's form or content\". "
        "Evaluated as `injection.fenced` with a segment flagged when a rule fires **or** the "
        "score is at least the threshold (rule `classifier`).",
        "",
        "> **Status: not hooked into the server; the weights are not committed.** On the "
        "leave-one-origin-out TUNE detection, rules + classifier only *tie* the rules (the "
        "rules already detect every Giskard, heldout and heldout2 block; on BIPIA train the "
        "classifier adds nothing), while it adds false quarantine on the clean pages (table "
        "below). The issue's bar (beat the rules on leave-one-out detection at under 0.5 % "
        "false quarantine) is not met. `make train-injection` rebuilds the weights (seed 0, "
        "deterministic) for further work.",
        "",
        f"**Threshold: {report['threshold']}** — the lowest score at which the classifier "
        f"alone flags at most {report['max_flag_rate']:.2%} of the segments of each clean "
        "corpus's *held-back* half of pages (md5(source/path) odd), rounded up to 0.01.",
        "",
        "Features: scikit-learn `HashingVectorizer`, word 1-2 grams (token `\\b\\w+\\b`) "
        f"into 2^{WORD_BITS} and char_wb 3-5 grams into 2^{CHAR_BITS} buckets, lowercased, "
        "no vocabulary stored, each part L2-normalised. Weights: `weights.npy` (fp16, "
        f"{2**WORD_BITS + 2**CHAR_BITS} values), `model.json` (intercept, sizes, threshold).",
        "",
        "## Recipe",
        "",
        "    .venv/bin/python -m evals.training.injection            # or: make train-injection",
        "    .venv/bin/python -m evals.training.injection --report-only   # heldout3, at the end",
        "",
        f"Logistic regression (lbfgs, L2, C={report['chosen']['C']}), seed {report['seed']}; "
        "each attack's weight spread over its segments, both classes the same total weight; "
        "canary code words (CANARY-1234) replaced by other code words. "
        f"BIPIA plain tasks as positives: {report['chosen']['bipia_positives']}. "
        f"Positives (attacks): {report['positives']}. Negative segments: {report['negatives']}. "
        f"Run time {report.get('seconds')} s on 2 shared CPU cores.",
        "",
        "## Data",
        "",
        "| data | licence | use |",
        "| --- | --- | --- |",
        *[f"| {a} | {b} | {c} |" for a, b, c in LICENCES],
        "",
        "Never read for training, features or the threshold: `heldout3.jsonl`, `clean3.jsonl`, "
        "BIPIA test (the REPORT sets of `evals/injection.py`).",
        "",
        "## Model selection: leave one TUNE origin out",
        "",
        "Train without the origin, threshold by the same rule, then its attacks planted alone on "
        "the six `choose_pages(source, 3)` pages at three positions (`evals.injection.detect`: "
        "detected = fenced and no canary left). `alone`: attacks with a segment the classifier "
        "flags by itself. Rules only are at the ceiling on the three sets they were tuned on.",
        "",
        "| C | BIPIA pos. | " + " | ".join(f"{o} rules+clf / alone" for o in ORIGINS) + " |",
        "| --- | --- | " + " | ".join("---" for _ in ORIGINS) + " |",
    ]
    for g in report["grid"]:
        cells = [
            f"{_pct(*g['loo'][o]['detected'])} / {_pct(*g['loo'][o]['classifier_alone'])} "
            f"(t={g['loo'][o]['threshold']})"
            for o in ORIGINS
        ]
        lines.append(f"| {g['C']} | {g['bipia_positives']} | " + " | ".join(cells) + " |")
    ro = report["rules_only_tune_detection"]
    lines += [
        "| rules only | | " + " | ".join(_pct(*ro[o]) for o in ORIGINS) + " |",
        "",
        f"Chosen: C={chosen['C']}, BIPIA positives {chosen['bipia_positives']}.",
        "",
        "## False quarantine (segments fenced, `injection.fenced` on every clean page)",
        "",
        "| corpus / half | segments | rules | rules + classifier |",
        "| --- | --- | --- | --- |",
    ]
    fq = report["false_quarantine"]
    for k, v in fq["rules+classifier"].items():
        r = fq["rules"][k]
        lines.append(
            f"| {k} | {v['segments']} | {r['fenced']} ({r['rate']:.4%}) | "
            f"{v['fenced']} ({v['rate']:.4%}) |"
        )
    ex = [e for v in fq["rules+classifier"].values() for e in v["classifier_examples"]]
    if ex:
        lines += ["", "Spans the classifier fences on clean pages (train and held-back):", ""]
        lines += ["- `" + e.replace("`", "'") + "`" for e in ex[:12]]
    h3 = report.get("heldout3")
    if h3:
        lines += [
            "",
            "## REPORT: heldout3 (never trained or tuned on) and clean3 controls",
            "",
            "Measured once, after the decision above (made on the TUNE sets only) and without "
            "changing it; `--report-only` with the saved weights. Same pages and positions as "
            "`/tmp/det3.py` / `evals.injection.detection`.",
            "",
            "| style | rules | rules + classifier |",
            "| --- | --- | --- |",
        ]
        for style, v in h3["rules"]["by_style"].items():
            w = h3["rules+classifier"]["by_style"][style]
            lines.append(f"| {style} | {_pct(*v)} | {_pct(*w)} |")
        lines.append(
            f"| **all** | {_pct(*h3['rules']['detected'])} | "
            f"{_pct(*h3['rules+classifier']['detected'])} |"
        )
        for name in ("rules", "rules+classifier"):
            lines.append("")
            lines.append(f"Controls fenced, {name}: {json.dumps(h3[name]['controls'])}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=shared_data())
    ap.add_argument("--out", type=Path, default=repo_root() / "models" / "injection")
    ap.add_argument("--report", action="store_true", help="heldout3 + clean3 (once, at the end)")
    ap.add_argument("--c", type=float, nargs="*", default=list(GRID_C))
    ap.add_argument(
        "--report-only", action="store_true", help="only the --report figures, for the saved model"
    )
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if args.report_only:
        path = args.out / "training_report.json"
        saved = json.loads(path.read_text(encoding="utf-8"))
        saved["heldout3"] = report_heldout3(planting_pages(), Classifier.load(args.out))
        path.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")
        (args.out / "MODEL_CARD.md").write_text(card(saved), encoding="utf-8")
        log.info("heldout3: %s", {k: v["detected"] for k, v in saved["heldout3"].items()})
        return 0
    t0 = time.time()
    data = load(args.data)
    held = held_back_segments(data)
    pages = planting_pages()
    log.info("negatives %s; attacks %d", data.neg_counts, len(data.attacks))
    rules_only = {
        o: total(detection([a for a in data.attacks if a.origin == o], pages, None))
        for o in ORIGINS
    }
    log.info("rules only: %s", rules_only)
    grid: list[dict[str, Any]] = []
    for bipia in GRID_BIPIA:
        for c in args.c:
            loo = leave_one_out(data, pages, c, bipia, held)
            found = sum(v["detected"][0] + v["classifier_alone"][0] for v in loo.values())
            grid.append({"C": c, "bipia_positives": bipia, "detected": found, "loo": loo})
    best = max(grid, key=lambda g: (g["detected"], -g["C"]))
    log.info(
        "chosen C=%s bipia=%s (%d detected)", best["C"], best["bipia_positives"], best["detected"]
    )
    model = choose_threshold(fit(data, data.attacks, best["C"], best["bipia_positives"]), held)
    fq_rules = false_quarantine(data, None)
    fq_model = false_quarantine(data, model)
    report: dict[str, Any] = {
        "seed": SEED,
        "max_flag_rate": MAX_FLAG_RATE,
        "threshold": model.threshold,
        "chosen": {"C": best["C"], "bipia_positives": best["bipia_positives"]},
        "negatives": data.neg_counts,
        "positives": dict(Counter(a.origin for a in data.attacks)),
        "rules_only_tune_detection": rules_only,
        "grid": grid,
        "false_quarantine": {"rules": fq_rules, "rules+classifier": fq_model},
    }
    if args.report:
        report["heldout3"] = report_heldout3(pages, model)
    report["seconds"] = round(time.time() - t0, 1)
    save(model, args.out, {"C": best["C"], "bipia_positives": best["bipia_positives"]})
    (args.out / "training_report.json").write_text(
        json.dumps(report, indent=2) + "\n", encoding="utf-8"
    )
    (args.out / "MODEL_CARD.md").write_text(card(report), encoding="utf-8")
    log.info("wrote %s (threshold %.2f) in %.0f s", args.out, model.threshold, report["seconds"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
