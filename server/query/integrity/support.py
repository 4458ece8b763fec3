"""Support scoring: P(evidence supports claim), behind the `SupportScorer` Protocol.

No NLI model of known licence ships in a package here (MODELS.md), so the default scorer
combines real signals with a logistic model whose coefficients are fitted on dev splits by
`python -m evals.calibration.support` and stored in `config/support_model.json`:
content-word coverage of the claim by the evidence, embedding cosine of the two, number
agreement, and negation mismatch. `CrossEncoderSupportScorer` plugs in a cross-encoder where
weights exist: an NLI model (entailment probability) or a single-score verifier such as the
one trained by `python -m evals.training.verifier` into models/verifier (sigmoid).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from server.core.errors import ConfigError, ModelUnavailableError
from server.core.fitted import read_fitted
from server.core.paths import repo_root
from server.core.ports import Embedder, SupportScorer
from server.core.settings import Settings, default_config_dir
from server.core.settings.models import ModelSettings
from server.core.text import content_words
from server.index.onnx_runtime import Graph, graph_or_torch
from server.query.integrity.numbers import normalise_numbers
from server.query.retrieve import cosine

FEATURES = ("coverage", "cosine", "numbers_agree", "negation_mismatch", "entity_coverage")
VERIFIER = "verifier"  # the optional sixth feature: the logit of a verifier's P(supported)
VERIFIER_CLIP = 1e-4  # probabilities clipped to [1e-4, 1 - 1e-4] before the logit (|logit| <= 9.2)
PROBE_PAIRS = (
    ("The limit is five.", "The retry limit of the queue is five attempts by default."),
    ("cors", "CORS"),
    ("Every claim cites a span.", " ".join(["Every claim cites an exact span."] * 80)),
)
"""(claim, evidence) pairs on which an ONNX verifier must match torch: padding in the batch
and a pair past the model's length (truncation)."""
_NEG = re.compile(
    r"\b(?:not|no|never|none|neither|nor|cannot|can't|don't|doesn't|isn't|aren't|wasn't|"
    r"weren't|won't|without|fails?|failed|lacks?|unable)\b",
    re.I,
)
_ENTITY = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w-]*[A-Za-z0-9]|\b[A-Z]{2,}\b|\b\w*\d\w*\b")


def verifier_logit(prob: float) -> float:
    """The logit of a verifier's P(supported), clipped to [VERIFIER_CLIP, 1 - VERIFIER_CLIP]."""
    p = min(max(prob, VERIFIER_CLIP), 1 - VERIFIER_CLIP)
    return math.log(p / (1 - p))


