"""Fitted models read from JSON: the model, or an error that says what to do."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from server.core.errors import ConfigError
from server.core.fitted import read_fitted


class _Line(BaseModel):
    slope: float
    intercept: float


def test_read_fitted_parses_the_file_or_names_what_it_should_be_and_the_remedy(
    tmp_path: Path,
) -> None:
    path = tmp_path / "line.json"
    path.write_text('{"slope": 2.0, "intercept": -1}', encoding="utf-8")
    assert read_fitted(path, _Line, "a line", "re-fit it") == _Line(slope=2.0, intercept=-1.0)
    path.write_text('{"slope": 2.0', encoding="utf-8")  # cut short
    with pytest.raises(ConfigError, match=r"line.json is not a line \(.*\); re-fit it"):
        read_fitted(path, _Line, "a line", "re-fit it")
    path.write_text('{"slope": "steep", "intercept": 0}', encoding="utf-8")  # wrong type
    with pytest.raises(ConfigError, match="is not a line"):
        read_fitted(path, _Line, "a line", "re-fit it")
