"""Model and analyzer settings: which embedder, reranker and BM25 analyzer."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class ModelSettings(BaseModel):
    """Where model weights come from and how the sparse analyzer tokenises."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    embed_backend: Literal["sentence-transformers", "flag"] = Field(
        description="sentence-transformers (default here) or FlagEmbedding FlagModel (BGE)"
    )
    embed_package: str = Field(description="pip package carrying the weights, as an import name")
    embed_path: str | None = Field(description="explicit weights folder; beats embed_package")
    embed_model_id: str = Field(description="model id recorded in every chunk (with pooling)")
    embed_pooling: Literal["mean", "cls"] = Field(description="pooling of token vectors")
    embed_batch_size: int = Field(gt=0, description="passages per forward pass")
    runtime: Literal["torch", "onnx"] = Field(
        description="what runs the sentence-transformers embedder and the verifier: torch, or "
        "onnxruntime on a graph exported from the same weights (checked against torch at load)"
    )
    onnx_dir: str = Field(description="folder for exported ONNX graphs, by weights fingerprint")
    onnx_tolerance: float = Field(
        gt=0.0, description="largest |torch - ONNX| on the load-time probes; above it, torch"
    )
    onnx_slack: float = Field(
        gt=0.0, le=1.0, description="an ONNX pass takes rows down to this share of its longest"
    )
    query_instruction: str = Field(description="prefix for queries (BGE uses one; MiniLM none)")
    query_cache_size: int = Field(
        ge=1, description="questions whose vectors embed_query keeps (an answer asks up to 5x)"
    )
    reranker_backend: Literal["none", "dense", "cross-encoder", "flag"] = Field(
        description="rerank scorer; 'dense' rescores with query-chunk cosine"
    )
    reranker_path: str | None = Field(description="cross-encoder weights folder")
    bm25_k: float = Field(ge=0.0, description="BM25 term-frequency saturation k1")
    bm25_b: float = Field(ge=0.0, le=1.0, description="BM25 length normalisation b")
    bm25_avg_len: float = Field(gt=0.0, description="expected chunk length in BM25 tokens")
    bm25_language: str = Field(description="stopwords and Snowball stemmer language")
    bm25_ascii_folding: bool = Field(description="fold accents before tokenising")
    bm25_split_identifiers: bool = Field(
        description="also index CamelCase/snake_case parts of identifiers (MODELS.md note)"
    )
    qdrant_shards: int = Field(gt=0, description="shard_number of a new server collection")
    qdrant_replicas: int = Field(gt=0, description="replication_factor of a new server collection")
    rerank_cosine_weight: float = Field(
        ge=0.0, le=1.0, description="dense reranker: weight of cosine vs the fused RRF score"
    )
