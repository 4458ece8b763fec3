"""A learned second reader for the injection guard (SPEC 7.3, issue #21).

The rules of `server.query.integrity.injection` read the phrasings they were written
against; new attack styles slip past them. The judge is logistic regression over the
engine's own sentence embeddings (all-MiniLM-L6-v2 by default), trained by
`python -m evals.training.injection` (`make train-injection`) on the TUNE attack sets
against documentation and passage sentences (models/injection/MODEL_CARD.md). It is asked
only about segments no rule flagged that carry a code word or an order about an answer
(`injection.JUDGED_SIGNS`), so an ordinary sentence is never fenced by it alone; a segment
it scores at or above its threshold is flagged with the rule `learned`, and the guard's
usual widening then applies.

The weights are tied to the embedding model they were trained on: with another embedder
the judge is off (the rules alone guard), and `load_judge` says so in the log. It is on by
default (`integrity.injection_judge_file`; null turns it off): on the blind REPORT sets
heldout18 and heldout20 it catches 15 plantings the rules miss (213 -> 228 of 240, retrained in
stop 40 on every TUNE set), and it fences no clean FastAPI or site-policy sentence beyond the
rules'.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from server.core.errors import ConfigError
from server.core.fitted import read_fitted
from server.core.ports import Embedder

log = logging.getLogger(__name__)


class JudgeWeights(BaseModel):
    """The fitted judge: a linear score over one embedding model's vectors."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    embed_model: str = Field(min_length=1, description="the embedder the vectors come from")
    coef: tuple[float, ...] = Field(min_length=1)
    intercept: float
    threshold: float = Field(gt=0.0, lt=1.0, description="P(addresses a model) that flags")


class EmbeddingJudge:
    """`judge(segments) -> [flag, ...]`: P(addresses a model) >= threshold, per segment.

    Scores are remembered per segment text (at most `memo` of them, least recently used
    first out); thread-safe, since requests share one engine.
    """

    def __init__(self, embedder: Embedder, weights: JudgeWeights, memo: int = 8192) -> None:
        if len(weights.coef) != embedder.dim:
            raise ConfigError(
                f"the injection judge has {len(weights.coef)} weights for a {embedder.dim}-"
                "dimension embedder; re-train it with `make train-injection`"
            )
        self._embedder = embedder
        self._w = weights
        self._max = memo
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def threshold(self) -> float:
        return self._w.threshold

    def scores(self, segments: Sequence[str]) -> list[float]:
        """P(the segment addresses a model) of each segment; one embedding batch for the
        segments not seen before."""
        with self._lock:
            known = {s: self._seen[s] for s in segments if s in self._seen}
            for s in known:
                self._seen.move_to_end(s)
        new = [s for s in dict.fromkeys(segments) if s not in known]
        if new:
            vectors = self._embedder.embed_documents(new)
            found = {s: self._probability(v) for s, v in zip(new, vectors, strict=True)}
            known |= found
            with self._lock:
                self._seen.update(found)
                while len(self._seen) > self._max:
                    self._seen.popitem(last=False)
        return [known[s] for s in segments]

    def __call__(self, segments: Sequence[str]) -> list[bool]:
        return [p >= self._w.threshold for p in self.scores(segments)]

    def _probability(self, vector: Sequence[float]) -> float:
        z = self._w.intercept + math.fsum(w * x for w, x in zip(self._w.coef, vector, strict=True))
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


def load_judge(path: Path | None, embedder: Embedder) -> EmbeddingJudge | None:
    """The judge from `path`, or None (rules alone) when no file is configured or present,
    or when it was trained on another embedding model than `embedder`."""
    if path is None or not path.is_file():
        return None
    weights = read_fitted(
        path,
        JudgeWeights,
        "an injection judge",
        "re-train it with `make train-injection`, or set integrity.injection_judge_file to null",
    )
    if weights.embed_model != embedder.model_id:
        log.warning(
            "injection judge %s was trained on %s, the embedder is %s: rules alone guard",
            path,
            weights.embed_model,
            embedder.model_id,
        )
        return None
    return EmbeddingJudge(embedder, weights)
