"""Settings: YAML defaults, environment above YAML, overrides above both."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.core.errors import ConfigError
from server.core.settings import default_config_dir, load_settings


def test_yaml_defaults_load() -> None:
    s = load_settings()
    assert s.collection == "citegate"
    assert s.retrieval.rrf_k == 61
    assert s.corpus_policy_file == default_config_dir() / "corpus_policy.yaml"


def test_env_beats_yaml_and_override_beats_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEGATE_DATA_DIR", "/tmp/from-env")
    monkeypatch.setenv("CITEGATE_RETRIEVAL__RRF_K", "7")
    s = load_settings()
    assert s.data_dir == Path("/tmp/from-env")
    assert s.retrieval.rrf_k == 7
    assert s.retrieval.final_k == 8  # the rest of the group still comes from YAML
    s2 = load_settings(data_dir="/tmp/override", retrieval={"rrf_k": 3})
    assert s2.data_dir == Path("/tmp/override")
    assert s2.retrieval.rrf_k == 3


def test_an_empty_variable_is_unset_so_the_yaml_value_stands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What docker compose passes for `${VAR:-}` when VAR is not set.
    for name in ("API_KEYS", "QDRANT_URL", "RETRIEVAL__RRF_K", "DATA_DIR"):
        monkeypatch.setenv(f"CITEGATE_{name}", "")
    s = load_settings()
    assert s.api_keys == {}
    assert s.qdrant_url is None
    assert s.retrieval.rrf_k == 61
    assert s.data_dir == Path("data")  # config/defaults/citegate.yaml: ./data


def test_bad_value_names_the_key() -> None:
    with pytest.raises(ConfigError, match="final_k"):
        load_settings(retrieval={"final_k": 0})


def test_missing_yaml_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="restore it from git"):
        load_settings(config_dir=tmp_path)