class SupportModel(BaseModel):
    """Logistic coefficients and where they came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    intercept: float
    weights: dict[str, float]
    origin: str
    threshold: float | None = None
    verifier_path: str | None = None  # with a `verifier` weight: the cross-encoder folder
    dev_balanced_accuracy: dict[str, float] = {}
    test_balanced_accuracy: dict[str, float] = {}
    sizes: dict[str, list[int]] = {}


def lemma(word: str) -> str:
    """A crude suffix stripper: rotate/rotates/rotated/rotating -> rotat, keys -> key."""
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


def lemmas(text: str) -> set[str]:
    return {lemma(w) for w in content_words(text)}


def entities(text: str) -> set[str]:
    """Capitalised terms (not sentence-initial), acronyms and alphanumeric ids, lowercased."""
    return {m.group(0).lower() for m in _ENTITY.finditer(text)}


def features(
    claim: str, evidence: str, claim_vec: Sequence[float], evidence_vec: Sequence[float]
) -> dict[str, float]:
    """The five signals, each in [0, 1] (cosine clipped at 0).

    coverage: share of the claim's content-word lemmas found in the evidence's;
    entity_coverage: share of its named terms found there (1 when it names none).
    """
    cw, ew = lemmas(claim), lemmas(evidence)
    cn, en = normalise_numbers(claim), normalise_numbers(evidence)
    ents, low = entities(claim), evidence.lower()
    return {
        "coverage": len(cw & ew) / len(cw) if cw else 0.0,
        "cosine": max(0.0, cosine(claim_vec, evidence_vec)),
        "numbers_agree": 1.0 if cn <= en else 0.0,
        "negation_mismatch": 1.0
        if bool(_NEG.search(claim)) != bool(_NEG.search(evidence))
        else 0.0,
        "entity_coverage": sum(e in low for e in ents) / len(ents) if ents else 1.0,
    }


def load_support_model(path: Path) -> SupportModel:
    """Read the fitted coefficients; refuse a file fitted on other features."""
    if not path.is_file():
        raise ConfigError(f"{path} is missing: run `python -m evals.calibration.support`")
    model = read_fitted(
        path, SupportModel, "a valid support model", "re-run `python -m evals.calibration.support`"
    )
    if VERIFIER in model.weights and not model.verifier_path:
        raise ConfigError(
            f"{path} weighs a verifier but names no `verifier_path`: re-run "
            "`python -m evals.calibration.support_verifier`"
        )
    if set(model.weights) - {VERIFIER} != set(FEATURES):
        raise ConfigError(
            f"{path} was fitted on features {sorted(model.weights)}, this code computes "
            f"{sorted(FEATURES)}: re-run `python -m evals.calibration.support`"
        )
    return model


class FeatureSupportScorer:
    """Calibrated logistic combination of lexical, numeric, negation and embedding signals."""

    def __init__(
        self,
        embedder: Embedder,
        model: SupportModel,
        verifier: CrossEncoderSupportScorer | None = None,
    ) -> None:
        if (VERIFIER in model.weights) != (verifier is not None):
            raise ConfigError("a verifier weight needs a verifier, and a verifier needs its weight")
        self._embedder = embedder
        self._model = model
        self._verifier = verifier
        self._cache: dict[str, list[float]] = {}
        self._pairs: dict[tuple[str, str], float] = {}

    @property
    def name(self) -> str:
        extra = f"+{self._verifier.name}" if self._verifier is not None else ""
        return f"feature-logistic:{self._embedder.model_id}{extra}"

    def warm_pairs(self, pairs: Sequence[tuple[str, str]]) -> None:
        """The verifier's scores for the (claim, evidence) pairs not cached yet, in one batch
        (nothing without a verifier)."""
        if self._verifier is None:
            return
        missing = list(dict.fromkeys(p for p in pairs if p not in self._pairs))
        if not missing:
            return
        if len(self._pairs) + len(missing) > 4096:
            self._pairs.clear()
        for pair, prob in zip(missing, self._verifier.support_many(missing), strict=True):
            self._pairs[pair] = prob

    def _verifier_logit(self, claim: str, evidence: str) -> float:
        prob = self._pairs.get((claim, evidence))
        if prob is None:
            self.warm_pairs([(claim, evidence)])
            prob = self._pairs.get((claim, evidence))
        return verifier_logit(prob if prob is not None else 0.5)

    def _vec(self, text: str) -> list[float]:
        """Cached embedding; the vector is returned from a local, never re-read from the
        cache another request may have cleared in between."""
        vec = self._cache.get(text)
        if vec is None:
            vec = self._embedder.embed_documents([text])[0]
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[text] = vec
        return vec

    def warm(self, texts: Sequence[str]) -> None:
        """Embed the texts not cached yet in one batch (one model pass for an answer's claims
        and spans instead of one per text)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if not missing:
            return
        if len(self._cache) + len(missing) > 4096:
            self._cache.clear()
        for text, vec in zip(missing, self._embedder.embed_documents(missing), strict=True):
            self._cache[text] = vec

    def vectors(self, texts: Sequence[str]) -> list[list[float]]:
        """The texts' embeddings from this scorer's cache (missing ones in one batch)."""
        self.warm(texts)
        return [self._vec(t) for t in texts]

    def support(self, claim: str, evidence: str) -> float:
        f = features(claim, evidence, self._vec(claim), self._vec(evidence))
        z = self._model.intercept + sum(self._model.weights[k] * f[k] for k in FEATURES)
        if self._verifier is not None:
            z += self._model.weights[VERIFIER] * self._verifier_logit(claim, evidence)
        return 1.0 / (1.0 + math.exp(-z))


