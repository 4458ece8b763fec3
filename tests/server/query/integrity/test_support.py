"""Support scoring: the features by hand, the logistic scorer with the HashEmbedder fake,
the shipped coefficients, and the cross-encoder paths (NLI and single-score verifier) on
tiny self-built models."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from server.core.errors import ConfigError, ModelUnavailableError
from server.core.ports import Warmable, warm, warm_pairs
from server.core.settings import Settings, default_config_dir, load_settings
from server.query.integrity.support import (
    FEATURES,
    VERIFIER,
    CrossEncoderSupportScorer,
    FeatureSupportScorer,
    SupportModel,
    build_support_scorer,
    entities,
    features,
    load_support_model,
    verifier_logit,
)
from tests.fakes import HashEmbedder
from tests.tiny_models import build_tiny_bert

CLAIM = "The key rotates every 90 days."
SUPPORTS = "Keys rotated every 90 days in production."
CONTRADICTS = "Keys are never rotated; they last 30 days."


def test_features_by_hand() -> None:
    f = features(CLAIM, SUPPORTS, [1.0, 0.0], [1.0, 0.0])
    # lemmas key, rotat, every, 90, day: all five in the evidence; no names; no negation
    assert f == {
        "coverage": 1.0,
        "cosine": 1.0,
        "numbers_agree": 1.0,
        "negation_mismatch": 0.0,
        "entity_coverage": 1.0,
    }
    g = features(CLAIM, CONTRADICTS, [1.0, 0.0], [-1.0, 0.0])
    assert g["numbers_agree"] == 0.0 and g["negation_mismatch"] == 1.0 and g["cosine"] == 0.0
    assert g["coverage"] == 3 / 5  # key, rotat, day; not every, 90
    assert set(g) == set(FEATURES)


def test_entities_skip_sentence_starts() -> None:
    assert entities("The FastAPI app runs on Starlette. Then OAuth2 tokens expire.") == {
        "fastapi",
        "starlette",
        "oauth2",
    }
    h = features("Paris hosts the OECD.", "The OECD is in Paris.", [1.0], [1.0])
    assert h["entity_coverage"] == 1.0  # "OECD" (acronym); "Paris" starts the claim
    assert features("It is in Berlin.", "It is in Paris.", [1.0], [1.0])["entity_coverage"] == 0.0


def test_logistic_scorer_is_the_sigmoid_of_the_weighted_features() -> None:
    model = SupportModel(
        intercept=-2.0,
        weights={k: (4.0 if k == "coverage" else 0.0) for k in FEATURES},
        origin="test",
    )
    scorer = FeatureSupportScorer(HashEmbedder(), model)
    assert scorer.support(CLAIM, SUPPORTS) == pytest.approx(1 / (1 + math.exp(-2.0)))
    assert scorer.support(CLAIM, CONTRADICTS) == pytest.approx(1 / (1 + math.exp(-0.4)))
    assert scorer.name == "feature-logistic:test/hash-bow:sum"


def test_shipped_model_ranks_support_above_contradiction(settings: Settings) -> None:
    scorer = build_support_scorer(settings, HashEmbedder())
    assert isinstance(scorer, FeatureSupportScorer)
    assert scorer.support(CLAIM, SUPPORTS) > settings.integrity.support_threshold
    assert scorer.support(CLAIM, SUPPORTS) > scorer.support(CLAIM, CONTRADICTS)
    assert scorer.support(CLAIM, "Llamas hum in the Andes.") < settings.integrity.support_threshold


def test_shipped_model_records_its_origin_and_threshold(settings: Settings) -> None:
    model = load_support_model(default_config_dir() / settings.integrity.support_model_file)
    assert "evals/calibration/support_verifier.py" in model.origin  # features + verifier
    assert model.threshold == settings.integrity.support_threshold
    assert set(model.test_balanced_accuracy) >= {"test:wice", "test:scifact", "test:halueval"}


def test_bad_model_files_say_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"evals\.calibration\.support"):
        load_support_model(tmp_path / "absent.json")
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"intercept": 0.0, "weights": {"coverage": 1.0}, "origin": "x"}))
    with pytest.raises(ConfigError, match="re-run"):
        load_support_model(old)
    (tmp_path / "junk.json").write_text("{")
    with pytest.raises(ConfigError, match="not a valid support model"):
        load_support_model(tmp_path / "junk.json")


def _tiny_nli(folder: Path) -> Path:
    build_tiny_bert(folder, num_labels=3)
    config = json.loads((folder / "config.json").read_text())
    labels = ["contradiction", "entailment", "neutral"]
    config["id2label"] = dict(enumerate(labels))
    config["label2id"] = {name: i for i, name in enumerate(labels)}
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def test_cross_encoder_gives_the_entailment_probability(tmp_path: Path) -> None:
    folder = _tiny_nli(tmp_path / "nli")
    scorer = build_support_scorer(
        load_settings(integrity={"nli_path": str(folder)}), HashEmbedder()
    )
    assert isinstance(scorer, CrossEncoderSupportScorer) and scorer.name == "nli-cross-encoder:nli"
    first = scorer.support("rotate the key", "the key is rotated")
    assert 0.0 < first < 1.0 and scorer.support("rotate the key", "the key is rotated") == first


def test_cross_encoder_refuses_what_is_not_nli(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match=r"config\.json"):
        CrossEncoderSupportScorer(tmp_path)
    plain = build_tiny_bert(tmp_path / "plain", num_labels=3)
    with pytest.raises(ModelUnavailableError, match="entailment"):
        CrossEncoderSupportScorer(plain)


def _tiny_verifier(folder: Path, *, fp16: bool = False) -> Path:
    """A one-logit BERT, as `evals.training.verifier` saves it (fp16 weights when asked)."""
    build_tiny_bert(folder, num_labels=1)
    if fp16:
        import torch
        from transformers import AutoModelForSequenceClassification

        model = AutoModelForSequenceClassification.from_pretrained(str(folder))
        model.to(torch.float16).save_pretrained(str(folder), safe_serialization=True)
    return folder


def test_single_score_verifier_gives_the_sigmoid_of_its_logit(tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = _tiny_verifier(tmp_path / "verifier")
    scorer = build_support_scorer(
        load_settings(integrity={"nli_path": str(folder)}), HashEmbedder()
    )
    assert isinstance(scorer, CrossEncoderSupportScorer)
    assert scorer.name == "verifier-cross-encoder:verifier"
    claim, evidence = "rotate the key", "the key is rotated"
    score = scorer.support(claim, evidence)
    # by hand: the same weights through transformers, premise (evidence) first
    tok = AutoTokenizer.from_pretrained(str(folder))
    model = AutoModelForSequenceClassification.from_pretrained(str(folder)).eval()
    with torch.no_grad():
        logit = float(model(**tok(evidence, claim, return_tensors="pt")).logits[0, 0])
    assert 0.0 < score < 1.0
    assert score == pytest.approx(1 / (1 + math.exp(-logit)), abs=1e-5)


def test_support_many_matches_support_one_by_one(tmp_path: Path) -> None:
    for folder in (_tiny_verifier(tmp_path / "v", fp16=True), _tiny_nli(tmp_path / "nli")):
        scorer = CrossEncoderSupportScorer(folder)
        pairs = [
            ("rotate the key", "the key is rotated"),
            ("the gate will block", "a token of the server store and index"),
            ("cors middleware policy", "the policy"),
        ]
        many = scorer.support_many(pairs)
        assert many == pytest.approx([scorer.support(c, e) for c, e in pairs], abs=1e-5)
        assert all(0.0 <= s <= 1.0 for s in many) and scorer.support_many([]) == []


def test_nli_path_relative_to_the_repo_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from server.query.integrity import support as support_module

    _tiny_verifier(tmp_path / "models" / "verifier")
    monkeypatch.setattr(support_module, "repo_root", lambda: tmp_path)
    scorer = build_support_scorer(
        load_settings(integrity={"nli_path": "models/verifier"}), HashEmbedder()
    )
    assert isinstance(scorer, CrossEncoderSupportScorer) and scorer.name.endswith(":verifier")


def _with_verifier(folder: Path, weight: float) -> SupportModel:
    return SupportModel(
        intercept=-2.0,
        weights={**{k: (4.0 if k == "coverage" else 0.0) for k in FEATURES}, VERIFIER: weight},
        origin="test",
        verifier_path=str(folder),
    )


def test_verifier_logit_by_hand_and_clipped_at_the_ends() -> None:
    assert verifier_logit(0.5) == 0.0
    assert verifier_logit(0.9) == pytest.approx(math.log(9.0))
    edge = math.log(1e-4 / (1 - 1e-4))  # -9.21: a verifier's 0 or 1 cannot outweigh the rest
    assert verifier_logit(0.0) == pytest.approx(edge)
    assert verifier_logit(1.0) == pytest.approx(-edge)


def test_verifier_logit_is_the_sixth_feature(tmp_path: Path) -> None:
    folder = _tiny_verifier(tmp_path / "v")
    verifier = CrossEncoderSupportScorer(folder)
    scorer = FeatureSupportScorer(HashEmbedder(), _with_verifier(folder, 0.5), verifier)
    assert scorer.name == "feature-logistic:test/hash-bow:sum+verifier-cross-encoder:v"
    p = verifier.support(CLAIM, SUPPORTS)
    # by hand: -2 + 4 * coverage (1.0, all five lemmas covered) + 0.5 * logit(p)
    z = -2.0 + 4.0 + 0.5 * math.log(p / (1 - p))
    assert scorer.support(CLAIM, SUPPORTS) == pytest.approx(1 / (1 + math.exp(-z)), abs=1e-6)
    # weight 0: the verifier changes nothing (coverage 3/5 -> z = -2 + 2.4)
    zero = FeatureSupportScorer(HashEmbedder(), _with_verifier(folder, 0.0), verifier)
    assert zero.support(CLAIM, CONTRADICTS) == pytest.approx(1 / (1 + math.exp(-0.4)))


def test_warm_pairs_scores_the_pairs_in_one_batch(tmp_path: Path) -> None:
    folder = _tiny_verifier(tmp_path / "v")
    verifier = CrossEncoderSupportScorer(folder)
    calls: list[int] = []
    inner = verifier.support_many

    def counting(pairs: Sequence[tuple[str, str]]) -> list[float]:
        calls.append(len(pairs))
        return inner(pairs)

    verifier.support_many = counting  # type: ignore[method-assign]
    scorer = FeatureSupportScorer(HashEmbedder(), _with_verifier(folder, 1.0), verifier)
    pairs = [(CLAIM, SUPPORTS), (CLAIM, CONTRADICTS), (CLAIM, SUPPORTS)]
    warm_pairs(scorer, pairs)
    assert calls == [2]  # one batch, the repeated pair once
    cold = FeatureSupportScorer(HashEmbedder(), _with_verifier(folder, 1.0), verifier)
    assert [scorer.support(c, e) for c, e in pairs] == pytest.approx(
        [cold.support(c, e) for c, e in pairs], abs=1e-6
    )
    assert calls == [2, 1, 1]  # the warmed scorer asked nothing more; the cold one pair by pair
    warm_pairs(
        FeatureSupportScorer(
            HashEmbedder(), load_support_model(default_config_dir() / "support_model.json")
        ),
        pairs,
    )  # no verifier: nothing to do


def test_a_verifier_weight_needs_its_folder(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    model = _with_verifier(tmp_path, 1.0).model_dump()
    model["verifier_path"] = None
    bad.write_text(json.dumps(model))
    with pytest.raises(ConfigError, match="verifier_path"):
        load_support_model(bad)
    with pytest.raises(ConfigError, match="needs"):
        FeatureSupportScorer(HashEmbedder(), _with_verifier(tmp_path, 1.0), None)
    good = tmp_path / "good.json"
    _tiny_verifier(tmp_path / "v")
    good.write_text(_with_verifier(tmp_path / "v", 1.0).model_dump_json())
    scorer = build_support_scorer(
        load_settings(integrity={"support_model_file": str(good)}), HashEmbedder()
    )
    assert isinstance(scorer, FeatureSupportScorer) and scorer.name.endswith(
        "+verifier-cross-encoder:v"
    )


def test_the_committed_combined_model_names_the_committed_verifier() -> None:
    from server.core.paths import repo_root

    model = load_support_model(default_config_dir() / "support_model_verifier.json")
    assert model.verifier_path == "models/verifier" and VERIFIER in model.weights
    assert (repo_root() / model.verifier_path / "config.json").is_file()
    assert "never saw" in model.origin and model.threshold is not None
    assert model.weights[VERIFIER] > 0  # more verifier belief, more support


class _Counting(HashEmbedder):
    """Counts embed_documents calls and the texts each call carried."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        return super().embed_documents(texts)


