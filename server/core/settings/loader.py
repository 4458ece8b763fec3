"""Build `Settings` from the YAML defaults, the environment and overrides."""

from __future__ import annotations

import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from server.core.errors import ConfigError
from server.core.paths import repo_root
from server.core.settings.evals import EvalSettings
from server.core.settings.generation import GenerationSettings
from server.core.settings.ingest import IngestSettings
from server.core.settings.integrity import IntegritySettings
from server.core.settings.models import ModelSettings
from server.core.settings.retrieval import RetrievalSettings
from server.core.settings.service import ServiceSettings

GROUPS = ("models", "ingest", "retrieval", "generation", "integrity", "service", "evals")
_YAML: ContextVar[dict[str, Any] | None] = ContextVar("citegate_yaml_defaults", default=None)


class _YamlDefaults(PydanticBaseSettingsSource):
    """The lowest-ranked source: the YAML defaults `load_settings` read."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return (_YAML.get() or {}).get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(_YAML.get() or {})


class ApiKey(BaseModel):
    """One API key's role and read scope (SPEC 8.1)."""

    role: Literal["user", "admin", "evaluator"]
    scope: list[str] | None = Field(
        default=None, description="tags this key may read; None means every tag"
    )


class Settings(BaseSettings):
    """Every knob citegate has. Fields carry no code defaults: the YAML is the one source."""

    # An empty CITEGATE_* variable means unset (docker compose passes `${VAR:-}` as ""), so
    # the YAML value stands instead of "" failing to parse as JSON, a URL or a number.
    model_config = SettingsConfigDict(
        env_prefix="CITEGATE_",
        env_nested_delimiter="__",
        env_ignore_empty=True,
        extra="forbid",
        frozen=True,
    )

    data_dir: Path = Field(description="folder every command writes to (store, traces, caches)")
    qdrant_url: str | None = Field(
        description="Qdrant server URL; unset means embedded Qdrant Edge"
    )
    qdrant_api_key: str | None = Field(description="API key for the Qdrant server, if it has one")
    collection: str = Field(description="collection (server) or shard folder (edge) name")
    generator: Literal["extractive", "llm"] = Field(description="which generator answers")
    llm_base_url: str | None = Field(
        description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1"
    )
    llm_model: str | None = Field(description="model name sent to the LLM endpoint")
    llm_api_key: str | None = Field(description="key for the LLM endpoint")
    api_keys: dict[str, ApiKey] = Field(description="API key -> role and scope")
    api_keys_file: Path | None = Field(description="JSON file of the same shape as api_keys")
    corpus_policy_file: Path = Field(description="corpus policy YAML (SPEC 3.2)")
    models: ModelSettings
    ingest: IngestSettings
    retrieval: RetrievalSettings
    generation: GenerationSettings
    integrity: IntegritySettings
    service: ServiceSettings
    evals: EvalSettings

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _YamlDefaults(settings_cls))


def default_config_dir() -> Path:
    """`CITEGATE_CONFIG_DIR`, else the repository's `config/` beside the `server` package."""
    env = os.environ.get("CITEGATE_CONFIG_DIR")
    if env:
        return Path(env)
    return repo_root() / "config"


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError as exc:
        raise ConfigError(f"missing settings file {path}; restore it from git") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"settings file {path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"settings file {path} must hold a mapping, not {type(data).__name__}")
    return data


def _yaml_defaults(config_dir: Path) -> dict[str, Any]:
    defaults_dir = config_dir / "defaults"
    merged = _read_yaml(defaults_dir / "citegate.yaml")
    for group in GROUPS:
        merged[group] = _read_yaml(defaults_dir / f"{group}.yaml")
    policy = Path(merged.get("corpus_policy_file", "corpus_policy.yaml"))
    merged["corpus_policy_file"] = policy if policy.is_absolute() else config_dir / policy
    return merged


def load_settings(config_dir: Path | None = None, **overrides: Any) -> Settings:
    """Build the one Settings object; raises ConfigError naming the bad key.

    Keyword `overrides` beat environment variables, which beat the YAML. A nested
    group given as an override replaces only the keys it names.
    """
    token = _YAML.set(_yaml_defaults(config_dir or default_config_dir()))
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise ConfigError(f"invalid settings: {exc}") from exc
    finally:
        _YAML.reset(token)