class CrossEncoderSupportScorer:
    """P(supported) from a cross-encoder folder loaded by sentence-transformers' CrossEncoder.

    Two shapes plug in the same way: a multi-label NLI model (labels include 'entailment';
    softmax, the entailment probability) and a single-score verifier (num_labels=1, e.g.
    models/verifier, MiniCheck- or HHEM-style heads; sigmoid of the logit). Pairs are fed as
    (evidence, claim), premise first; weights stored in fp16 are run in fp32 on the CPU.
    """

    def __init__(self, path: Path, models: ModelSettings | None = None) -> None:
        """`models` with `runtime: onnx` runs the passes on onnxruntime (checked against torch
        on `PROBE_PAIRS` at load); without it, or where that fails, torch."""
        import torch
        from sentence_transformers import CrossEncoder

        if not (path / "config.json").is_file():
            raise ModelUnavailableError(f"cross-encoder folder {path} has no config.json")
        self._model: Any = CrossEncoder(
            str(path),
            device="cpu",
            local_files_only=True,
            activation_fn=torch.nn.Identity(),
            model_kwargs={"dtype": torch.float32},
        )
        config = self._model.config
        if config.num_labels == 1:
            self._entail: int | None = None
        else:
            labels = {str(v).lower(): int(k) for k, v in config.id2label.items()}
            if "entailment" not in labels:
                raise ModelUnavailableError(
                    f"{path} has {config.num_labels} labels and none is 'entailment': neither an "
                    "NLI model nor a single-score verifier"
                )
            self._entail = labels["entailment"]
        self._path = path
        self._graph: Graph | None = None
        if models is not None and models.runtime == "onnx":
            self._graph = self._accelerated(models)

    def _accelerated(self, models: ModelSettings) -> Graph | None:
        def probe(run: Callable[[dict[str, Any]], np.ndarray]) -> float:
            reference = self._logits(list(PROBE_PAIRS))
            got = run(self._model.preprocess([(e, c) for c, e in PROBE_PAIRS]))
            return float(np.abs(reference - got.reshape(reference.shape)).max())

        return graph_or_torch(
            self._model,
            self._path,
            "scores",
            models,
            probe,
            32,  # CrossEncoder.predict's batch
            f"the verifier {self._path}",
        )

    @property
    def runtime(self) -> str:
        return "torch" if self._graph is None else "onnx"

    def _logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Raw logits, one row per (claim, evidence), fed premise first."""
        inputs = [(evidence, claim) for claim, evidence in pairs]
        if self._graph is None:
            out = self._model.predict(inputs, convert_to_numpy=True, show_progress_bar=False)
            return np.asarray(out, dtype=np.float32).reshape(len(pairs), -1)
        return self._graph(self._model.preprocess(inputs)).reshape(len(pairs), -1)

    @property
    def name(self) -> str:
        kind = "verifier" if self._entail is None else "nli"
        return f"{kind}-cross-encoder:{self._path.name}"

    def support_many(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(supported) for each (claim, evidence), in one forward pass."""
        if not pairs:
            return []
        out = []
        for row in self._logits(pairs).tolist():
            if self._entail is None:
                out.append(1.0 / (1.0 + math.exp(-row[0])))
            else:
                top = max(row)
                exps = [math.exp(x - top) for x in row]
                out.append(exps[self._entail] / sum(exps))
        return out

    def support(self, claim: str, evidence: str) -> float:
        return self.support_many([(claim, evidence)])[0]


def build_support_scorer(settings: Settings, embedder: Embedder) -> SupportScorer:
    """The cross-encoder at `integrity.nli_path` when set (relative paths from the repo root),
    else the calibrated feature model, with the verifier its file names as a sixth feature."""
    if settings.integrity.nli_path:
        path = Path(settings.integrity.nli_path)
        return CrossEncoderSupportScorer(
            path if path.is_absolute() else repo_root() / path, settings.models
        )
    path = Path(settings.integrity.support_model_file)
    path = path if path.is_absolute() else default_config_dir() / path
    model = load_support_model(path)
    verifier = None
    if model.verifier_path:
        folder = Path(model.verifier_path)
        folder = folder if folder.is_absolute() else repo_root() / folder
        verifier = CrossEncoderSupportScorer(folder, settings.models)
    return FeatureSupportScorer(embedder, model, verifier)