def test_warm_embeds_an_answers_texts_in_one_batch_and_scores_the_same(
    settings: Settings,
) -> None:
    cold_embedder = _Counting()
    cold = build_support_scorer(settings, cold_embedder)
    expected = [cold.support(CLAIM, SUPPORTS), cold.support(CLAIM, CONTRADICTS)]
    assert cold_embedder.calls == [1, 1, 1]  # claim, then each evidence text, one at a time
    embedder = _Counting()
    scorer = build_support_scorer(settings, embedder)
    assert isinstance(scorer, Warmable)
    warm(scorer, [CLAIM, SUPPORTS, CONTRADICTS, CLAIM])
    assert embedder.calls == [3]  # one batch, each text once
    assert [scorer.support(CLAIM, SUPPORTS), scorer.support(CLAIM, CONTRADICTS)] == expected
    warm(scorer, [CLAIM])
    assert embedder.calls == [3]  # nothing new to embed


def test_relevance_and_support_embed_an_answers_claims_once(settings: Settings) -> None:
    from server.query.engine import relevance_for
    from server.query.integrity.relevance import EmbeddingRelevance

    embedder = _Counting()
    scorer = build_support_scorer(settings, embedder)
    relevance = relevance_for(embedder, scorer)
    plain = EmbeddingRelevance(HashEmbedder())  # its own embed_documents, no shared cache
    scores = relevance.relevance("How are keys rotated?", [CLAIM, SUPPORTS])
    assert scores == plain.relevance("How are keys rotated?", [CLAIM, SUPPORTS])
    assert embedder.calls == [2]  # the two texts, in one batch (the question is a query)
    warm(scorer, [CLAIM, SUPPORTS, CONTRADICTS])
    assert embedder.calls == [2, 1]  # only the text relevance did not see


@pytest.mark.model
def test_the_committed_verifier_scores_a_supported_claim_above_its_flipped_copies() -> None:
    """The trained verifier in `models/verifier` (MODEL_CARD.md), pairs written by hand."""
    scorer = build_support_scorer(
        load_settings(integrity={"nli_path": "models/verifier"}), HashEmbedder()
    )
    assert isinstance(scorer, CrossEncoderSupportScorer)
    span = "Uploaded files larger than 100 MB are rejected by the server."
    supported, negated, other = scorer.support_many(
        [
            ("The server rejects uploads over 100 MB.", span),
            ("The server accepts uploads over 100 MB.", span),
            ("The capital of France is Paris.", span),
        ]
    )
    assert supported > negated and supported > other
