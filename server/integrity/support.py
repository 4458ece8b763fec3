"""Support scoring: P(evidence supports claim), behind the `SupportScorer` Protocol.

No NLI model of known licence ships in a package here (MODELS.md), so the default scorer
combines real signals with a logistic model whose coefficients are fitted on dev splits by
`python -m evals.calibration.support` and stored in `config/support_model.json`:
content-word coverage of the claim by the evidence, embedding cosine of the two, number
agreement, and negation mismatch. `CrossEncoderSupportScorer` plugs in a real NLI
cross-encoder (entailment probability) where weights exist.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from server.errors import ConfigError, ModelUnavailableError
from server.generate.claims import NUMBER
from server.ports import Embedder, SupportScorer
from server.retrieve import cosine
from server.settings import Settings, default_config_dir
from server.text import content_words

FEATURES = ("coverage", "cosine", "numbers_agree", "negation_mismatch")
_NEG = re.compile(
    r"\b(?:not|no|never|none|neither|nor|cannot|can't|don't|doesn't|isn't|aren't|without)\b", re.I
)
_WORDNUM = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "hundred": "100",
    "thousand": "1000",
}


class SupportModel(BaseModel):
    """Logistic coefficients and where they came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    intercept: float
    weights: dict[str, float]
    origin: str
    dev_balanced_accuracy: dict[str, float] = {}


def normalise_numbers(text: str) -> set[str]:
    """'1,000' == '1000', '5 percent' == '5%', 'three' == '3'."""
    lowered = text.lower()
    found = {
        m.group(0).replace(",", "").replace(" ", "").replace("percent", "%")
        for m in NUMBER.finditer(lowered)
    }
    found |= {v for w, v in _WORDNUM.items() if re.search(rf"\b{w}\b", lowered)}
    return {n.rstrip(".") for n in found if n}


def features(
    claim: str, evidence: str, claim_vec: Sequence[float], evidence_vec: Sequence[float]
) -> dict[str, float]:
    """The four signals, each in [0, 1] (cosine clipped at 0)."""
    cw, ew = set(content_words(claim)), set(content_words(evidence))
    cn, en = normalise_numbers(claim), normalise_numbers(evidence)
    return {
        "coverage": len(cw & ew) / len(cw) if cw else 0.0,
        "cosine": max(0.0, cosine(claim_vec, evidence_vec)),
        "numbers_agree": 1.0 if cn <= en else 0.0,
        "negation_mismatch": 1.0
        if bool(_NEG.search(claim)) != bool(_NEG.search(evidence))
        else 0.0,
    }


def load_support_model(path: Path) -> SupportModel:
    try:
        return SupportModel.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError as exc:
        raise ConfigError(f"{path} is missing: run `python -m evals.calibration.support`") from exc
    except ValueError as exc:
        raise ConfigError(f"{path} is not a valid support model: {exc}") from exc


class FeatureSupportScorer:
    """Calibrated logistic combination of lexical, numeric, negation and embedding signals."""

    def __init__(self, embedder: Embedder, model: SupportModel) -> None:
        self._embedder = embedder
        self._model = model
        self._cache: dict[str, list[float]] = {}

    @property
    def name(self) -> str:
        return f"feature-logistic:{self._embedder.model_id}"

    def _vec(self, text: str) -> list[float]:
        if text not in self._cache:
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[text] = self._embedder.embed_documents([text])[0]
        return self._cache[text]

    def support(self, claim: str, evidence: str) -> float:
        f = features(claim, evidence, self._vec(claim), self._vec(evidence))
        z = self._model.intercept + sum(self._model.weights[k] * f[k] for k in FEATURES)
        return 1.0 / (1.0 + math.exp(-z))


class CrossEncoderSupportScorer:
    """Entailment probability from an NLI cross-encoder folder (labels incl. 'entailment')."""

    def __init__(self, path: Path) -> None:
        from sentence_transformers import CrossEncoder

        if not (path / "config.json").is_file():
            raise ModelUnavailableError(f"NLI weights folder {path} has no config.json")
        self._model: Any = CrossEncoder(str(path), device="cpu", local_files_only=True)
        labels = {v.lower(): int(k) for k, v in self._model.config.id2label.items()}
        if "entailment" not in labels:
            raise ModelUnavailableError(f"{path} has no 'entailment' label: not an NLI model")
        self._entail = labels["entailment"]
        self._path = path

    @property
    def name(self) -> str:
        return f"nli-cross-encoder:{self._path.name}"

    def support(self, claim: str, evidence: str) -> float:
        probs = self._model.predict([(evidence, claim)], apply_softmax=True)
        return float(probs[0][self._entail])


def build_support_scorer(settings: Settings, embedder: Embedder) -> SupportScorer:
    """The NLI cross-encoder when `integrity.nli_path` is set, else the calibrated feature model."""
    if settings.integrity.nli_path:
        return CrossEncoderSupportScorer(Path(settings.integrity.nli_path))
    path = Path(settings.integrity.support_model_file)
    path = path if path.is_absolute() else default_config_dir() / path
    return FeatureSupportScorer(embedder, load_support_model(path))
