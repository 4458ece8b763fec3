"""Embedders: weights resolution errors, the BGE (FlagModel) path on a tiny BERT, real MiniLM."""

from __future__ import annotations

import math
import threading
from pathlib import Path

import pytest

from server.core.errors import ModelUnavailableError
from server.core.settings import load_settings
from server.index.embed import (
    FlagEmbedder,
    QueryVectorCache,
    SentenceTransformerEmbedder,
    load_embedder,
    resolve_weights,
)
from tests.fakes import CountingEmbedder
from tests.tiny_models import build_tiny_bert


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_missing_package_names_the_install_command() -> None:
    models = load_settings().models.model_copy(update={"embed_package": "no_such_pkg_xyz"})
    with pytest.raises(ModelUnavailableError, match="make setup"):
        resolve_weights(models)


def test_embed_path_without_model_says_what_to_set(tmp_path: Path) -> None:
    models = load_settings().models.model_copy(update={"embed_path": str(tmp_path)})
    with pytest.raises(ModelUnavailableError, match="CITEGATE_MODELS__EMBED_PATH"):
        resolve_weights(models)


def test_flag_model_path_loads_a_local_bert(tmp_path: Path) -> None:
    folder = build_tiny_bert(tmp_path / "bge-tiny")
    models = load_settings().models.model_copy(
        update={
            "embed_backend": "flag",
            "embed_path": str(folder),
            "embed_model_id": "tiny:cls",
            "embed_pooling": "cls",
        }
    )
    embedder = load_embedder(models)
    assert isinstance(embedder, FlagEmbedder)
    assert embedder.dim == 32
    docs = embedder.embed_documents(["cors middleware policy", "rotate the key token"])
    assert len(docs) == 2
    assert all(math.isclose(_cos(v, v), 1.0, rel_tol=1e-4) for v in docs)
    assert embedder.count_tokens("cors middleware") == 4  # [CLS] cors middleware [SEP]
    assert embedder.token_spans("cors  middleware") == [(0, 4), (6, 16)]  # no [CLS], [SEP]


@pytest.mark.model
def test_minilm_ranks_the_related_passage_first() -> None:
    embedder = load_embedder(load_settings().models)
    assert embedder.dim == 384
    assert embedder.max_tokens == 256
    text = "CORSMiddleware allows origins."
    spans = embedder.token_spans(text)
    assert len(spans) + 2 == embedder.count_tokens(text)
    assert "".join(text[a:b] for a, b in spans) == text.replace(" ", "")
    q = embedder.embed_query("How do I allow cross-origin requests?")
    related, unrelated = embedder.embed_documents(
        ["Use CORSMiddleware to allow requests from other origins.", "Bake the bread for an hour."]
    )
    assert _cos(q, related) > _cos(q, unrelated) + 0.1


def test_concurrent_token_counts_and_batches_never_break_each_other(tmp_path: Path) -> None:
    """A fast tokenizer keeps padding settings in shared state: threads counting tokens while
    another encodes a batch of unequal texts used to leave the batch unpadded (HTTP 500s
    under load). The embedder serialises them."""
    folder = build_tiny_bert(tmp_path / "st-tiny")
    models = load_settings().models.model_copy(
        update={"embed_backend": "sentence-transformers", "embed_path": str(folder)}
    )
    embedder = load_embedder(models)
    assert isinstance(embedder, SentenceTransformerEmbedder)
    texts = ["cors", "cors middleware policy " * 6, "rotate the key token " * 3]
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for _ in range(80):
                if n % 2:
                    embedder.count_tokens("rotate the key " * 20)
                else:
                    assert len(embedder.embed_documents(texts)) == 3
        except BaseException as exc:  # collected: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_query_cache_embeds_each_question_once_and_forgets_the_oldest() -> None:
    inner = CountingEmbedder()
    cache = QueryVectorCache(inner, size=2)
    first = cache.embed_query("what is a path parameter")
    assert (
        cache.embed_query("what is a path parameter")
        == first
        == inner.embed_query("what is a path parameter")
    )
    assert inner.queries.count("what is a path parameter") == 2  # one by the cache, one above
    cache.embed_query("b")
    cache.embed_query("c")  # the third question: the first one leaves
    cache.embed_query("what is a path parameter")
    assert inner.queries.count("what is a path parameter") == 3
    assert inner.queries.count("c") == 1


def test_query_cache_hands_out_copies_and_never_caches_documents() -> None:
    inner = CountingEmbedder()
    cache = QueryVectorCache(inner, size=4)
    vec = cache.embed_query("q")
    vec[0] = 99.0  # a caller changing its vector changes nobody else's
    assert cache.embed_query("q")[0] != 99.0
    cache.embed_documents(["q", "q"])
    cache.embed_documents(["q"])
    assert inner.texts == ["q", "q", "q"]
    assert (cache.model_id, cache.dim, cache.max_tokens) == (inner.model_id, inner.dim, 256)
    assert cache.count_tokens("two words") == 2
