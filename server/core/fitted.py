"""Fitted models kept as JSON files (refusal model, support model, injection judge)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from server.core.errors import ConfigError

M = TypeVar("M", bound=BaseModel)


def read_fitted(path: Path, model: type[M], what: str, remedy: str) -> M:
    """`path` parsed as `model`, or a ConfigError that names `what` it should be and the
    `remedy` ("re-fit it with ..."); a missing file is the caller's to handle first."""
    try:
        return model.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, OSError) as exc:
        raise ConfigError(f"{path} is not {what} ({exc}); {remedy}") from exc
