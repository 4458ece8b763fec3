"""The onnxruntime path (#20): the same vectors and verifier scores as torch, the graph exported
once per weights, and torch kept, with the reason logged, wherever the graph cannot stand in."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import numpy as np
import pytest

from server.core.settings import load_settings
from server.core.settings.models import ModelSettings
from server.index.embed import SentenceTransformerEmbedder
from server.index.onnx_runtime import GraphUnavailable, accelerate, fingerprint
from server.query.integrity.support import CrossEncoderSupportScorer
from tests.tiny_models import build_tiny_bert

TEXTS = ["cors", "the key is rotated and the token of the server store", "", "gate block pass"]
PAIRS = [
    ("rotate the key", "the key is rotated"),
    ("the gate will block", "a token of the server store and index"),
    ("cors", "the policy of the middleware is the answer to the question"),
]


def _models(cache: Path, runtime: str = "onnx") -> ModelSettings:
    return load_settings().models.model_copy(
        update={"runtime": runtime, "onnx_dir": str(cache), "embed_model_id": "tiny:mean"}
    )


def test_onnx_embedder_gives_torchs_vectors_in_order(tmp_path: Path) -> None:
    folder = build_tiny_bert(tmp_path / "tiny")
    fast = SentenceTransformerEmbedder(folder, _models(tmp_path / "onnx"))
    slow = SentenceTransformerEmbedder(folder, _models(tmp_path / "onnx", "torch"))
    assert (fast.runtime, slow.runtime) == ("onnx", "torch")
    assert [p.suffix for p in (tmp_path / "onnx").iterdir()] == [".onnx"]
    got = np.array(fast.embed_documents(TEXTS))
    # oracle: torch on each text alone, so neither batching nor padding can hide an error
    want = np.array([slow.embed_documents([t])[0] for t in TEXTS])
    assert got.shape == (4, 32) and np.abs(got - want).max() < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert fast.embed_query("cors") == pytest.approx(slow.embed_query("cors"), abs=1e-5)
    assert fast.embed_documents([]) == []
    # the torch copy of the weights is dropped once the graph runs them
    assert {p.device.type for p in fast._model.parameters()} == {"meta"}


def test_the_graph_is_exported_once_per_weights(tmp_path: Path) -> None:
    cache = tmp_path / "onnx"
    one = build_tiny_bert(tmp_path / "one", seed=0)
    SentenceTransformerEmbedder(one, _models(cache))
    (graph,) = cache.iterdir()
    stamp = graph.stat().st_mtime_ns
    SentenceTransformerEmbedder(one, _models(cache))
    assert list(cache.iterdir()) == [graph] and graph.stat().st_mtime_ns == stamp
    two = build_tiny_bert(tmp_path / "two", seed=1)
    assert fingerprint(one, "sentence_embedding") != fingerprint(two, "sentence_embedding")
    assert fingerprint(one, "sentence_embedding") != fingerprint(one, "scores")
    before = fingerprint(one, "sentence_embedding")
    (one / "1_Pooling").mkdir()
    (one / "1_Pooling" / "config.json").write_text('{"pooling_mode_cls_token": true}')
    assert fingerprint(one, "sentence_embedding") != before  # pooling is in the graph
    (one / "1_Pooling" / "config.json").unlink()
    (one / "1_Pooling").rmdir()
    SentenceTransformerEmbedder(two, _models(cache))
    assert len(list(cache.iterdir())) == 2


def test_a_damaged_graph_is_exported_again(tmp_path: Path) -> None:
    folder = build_tiny_bert(tmp_path / "tiny")
    cache = tmp_path / "onnx"
    SentenceTransformerEmbedder(folder, _models(cache))
    (graph,) = cache.iterdir()
    graph.write_bytes(b"cut short")
    again = SentenceTransformerEmbedder(folder, _models(cache))
    assert again.runtime == "onnx" and graph.stat().st_size > 1000


def test_torch_is_kept_where_the_graph_cannot_be_written(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = build_tiny_bert(tmp_path / "tiny")
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    with caplog.at_level(logging.WARNING, logger="citegate.models"):
        embedder = SentenceTransformerEmbedder(folder, _models(blocked))
    assert embedder.runtime == "torch"
    assert "the embedder runs on torch" in caplog.text
    assert "CITEGATE_MODELS__ONNX_DIR" in caplog.text  # says what to do
    assert len(embedder.embed_documents(["cors"])[0]) == 32


def test_a_graph_that_disagrees_with_torch_is_refused(tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer

    folder = build_tiny_bert(tmp_path / "tiny")
    model = SentenceTransformer(str(folder), device="cpu")
    with pytest.raises(GraphUnavailable, match=r"differ by 1\.00e-02"):
        accelerate(model, folder, "sentence_embedding", tmp_path, lambda run: 0.01, 1e-4, 32, 0.75)
    accelerate(model, folder, "sentence_embedding", tmp_path, lambda run: 1e-5, 1e-4, 32, 0.75)


def test_no_onnxruntime_means_torch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sentence_transformers import SentenceTransformer

    folder = build_tiny_bert(tmp_path / "tiny")
    model = SentenceTransformer(str(folder), device="cpu")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(GraphUnavailable, match="onnxruntime is not installed"):
        accelerate(model, folder, "sentence_embedding", tmp_path, lambda run: 0.0, 1e-4, 32, 0.75)
    assert not list(tmp_path.glob("*.onnx"))


def test_onnx_verifier_gives_torchs_scores_in_order(tmp_path: Path) -> None:
    for labels in (1, 3):
        folder = build_tiny_bert(tmp_path / f"v{labels}", num_labels=labels)
        if labels == 3:
            import json

            config = json.loads((folder / "config.json").read_text())
            config["id2label"] = {0: "contradiction", 1: "entailment", 2: "neutral"}
            config["label2id"] = {"contradiction": 0, "entailment": 1, "neutral": 2}
            (folder / "config.json").write_text(json.dumps(config))
        fast = CrossEncoderSupportScorer(folder, _models(tmp_path / "onnx"))
        slow = CrossEncoderSupportScorer(folder)
        assert (fast.runtime, slow.runtime) == ("onnx", "torch")
        got = fast.support_many(PAIRS)
        want = [slow.support_many([p])[0] for p in PAIRS]
        assert len(got) == 3 and got == pytest.approx(want, abs=1e-5)
        assert len(set(np.round(got, 6))) == 3  # three different pairs, three scores
        assert fast.support_many([]) == []
